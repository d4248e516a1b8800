package httpapi

import (
	"bytes"
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/suite"
)

// ListSuites lists a page of the organization's suites.
func (s *Server) ListSuites(ctx context.Context, req api.ListSuitesRequestObject) (api.ListSuitesResponseObject, error) {
	items, next, err := listPage(ctx, s, req.Params.Cursor, req.Params.Limit, 50,
		func(tx *store.Tx, ctx context.Context, after *store.PageKey, limit int) ([]store.Suite, *store.PageKey, error) {
			return tx.Suites(ctx, deref(req.Params.Name), after, limit)
		}, apiSuite)
	if err != nil {
		return nil, err
	}
	return api.ListSuites200JSONResponse{Items: items, NextCursor: next}, nil
}

// CreateSuite stores a suite of existing tests.
func (s *Server) CreateSuite(ctx context.Context, req api.CreateSuiteRequestObject) (api.CreateSuiteResponseObject, error) {
	b := req.Body
	v := store.Suite{ID: uuid.New(), Name: strings.TrimSpace(b.Name), Description: deref(b.Description),
		TestIDs: b.TestIds, StopOnFailure: deref(b.StopOnFailure), Parallelism: or(b.Parallelism, 1)}
	v, err := inTenant(ctx, s, func(tx *store.Tx, p auth.Principal) (store.Suite, error) {
		if err := suite.Check(ctx, tx, v, true); err != nil {
			return v, err
		}
		v.CreatedBy = p.Actor()
		return tx.CreateSuite(ctx, v)
	})
	if err != nil {
		return nil, err
	}
	return api.CreateSuite201JSONResponse(apiSuite(v)), nil
}

// GetSuite reads one suite.
func (s *Server) GetSuite(ctx context.Context, req api.GetSuiteRequestObject) (api.GetSuiteResponseObject, error) {
	v, err := byID(ctx, s, req.SuiteId, (*store.Tx).Suite)
	if err != nil {
		return nil, err
	}
	return api.GetSuite200JSONResponse(apiSuite(v)), nil
}

// UpdateSuite changes the given fields of a suite.
func (s *Server) UpdateSuite(ctx context.Context, req api.UpdateSuiteRequestObject) (api.UpdateSuiteResponseObject, error) {
	b := req.Body
	v, err := editLocked(ctx, s, req.SuiteId, (*store.Tx).LockSuite, func(tx *store.Tx, v *store.Suite) error {
		if b.Name != nil {
			v.Name = strings.TrimSpace(*b.Name)
		}
		v.Description = or(b.Description, v.Description)
		v.TestIDs = or(b.TestIds, v.TestIDs)
		v.StopOnFailure = or(b.StopOnFailure, v.StopOnFailure)
		v.Parallelism = or(b.Parallelism, v.Parallelism)
		return suite.Check(ctx, tx, *v, b.TestIds != nil)
	}, (*store.Tx).UpdateSuite)
	if err != nil {
		return nil, err
	}
	return api.UpdateSuite200JSONResponse(apiSuite(v)), nil
}

// DeleteSuite deletes a suite and its runs.
func (s *Server) DeleteSuite(ctx context.Context, req api.DeleteSuiteRequestObject) (api.DeleteSuiteResponseObject, error) {
	if err := removeByID(ctx, s, req.SuiteId, (*store.Tx).DeleteSuite); err != nil {
		return nil, err
	}
	return api.DeleteSuite204Response{}, nil
}

// RunSuite runs a suite's tests now, stores each test's run and the suite
// run, and answers the suite run.
func (s *Server) RunSuite(ctx context.Context, req api.RunSuiteRequestObject) (api.RunSuiteResponseObject, error) {
	inTx := func(ctx context.Context, fn func(suite.Store) error) error {
		return s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) error { return fn(tx) })
	}
	runner := func() (suite.Runner, func()) { return s.runner(ctx, "test_run") }
	run, err := suite.Run(ctx, inTx, runner, req.SuiteId)
	if err != nil {
		return nil, err
	}
	return api.RunSuite201JSONResponse(apiSuiteRun(run)), nil
}

