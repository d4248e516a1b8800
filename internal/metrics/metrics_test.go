package metrics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/prometheus/common/expfmt"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
)

func TestOutcome(t *testing.T) {
	call := &jsonrpc.Request{ID: json.RawMessage(`1`), Method: "tools/call"}
	note := &jsonrpc.Request{Method: "notifications/initialized"}
	for name, tc := range map[string]struct {
		req    *jsonrpc.Request
		result string
		err    error
		want   string
	}{
		"result":              {call, `{"content":[]}`, nil, "result"},
		"tool error":          {call, `{"content":[{"type":"text","text":"x"}],"isError":true}`, nil, "is_error"},
		"isError false":       {call, `{"content":[],"isError":false}`, nil, "result"},
		"nested isError":      {call, `{"content":[],"structuredContent":{"isError":true}}`, nil, "result"},
		"notification":        {note, ``, nil, "notification"},
		"rate limited":        {call, ``, fmt.Errorf("%w: retry after 3 seconds", jsonrpc.ErrRateLimited), "rate_limited"},
		"invalid params":      {call, ``, fmt.Errorf("%w: name", jsonrpc.ErrInvalidParams), "error:-32602"},
		"unknown method":      {call, ``, jsonrpc.ErrMethodNotFound, "error:-32601"},
		"scripted known code": {call, ``, &jsonrpc.Scripted{Code: -32602}, "error:-32602"},
		"scripted any code":   {call, ``, &jsonrpc.Scripted{Code: 4242}, "error:other"},
		"foreign error":       {call, ``, errors.New("boom"), "error:-32603"},
	} {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, outcomeName(outcome(tc.req, json.RawMessage(tc.result), tc.err)))
		})
	}
}

// observe runs one message through o's middleware, answered by result and
// err.
func observe(o mcptransport.Observer, method string, result string, err error) {
	h := o.Middleware(func(context.Context, *mcptransport.Exchange, mcptransport.Target, *jsonrpc.Request) (json.RawMessage, error) {
		return json.RawMessage(result), err
	})
	_, _ = h(context.Background(), nil, nil, &jsonrpc.Request{ID: json.RawMessage(`1`), Method: method})
}

func TestObserverCountsByKnownMethod(t *testing.T) {
	m := New()
	o := m.Observer(EndpointServer, []string{"tools/call", "ping"})
	observe(o, "tools/call", `{}`, nil)
	observe(o, "tools/call", `{}`, nil)
	observe(o, "made/up/"+t.Name(), `{}`, nil)
	observe(o, "ping", ``, jsonrpc.ErrInvalidParams)
	o.RateLimited(3)

	require.Equal(t, 2.0, testutil.ToFloat64(m.messages.WithLabelValues("server", "tools/call", "result")))
	require.Equal(t, 1.0, testutil.ToFloat64(m.messages.WithLabelValues("server", "other", "result")))
	require.Equal(t, 1.0, testutil.ToFloat64(m.messages.WithLabelValues("server", "ping", "error:-32602")))
	require.Equal(t, 3.0, testutil.ToFloat64(m.messages.WithLabelValues("server", "other", "rate_limited")))
	text, err := testutil.CollectAndFormat(m.messages, expfmt.TypeTextPlain, "mockmcp_mcp_messages_total")
	require.NoError(t, err)
	require.NotContains(t, string(text), t.Name(), "an unknown method is never a label")
	require.Contains(t, string(text), `method="notifications/initialized"`)
}

func TestObserverAllocatesNothingPerMessage(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	o := New().Observer(EndpointServer, []string{"tools/call"})
	result := json.RawMessage(`{"content":[{"type":"text","text":"sunny"}]}`)
	h := o.Middleware(func(context.Context, *mcptransport.Exchange, mcptransport.Target, *jsonrpc.Request) (json.RawMessage, error) {
		return result, nil
	})
	req := &jsonrpc.Request{ID: json.RawMessage(`1`), Method: "tools/call"}
	ctx := context.Background()
	require.Zero(t, testing.AllocsPerRun(100, func() { _, _ = h(ctx, nil, nil, req) }))
}

// nopWriter is a ResponseWriter that keeps nothing.
type nopWriter struct{ hdr http.Header }

func (w *nopWriter) Header() http.Header         { return w.hdr }
func (w *nopWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *nopWriter) WriteHeader(int)             {}

func TestRouteAllocatesNothingPerRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items")
	}
	m := New()
	h := m.Route("/api/platform/{server_id}/mcp", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	w, r := &nopWriter{hdr: http.Header{}}, httptest.NewRequest(http.MethodPost, "/api/platform/x/mcp", nil)
	h.ServeHTTP(w, r)
	require.Zero(t, testing.AllocsPerRun(100, func() { h.ServeHTTP(w, r) })) // and one warm-up run
	require.Equal(t, 102.0, testutil.ToFloat64(m.http.requests.WithLabelValues("/api/platform/{server_id}/mcp", "POST", "202")))
}

func TestRouteKeepsFlushAndStatus(t *testing.T) {
	m := New()
	h := m.Route("/stream", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		require.NoError(t, http.NewResponseController(w).Flush(), "SSE replies flush through the recorder")
		_, _ = w.Write([]byte("data: x\n\n"))
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/stream", nil))
	require.True(t, rec.Flushed)
	require.Equal(t, 1.0, testutil.ToFloat64(m.http.requests.WithLabelValues("/stream", "GET", "200")))
	h.ServeHTTP(rec, httptest.NewRequest("BREW", "/stream", nil))
	require.Equal(t, 1.0, testutil.ToFloat64(m.http.requests.WithLabelValues("/stream", "other", "200")),
		"an unusual method is other")
}

func TestEchoRoutes(t *testing.T) {
	e := echo.New()
	e.GET("/api/servers/:server_id", func(c echo.Context) error { return c.String(http.StatusOK, "ok") })
	e.POST("/api/servers", func(echo.Context) error {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "bad")
	})
	m := New()
	e.Pre(m.Echo(e))
	for _, r := range []struct{ method, path string }{
		{"GET", "/api/servers/1"}, {"GET", "/api/servers/2"}, {"POST", "/api/servers"},
		{"GET", "/metrics"}, {"GET", "/api/unknown/" + t.Name()}, {"DELETE", "/api/servers"},
	} {
		e.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(r.method, r.path, nil))
	}
	count := func(route, method, code string) float64 {
		return testutil.ToFloat64(m.http.requests.WithLabelValues(route, method, code))
	}
	require.Equal(t, 2.0, count("/api/servers/:server_id", "GET", "200"), "by pattern, not by path")
	require.Equal(t, 1.0, count("/api/servers", "POST", "422"), "a returned error's status")
	require.Equal(t, 2.0, count(Unmatched, "GET", "404"))
	require.Equal(t, 1.0, count("/api/servers", "DELETE", "405"), "a known path, another method")
	text, err := testutil.CollectAndFormat(m.http.requests, expfmt.TypeTextPlain)
	require.NoError(t, err)
	require.NotContains(t, string(text), t.Name())
	require.False(t, strings.Contains(string(text), `route="/api/servers/1"`))
}

func TestNilMetricsChangeNothing(t *testing.T) {
	var m *Metrics
	h := http.NotFoundHandler()
	require.NotNil(t, m.Route("/x", h))
	require.Nil(t, m.Observer(EndpointServer, nil).Middleware)
	require.Nil(t, m.Registry())
	m.Outbound()
	m.Pool(nil)
}
