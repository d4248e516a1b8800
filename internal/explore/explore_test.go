package explore

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
)

// memStore is an organization's servers and sessions in memory.
type memStore struct {
	servers  map[uuid.UUID]bool
	sessions map[uuid.UUID]store.ExploreSession
	entries  map[uuid.UUID][]store.ExploreEntry
	fail     error // answered by Server when set
}

func newMemStore() *memStore {
	return &memStore{servers: map[uuid.UUID]bool{}, sessions: map[uuid.UUID]store.ExploreSession{},
		entries: map[uuid.UUID][]store.ExploreEntry{}}
}

func (m *memStore) Server(_ context.Context, id uuid.UUID) (design.Server, error) {
	if m.fail != nil {
		return design.Server{}, m.fail
	}
	if !m.servers[id] {
		return design.Server{}, failure.NotFound("server")
	}
	return design.Server{ID: id}, nil
}

func (m *memStore) CreateExploreSession(_ context.Context, s store.ExploreSession) (store.ExploreSession, error) {
	m.sessions[s.ID] = s
	return s, nil
}

func (m *memStore) ExploreSession(_ context.Context, id uuid.UUID) (store.ExploreSession, error) {
	s, ok := m.sessions[id]
	if !ok {
		return s, failure.NotFound("session")
	}
	return s, nil
}

func (m *memStore) CountExploreEntries(_ context.Context, session uuid.UUID) (int64, error) {
	return int64(len(m.entries[session])), nil
}

func (m *memStore) CreateExploreEntry(_ context.Context, e store.ExploreEntry) (store.ExploreEntry, error) {
	m.entries[e.SessionID] = append(m.entries[e.SessionID], e)
	return e, nil
}

// inTx runs fn on the memory store, counting the transactions.
func (m *memStore) inTx(count *int) InTx {
	return func(_ context.Context, fn func(Store) error) error {
		*count++
		return fn(m)
	}
}

func str(s string) *string { return &s }

func fields(t *testing.T, err error) []string {
	t.Helper()
	f, ok := failure.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, failure.KindInvalid, f.Kind)
	var out []string
	for _, fe := range f.Fields {
		out = append(out, fe.Field)
	}
	return out
}

func TestStartSession(t *testing.T) {
	server := uuid.New()
	endpoint := func(id uuid.UUID) string { return "https://mock.example/api/platform/" + id.String() + "/mcp" }
	cases := []struct {
		name   string
		in     Start
		base   string
		fields []string
	}{
		{"a base URL without its trailing slashes", Start{Name: " users ", BaseURL: str("https://api.example.com/v1//")},
			"https://api.example.com/v1", nil},
		{"a server's endpoint", Start{Name: "mcp", ServerID: &server}, endpoint(server), nil},
		{"a blank name", Start{Name: "  ", BaseURL: str("https://api.example.com")}, "", []string{"name"}},
		{"both", Start{Name: "x", BaseURL: str("https://api.example.com"), ServerID: &server}, "", []string{"server_id"}},
		{"neither", Start{Name: "x"}, "", []string{"base_url"}},
		{"not http", Start{Name: "x", BaseURL: str("ftp://api.example.com")}, "", []string{"base_url"}},
		{"a query", Start{Name: "x", BaseURL: str("https://api.example.com/?a=1")}, "", []string{"base_url"}},
		{"everything wrong", Start{Name: "", BaseURL: str("ftp://x")}, "", []string{"name", "base_url"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := c.in.Session(endpoint)
			if c.fields != nil {
				require.Equal(t, c.fields, fields(t, err))
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.base, v.BaseURL)
			require.NotEqual(t, uuid.Nil, v.ID)
			require.Equal(t, c.in.ServerID, v.ServerID)
			require.NotContains(t, v.Name, " ")
		})
	}
}

func TestCreate(t *testing.T) {
	m := newMemStore()
	mine, theirs := uuid.New(), uuid.New()
	m.servers[mine] = true

	v, err := Create(context.Background(), m, store.ExploreSession{ID: uuid.New(), Name: "mcp", ServerID: &mine}, "user-1")
	require.NoError(t, err)
	require.Equal(t, "user-1", v.CreatedBy)
	require.Contains(t, m.sessions, v.ID)

	_, err = Create(context.Background(), m, store.ExploreSession{ID: uuid.New(), ServerID: &theirs}, "user-1")
	require.Equal(t, []string{"server_id"}, fields(t, err), "another organization's server is not found")
	require.Len(t, m.sessions, 1)

	m.fail = errors.New("connection lost")
	_, err = Create(context.Background(), m, store.ExploreSession{ID: uuid.New(), ServerID: &mine}, "user-1")
	require.ErrorIs(t, err, m.fail)
	_, err = Create(context.Background(), m, store.ExploreSession{ID: uuid.New(), BaseURL: "https://api.example.com"}, "user-1")
	require.NoError(t, err, "a URL session reads no server")
}

// fakeRunner answers every case with one response, and keeps the cases.
type fakeRunner struct {
	cases    []resttest.Case
	released int
}

func (f *fakeRunner) Run(_ context.Context, c resttest.Case) resttest.Run {
	f.cases = append(f.cases, c)
	return resttest.Run{Results: []resttest.Result{{
		Request:  resttest.Request{Method: c.Scopes[0].Method, URL: c.BaseURL + c.Scopes[0].Path},
		Response: &resttest.Response{Status: 200, Body: json.RawMessage(`{"ok":true}`)},
	}}}
}

