package httpapi

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/outbound"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
)

// maxSessionEntries bounds the log of one exploratory session.
const maxSessionEntries = 1000

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
	v := store.ExploreSession{ID: uuid.New(), Name: strings.TrimSpace(b.Name), ServerID: b.ServerId}
	var f failure.Fields
	if v.Name == "" {
		f.Add("name", "must not be blank")
	}
	switch {
	case b.BaseUrl != nil && b.ServerId != nil:
		f.Add("server_id", "give base_url or server_id, not both")
	case b.BaseUrl != nil:
		v.BaseURL = trimSlash(*b.BaseUrl)
		if err := outbound.CheckURL(v.BaseURL); err != nil {
			f.Add("base_url", "%s", err.Error())
		} else {
			// Refuse a base its requests could never use (a query, a
			// fragment): they are checked by the rules of a test case.
			probe := resttest.Case{BaseURL: v.BaseURL, Scopes: []resttest.Scope{{Method: "GET"}}}
			for _, e := range resttest.CheckRequest(probe) {
				f.Add(e.Field, "%s", e.Message)
			}
		}
	case b.ServerId != nil:
		v.BaseURL = s.baseURL(ctx) + mcpserve.EndpointPath(*b.ServerId)
	default:
		f.Add("base_url", "give base_url or server_id")
	}
	if err := f.Err(); err != nil {
		return nil, err
	}
	v, err := inTenant(ctx, s, func(tx *store.Tx, p auth.Principal) (store.ExploreSession, error) {
		if v.ServerID != nil {
			if _, err := tx.Server(ctx, *v.ServerID); failure.Is(err, failure.ErrNotFound) {
				return v, failure.Invalid(failure.Field("server_id", "no MCP server with this id in the organization"))
			} else if err != nil {
				return v, err
			}
		}
		v.CreatedBy = p.Actor()
		return tx.CreateExploreSession(ctx, v)
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
	v, _, err := withParent(ctx, s, req.SessionId, (*store.Tx).ExploreSession, func(tx *store.Tx, v store.ExploreSession) (int64, error) {
		n, err := tx.CountExploreEntries(ctx, v.ID)
		if err == nil && n >= maxSessionEntries {
			return n, failure.Invalid(failure.Field("session", "a session keeps at most %d requests; start a new one", maxSessionEntries))
		}
		return n, err
	})
	if err != nil {
		return nil, err
	}
	// The request is one scope of a one-off case: the runner builds, sends,
	// masks and parses it exactly as a test run would.
	path := deref(b.Path)
	c := resttest.Case{Name: "session request", BaseURL: v.BaseURL,
		Scopes: []resttest.Scope{{Method: b.Method, Path: path}},
		Input:  resttest.Input{QueryParams: deref(b.QueryParams), Headers: deref(b.Headers), Body: deref(b.Body)}}
	resttest.Normalize(&c)
	if errs := resttest.CheckRequest(c); len(errs) > 0 {
		return nil, failure.Invalid(errs...)
	}
	runner, done := s.runner(ctx, "session")
	defer done()
	started := time.Now()
	r := runner.Run(ctx, c)
	res := r.Results[0]
	entry := store.ExploreEntry{ID: uuid.New(), SessionID: v.ID, Request: res.Request, Response: res.Response,
		Error: res.Error, DurationMS: elapsedMS(started)}
	entry, err = inTenant(context.WithoutCancel(ctx), s, func(tx *store.Tx, _ auth.Principal) (store.ExploreEntry, error) {
		return tx.CreateExploreEntry(ctx, entry)
	})
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
	c, err := caseFromEntry(v, entry)
	if err != nil {
		return nil, err
	}
	c.Name, c.Description = b.Name, deref(b.Description)
	exp := resttest.Expectation{ExpectedStatus: b.ExpectedStatus}
	if exp.ExpectedStatus == nil && entry.Response != nil {
		status := entry.Response.Status
		exp.ExpectedStatus = &status
	}
	if b.Conditions != nil {
		exp.Conditions = *b.Conditions
	}
	c.Input.Expectations = map[string]resttest.Expectation{c.Scopes[0].Label(): exp}
	t, err := s.createTest(ctx, c, nil)
	if err != nil {
		return nil, err
	}
	return api.SaveSessionEntryAsTest201JSONResponse(apiRestTest(t)), nil
}

// caseFromEntry rebuilds the request of an entry as a case: the session's
// base URL, the path below it and the query, headers and body as sent.
// Masked header values are left out: the log never held them.
func caseFromEntry(v store.ExploreSession, e store.ExploreEntry) (resttest.Case, error) {
	u, err := url.Parse(e.Request.URL)
	if err != nil {
		return resttest.Case{}, err
	}
	base, path := v.BaseURL, strings.TrimPrefix(u.EscapedPath(), mustPath(v.BaseURL))
	if path == "" {
		// The request went to the base URL itself. A scope path of "/"
		// would call the base with a trailing slash, another URL (a server
		// session's MCP endpoint answers 404 there), so the base's last
		// segment becomes the path.
		base, path = splitLastSegment(base)
	}
	// The path is kept unescaped where that reads better and calls the
	// same URL: not where unescaping would change the URL (%2F becomes a
	// segment break) or give a path a case cannot hold (a space, '?',
	// '#', or braces, which would read as path parameters).
	if unescaped, err := url.PathUnescape(path); err == nil &&
		!strings.ContainsAny(unescaped, "{}?#") &&
		strings.IndexFunc(unescaped, func(r rune) bool { return r <= ' ' || r == 0x7f }) < 0 &&
		(&url.URL{Path: unescaped}).EscapedPath() == path {
		path = unescaped
	}
	c := resttest.Case{BaseURL: base, Scopes: []resttest.Scope{{Method: e.Request.Method, Path: path}},
		Input: resttest.Input{Body: e.Request.Body}}
	if q := u.Query(); len(q) > 0 {
		c.Input.QueryParams = map[string]string{}
		for k, vals := range q {
			if resttest.MaskQuery(k, vals[0]) != vals[0] || vals[0] == "****" {
				continue // masked in the log: the secret was never kept
			}
			c.Input.QueryParams[k] = vals[0]
		}
	}
	for k, val := range e.Request.Headers {
		if resttest.MaskHeader(k, val) != val || strings.Contains(val, "****") {
			continue
		}
		if c.Input.Headers == nil {
			c.Input.Headers = map[string]string{}
		}
		c.Input.Headers[k] = val
	}
	return c, nil
}

// splitLastSegment splits a base URL without a trailing slash into the
// base above its last path segment and that segment ("/mcp"); a base
// without a path gives "/".
func splitLastSegment(base string) (string, string) {
	p := mustPath(base)
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 && strings.HasSuffix(base, p[i:]) {
		return strings.TrimSuffix(base, p[i:]), p[i:]
	}
	return base, "/"
}

func mustPath(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return ""
	}
	return u.EscapedPath()
}

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
