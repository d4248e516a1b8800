//lint:file-ignore SA1019 notifications/message and logging/setLevel are part of every protocol version served (2024-11-05 to 2025-11-25); the SDK deprecates them only from 2026-07-28.

package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
)

// A 1×1 red PNG and a 4-sample 8 kHz mono WAV, real files a client can
// decode.
const (
	redPixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	tinyWAV     = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQgAAAAAAP9/AID/fw=="
)

func raw(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// richDesign is a design using every answer form of a scenario.
func richDesign(t testing.TB, version string) serverDesign {
	obj := map[string]any{"type": "object"}
	tool := func(name string, scenarios ...map[string]any) json.RawMessage {
		return raw(t, map[string]any{"name": name, "description": "The " + name + " tool.", "input_schema": obj, "mock_scenarios": scenarios})
	}
	return serverDesign{
		Server: raw(t, map[string]any{"name": "Rich", "protocol_version": version}),
		Tools: []json.RawMessage{
			tool("all_content", map[string]any{"name": "every block", "result": map[string]any{"content": []any{
				map[string]any{"type": "text", "text": "Here is everything."},
				map[string]any{"type": "image", "data": redPixelPNG, "mimeType": "image/png"},
				map[string]any{"type": "audio", "data": tinyWAV, "mimeType": "audio/wav"},
				map[string]any{"type": "resource", "resource": map[string]any{"uri": "test://doc", "mimeType": "text/plain", "text": "embedded text"}},
				map[string]any{"type": "resource", "resource": map[string]any{"uri": "test://pixel", "mimeType": "image/png", "blob": redPixelPNG}},
				map[string]any{"type": "resource_link", "uri": "test://report", "name": "report", "mimeType": "application/pdf"},
			}}}),
			tool("failing", map[string]any{"name": "tool error", "result": map[string]any{"isError": true,
				"content": []any{map[string]any{"type": "text", "text": "The upstream refused the request."}}}}),
			tool("rpc_error", map[string]any{"name": "timeout", "error": map[string]any{"code": -32050, "message": "Upstream timeout",
				"data": map[string]any{"retry_after": 3}}}),
			tool("with_notifications", map[string]any{"name": "scripted", "response": map[string]any{"done": true},
				"notifications": []any{
					map[string]any{"type": "log", "level": "info", "data": "started", "logger": "mock", "delay_ms": 10},
					map[string]any{"type": "progress", "progress": 0, "total": 100, "delay_ms": 10},
					map[string]any{"type": "progress", "progress": 50, "total": 100, "message": "half", "delay_ms": 10},
					map[string]any{"type": "progress", "progress": 100, "total": 100, "delay_ms": 10},
					map[string]any{"type": "log", "level": "warning", "data": map[string]any{"note": "almost"}},
				}}),
			tool("counter", map[string]any{"name": "counting", "sequence": map[string]any{"steps": []any{
				map[string]any{"response": map[string]any{"n": 1}},
				map[string]any{"response": map[string]any{"n": 2}},
				map[string]any{"error": map[string]any{"code": -32001, "message": "third call refused"}},
			}}}),
			tool("cycler", map[string]any{"name": "cycling", "sequence": map[string]any{"then": "cycle", "steps": []any{
				map[string]any{"response": map[string]any{"n": 1}},
				map[string]any{"response": map[string]any{"n": 2}},
			}}}),
			tool("sleepy", map[string]any{"name": "slow", "response": map[string]any{"ok": true}, "delay_ms": 30000}),
		},
		Resources: []json.RawMessage{
			raw(t, map[string]any{"name": "pixel", "uri": "test://static-binary", "mime_type": "image/png", "blob": redPixelPNG}),
			raw(t, map[string]any{"name": "city", "uri": "weather://{city}/now", "content": "Weather in {city}",
				"completions": map[string]any{"city": []string{"Paris", "Parma", "Berlin"}}}),
		},
		Prompts: []json.RawMessage{raw(t, map[string]any{
			"name": "describe", "description": "Describe a picture",
			"arguments": []any{map[string]any{"name": "uri", "required": true, "completions": []string{"test://a", "test://b", "other://c"}}},
			"messages": []any{
				map[string]any{"role": "user", "content": map[string]any{"type": "image", "data": redPixelPNG, "mimeType": "image/png"}},
				map[string]any{"role": "user", "content": map[string]any{"type": "resource", "resource": map[string]any{"uri": "{{uri}}", "mimeType": "text/plain", "text": "About {{uri}}"}}},
				map[string]any{"role": "user", "text": "Describe {{uri}}."},
			},
		})},
		Enabled: true,
	}
}

// headerTransport adds headers to every request.
type headerTransport struct{ hdr http.Header }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.hdr {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}

type notes struct {
	mu       sync.Mutex
	logs     []*mcp.LoggingMessageParams
	progress []*mcp.ProgressNotificationParams
}

// wait waits until logs and progress reports have arrived.
func (n *notes) wait(t *testing.T, logs, progress int) {
	t.Helper()
	require.Eventually(t, func() bool {
		n.mu.Lock()
		defer n.mu.Unlock()
		return len(n.logs) >= logs && len(n.progress) >= progress
	}, 5*time.Second, 5*time.Millisecond)
}

// connect opens a session of the Go SDK client asking for the legacy
// revision 2025-11-25 (connectAs names another; "" for the client's
// default, the modern revision).
func connect(t *testing.T, endpoint string, hdr http.Header, n *notes) *mcp.ClientSession {
	t.Helper()
	return connectAs(t, "2025-11-25", endpoint, hdr, n)
}

func connectAs(t *testing.T, version, endpoint string, hdr http.Header, n *notes) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if n != nil {
		opts.LoggingMessageHandler = func(_ context.Context, r *mcp.LoggingMessageRequest) {
			n.mu.Lock()
			defer n.mu.Unlock()
			n.logs = append(n.logs, r.Params)
		}
		opts.ProgressNotificationHandler = func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			n.mu.Lock()
			defer n.mu.Unlock()
			n.progress = append(n.progress, r.Params)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "rich", Version: "1.0.0"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Transport: headerTransport{hdr}}}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { _ = session.Close() })
	return session
}

