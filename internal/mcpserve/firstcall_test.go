package mcpserve_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
)

// BenchmarkFirstToolsCall measures a tool's first tools/call after its
// design entered the cache (a tools/list loads it, untimed), against its
// second (call=second: the first, untimed, right before it). With warm=off the first call
// compiles the tool's five scenarios and its input schema; with warm=on
// they were compiled in the background when the design was loaded (the
// benchmark waits for that, as the round trips of a client between its
// tools/list and its first call let it finish).
func BenchmarkFirstToolsCall(b *testing.B) {
	b.Run("call=first/warm=off", func(b *testing.B) { benchFirstCall(b, -1, true) })
	b.Run("call=first/warm=on", func(b *testing.B) { benchFirstCall(b, 0, true) })
	b.Run("call=second", func(b *testing.B) { benchFirstCall(b, 0, false) })
}

func benchFirstCall(b *testing.B, warmBytes int, first bool) {
	h, id := forecastEndpoint(b, warmBytes)
	path := mcpserve.EndpointPath(id)
	post := func(body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", body, w.Code, w.Body)
		}
		return w
	}
	const list = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	post(list)
	if w := post(benchCall); !bytes.Contains(w.Body.Bytes(), []byte("light snow")) {
		b.Fatalf("tools/call: %s", w.Body)
	}
	// Both are timed alike: the design dropped and loaded again (its
	// garbage is the same), the timer stopped and started.
	for b.Loop() {
		b.StopTimer()
		h.Forget(id)
		post(list)
		for !h.WarmIdle() {
			runtime.Gosched()
		}
		if !first {
			post(benchCall)
		}
		b.StartTimer()
		post(benchCall)
	}
}

// forecastEndpoint serves, from memory, the design of BenchmarkToolsCall:
// get_forecast with its five scenarios.
func forecastEndpoint(tb testing.TB, warmBytes int) (*mcpserve.Handler, uuid.UUID) {
	tb.Helper()
	raw, err := json.Marshal(benchScenarios(benchOptions{}))
	if err != nil {
		tb.Fatal(err)
	}
	var scenarios []design.Scenario
	if err := json.Unmarshal(raw, &scenarios); err != nil {
		tb.Fatal(err)
	}
	id := uuid.New()
	d := design.Design{Server: design.Server{ID: id, OrgID: uuid.New(), Name: "Weather", Version: "1.0.0",
		Enabled: true, ProtocolVersion: "2024-11-05"},
		Tools: []design.Tool{{ID: uuid.New(), ServerID: id, Name: "get_forecast", InputSchema: json.RawMessage(benchInputSchema),
			Scenarios: scenarios}}}
	h := mcpserve.New(memoryDesigns{d}, slog.New(slog.NewTextHandler(io.Discard, nil)), mcpserve.Options{WarmBytes: warmBytes})
	return h, id
}

// TestFirstToolsCallFindsItsToolCompiled checks, through the endpoint,
// that loading a design compiles its tools in the background: the design's
// cached bytes grow by what they compile without any call, and the first
// call adds nothing; without warming it is the first call that adds them.
func TestFirstToolsCallFindsItsToolCompiled(t *testing.T) {
	for _, tc := range []struct {
		name      string
		warmBytes int
		warmed    bool
	}{{"warm", 0, true}, {"cold", -1, false}} {
		t.Run(tc.name, func(t *testing.T) {
			h, id := forecastEndpoint(t, tc.warmBytes)
			serve := func(body string) {
				req := httptest.NewRequest(http.MethodPost, mcpserve.EndpointPath(id), bytes.NewReader([]byte(body)))
				req.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					t.Fatalf("%d %s", w.Code, w.Body)
				}
			}
			serve(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			deadline := time.Now().Add(10 * time.Second)
			for !h.WarmIdle() && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			listed := h.CacheCounts()
			serve(benchCall)
			called := h.CacheCounts()
			if tc.warmed {
				if listed.WarmedTools != 1 || called.Bytes != listed.Bytes {
					t.Fatalf("warmed %d tools; bytes %d after the list, %d after the first call: want 1 tool, no growth",
						listed.WarmedTools, listed.Bytes, called.Bytes)
				}
			} else if listed.WarmedTools != 0 || called.Bytes <= listed.Bytes {
				t.Fatalf("warmed %d tools; bytes %d after the list, %d after the first call: want none, growth",
					listed.WarmedTools, listed.Bytes, called.Bytes)
			}
		})
	}
}
