package httpapi

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/outbound"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/scenariotests"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ListTests lists a page of the organization's test cases.
func (s *Server) ListTests(ctx context.Context, req api.ListTestsRequestObject) (api.ListTestsResponseObject, error) {
	items, next, err := listPage(ctx, s, req.Params.Cursor, req.Params.Limit, 50, (*store.Tx).RestTests, apiRestTest)
	if err != nil {
		return nil, err
	}
	return api.ListTests200JSONResponse{Items: items, NextCursor: next}, nil
}

// CreateTest stores a test case once every part of it checks out.
func (s *Server) CreateTest(ctx context.Context, req api.CreateTestRequestObject) (api.CreateTestResponseObject, error) {
	b := req.Body
	c := resttest.Case{Name: b.Name, Description: deref(b.Description), BaseURL: b.BaseUrl, Scopes: b.Scopes}
	if b.Input != nil {
		c.Input = *b.Input
	}
	t, err := s.createTest(ctx, c, nil)
	if err != nil {
		return nil, err
	}
	return api.CreateTest201JSONResponse(apiRestTest(t)), nil
}

func (s *Server) createTest(ctx context.Context, c resttest.Case, generatedFrom json.RawMessage) (store.RestTest, error) {
	resttest.Normalize(&c)
	if errs := resttest.CheckCase(c); len(errs) > 0 {
		return store.RestTest{}, failure.Invalid(errs...)
	}
	return inTenant(ctx, s, func(tx *store.Tx, p auth.Principal) (store.RestTest, error) {
		return tx.CreateRestTest(ctx, uuid.New(), c, generatedFrom, p.Actor())
	})
}

// GetTest reads one test case.
func (s *Server) GetTest(ctx context.Context, req api.GetTestRequestObject) (api.GetTestResponseObject, error) {
	t, err := byID(ctx, s, req.TestId, (*store.Tx).RestTest)
	if err != nil {
		return nil, err
	}
	return api.GetTest200JSONResponse(apiRestTest(t)), nil
}

// UpdateTest changes the given fields of a test case.
func (s *Server) UpdateTest(ctx context.Context, req api.UpdateTestRequestObject) (api.UpdateTestResponseObject, error) {
	b := req.Body
	t, err := inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (store.RestTest, error) {
		t, err := tx.LockRestTest(ctx, req.TestId)
		if err != nil {
			return t, err
		}
		c := t.Case
		c.Name = or(b.Name, c.Name)
		c.Description = or(b.Description, c.Description)
		c.BaseURL = or(b.BaseUrl, c.BaseURL)
		c.Scopes = or(b.Scopes, c.Scopes)
		c.Input = or(b.Input, c.Input)
		resttest.Normalize(&c)
		if errs := resttest.CheckCase(c); len(errs) > 0 {
			return t, failure.Invalid(errs...)
		}
		return tx.UpdateRestTest(ctx, t.ID, c)
	})
	if err != nil {
		return nil, err
	}
	return api.UpdateTest200JSONResponse(apiRestTest(t)), nil
}

// DeleteTest deletes a test case and its runs.
func (s *Server) DeleteTest(ctx context.Context, req api.DeleteTestRequestObject) (api.DeleteTestResponseObject, error) {
	if err := removeByID(ctx, s, req.TestId, (*store.Tx).DeleteRestTest); err != nil {
		return nil, err
	}
	return api.DeleteTest204Response{}, nil
}

// RunTest runs a test case now and stores the run. The requests are sent
// outside any transaction: a slow target holds no database connection.
func (s *Server) RunTest(ctx context.Context, req api.RunTestRequestObject) (api.RunTestResponseObject, error) {
	t, err := byID(ctx, s, req.TestId, (*store.Tx).RestTest)
	if err != nil {
		return nil, err
	}
	runner, done := s.runner(ctx, "test_run")
	defer done()
	r := runner.Run(ctx, t.Case)
	kept := context.WithoutCancel(ctx) // a caller gone once the run is over loses nothing
	run, err := inTenant(kept, s, func(tx *store.Tx, _ auth.Principal) (store.TestRun, error) {
		return tx.CreateTestRun(kept, uuid.New(), t.ID, r)
	})
	if err != nil {
		return nil, err
	}
	return api.RunTest201JSONResponse(apiTestRun(run)), nil
}

// ListTestRuns lists a page of a test's runs, newest first.
func (s *Server) ListTestRuns(ctx context.Context, req api.ListTestRunsRequestObject) (api.ListTestRunsResponseObject, error) {
	items, next, err := listPage(ctx, s, req.Params.Cursor, req.Params.Limit, 20,
		pageUnder(req.TestId, (*store.Tx).RestTest, (*store.Tx).TestRuns), apiTestRun)
	if err != nil {
		return nil, err
	}
	return api.ListTestRuns200JSONResponse{Items: items, NextCursor: next}, nil
}

// GenerateTests stores one test per scenario of a tool, calling the
// server's per-server MCP endpoint.
func (s *Server) GenerateTests(ctx context.Context, req api.GenerateTestsRequestObject) (api.GenerateTestsResponseObject, error) {
	base := s.baseURL(ctx)
	if req.Body != nil && req.Body.BaseUrl != nil {
		base = *req.Body.BaseUrl
		if err := scenariotests.CheckBase(base); err != nil {
			return nil, err
		}
	}
	saved, err := inTenant(ctx, s, func(tx *store.Tx, p auth.Principal) (scenariotests.Saved, error) {
		return scenariotests.Save(ctx, tx, req.ServerId, req.ToolId, base, p.Actor())
	})
	if err != nil {
		return nil, err
	}
	return api.GenerateTests201JSONResponse{Items: mapEach(saved.Tests, apiRestTest), Warnings: saved.Warnings}, nil
}

// Generated tests are stored in the handler's transaction.
var _ scenariotests.Store = (*store.Tx)(nil)

// runner is a test runner whose requests are guarded against private
// targets, except the service's own origins, which it serves in process;
// its requests count as kind. done releases its connections.
func (s *Server) runner(ctx context.Context, kind string) (*resttest.Runner, func()) {
	client, done := s.outboundClient(ctx, kind, outbound.DefaultMaxBody)
	return &resttest.Runner{Client: client, MaxBody: outbound.DefaultMaxBody}, done
}

func apiRestTest(t store.RestTest) api.RestTest {
	out := api.RestTest{Id: t.ID, Name: t.Case.Name, Description: t.Case.Description, BaseUrl: t.Case.BaseURL,
		Scopes: nonNil(t.Case.Scopes), Input: t.Case.Input, GeneratedFrom: nullable.NewNullNullable[json.RawMessage](),
		CreatedBy: t.CreatedBy, CreatedAt: t.CreatedAt.UTC(), UpdatedAt: t.UpdatedAt.UTC()}
	if len(t.GeneratedFrom) > 0 {
		out.GeneratedFrom = nullable.NewNullableWithValue(t.GeneratedFrom)
	}
	return out
}

func apiTestRun(r store.TestRun) api.TestRun {
	return api.TestRun{Id: r.ID, TestId: r.TestID, Passed: r.Passed, StartedAt: r.StartedAt.UTC(),
		DurationMs: r.DurationMS, Results: nonNil(r.Results)}
}
