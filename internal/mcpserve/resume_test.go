package mcpserve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/service"
)

// sseEvent is one event of an SSE stream as a client reads it.
type sseEvent struct {
	id, data, retry string
}

// readEvent reads the next event of an SSE stream (comments skipped);
// io.EOF at the end of the stream.
func readEvent(r *bufio.Reader) (sseEvent, error) {
	var e sseEvent
	seen := false
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return e, err
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "" && seen:
			return e, nil
		case line == "", strings.HasPrefix(line, ":"):
		default:
			seen = true
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "id":
				e.id = value
			case "data":
				e.data = value
			case "retry":
				e.retry = value
			}
		}
	}
}

// readAll reads the events left in an SSE stream.
func readAll(t *testing.T, r *bufio.Reader) []sseEvent {
	t.Helper()
	var out []sseEvent
	for {
		e, err := readEvent(r)
		if err == io.EOF {
			return out
		}
		require.NoError(t, err)
		out = append(out, e)
	}
}

// resumeDesign has a call that reports progress, waits, reports again and
// answers: long enough for a client to drop its stream and resume it.
func resumeDesign(t *testing.T) serverDesign {
	t.Helper()
	return serverDesign{Enabled: true, Server: raw(t, map[string]any{"name": "Resumable", "protocol_version": "2025-11-25"}),
		Tools: []json.RawMessage{
			raw(t, map[string]any{"name": "long_job", "input_schema": map[string]any{"type": "object"},
				"mock_scenarios": []any{map[string]any{"name": "slow", "response": map[string]any{"done": true}, "delay_ms": 300,
					"notifications": []any{
						map[string]any{"type": "progress", "progress": 1, "total": 3},
						map[string]any{"type": "progress", "progress": 2, "total": 3, "delay_ms": 300},
					}}}}),
			raw(t, map[string]any{"name": "quick", "input_schema": map[string]any{"type": "object"},
				"mock_scenarios": []any{map[string]any{"name": "any", "response": map[string]any{"ok": true}}}}),
		}}
}

const longJobCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"long_job","_meta":{"progressToken":"p1"}}}`

// openStream posts body with the 2025-11-25 version header and returns
// the open SSE reply.
func openStream(t *testing.T, endpoint, version, body string) *http.Response {
	t.Helper()
	req := apitest.JSONRequest(t, http.MethodPost, endpoint, strings.NewReader(body))
	req.Header.Set("Accept", "application/json, text/event-stream")
	if version != "" {
		req.Header.Set(mcptransport.HeaderProtocolVersion, version)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	return resp
}

// resumeFrom sends GET with Last-Event-ID to endpoint.
func resumeFrom(t *testing.T, endpoint, lastEventID string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, endpoint, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(mcptransport.HeaderProtocolVersion, protocol.V20251125)
	if lastEventID != "" {
		req.Header.Set("Last-Event-ID", lastEventID)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = resp.Body.Close() })
	return resp
}

// TestPrimingEvent: the SSE reply to a legacy request of 2025-11-25 opens
// with a priming event (an id, the retry field, no data), and every event
// after it has an id of its own; older revisions, plain JSON replies and
// modern requests get none.
func TestPrimingEvent(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	endpoint := env.URL + "/api/platform/" + createDesign(t, env.Signup(t, "Priming"), resumeDesign(t)) + "/mcp"

	for _, call := range []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"quick"}}`, longJobCall} {
		events := readAll(t, bufio.NewReader(openStream(t, endpoint, protocol.V20251125, call).Body))
		require.GreaterOrEqual(t, len(events), 2, "%v", events)
		prime := events[0]
		require.Equal(t, "", prime.data, "the priming event has no data")
		require.Equal(t, "1000", prime.retry)
		stream, n, ok := strings.Cut(prime.id, ".")
		require.True(t, ok, prime.id)
		require.Equal(t, "0", n)
		require.GreaterOrEqual(t, len(stream), 22, "128 random bits")
		ids := map[string]bool{prime.id: true}
		for _, e := range events[1:] {
			require.True(t, strings.HasPrefix(e.id, stream+"."), "every event has an id of the stream: %v", e)
			require.False(t, ids[e.id], "ids are unique in a stream: %v", events)
			ids[e.id] = true
		}
		require.Contains(t, events[len(events)-1].data, `"result"`)
	}
	again := readAll(t, bufio.NewReader(openStream(t, endpoint, protocol.V20251125, longJobCall).Body))
	first, _, _ := strings.Cut(again[0].id, ".")
	other := readAll(t, bufio.NewReader(openStream(t, endpoint, protocol.V20251125, longJobCall).Body))
	second, _, _ := strings.Cut(other[0].id, ".")
	require.NotEqual(t, first, second, "each stream has its own id")

	for _, version := range []string{"", protocol.V20250618} {
		body, err := io.ReadAll(openStream(t, endpoint, version, longJobCall).Body)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(body), "event: message\ndata: "), "no priming under %q: %s", version, body)
		require.NotContains(t, string(body), "id: ")
	}
	hdr := http.Header{"Accept": {"application/json"}, mcptransport.HeaderProtocolVersion: {protocol.V20251125}}
	_, body := post(t, endpoint, hdr, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"quick"}}`)
	require.True(t, strings.HasPrefix(body, `{"jsonrpc"`), "a JSON reply is no stream: %s", body)
	m := modernEra.open(t, endpoint)
	require.Contains(t, m.call("tools/call", map[string]any{"name": "quick"}).raw, `"ok`)
}

