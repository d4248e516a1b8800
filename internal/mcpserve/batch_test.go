package mcpserve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// pingServer creates and enables a design of c's organization with one
// tool, and returns its endpoint.
func pingServer(t *testing.T, env *apitest.Env, c *apitest.Client) string {
	t.Helper()
	id := createDesign(t, c, serverDesign{
		Server: json.RawMessage(`{"name":"Batches"}`),
		Tools: []json.RawMessage{json.RawMessage(`{"name":"get_forecast",
			"mock_scenarios":[{"name":"default","response":{"forecast":"sunny"}}]}`)},
		Enabled: true,
	})
	return env.URL + "/api/platform/" + id + "/mcp"
}

// pings is a batch of n pings with ids 1 to n.
func pings(n int) string {
	msgs := make([]string, n)
	for i := range msgs {
		msgs[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i+1)
	}
	return "[" + strings.Join(msgs, ",") + "]"
}

// TestHugeBatchIsRefusedCheaply: half a million members in a 1 MB body are
// refused with one small error, and the request allocates a small multiple
// of the body (before, it built 524,000 messages and a 66 MB answer).
func TestHugeBatchIsRefusedCheaply(t *testing.T) {
	// Not parallel: the allocation count is the whole process'.
	env := apitest.New(t, nil)
	endpoint := pingServer(t, env, env.Signup(t, "Huge Batch Org"))
	const members = 524_000
	body := []byte("[" + strings.Repeat("1,", members-1) + "1]")
	require.LessOrEqual(t, int64(len(body)), env.Config.MaxBodyBytes, "the body fits the default limit")

	send := func() (int, []byte) {
		resp, raw := apitest.Send(t, apitest.JSONRequest(t, http.MethodPost, endpoint, bytes.NewReader(body)))
		return resp.StatusCode, raw
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	code, raw := send()
	runtime.ReadMemStats(&after)

	require.Equal(t, http.StatusOK, code, "%s", raw)
	require.Less(t, len(raw), 64<<10)
	require.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: a batch holds at most 100 messages"}}`, string(raw))
	allocated := after.TotalAlloc - before.TotalAlloc
	t.Logf("one request of %d bytes allocated %d KiB in the whole process", len(body), allocated>>10)
	require.Less(t, allocated, uint64(50<<20))

	t.Run("four at once", func(t *testing.T) {
		runtime.GC()
		runtime.ReadMemStats(&before)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				code, raw := send()
				require.Equal(t, http.StatusOK, code)
				require.Contains(t, string(raw), `"code":-32600`)
			})
		}
		wg.Wait()
		runtime.ReadMemStats(&after)
		allocated := after.TotalAlloc - before.TotalAlloc
		t.Logf("four requests allocated %d KiB", allocated>>10)
		require.Less(t, allocated, uint64(50<<20))
	})
}

func TestBatchLength(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	endpoint := pingServer(t, env, env.Signup(t, "Batch Length Org"))

	t.Run("a batch of the limit is answered", func(t *testing.T) {
		resp, body := post(t, endpoint, nil, pings(mcptransport.DefaultMaxBatchMessages))
		require.Equal(t, http.StatusOK, resp.StatusCode)
		var replies []rpcAnswer
		require.NoError(t, json.Unmarshal([]byte(body), &replies), body)
		require.Len(t, replies, mcptransport.DefaultMaxBatchMessages)
		for i, r := range replies {
			require.Equal(t, fmt.Sprint(i+1), string(r.ID))
			require.JSONEq(t, `{}`, string(r.Result))
		}
	})
	t.Run("one more is refused whole", func(t *testing.T) {
		for _, accept := range []string{"application/json", "text/event-stream"} {
			resp, body := post(t, endpoint, http.Header{"Accept": {accept}}, pings(mcptransport.DefaultMaxBatchMessages+1))
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Equal(t, 1, strings.Count(body, `"jsonrpc"`), "one answer: %s", body)
			require.Contains(t, body, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: a batch holds at most 100 messages"}}`)
		}
	})
	t.Run("protocol versions without batching refuse a batch", func(t *testing.T) {
		for _, v := range []string{"2025-06-18", "2025-11-25", "2026-07-28", "2031-01-01"} {
			resp, body := post(t, endpoint, http.Header{"Mcp-Protocol-Version": {v}, "Accept": {"application/json, text/event-stream"}}, pings(2))
			require.Equal(t, http.StatusBadRequest, resp.StatusCode, "version %s: %s", v, body)
			require.Equal(t, "application/json", resp.Header.Get("Content-Type"), "an HTTP error is plain JSON")
			var r rpcAnswer
			require.NoError(t, json.Unmarshal([]byte(body), &r), body)
			require.Equal(t, "null", string(r.ID))
			require.EqualValues(t, -32600, r.Error.Code)
			require.Contains(t, r.Error.Message, "batching was removed from MCP in protocol version 2025-06-18")
			require.Contains(t, r.Error.Message, v)

			resp, body = post(t, endpoint, http.Header{"Mcp-Protocol-Version": {v}}, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			if v == protocol.Modern {
				// A modern request without its _meta: HTTP 400 and -32602.
				require.Equal(t, http.StatusBadRequest, resp.StatusCode, "a single message under %s: %s", v, body)
				require.Contains(t, body, `"code":-32602`)
				continue
			}
			if protocol.IsModern(v) {
				// A revision the design does not serve: HTTP 400 and -32022.
				require.Equal(t, http.StatusBadRequest, resp.StatusCode, "a single message under %s: %s", v, body)
				require.Contains(t, body, `"code":-32022`)
				continue
			}
			require.Equal(t, http.StatusOK, resp.StatusCode, "a single message under %s: %s", v, body)
		}
	})
	t.Run("protocol versions with batching answer a batch", func(t *testing.T) {
		for _, v := range []string{"2025-03-26", "2024-11-05", ""} {
			resp, body := post(t, endpoint, http.Header{"Mcp-Protocol-Version": {v}}, pings(2))
			require.Equal(t, http.StatusOK, resp.StatusCode, "version %q: %s", v, body)
			var replies []rpcAnswer
			require.NoError(t, json.Unmarshal([]byte(body), &replies), body)
			require.Len(t, replies, 2, "version %q", v)
		}
	})
	t.Run("a version the design does not serve refuses a batch whole", func(t *testing.T) {
		resp, body := post(t, endpoint, http.Header{"Mcp-Protocol-Version": {"not-a-date"}}, pings(2))
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, body)
		var r rpcAnswer
		require.NoError(t, json.Unmarshal([]byte(body), &r), body)
		require.Equal(t, "null", string(r.ID))
		require.EqualValues(t, -32022, r.Error.Code, body)
	})
	t.Run("deep nesting is a parse error", func(t *testing.T) {
		deep := strings.Repeat("[", 400_000) + strings.Repeat("]", 400_000)
		resp, body := post(t, endpoint, nil, deep)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, body)

		resp, body = post(t, endpoint, nil, `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":`+deep+`}}`)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		require.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, body, "a single message too")
	})
}