// TestRichMocksSDKClient: the official Go SDK client receives each content
// type, isError results, scripted JSON-RPC errors, progress and log
// notifications, and sequences counted per client key.
func TestRichMocksSDKClient(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Rich")
	id := createDesign(t, owner, richDesign(t, "2025-11-25"))
	endpoint := env.URL + "/api/platform/" + id + "/mcp"
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	n := &notes{}
	s := connect(t, endpoint, nil, n)

	init := s.InitializeResult()
	require.Equal(t, "2025-11-25", init.ProtocolVersion)
	require.NotNil(t, init.Capabilities.Logging)
	require.NotNil(t, init.Capabilities.Completions)
	require.True(t, init.Capabilities.Resources.Subscribe)

	t.Run("every content type", func(t *testing.T) {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "all_content"})
		require.NoError(t, err)
		require.False(t, res.IsError)
		require.Len(t, res.Content, 6)
		png, _ := base64.StdEncoding.DecodeString(redPixelPNG)
		wav, _ := base64.StdEncoding.DecodeString(tinyWAV)
		require.Equal(t, "Here is everything.", res.Content[0].(*mcp.TextContent).Text)
		img := res.Content[1].(*mcp.ImageContent)
		require.Equal(t, png, img.Data)
		require.Equal(t, "image/png", img.MIMEType)
		audio := res.Content[2].(*mcp.AudioContent)
		require.Equal(t, wav, audio.Data)
		require.Equal(t, "audio/wav", audio.MIMEType)
		emb := res.Content[3].(*mcp.EmbeddedResource)
		require.Equal(t, "embedded text", emb.Resource.Text)
		blob := res.Content[4].(*mcp.EmbeddedResource)
		require.Equal(t, png, blob.Resource.Blob)
		link := res.Content[5].(*mcp.ResourceLink)
		require.Equal(t, "test://report", link.URI)
		require.Equal(t, "report", link.Name)
	})
	t.Run("isError result", func(t *testing.T) {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "failing"})
		require.NoError(t, err)
		require.True(t, res.IsError)
		require.Equal(t, "The upstream refused the request.", res.Content[0].(*mcp.TextContent).Text)
	})
	t.Run("scripted JSON-RPC error", func(t *testing.T) {
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "rpc_error"})
		var wire *jsonrpc.Error
		require.True(t, errors.As(err, &wire), "not a JSON-RPC error: %T %v", err, err)
		require.EqualValues(t, -32050, wire.Code)
		require.Equal(t, "Upstream timeout", wire.Message)
		require.JSONEq(t, `{"retry_after":3}`, string(wire.Data))
	})
	t.Run("progress and log notifications before the result", func(t *testing.T) {
		params := &mcp.CallToolParams{Name: "with_notifications"}
		params.SetProgressToken("tok-1")
		res, err := s.CallTool(ctx, params)
		require.NoError(t, err)
		require.Equal(t, `{"done":true}`, res.Content[0].(*mcp.TextContent).Text)
		// The client may hand the last notification to its handler just
		// after the result.
		n.wait(t, 2, 3)
		n.mu.Lock()
		defer n.mu.Unlock()
		require.Len(t, n.logs, 2)
		require.Equal(t, mcp.LoggingLevel("info"), n.logs[0].Level)
		require.Equal(t, "mock", n.logs[0].Logger)
		require.Equal(t, "started", n.logs[0].Data)
		require.Equal(t, mcp.LoggingLevel("warning"), n.logs[1].Level)
		require.Len(t, n.progress, 3)
		for i, want := range []float64{0, 50, 100} {
			require.Equal(t, "tok-1", n.progress[i].ProgressToken)
			require.Equal(t, want, n.progress[i].Progress)
			require.Equal(t, float64(100), n.progress[i].Total)
		}
		require.Equal(t, "half", n.progress[1].Message)
	})
	t.Run("no progress without a token", func(t *testing.T) {
		n.mu.Lock()
		n.logs, n.progress = nil, nil
		n.mu.Unlock()
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "with_notifications"})
		require.NoError(t, err)
		n.wait(t, 2, 0)
		time.Sleep(50 * time.Millisecond) // room for a progress report that should not come
		n.mu.Lock()
		defer n.mu.Unlock()
		require.Len(t, n.logs, 2)
		require.Empty(t, n.progress)
	})
	t.Run("sequences per key, then reset", func(t *testing.T) {
		a := connect(t, endpoint, http.Header{mcpserve.SequenceKeyHeader: {"agent-a"}}, nil)
		b := connect(t, endpoint, http.Header{mcpserve.SequenceKeyHeader: {"agent-b"}}, nil)
		text := func(s *mcp.ClientSession, tool string) string {
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool})
			if err != nil {
				return err.Error()
			}
			return res.Content[0].(*mcp.TextContent).Text
		}
		require.Equal(t, `{"n":1}`, text(a, "counter"))
		require.Equal(t, `{"n":2}`, text(a, "counter"))
		require.Equal(t, `{"n":1}`, text(b, "counter"), "another key counts apart")
		require.Contains(t, text(a, "counter"), "third call refused")
		require.Contains(t, text(a, "counter"), "third call refused", "the last step repeats")
		require.Equal(t, `{"n":1}`, text(a, "cycler"))
		require.Equal(t, `{"n":2}`, text(a, "cycler"))
		require.Equal(t, `{"n":1}`, text(a, "cycler"), "cycle starts over")

		require.NoError(t, env.Service.Sequences().Reset(ctx, uuid.MustParse(id), "agent-a"))
		require.Equal(t, `{"n":1}`, text(a, "counter"), "reset starts the key over")
		require.Equal(t, `{"n":2}`, text(b, "counter"), "other keys keep their count")
	})
	t.Run("binary resource, prompt content, completions, subscribe", func(t *testing.T) {
		png, _ := base64.StdEncoding.DecodeString(redPixelPNG)
		rr, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "test://static-binary"})
		require.NoError(t, err)
		require.Equal(t, png, rr.Contents[0].Blob)
		require.Equal(t, "image/png", rr.Contents[0].MIMEType)

		pr, err := s.GetPrompt(ctx, &mcp.GetPromptParams{Name: "describe", Arguments: map[string]string{"uri": "test://a"}})
		require.NoError(t, err)
		require.Len(t, pr.Messages, 3)
		require.Equal(t, png, pr.Messages[0].Content.(*mcp.ImageContent).Data)
		emb := pr.Messages[1].Content.(*mcp.EmbeddedResource)
		require.Equal(t, "test://a", emb.Resource.URI)
		require.Equal(t, "About test://a", emb.Resource.Text)
		require.Equal(t, "Describe test://a.", pr.Messages[2].Content.(*mcp.TextContent).Text)

		c, err := s.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "describe"},
			Argument: mcp.CompleteParamsArgument{Name: "uri", Value: "TEST://"}})
		require.NoError(t, err)
		require.Equal(t, []string{"test://a", "test://b"}, c.Completion.Values)
		require.Equal(t, 2, c.Completion.Total)
		c, err = s.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: "weather://{city}/now"},
			Argument: mcp.CompleteParamsArgument{Name: "city", Value: "Par"}})
		require.NoError(t, err)
		require.Equal(t, []string{"Paris", "Parma"}, c.Completion.Values)

		require.NoError(t, s.Subscribe(ctx, &mcp.SubscribeParams{URI: "weather://lyon/now"}))
		require.NoError(t, s.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "weather://lyon/now"}))
		var wire *jsonrpc.Error
		require.True(t, errors.As(s.Subscribe(ctx, &mcp.SubscribeParams{URI: "nope://x"}), &wire))
		require.EqualValues(t, -32002, wire.Code)
		require.NoError(t, s.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}))
	})
}

