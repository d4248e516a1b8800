package httpapi

import (
	"context"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/explore"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ListSessions lists a page of the organization's exploratory sessions.
func (s *Server) ListSessions(ctx context.Context, req api.ListSessionsRequestObject) (api.ListSessionsResponseObject, error) {
	items, next, err := listPage(ctx, s, req.Params.Cursor, req.Params.Limit, 50, (*store.Tx).ExploreSessions, apiSession)
	if err != nil {
		return nil, err
	}
	return api.ListSessions200JSONResponse{Items: items, NextCursor: next}, nil
}

// CreateSession starts a session against a base URL or one of the
// organization's servers.
func (s *Server) CreateSession(ctx context.Context, req api.CreateSessionRequestObject) (api.CreateSessionResponseObject, error) {
	b := req.Body
	start := explore.Start{Name: b.Name, BaseURL: b.BaseUrl, ServerID: b.ServerId}
	v, err := start.Session(func(server uuid.UUID) string { return s.baseURL(ctx) + mcpserve.EndpointPath(server) })
	if err != nil {
		return nil, err
	}
	v, err = inTenant(ctx, s, func(tx *store.Tx, p auth.Principal) (store.ExploreSession, error) {
		return explore.Create(ctx, tx, v, p.Actor())
	})
	if err != nil {
		return nil, err
	}
	return api.CreateSession201JSONResponse(apiSession(v)), nil
}

// GetSession reads a session with its entries.
func (s *Server) GetSession(ctx context.Context, req api.GetSessionRequestObject) (api.GetSessionResponseObject, error) {
	v, entries, err := withParent(ctx, s, req.SessionId, (*store.Tx).ExploreSession,
		func(tx *store.Tx, v store.ExploreSession) ([]store.ExploreEntry, error) {
			return tx.ExploreEntries(ctx, v.ID)
		})
	if err != nil {
		return nil, err
	}
	base := apiSession(v)
	out := api.GetSession200JSONResponse{Id: base.Id, Name: base.Name, BaseUrl: base.BaseUrl, ServerId: base.ServerId,
		CreatedBy: base.CreatedBy, CreatedAt: base.CreatedAt, UpdatedAt: base.UpdatedAt,
		Entries: mapEach(entries, apiEntry)}
	return out, nil
}

// DeleteSession deletes a session and its log.
func (s *Server) DeleteSession(ctx context.Context, req api.DeleteSessionRequestObject) (api.DeleteSessionResponseObject, error) {
	if err := removeByID(ctx, s, req.SessionId, (*store.Tx).DeleteExploreSession); err != nil {
		return nil, err
	}
	return api.DeleteSession204Response{}, nil
}

// SendSessionRequest sends one ad-hoc request and logs it.
func (s *Server) SendSessionRequest(ctx context.Context, req api.SendSessionRequestRequestObject) (api.SendSessionRequestResponseObject, error) {
	b := req.Body
	in := explore.Request{Method: b.Method, Path: deref(b.Path), QueryParams: deref(b.QueryParams), Headers: deref(b.Headers),
		Body: deref(b.Body)}
	inTx := func(ctx context.Context, fn func(explore.Store) error) error {
		return s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) error { return fn(tx) })
	}
	runner := func() (explore.Runner, func()) { return s.runner(ctx, "session") }
	entry, err := explore.Send(ctx, inTx, runner, req.SessionId, in)
	if err != nil {
		return nil, err
	}
	return api.SendSessionRequest201JSONResponse(apiEntry(entry)), nil
}

// SaveSessionEntryAsTest turns a logged request into a test case.
func (s *Server) SaveSessionEntryAsTest(ctx context.Context, req api.SaveSessionEntryAsTestRequestObject) (api.SaveSessionEntryAsTestResponseObject, error) {
	b := req.Body
	v, entry, err := withParent(ctx, s, req.SessionId, (*store.Tx).ExploreSession,
		func(tx *store.Tx, v store.ExploreSession) (store.ExploreEntry, error) {
			return tx.ExploreEntry(ctx, v.ID, req.EntryId)
		})
	if err != nil {
		return nil, err
	}
	c, err := explore.TestCase(v, entry, explore.Save{Name: b.Name, Description: deref(b.Description),
		ExpectedStatus: b.ExpectedStatus, Conditions: deref(b.Conditions)})
	if err != nil {
		return nil, err
	}
	t, err := s.createTest(ctx, c, nil)
	if err != nil {
		return nil, err
	}
	return api.SaveSessionEntryAsTest201JSONResponse(apiRestTest(t)), nil
}

// The session workflows read and write in the handlers' transactions, and
// send with the test runner.
var (
	_ explore.Store  = (*store.Tx)(nil)
	_ explore.Runner = (*resttest.Runner)(nil)
)

func apiSession(v store.ExploreSession) api.Session {
	out := api.Session{Id: v.ID, Name: v.Name, BaseUrl: v.BaseURL, ServerId: nullable.NewNullNullable[uuid.UUID](),
		CreatedBy: v.CreatedBy, CreatedAt: v.CreatedAt.UTC(), UpdatedAt: v.UpdatedAt.UTC()}
	if v.ServerID != nil {
		out.ServerId = nullable.NewNullableWithValue(*v.ServerID)
	}
	return out
}

func apiEntry(e store.ExploreEntry) api.SessionEntry {
	out := api.SessionEntry{Id: e.ID, Request: e.Request, Response: nullable.NewNullNullable[resttest.Response](),
		Error: nullableString(nil), DurationMs: e.DurationMS, CreatedAt: e.CreatedAt.UTC()}
	if e.Response != nil {
		out.Response = nullable.NewNullableWithValue(*e.Response)
	}
	if e.Error != "" {
		out.Error = nullableString(&e.Error)
	}
	return out
}