// TestResumeStream: a client that drops its stream during a long call and
// reconnects with GET and Last-Event-ID gets the rest of the stream (the
// events after that id, the result last); once the call has ended, the
// stream can still be read again from any of its ids for a while. An id
// never given, or given by another design's endpoint, is 404; GET without
// Last-Event-ID stays 405.
func TestResumeStream(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Resume")
	endpoint := env.URL + "/api/platform/" + createDesign(t, owner, resumeDesign(t)) + "/mcp"
	otherEndpoint := env.URL + "/api/platform/" + createDesign(t, owner, resumeDesign(t)) + "/mcp"

	resp := openStream(t, endpoint, protocol.V20251125, longJobCall)
	r := bufio.NewReader(resp.Body)
	prime, err := readEvent(r)
	require.NoError(t, err)
	first, err := readEvent(r)
	require.NoError(t, err)
	require.Contains(t, first.data, `"progress":1`)
	require.NoError(t, resp.Body.Close()) // the client goes, the call goes on

	resumed := resumeFrom(t, endpoint, first.id)
	require.Equal(t, http.StatusOK, resumed.StatusCode)
	require.Equal(t, "text/event-stream", resumed.Header.Get("Content-Type"))
	rest := readAll(t, bufio.NewReader(resumed.Body))
	require.Len(t, rest, 2, "%v", rest)
	require.Contains(t, rest[0].data, `"progress":2`)
	require.Contains(t, rest[1].data, `"id":7`)
	require.Contains(t, rest[1].data, `\"done\":true`)

	// Ended: read again from the priming event, every event is there.
	all := readAll(t, bufio.NewReader(resumeFrom(t, endpoint, prime.id).Body))
	require.Equal(t, []string{first.id, rest[0].id, rest[1].id}, []string{all[0].id, all[1].id, all[2].id})

	for _, c := range []struct{ endpoint, id string }{
		{otherEndpoint, prime.id},
		{endpoint, "AAAAAAAAAAAAAAAAAAAAAA.0"},
		{endpoint, "not-an-id"},
		{endpoint, strings.Split(prime.id, ".")[0] + ".99"},
	} {
		got := resumeFrom(t, c.endpoint, c.id)
		require.Equal(t, http.StatusNotFound, got.StatusCode, "%s at %s", c.id, c.endpoint)
	}
	require.Equal(t, http.StatusMethodNotAllowed, resumeFrom(t, endpoint, "").StatusCode)
}