// post sends one JSON-RPC request and returns the reply body.
func post(t *testing.T, url string, hdr http.Header, body string) (*http.Response, string) {
	t.Helper()
	req := apitest.JSONRequest(t, http.MethodPost, url, strings.NewReader(body))
	for k, v := range hdr {
		req.Header[k] = v
	}
	if h := hdr.Get("Host"); h != "" {
		req.Host = h
	}
	resp, b := apitest.Send(t, req)
	return resp, string(b)
}

// TestProtocolVersionShapesResults: a server on an older protocol version
// never sends what that version lacks.
func TestProtocolVersionShapesResults(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Versions")
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"all_content"}}`
	cases := []struct {
		version          string
		audio, link, cap bool
	}{
		{"2024-11-05", false, false, false},
		{"2025-03-26", true, false, true},
		{"2025-06-18", true, true, true},
		{"2025-11-25", true, true, true},
	}
	for _, tc := range cases {
		t.Run(tc.version, func(t *testing.T) {
			id := createDesign(t, owner, richDesign(t, tc.version))
			url := env.URL + "/api/platform/" + id + "/mcp"
			_, body := post(t, url, nil, call)
			require.Equal(t, tc.audio, strings.Contains(body, `"type":"audio"`), body)
			require.Equal(t, !tc.audio, strings.Contains(body, "[audio content (audio/wav) omitted: MCP "+tc.version), body)
			require.Equal(t, tc.link, strings.Contains(body, `"type":"resource_link"`), body)
			require.Equal(t, !tc.link, strings.Contains(body, "[resource link: report <test://report>]"), body)
			_, body = post(t, url, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+tc.version+`","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
			require.Equal(t, tc.cap, strings.Contains(body, `"completions":{}`), body)
			require.Contains(t, body, `"logging":{}`)
		})
	}
}

