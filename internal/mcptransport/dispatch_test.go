package mcptransport_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
)

// eras is a target whose method table bounds methods by protocol version.
type eras struct{ name string }

var erasMethods = mcptransport.Methods[*eras]{
	"always": {Handle: answerName},
	"old":    {Handle: answerName, Until: "2025-06-18"},
	"new":    {Handle: answerName, Since: "2025-06-18"},
	"middle": {Handle: answerName, Since: "2025-03-26", Until: "2025-11-25"},
	"notifications/seen": {Handle: func(context.Context, *mcptransport.Exchange, *eras, json.RawMessage) (json.RawMessage, error) {
		panic("a notification is never run")
	}, Notification: true},
}

func answerName(_ context.Context, _ *mcptransport.Exchange, e *eras, _ json.RawMessage) (json.RawMessage, error) {
	return json.Marshal(map[string]string{"from": e.name})
}

func (e *eras) Call(ctx context.Context, x *mcptransport.Exchange, method string, params json.RawMessage) (json.RawMessage, error) {
	return erasMethods.Call(ctx, x, e, method, params)
}

func postVersion(h http.Handler, version, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestMethodTableBoundsMethodsByProtocolVersion(t *testing.T) {
	h := endpoint(mcptransport.Transport{MaxBodyBytes: 1 << 20}, &eras{name: "table"}, nil)
	answered := `{"jsonrpc":"2.0","id":1,"result":{"from":"table"}}`
	unknown := func(method string) string {
		return `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: ` + method + `"}}`
	}
	for _, tc := range []struct {
		name, version, method, want string
	}{
		{"unbounded, no version", "", "always", answered},
		{"unbounded, a version", "2025-11-25", "always", answered},
		{"no version has every method", "", "new", answered},
		{"no version has every method (old)", "", "old", answered},
		{"an unknown form of version has every method", "latest", "old", answered},
		{"before until", "2025-03-26", "old", answered},
		{"at until", "2025-06-18", "old", unknown("old")},
		{"after until", "2025-11-25", "old", unknown("old")},
		{"before since", "2025-03-26", "new", unknown("new")},
		{"at since", "2025-06-18", "new", answered},
		{"inside both bounds", "2025-06-18", "middle", answered},
		{"below both bounds", "2024-11-05", "middle", unknown("middle")},
		{"above both bounds", "2025-11-25", "middle", unknown("middle")},
		{"not in the table", "", "missing", unknown("missing")},
		{"a request naming a notification", "", "notifications/seen", unknown("notifications/seen")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := postVersion(h, tc.version, `{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`"}`)
			require.Equal(t, http.StatusOK, w.Code)
			require.JSONEq(t, tc.want, w.Body.String())
		})
	}
	t.Run("a notification is accepted and not run", func(t *testing.T) {
		w := postVersion(h, "", `{"jsonrpc":"2.0","method":"notifications/seen"}`)
		require.Equal(t, http.StatusAccepted, w.Code)
		require.Empty(t, w.Body.String())
	})
}

// TestMiddlewareWrapsEveryMessage: middleware added With runs around every
// message of a batch, outermost first, for requests, notifications and
// messages that do not parse alike, and can answer in place of the method.
func TestMiddlewareWrapsEveryMessage(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	named := func(name string) mcptransport.Middleware {
		return func(next mcptransport.MessageHandler) mcptransport.MessageHandler {
			return func(ctx context.Context, x *mcptransport.Exchange, t mcptransport.Target, req *jsonrpc.Request) (json.RawMessage, error) {
				mu.Lock()
				seen = append(seen, name+":"+req.Method)
				mu.Unlock()
				if req.Method == "blocked" {
					return nil, jsonrpc.InvalidRequest("blocked by " + name)
				}
				return next(ctx, x, t, req)
			}
		}
	}
	tr := mcptransport.Transport{MaxBodyBytes: 1 << 20}.With(named("outer"), named("inner"))
	h := endpoint(tr, panicky{}, nil)
	w := postTo(h, "application/json", `[{"jsonrpc":"2.0","id":1,"method":"ping"},`+
		`{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"blocked"},{"id":3}]`)
	require.Equal(t, http.StatusOK, w.Code)
	require.JSONEq(t, `[
		{"jsonrpc":"2.0","id":1,"result":{"pong":true}},
		{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"Invalid request: blocked by outer"}},
		{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"Invalid request: \"jsonrpc\" must be \"2.0\""}}]`, w.Body.String())
	require.Equal(t, []string{
		"outer:ping", "inner:ping",
		"outer:notifications/initialized", "inner:notifications/initialized",
		"outer:blocked",
		"outer:", "inner:",
	}, seen)
}

// recorder is a target that keeps a record of its messages (Recording),
// noting each Begin and End with what the message was answered.
type recorder struct {
	panicky
	mu   sync.Mutex
	seen []string
}

func (r *recorder) note(s string) {
	r.mu.Lock()
	r.seen = append(r.seen, s)
	r.mu.Unlock()
}

func (r *recorder) Begin() { r.note("begin") }

func (r *recorder) End(_ *mcptransport.Exchange, req *jsonrpc.Request, result json.RawMessage, err error) {
	switch {
	case err != nil:
		r.note("end:" + req.Method + ":" + err.Error())
	default:
		r.note("end:" + req.Method + ":" + string(result))
	}
}

// TestRecordingTargetNotesEveryMessage: a target that keeps a record is told
// of every message of a batch, inside the middleware, requests,
// notifications and messages that do not parse alike, with what each was
// answered.
func TestRecordingTargetNotesEveryMessage(t *testing.T) {
	rec := &recorder{}
	outer := func(next mcptransport.MessageHandler) mcptransport.MessageHandler {
		return func(ctx context.Context, x *mcptransport.Exchange, t mcptransport.Target, req *jsonrpc.Request) (json.RawMessage, error) {
			rec.note("outer:" + req.Method)
			return next(ctx, x, t, req)
		}
	}
	h := endpoint(mcptransport.Transport{MaxBodyBytes: 1 << 20}.With(outer), rec, nil)
	w := postTo(h, "application/json", `[{"jsonrpc":"2.0","id":1,"method":"ping"},`+
		`{"jsonrpc":"2.0","method":"notifications/initialized"},{"id":3}]`)
	require.Equal(t, http.StatusOK, w.Code)
	require.Equal(t, []string{
		"outer:ping", "begin", `end:ping:{"pong":true}`,
		"outer:notifications/initialized", "begin", "end:notifications/initialized:",
		"outer:", "begin", `end::Invalid request: "jsonrpc" must be "2.0"`,
	}, rec.seen)
}

// TestMiddlewareAllocatesNothingPerMessage: a chain built once answers a
// request with exactly the allocations of the bare transport.
func TestMiddlewareAllocatesNothingPerMessage(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts of pooled code are not exact under the race detector")
	}
	pass := func(next mcptransport.MessageHandler) mcptransport.MessageHandler {
		return func(ctx context.Context, x *mcptransport.Exchange, t mcptransport.Target, req *jsonrpc.Request) (json.RawMessage, error) {
			return next(ctx, x, t, req)
		}
	}
	allocs := func(tr mcptransport.Transport) float64 {
		h := endpoint(tr, panicky{}, nil)
		body := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
		req := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		req.Header.Set("Accept", "application/json")
		return testing.AllocsPerRun(200, func() {
			req.Body = http.NoBody
			r := req.Clone(context.Background())
			r.Body = readCloser{strings.NewReader(body)}
			h.ServeHTTP(discard{}, r)
		})
	}
	bare := allocs(mcptransport.Transport{MaxBodyBytes: 1 << 20})
	chained := allocs(mcptransport.Transport{MaxBodyBytes: 1 << 20}.With(pass, pass, pass))
	require.Equal(t, bare, chained)
}

type readCloser struct{ *strings.Reader }

func (readCloser) Close() error { return nil }

// discard is a ResponseWriter that keeps nothing.
type discard struct{}

var discardHeader = http.Header{}

func (discard) Header() http.Header         { return discardHeader }
func (discard) WriteHeader(int)             {}
func (discard) Write(b []byte) (int, error) { return len(b), nil }
