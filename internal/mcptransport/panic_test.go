package mcptransport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/mcptransport"
)

// panicky answers ping, and panics on boom (with a secret in the value)
// and on abort (with http.ErrAbortHandler).
type panicky struct{}

func (panicky) Call(_ context.Context, _ *mcptransport.Exchange, method string, _ json.RawMessage) (json.RawMessage, error) {
	switch method {
	case "boom":
		panic("secret-0xdeadbeef")
	case "abort":
		panic(http.ErrAbortHandler)
	}
	return json.RawMessage(`{"pong":true}`), nil
}

// syncBuffer is a log sink safe for the handler's goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// endpoint serves t the way the service's endpoints do; before, when set,
// runs between the deferred recovery and the dispatch.
func endpoint(tr mcptransport.Transport, t mcptransport.Target, before func()) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tr.Preflight(w, r) {
			return
		}
		defer tr.RecoverPanic(w, r)
		if before != nil {
			before()
		}
		var p mcptransport.Payload
		if !tr.Read(w, r, &p) {
			return
		}
		defer p.Release()
		tr.Serve(w, r, t, &p)
	})
}

func postTo(h http.Handler, accept, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func TestPanicInAMethodAnswersInternalError(t *testing.T) {
	logs := &syncBuffer{}
	tr := mcptransport.Transport{MaxBodyBytes: 1 << 20, Log: slog.New(slog.NewJSONHandler(logs, nil))}
	h := endpoint(tr, panicky{}, nil)

	t.Run("in a batch", func(t *testing.T) {
		w := postTo(h, "application/json", `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":"b","method":"boom"},{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
		require.Equal(t, http.StatusOK, w.Code)
		require.Equal(t, "application/json", w.Header().Get("Content-Type"))
		require.JSONEq(t, `[
			{"jsonrpc":"2.0","id":1,"result":{"pong":true}},
			{"jsonrpc":"2.0","id":"b","error":{"code":-32603,"message":"Internal error"}},
			{"jsonrpc":"2.0","id":3,"result":{"pong":true}}]`, w.Body.String())
		require.NotContains(t, w.Body.String(), "secret")
	})
	t.Run("alone, over SSE", func(t *testing.T) {
		w := postTo(h, "text/event-stream", `{"jsonrpc":"2.0","id":7,"method":"boom"}`)
		require.Equal(t, http.StatusOK, w.Code)
		require.Equal(t, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32603,\"message\":\"Internal error\"}}\n\n",
			w.Body.String())
	})
	t.Run("the panic is logged with its stack, never sent", func(t *testing.T) {
		out := logs.String()
		require.Equal(t, 2, strings.Count(out, `"msg":"panic in MCP method"`), out)
		require.Contains(t, out, `"method":"boom"`)
		require.Contains(t, out, `"panic":"secret-0xdeadbeef"`)
		require.Contains(t, out, "panic_test.go", "the stack names the panicking frame")
	})
	t.Run("ErrAbortHandler aborts the response", func(t *testing.T) {
		require.PanicsWithValue(t, http.ErrAbortHandler, func() {
			postTo(h, "application/json", `{"jsonrpc":"2.0","id":1,"method":"abort"}`)
		})
	})
	t.Run("outside a method: a 500 problem", func(t *testing.T) {
		outside := endpoint(tr, panicky{}, func() { panic("before dispatch") })
		w := postTo(outside, "application/json", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		require.Equal(t, http.StatusInternalServerError, w.Code)
		require.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
		require.NotContains(t, w.Body.String(), "before dispatch")
		require.Contains(t, logs.String(), `"msg":"panic in MCP endpoint"`)
	})
}