// TestAllowedHosts: with ALLOWED_HOSTS set, the MCP endpoints refuse a
// request whose Host or Origin is not listed.
func TestAllowedHosts(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.AllowedHosts = []string{"127.0.0.1", "mock.example.com:8443"} }})
	owner := env.Signup(t, "Hosts")
	id := createDesign(t, owner, richDesign(t, "2025-11-25"))
	url := env.URL + "/api/platform/" + id + "/mcp"
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	for _, tc := range []struct {
		name string
		hdr  http.Header
		want int
	}{
		{"listed host, any port", nil, http.StatusOK},
		{"listed origin", http.Header{"Origin": {"http://127.0.0.1:9999"}}, http.StatusOK},
		{"listed host:port", http.Header{"Host": {"mock.example.com:8443"}}, http.StatusOK},
		{"evil host", http.Header{"Host": {"evil.example.com"}}, http.StatusForbidden},
		{"listed host on another port", http.Header{"Host": {"mock.example.com:80"}}, http.StatusForbidden},
		{"evil origin", http.Header{"Origin": {"http://evil.example.com"}}, http.StatusForbidden},
		{"opaque origin", http.Header{"Origin": {"null"}}, http.StatusForbidden},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, body := post(t, url, tc.hdr, ping)
			require.Equal(t, tc.want, resp.StatusCode, body)
			if tc.want == http.StatusForbidden {
				require.Contains(t, body, "ALLOWED_HOSTS")
			}
		})
	}
	resp, _ := post(t, env.URL+"/api/platform-mcp/mcp", http.Header{"Host": {"evil.example.com"}}, ping)
	require.Equal(t, http.StatusForbidden, resp.StatusCode, "the service endpoint is protected too")
}

// TestServerFault: a server's default fault answers its share of calls with
// its error, in either era.
func TestServerFault(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Chaos")
	for _, e := range bothEras {
		t.Run(e.name, func(t *testing.T) {
			id := createDesign(t, owner, richDesign(t, "2025-06-18"))
			s := e.open(t, env.URL+"/api/platform/"+id+"/mcp")
			call := func() reply { return s.call("tools/call", map[string]any{"name": "failing"}) }
			count := func(n int) int {
				faults := 0
				for range n {
					if r := call(); r.Error != nil && r.Error.Code == -32099 {
						faults++
					}
				}
				return faults
			}
			// A change reaches the cache through a notification: wait until the
			// old design is dropped before calling.
			patch := func(fault any) {
				owner.Do(http.MethodPatch, "/api/servers/"+id, map[string]any{"fault": fault}).Status(http.StatusOK)
				require.Eventually(t, func() bool { return !env.Service.MCP().Cached(uuid.MustParse(id)) },
					5*time.Second, 5*time.Millisecond, "the cache still holds the design from before the change")
			}
			chaos := map[string]any{"code": -32099, "message": "chaos"}
			patch(map[string]any{"rate": 1, "error": chaos})
			require.Equal(t, 20, count(20))
			patch(map[string]any{"rate": 0.5, "error": chaos})
			got := count(200)
			require.Greater(t, got, 60, "about half of 200 calls")
			require.Less(t, got, 140, "about half of 200 calls")
			patch(nil)
			require.Zero(t, count(10))
			patch(map[string]any{"rate": 1})
			call().failed(t, -32603, "Internal error (injected fault)")
		})
	}
}

