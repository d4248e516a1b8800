package metrics

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
)

// BenchmarkRoute measures what the request metrics add to one request of
// the per-server endpoint: the pooled status recorder, two clock reads, a
// counter and a histogram.
func BenchmarkRoute(b *testing.B) {
	for _, on := range []bool{false, true} {
		name := "metrics=off"
		var m *Metrics
		if on {
			name, m = "metrics=on", New()
		}
		b.Run(name, func(b *testing.B) {
			h := m.Route("/api/platform/{server_id}/mcp", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(http.StatusOK)
			}))
			w, r := &nopWriter{hdr: http.Header{}}, httptest.NewRequest(http.MethodPost, "/api/platform/x/mcp", nil)
			b.ReportAllocs()
			for b.Loop() {
				h.ServeHTTP(w, r)
			}
		})
	}
}

// BenchmarkObserver measures what the message counters add to one
// tools/call.
func BenchmarkObserver(b *testing.B) {
	result := json.RawMessage(`{"content":[{"type":"text","text":"{\"forecast\":\"light snow\"}"}]}`)
	h := New().Observer(EndpointServer, []string{"initialize", "tools/list", "tools/call"}).Middleware(
		func(context.Context, *mcptransport.Exchange, mcptransport.Target, *jsonrpc.Request) (json.RawMessage, error) {
			return result, nil
		})
	req := &jsonrpc.Request{ID: json.RawMessage(`1`), Method: "tools/call"}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, _ = h(ctx, nil, nil, req)
	}
}