// TestResumeOnAnotherInstance: with Redis, a client whose GET with
// Last-Event-ID reaches another instance than the one keeping its stream
// gets the rest of the stream all the same; an id no instance keeps is
// 404 there too.
func TestResumeOnAnotherInstance(t *testing.T) {
	t.Parallel()
	redisURL := os.Getenv("REDIS_URL")
	if redisURL == "" {
		redisURL = "redis://127.0.0.1:6379/0"
	}
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.RedisURL = redisURL }})
	second, err := service.New(context.Background(), env.Config, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	srv2 := httptest.NewServer(second.Handler())
	t.Cleanup(func() { second.MCP().CloseStreams(); srv2.Close(); _ = second.Close() })
	for _, h := range []interface{ AnswersRelayed() <-chan struct{} }{env.Service.MCP(), second.MCP()} {
		select {
		case <-h.AnswersRelayed():
		case <-time.After(5 * time.Second):
			t.Fatal("the instance did not subscribe to the relay within 5s")
		}
	}
	id := createDesign(t, env.Signup(t, "Resume elsewhere"), resumeDesign(t))
	first, other := env.URL+"/api/platform/"+id+"/mcp", srv2.URL+"/api/platform/"+id+"/mcp"

	resp := openStream(t, first, protocol.V20251125, longJobCall)
	r := bufio.NewReader(resp.Body)
	prime, err := readEvent(r)
	require.NoError(t, err)
	progress, err := readEvent(r)
	require.NoError(t, err)
	require.Contains(t, progress.data, `"progress":1`)
	require.NoError(t, resp.Body.Close())

	var rest []sseEvent
	require.Eventually(t, func() bool {
		got := resumeFrom(t, other, progress.id)
		if got.StatusCode != http.StatusOK {
			return false // the first instance's subscription may lag
		}
		rest = readAll(t, bufio.NewReader(got.Body))
		return true
	}, 5*time.Second, 50*time.Millisecond)
	require.Len(t, rest, 2, "%v", rest)
	require.Contains(t, rest[0].data, `"progress":2`)
	require.Contains(t, rest[1].data, `"id":7`)

	stream, _, _ := strings.Cut(prime.id, ".")
	require.Equal(t, http.StatusNotFound, resumeFrom(t, other, stream+".99").StatusCode)
	require.Equal(t, http.StatusNotFound, resumeFrom(t, other, "000000000000~AAAAAAAAAAAAAAAAAAAAAA.0").StatusCode)
}

// TestResumeAfterQuestion: a 2025-11-25 client whose stream breaks after
// a scenario asked it a question answers it all the same, and gets the
// call's result by resuming the stream from the question's event.
func TestResumeAfterQuestion(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	endpoint := env.URL + "/api/platform/" + createDesign(t, env.Signup(t, "Resume a question"), legacyAskDesign(t)) + "/mcp"

	resp := openStream(t, endpoint, protocol.V20251125, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet","arguments":{}}}`)
	r := bufio.NewReader(resp.Body)
	prime, err := readEvent(r)
	require.NoError(t, err)
	require.Equal(t, "", prime.data)
	asked, err := readEvent(r)
	require.NoError(t, err)
	var q struct {
		ID     string `json:"id"`
		Method string `json:"method"`
	}
	require.NoError(t, json.Unmarshal([]byte(asked.data), &q), asked.data)
	require.Equal(t, "elicitation/create", q.Method)
	require.NoError(t, resp.Body.Close()) // the stream breaks; the call waits for the answer

	code, body := answer(t, endpoint, q.ID, `{"action":"accept","content":{"name":"Ada"}}`)
	require.Equal(t, http.StatusAccepted, code, body)
	rest := readAll(t, bufio.NewReader(resumeFrom(t, endpoint, asked.id).Body))
	require.Len(t, rest, 1, "%v", rest)
	require.Contains(t, rest[0].data, `"id":7`)
	require.Contains(t, rest[0].data, "Hello, Ada!")
}