// chanRecorder hands journal entries to a test.
type chanRecorder chan journal.Entry

func (c chanRecorder) Admit(uuid.UUID, uuid.UUID) bool { return true }

func (c chanRecorder) Record(e journal.Entry) bool {
	select {
	case c <- e:
		return true
	default:
		return false
	}
}

// TestDelayEndsWithTheClient: a call waiting out a 30 s delay ends as soon
// as its client goes away, and the journal learns why no scenario matched.
func TestDelayEndsWithTheClient(t *testing.T) {
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Delays")
	id := createDesign(t, owner, richDesign(t, "2025-06-18"))
	rec := make(chanRecorder, 16)
	h := mcpserve.New(env.Service.Store(), slog.New(slog.NewTextHandler(io.Discard, nil)), mcpserve.Options{Journal: rec})
	srv := httptest.NewServer(h)
	defer srv.Close()
	url := srv.URL + "/api/platform/" + id + "/mcp"

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleepy"}}`))
	require.NoError(t, err)
	start := time.Now()
	_, err = http.DefaultClient.Do(req)
	require.Error(t, err, "the client gave up")
	select {
	case e := <-rec:
		require.Equal(t, "tools/call", e.Method)
		require.Equal(t, "sleepy", e.Tool)
		require.Less(t, e.Latency, 2*time.Second, "the server stopped waiting when the client left")
		require.Less(t, time.Since(start), 2*time.Second)
	case <-time.After(5 * time.Second):
		t.Fatal("the call still waits after its client went away")
	}

	resp, body := post(t, url, nil, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"failing"}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, body, `"isError":true`)
	e := <-rec
	require.Equal(t, journal.OutcomeResult, e.Outcome)
	require.Equal(t, "tool error", e.Scenario)
	require.Empty(t, e.Mismatches, "the first scenario matched: nothing to explain")
	require.True(t, bytes.Contains(e.Answer, []byte(`"isError":true`)))
	require.JSONEq(t, `{"name":"failing"}`, string(e.Params))
}

// TestNewMethodsRefuseBadParams: the methods added for logging,
// subscriptions and completion answer -32602 naming the field at fault.
func TestNewMethodsRefuseBadParams(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Params")
	id := createDesign(t, owner, richDesign(t, "2025-11-25"))
	url := env.URL + "/api/platform/" + id + "/mcp"
	for _, tc := range []struct{ method, params, want string }{
		{"logging/setLevel", `{}`, `missing required field 'level'`},
		{"logging/setLevel", `{"level":"loud"}`, `"field":"level"`},
		{"logging/setLevel", `{"level":3}`, `field 'level' must be a string`},
		{"resources/subscribe", `{}`, `missing required field 'uri'`},
		{"resources/unsubscribe", `{"uri":"nope://x"}`, `"code":-32002`},
		{"completion/complete", `{"argument":{"name":"uri","value":""}}`, `missing required field 'ref'`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"describe"}}`, `missing required field 'argument'`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"describe"},"argument":{"value":"x"}}`, `missing required field 'argument.name'`},
		{"completion/complete", `{"ref":{"type":"ref/tool","name":"x"},"argument":{"name":"a","value":""}}`, `"field":"ref.type"`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"nope"},"argument":{"name":"a","value":""}}`, `Prompt not found: nope`},
		{"completion/complete", `{"ref":{"type":"ref/resource","uri":"x://{y}"},"argument":{"name":"y","value":""}}`, `Resource template not found: x://{y}`},
	} {
		t.Run(tc.method+" "+tc.params, func(t *testing.T) {
			resp, body := post(t, url, nil, `{"jsonrpc":"2.0","id":1,"method":"`+tc.method+`","params":`+tc.params+`}`)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Contains(t, body, `"error":`)
			require.Contains(t, body, tc.want)
		})
	}
}