// The suite workflows read and write in the handlers' transactions, and
// run with the test runner.
var (
	_ suite.Store  = (*store.Tx)(nil)
	_ suite.Runner = (*resttest.Runner)(nil)
)

// ListSuiteRuns lists a page of a suite's runs, newest first.
func (s *Server) ListSuiteRuns(ctx context.Context, req api.ListSuiteRunsRequestObject) (api.ListSuiteRunsResponseObject, error) {
	items, next, err := listPage(ctx, s, req.Params.Cursor, req.Params.Limit, 20,
		pageUnder(req.SuiteId, (*store.Tx).Suite, (*store.Tx).SuiteRuns), apiSuiteRun)
	if err != nil {
		return nil, err
	}
	return api.ListSuiteRuns200JSONResponse{Items: items, NextCursor: next}, nil
}

// GetSuiteRun reads one suite run, as JSON or as JUnit XML.
func (s *Server) GetSuiteRun(ctx context.Context, req api.GetSuiteRunRequestObject) (api.GetSuiteRunResponseObject, error) {
	suite, run, err := withParent(ctx, s, req.SuiteId, (*store.Tx).Suite,
		func(tx *store.Tx, _ store.Suite) (store.SuiteRun, error) {
			return tx.SuiteRun(ctx, req.SuiteId, req.RunId)
		})
	if err != nil {
		return nil, err
	}
	if !wantsJUnit(req.Params.Format, requestAccept(ctx)) {
		return api.GetSuiteRun200JSONResponse(apiSuiteRun(run)), nil
	}
	xml, err := resttest.JUnit(suiteReport(suite.Name, run))
	if err != nil {
		return nil, err
	}
	return api.GetSuiteRun200ApplicationxmlResponse{Body: bytes.NewReader(xml), ContentLength: int64(len(xml))}, nil
}

// wantsJUnit: ?format=junit, or an Accept that names XML and not JSON
// first, unless ?format=json.
func wantsJUnit(format *api.GetSuiteRunParamsFormat, accept string) bool {
	if format != nil {
		return *format == api.Junit
	}
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(strings.TrimSpace(part), ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "application/xml", "text/xml":
			return true
		case "application/json", "*/*", "application/*":
			return false
		}
	}
	return false
}

// suiteReport is the JUnit view of a stored suite run.
func suiteReport(name string, r store.SuiteRun) resttest.SuiteReport {
	rep := resttest.SuiteReport{Name: name, StartedAt: r.StartedAt, DurationMS: r.DurationMS}
	for _, p := range r.TestRuns {
		tr := resttest.TestReport{Name: p.TestName, Run: p.Run}
		if p.Status == resttest.StatusError {
			tr.Name, tr.Error = p.TestID.String(), p.Error
		}
		rep.Tests = append(rep.Tests, tr)
	}
	return rep
}

func apiSuite(v store.Suite) api.Suite {
	return api.Suite{Id: v.ID, Name: v.Name, Description: v.Description, TestIds: nonNil(v.TestIDs),
		StopOnFailure: v.StopOnFailure, Parallelism: v.Parallelism, CreatedBy: v.CreatedBy,
		CreatedAt: v.CreatedAt.UTC(), UpdatedAt: v.UpdatedAt.UTC()}
}

func apiSuiteRun(r store.SuiteRun) api.SuiteRun {
	return api.SuiteRun{Id: r.ID, SuiteId: r.SuiteID, Passed: r.Passed, Total: r.Total, PassedCount: r.PassedCount,
		FailedCount: r.FailedCount, SkippedCount: r.SkippedCount, StartedAt: r.StartedAt.UTC(), DurationMs: r.DurationMS,
		TestRuns: nonNil(r.TestRuns)}
}