func (f *fakeRunner) get() (Runner, func()) { return f, func() { f.released++ } }

func TestSend(t *testing.T) {
	m := newMemStore()
	s := store.ExploreSession{ID: uuid.New(), BaseURL: "https://api.example.com"}
	m.sessions[s.ID] = s
	r := &fakeRunner{}
	var txs int

	e, err := Send(context.Background(), m.inTx(&txs), r.get, s.ID, Request{Method: "get", Path: "/users/42",
		QueryParams: map[string]string{"lang": "fr"}, Body: json.RawMessage(`{"a":1}`)})
	require.NoError(t, err)
	require.Equal(t, 2, txs, "one to read the session, one to log the request")
	require.Equal(t, 1, r.released)
	require.Equal(t, resttest.Case{Name: "session request", BaseURL: s.BaseURL, Scopes: []resttest.Scope{{Method: "GET", Path: "/users/42"}},
		Input: resttest.Input{QueryParams: map[string]string{"lang": "fr"}, Body: json.RawMessage(`{"a":1}`)}}, r.cases[0])
	require.Equal(t, s.ID, e.SessionID)
	require.Equal(t, "https://api.example.com/users/42", e.Request.URL)
	require.Equal(t, 200, e.Response.Status)
	require.GreaterOrEqual(t, e.DurationMS, 0.0)
	require.Equal(t, []store.ExploreEntry{e}, m.entries[s.ID])

	_, err = Send(context.Background(), m.inTx(&txs), r.get, s.ID, Request{Method: "FETCH", Path: "users"})
	require.Equal(t, []string{"method", "path"}, fields(t, err))
	_, err = Send(context.Background(), m.inTx(&txs), r.get, uuid.New(), Request{Method: "GET", Path: "/"})
	require.True(t, failure.Is(err, failure.ErrNotFound), "%v", err)

	m.entries[s.ID] = make([]store.ExploreEntry, MaxEntries)
	_, err = Send(context.Background(), m.inTx(&txs), r.get, s.ID, Request{Method: "GET", Path: "/"})
	require.Equal(t, []string{"session"}, fields(t, err))
	require.Len(t, r.cases, 1, "nothing is sent on a refusal")
	require.Equal(t, 1, r.released)
}

func TestTestCase(t *testing.T) {
	status := 201
	cond := []resttest.Condition{{Path: "id"}}
	cases := []struct {
		name  string
		base  string
		req   resttest.Request
		res   *resttest.Response
		save  Save
		want  resttest.Case
		label string
	}{
		{"a path below the base, the answered status expected", "https://api.example.com/v1",
			resttest.Request{Method: "GET", URL: "https://api.example.com/v1/users/42?lang=fr&api_key=****",
				Headers: map[string]string{"Authorization": "Bearer ****", "X-Trace": "t-9"}},
			&resttest.Response{Status: 200}, Save{Name: "user 42"},
			resttest.Case{Name: "user 42", BaseURL: "https://api.example.com/v1", Scopes: []resttest.Scope{{Method: "GET", Path: "/users/42"}},
				Input: resttest.Input{QueryParams: map[string]string{"lang": "fr"}, Headers: map[string]string{"X-Trace": "t-9"}}},
			"GET /users/42"},
		{"the base itself: its last segment is the path", "https://mock.example/api/platform/s/mcp",
			resttest.Request{Method: "POST", URL: "https://mock.example/api/platform/s/mcp", Body: json.RawMessage(`{"a":1}`)},
			nil, Save{Name: "mcp", Description: "d", ExpectedStatus: &status, Conditions: cond},
			resttest.Case{Name: "mcp", Description: "d", BaseURL: "https://mock.example/api/platform/s", Scopes: []resttest.Scope{{Method: "POST", Path: "/mcp"}},
				Input: resttest.Input{Body: json.RawMessage(`{"a":1}`)}},
			"POST /mcp"},
		{"an escaped slash stays escaped, an escaped letter does not", "https://api.example.com",
			resttest.Request{Method: "GET", URL: "https://api.example.com/files/a%2Fb/%63"},
			&resttest.Response{Status: 404}, Save{Name: "file"},
			resttest.Case{Name: "file", BaseURL: "https://api.example.com", Scopes: []resttest.Scope{{Method: "GET", Path: "/files/a%2Fb/%63"}}},
			"GET /files/a%2Fb/%63"},
		{"a base without a path", "https://api.example.com",
			resttest.Request{Method: "GET", URL: "https://api.example.com"},
			&resttest.Response{Status: 204}, Save{Name: "root"},
			resttest.Case{Name: "root", BaseURL: "https://api.example.com", Scopes: []resttest.Scope{{Method: "GET", Path: "/"}}},
			"GET /"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := TestCase(store.ExploreSession{BaseURL: c.base}, store.ExploreEntry{Request: c.req, Response: c.res}, c.save)
			require.NoError(t, err)
			exp := got.Input.Expectations
			got.Input.Expectations = nil
			require.Equal(t, c.want, got)
			want := resttest.Expectation{ExpectedStatus: c.save.ExpectedStatus, Conditions: c.save.Conditions}
			if want.ExpectedStatus == nil {
				want.ExpectedStatus = &c.res.Status
			}
			require.Equal(t, map[string]resttest.Expectation{c.label: want}, exp)
		})
	}

	_, err := TestCase(store.ExploreSession{}, store.ExploreEntry{Request: resttest.Request{URL: "http://[::1"}}, Save{})
	require.Error(t, err)
}
