// Package apitest boots the whole service against a fresh test database and
// gives tests HTTP clients that act as signed-in users, so route tests go
// through the same router, middleware, validation and row-level security as
// production traffic.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/service"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// Env is one booted service on its own database.
type Env struct {
	URL     string
	Service *service.Service
	Config  config.Config
}

// Options adjust the configuration of a booted service.
type Options struct {
	// Configure changes the configuration before the service starts.
	Configure func(*config.Config)
}

// New boots the service for t on a fresh database, serving over a real
// loopback listener.
func New(t testing.TB, opts *Options) *Env {
	t.Helper()
	cfg, err := config.Parse(func(string) string { return "" })
	require.NoError(t, err)
	cfg.DatabaseURL = testdb.New(t)
	cfg.BcryptCost = 4 // the minimum: tests create many accounts
	cfg.ListenAddr = "127.0.0.1:0"
	cfg.MetricsAddr = "" // a test that reads the metrics sets 127.0.0.1:0
	if opts != nil && opts.Configure != nil {
		opts.Configure(&cfg)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	svc, err := service.New(context.Background(), cfg, log)
	require.NoError(t, err)
	srv := httptest.NewServer(svc.Handler())
	t.Cleanup(func() {
		svc.MCP().CloseStreams() // else srv.Close waits on them
		srv.Close()
		_ = svc.Close()
	})
	return &Env{URL: srv.URL, Service: svc, Config: cfg}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Client is an HTTP client with its own cookie jar: one browser.
type Client struct {
	t      testing.TB
	env    *Env
	http   *http.Client
	Header http.Header // sent with every request
	// User and Org are set by Signup.
	UserID, OrgID, Email string
}

// Anonymous returns a client with no session.
func (e *Env) Anonymous(t testing.TB) *Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &Client{t: t, env: e, http: &http.Client{Jar: jar}, Header: http.Header{}}
}

// For returns the same browser (cookie jar, user) reporting to t, with its
// own copy of Header: use it inside a subtest, so that a failed assertion
// fails the subtest instead of calling FailNow on the parent from the
// subtest's goroutine (which aborts every sibling).
func (c *Client) For(t testing.TB) *Client {
	cp := *c
	cp.t = t
	cp.Header = c.Header.Clone()
	return &cp
}

// Rivals boots the service for t, as New(t, nil) does, and signs up two
// organizations named a and b: the cast of a test of what one organization
// may do to another's data.
func Rivals(t testing.TB, a, b string) (*Env, *Client, *Client) {
	t.Helper()
	env := New(t, nil)
	return env, env.Signup(t, a), env.Signup(t, b)
}

// SignedUp boots the service for t, as New(t, nil) does, and signs up one
// organization named orgName.
func SignedUp(t testing.TB, orgName string) (*Env, *Client) {
	t.Helper()
	env := New(t, nil)
	return env, env.Signup(t, orgName)
}

var counter atomic.Int64

// Signup creates a new account with its own organization and returns a
// client signed in as that user.
func (e *Env) Signup(t testing.TB, orgName string) *Client {
	t.Helper()
	c := e.Anonymous(t)
	email := fmt.Sprintf("user%d-%s@example.com", counter.Add(1), strings.ToLower(strings.ReplaceAll(orgName, " ", "-")))
	r := c.Do("POST", "/api/auth/signup", map[string]any{
		"email": email, "password": "correct horse battery", "organization_name": orgName,
	})
	r.Status(http.StatusCreated)
	c.UserID = r.String("user.id")
	c.OrgID = r.String("organization.id")
	c.Email = email
	return c
}

// Response is an answer, decoded when it is JSON.
type Response struct {
	t    testing.TB
	Code int
	Hdr  http.Header
	Raw  []byte
	JSON any
}

// Do sends a request; body is JSON-encoded unless it is a string or []byte,
// which are sent as they are.
func (c *Client) Do(method, path string, body any) *Response {
	c.t.Helper()
	r, err := c.DoContext(context.Background(), method, path, body)
	require.NoError(c.t, err)
	return r
}

// DoContext is Do under ctx: it answers the error of a request that ctx
// ended (a client that hung up) instead of failing the test.
func (c *Client) DoContext(ctx context.Context, method, path string, body any) (*Response, error) {
	c.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		require.NoError(c.t, err)
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.env.URL+path, rd)
	require.NoError(c.t, err)
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, vs := range c.Header {
		req.Header[k] = vs
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	r := &Response{t: c.t, Code: resp.StatusCode, Hdr: resp.Header, Raw: raw}
	if ct := resp.Header.Get("Content-Type"); strings.Contains(ct, "json") && len(raw) > 0 {
		require.NoError(c.t, json.Unmarshal(raw, &r.JSON), "body: %s", raw)
	}
	return r, nil
}

// Status requires the answer to have status code.
func (r *Response) Status(code int) *Response {
	r.t.Helper()
	require.Equal(r.t, code, r.Code, "body: %s", r.Raw)
	return r
}

// Get returns the value at a dotted path (`items.0.name`) of the JSON body.
func (r *Response) Get(path string) any {
	r.t.Helper()
	v := r.JSON
	if path == "" {
		return v
	}
	for _, seg := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[seg]; !ok {
				return nil
			}
		case []any:
			var i int
			if _, err := fmt.Sscanf(seg, "%d", &i); err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// String returns the string at path, failing the test when there is none.
func (r *Response) String(path string) string {
	r.t.Helper()
	s, ok := r.Get(path).(string)
	require.True(r.t, ok, "no string at %q in %s", path, r.Raw)
	return s
}

// Len returns the length of the array at path.
func (r *Response) Len(path string) int {
	r.t.Helper()
	a, ok := r.Get(path).([]any)
	require.True(r.t, ok, "no array at %q in %s", path, r.Raw)
	return len(a)
}

// FieldErrors returns the field names of a problem's errors.
func (r *Response) FieldErrors() []string {
	r.t.Helper()
	var out []string
	errs, _ := r.Get("errors").([]any)
	for _, e := range errs {
		if m, ok := e.(map[string]any); ok {
			out = append(out, fmt.Sprint(m["field"]))
		}
	}
	return out
}

// Problem requires a problem+json answer with code and, when fields are
// given, exactly those fields named in its errors.
func (r *Response) Problem(code int, fields ...string) *Response {
	r.t.Helper()
	r.Status(code)
	require.Equal(r.t, "application/problem+json", r.Hdr.Get("Content-Type"), "body: %s", r.Raw)
	require.Equal(r.t, float64(code), r.Get("status"), "body: %s", r.Raw)
	if len(fields) > 0 {
		require.ElementsMatch(r.t, fields, r.FieldErrors(), "body: %s", r.Raw)
	}
	return r
}

// PostJSONRPC posts a JSON-RPC message to an MCP endpoint at url, with no
// session or key, and returns the status and the body.
func PostJSONRPC(t testing.TB, url string, body io.Reader) (int, []byte) {
	t.Helper()
	return PostJSONRPCWith(t, url, nil, body)
}

// PostJSONRPCWith is PostJSONRPC with the headers of hdr added, such as the
// MCP-Protocol-Version and Mcp-Method of a modern (stateless) request.
func PostJSONRPCWith(t testing.TB, url string, hdr http.Header, body io.Reader) (int, []byte) {
	t.Helper()
	req := JSONRequest(t, http.MethodPost, url, body)
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, raw := Send(t, req)
	return resp.StatusCode, raw
}
