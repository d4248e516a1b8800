package httpapi

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
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
		if err := checkSuite(ctx, tx, v, true); err != nil {
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

// checkSuite refuses a blank name and, when checkTests, tests that are not
// the organization's, or listed twice. A change that leaves test_ids as
// they are does not check them: a test deleted since it was added stays in
// the suite (its runs report it as an error) and must not block the change.
func checkSuite(ctx context.Context, tx *store.Tx, v store.Suite, checkTests bool) error {
	var f failure.Fields
	if v.Name == "" {
		f.Add("name", "must not be blank")
	}
	if !checkTests {
		return f.Err()
	}
	found, err := tx.RestTestsByID(ctx, v.TestIDs)
	if err != nil {
		return err
	}
	seen := map[uuid.UUID]int{}
	for i, id := range v.TestIDs {
		at := "test_ids[" + strconv.Itoa(i) + "]"
		if j, dup := seen[id]; dup {
			f.Add(at, "test %s is already in the suite (test_ids[%d])", id, j)
			continue
		}
		seen[id] = i
		if _, ok := found[id]; !ok {
			f.Add(at, "no test with this id in the organization")
		}
	}
	return f.Err()
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
		return checkSuite(ctx, tx, *v, b.TestIds != nil)
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
	suite, found, err := withParent(ctx, s, req.SuiteId, (*store.Tx).Suite,
		func(tx *store.Tx, suite store.Suite) (map[uuid.UUID]store.RestTest, error) {
			return tx.RestTestsByID(ctx, suite.TestIDs)
		})
	if err != nil {
		return nil, err
	}
	tests := make([]resttest.SuiteTest, len(suite.TestIDs))
	for i, id := range suite.TestIDs {
		tests[i] = resttest.SuiteTest{ID: id}
		if t, ok := found[id]; ok {
			c := t.Case
			tests[i].Name, tests[i].Case = c.Name, &c
		}
	}
	runner, done := s.runner(ctx, "test_run")
	defer done()
	started := time.Now().UTC()
	parts := resttest.RunSuite(ctx, tests, suite.Parallelism, suite.StopOnFailure, runner.Run)
	run := store.SuiteRun{ID: uuid.New(), SuiteID: suite.ID, StartedAt: started, DurationMS: elapsedMS(started),
		Total: len(parts), TestRuns: parts}
	for _, p := range parts {
		switch p.Status {
		case resttest.StatusPassed:
			run.PassedCount++
		case resttest.StatusSkipped:
			run.SkippedCount++
		default:
			run.FailedCount++
		}
	}
	run.Passed = run.FailedCount == 0 && run.SkippedCount == 0
	run, err = inTenant(context.WithoutCancel(ctx), s, func(tx *store.Tx, _ auth.Principal) (store.SuiteRun, error) {
		for i := range run.TestRuns {
			p := &run.TestRuns[i]
			if p.Run == nil {
				continue
			}
			tr, err := tx.CreateTestRun(ctx, uuid.New(), p.TestID, *p.Run)
			if failure.Is(err, failure.ErrNotFound) {
				continue // deleted while the suite ran
			}
			if err != nil {
				return run, err
			}
			p.RunID = &tr.ID
		}
		return tx.CreateSuiteRun(ctx, run)
	})
	if err != nil {
		return nil, err
	}
	return api.RunSuite201JSONResponse(apiSuiteRun(run)), nil
}

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
