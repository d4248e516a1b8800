package mcpserve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/service"
)

const modernVersion = "2026-07-28"

// listenDesign has a tool that broadcasts each kind of list change, a
// resource to watch and a prompt.
func listenDesign(t *testing.T) serverDesign {
	trigger := func(name string, broadcast ...string) json.RawMessage {
		return raw(t, map[string]any{"name": name, "description": "Triggers " + name + ".", "input_schema": map[string]any{"type": "object"},
			"mock_scenarios": []any{map[string]any{"name": "always", "response": map[string]any{"ok": true}, "broadcast": broadcast}}})
	}
	return serverDesign{
		Server: raw(t, map[string]any{"name": "Listen"}),
		Tools: []json.RawMessage{
			trigger("trigger_tools", "tools_list_changed"),
			trigger("trigger_prompts", "prompts_list_changed"),
			trigger("trigger_all", "tools_list_changed", "prompts_list_changed", "resources_list_changed"),
		},
		Resources: []json.RawMessage{raw(t, map[string]any{"name": "watched", "uri": "test://watched", "content": "v1"})},
		Prompts:   []json.RawMessage{raw(t, map[string]any{"name": "hello", "description": "Says hello", "messages": []any{map[string]any{"role": "user", "text": "hi"}}})},
		Enabled:   true,
	}
}

// modernRequest is a request of the modern revision, with its _meta and
// headers; name is the tool's, for tools/call.
func modernRequest(t *testing.T, ctx context.Context, endpoint, id, method, name string, params map[string]any) *http.Request {
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": modernVersion,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	body := raw(t, map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(id), "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", modernVersion)
	req.Header.Set("Mcp-Method", method)
	if name != "" {
		req.Header.Set("Mcp-Name", name)
	}
	return req
}

// callModern calls a tool with a modern request and returns the reply.
func callModern(t *testing.T, endpoint, tool string) string {
	t.Helper()
	req := modernRequest(t, context.Background(), endpoint, "99", "tools/call", tool, map[string]any{"name": tool})
	req.Header.Set("Accept", "application/json")
	resp, b := apitest.Send(t, req)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	require.Contains(t, string(b), `"content":[`)
	return string(b)
}

// listener is one subscriptions/listen request, its stream read as it
// comes: each data line is a message; comments are counted.
type listener struct {
	t        *testing.T
	resp     *http.Response
	body     string // the reply, when it is not a stream
	cancel   context.CancelFunc
	messages chan string
	comments atomic.Int32
}

func listenTo(t *testing.T, endpoint, id string, filter any, hdr http.Header) *listener {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	params := map[string]any{}
	if filter != nil {
		params["notifications"] = filter
	}
	req := modernRequest(t, ctx, endpoint, id, "subscriptions/listen", "", params)
	for k, v := range hdr {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	l := &listener{t: t, resp: resp, cancel: cancel, messages: make(chan string, 64)}
	t.Cleanup(l.close)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(resp.Body)
		l.body = string(b)
		close(l.messages)
		return l
	}
	go l.read()
	return l
}

func (l *listener) read() {
	defer close(l.messages)
	sc := bufio.NewScanner(l.resp.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "data: "):
			l.messages <- line[len("data: "):]
		case strings.HasPrefix(line, ":"):
			l.comments.Add(1)
		}
	}
}

// close leaves the stream, as a client does.
func (l *listener) close() {
	l.cancel()
	_ = l.resp.Body.Close()
}

// next is the next message; "" once the stream has ended.
func (l *listener) next() string {
	l.t.Helper()
	select {
	case m := <-l.messages:
		return m
	case <-time.After(5 * time.Second):
		l.t.Fatal("no message on the listen stream within 5s")
		return ""
	}
}

// quiet requires no message for d.
func (l *listener) quiet(d time.Duration) {
	l.t.Helper()
	select {
	case m, ok := <-l.messages:
		if ok {
			l.t.Fatalf("unexpected message on the listen stream: %s", m)
		}
	case <-time.After(d):
	}
}

func tagged(method, id, rest string) string {
	return `{"jsonrpc":"2.0","method":"` + method + `","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":` + id + `}` + rest + `}}`
}

// requireFinal requires the stream's last message to be the listen
// request's result, then the stream's end.
func requireFinal(t *testing.T, l *listener, id string) {
	t.Helper()
	var resp struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Result  struct {
			ResultType string                     `json:"resultType"`
			Meta       map[string]json.RawMessage `json:"_meta"`
		} `json:"result"`
	}
	m := l.next()
	require.NoError(t, json.Unmarshal([]byte(m), &resp), m)
	require.Equal(t, id, string(resp.ID))
	require.Equal(t, "complete", resp.Result.ResultType)
	require.Equal(t, id, string(resp.Result.Meta["io.modelcontextprotocol/subscriptionId"]))
	require.Equal(t, "", l.next(), "the stream ends after its result")
}

// TestListen: a listen stream is acknowledged first, carries only what it
// asked for (broadcast by scenarios, or design edits made through the REST
// API), each tagged with its request's id, with keep-alive comments
// between, and ends with its result when the server is disabled.
func TestListen(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	env.Service.MCP().SetStreams(0, 0, 100*time.Millisecond)
	owner := env.Signup(t, "Listen")
	id := createDesign(t, owner, listenDesign(t))
	endpoint := env.URL + "/api/platform/" + id + "/mcp"

	tools := listenTo(t, endpoint, `"sub-1"`, map[string]any{"toolsListChanged": true,
		"resourceSubscriptions": []string{"test://watched", "test://watched"}}, nil)
	require.Equal(t, http.StatusOK, tools.resp.StatusCode, tools.body)
	require.Equal(t, "text/event-stream", tools.resp.Header.Get("Content-Type"))
	require.Equal(t, "no", tools.resp.Header.Get("X-Accel-Buffering"))
	require.JSONEq(t, tagged("notifications/subscriptions/acknowledged", `"sub-1"`,
		`,"notifications":{"toolsListChanged":true,"resourceSubscriptions":["test://watched"]}`), tools.next())

	prompts := listenTo(t, endpoint, `7`, map[string]any{"promptsListChanged": true, "toolsListChanged": false}, nil)
	require.JSONEq(t, tagged("notifications/subscriptions/acknowledged", `7`, `,"notifications":{"promptsListChanged":true}`), prompts.next())
	sid := uuid.MustParse(id)
	require.Equal(t, 2, env.Service.MCP().OpenStreams(sid))

	// Broadcasts: each stream gets the kinds it asked for, no other.
	callModern(t, endpoint, "trigger_prompts")
	require.Equal(t, tagged("notifications/prompts/list_changed", `7`, ""), prompts.next())
	callModern(t, endpoint, "trigger_tools")
	require.Equal(t, tagged("notifications/tools/list_changed", `"sub-1"`, ""), tools.next())
	callModern(t, endpoint, "trigger_all")
	require.Equal(t, tagged("notifications/tools/list_changed", `"sub-1"`, ""), tools.next())
	require.Equal(t, tagged("notifications/prompts/list_changed", `7`, ""), prompts.next())

	// Design edits: what changed reaches the streams that asked for it.
	rid := owner.Do(http.MethodGet, "/api/servers/"+id+"/resources", nil).Status(http.StatusOK).String("items.0.id")
	owner.Do(http.MethodPatch, "/api/servers/"+id+"/resources/"+rid, map[string]any{"content": "v2"}).Status(http.StatusOK)
	require.Equal(t, tagged("notifications/resources/updated", `"sub-1"`, `,"uri":"test://watched"`), tools.next())
	owner.Do(http.MethodPost, "/api/servers/"+id+"/prompts", raw(t, map[string]any{"name": "bye", "description": "Says bye",
		"messages": []any{map[string]any{"role": "user", "text": "bye"}}})).Status(http.StatusCreated)
	require.Equal(t, tagged("notifications/prompts/list_changed", `7`, ""), prompts.next())
	owner.Do(http.MethodPost, "/api/servers/"+id+"/tools", raw(t, map[string]any{"name": "added", "description": "New.",
		"input_schema": map[string]any{"type": "object"}, "mock_scenarios": []any{map[string]any{"name": "a", "response": map[string]any{}}}})).
		Status(http.StatusCreated)
	require.Equal(t, tagged("notifications/tools/list_changed", `"sub-1"`, ""), tools.next(),
		"the prompt and the resource content changed the tools stream nothing")
	prompts.quiet(300 * time.Millisecond)
	owner.Do(http.MethodPatch, "/api/servers/"+id, map[string]any{"description": "Renamed"}).Status(http.StatusOK)
	tools.quiet(300 * time.Millisecond)

	require.Positive(t, tools.comments.Load(), "keep-alive comments on a quiet stream")

	owner.Do(http.MethodPatch, "/api/servers/"+id, map[string]any{"enabled": false}).Status(http.StatusOK)
	requireFinal(t, tools, `"sub-1"`)
	requireFinal(t, prompts, `7`)
	apitest.Eventually(t, "the hub forgets the streams", func() bool { return env.Service.MCP().OpenStreams(sid) == 0 })
}

// TestListenRefused: the filter's checks, a client that does not accept a
// stream, and a legacy request.
func TestListenRefused(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Listen")
	id := createDesign(t, owner, listenDesign(t))
	endpoint := env.URL + "/api/platform/" + id + "/mcp"

	for _, tc := range []struct {
		name   string
		filter any
		accept string
		status int
		want   string
	}{
		{"no filter", nil, "", http.StatusOK, `"code":-32602,"message":"Invalid params: missing required field 'notifications'"`},
		{"filter of the wrong type", []string{"tools"}, "", http.StatusOK, `"code":-32602,"message":"Invalid params: field 'notifications' must be an object"`},
		{"flag of the wrong type", map[string]any{"toolsListChanged": "yes"}, "", http.StatusOK,
			`"code":-32602,"message":"Invalid params: field 'notifications.toolsListChanged' must be a boolean"`},
		{"uris of the wrong type", map[string]any{"resourceSubscriptions": "test://watched"}, "", http.StatusOK,
			`"code":-32602,"message":"Invalid params: field 'notifications.resourceSubscriptions' must be an array"`},
		{"JSON only", map[string]any{"toolsListChanged": true}, "application/json", http.StatusNotAcceptable, `"code":-32600`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hdr := http.Header{}
			if tc.accept != "" {
				hdr.Set("Accept", tc.accept)
			}
			l := listenTo(t, endpoint, `3`, tc.filter, hdr)
			body := l.body
			if body == "" {
				body = l.next()
			}
			require.Equal(t, tc.status, l.resp.StatusCode, body)
			require.Contains(t, body, `{"jsonrpc":"2.0","id":3,"error":{`+tc.want)
		})
	}
	require.Equal(t, 0, env.Service.MCP().OpenStreams(uuid.MustParse(id)))

	code, body := mcpCall(t, endpoint, `{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{}}}`)
	require.Equal(t, http.StatusOK, code)
	require.Contains(t, body, `"code":-32601`, "a legacy request has no subscriptions/listen")
}

// TestListenBounds: streams are bounded per client address and per server
// (HTTP 429, -32000 on the request's id); a client that leaves frees its
// slot, and nothing of its stream stays behind.
func TestListenBounds(t *testing.T) {
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	}})
	env.Service.MCP().SetStreams(3, 2, time.Hour)
	owner := env.Signup(t, "Listen")
	id := createDesign(t, owner, listenDesign(t))
	sid := uuid.MustParse(id)
	endpoint := env.URL + "/api/platform/" + id + "/mcp"
	from := func(addr string) http.Header { return http.Header{"X-Forwarded-For": {addr}} }
	filter := map[string]any{"toolsListChanged": true}
	open := func(addr string) *listener {
		t.Helper()
		l := listenTo(t, endpoint, `1`, filter, from(addr))
		require.Equal(t, http.StatusOK, l.resp.StatusCode, l.body)
		require.Contains(t, l.next(), "notifications/subscriptions/acknowledged")
		return l
	}
	refused := func(addr, want string) {
		t.Helper()
		l := listenTo(t, endpoint, `"over"`, filter, from(addr))
		require.Equal(t, http.StatusTooManyRequests, l.resp.StatusCode, l.body)
		require.Contains(t, l.body, `{"jsonrpc":"2.0","id":"over","error":{"code":-32000,"message":"Rate limit exceeded: at most `+want)
	}

	callModern(t, endpoint, "trigger_prompts") // the connections and the design are warm
	before := runtime.NumGoroutine()

	a1 := open("203.0.113.1")
	open("203.0.113.1")
	refused("203.0.113.1", "2 subscriptions/listen streams may be open on this server from one client address")
	open("203.0.113.2")
	refused("203.0.113.3", "3 subscriptions/listen streams may be open on this server")
	require.Equal(t, 3, env.Service.MCP().OpenStreams(sid))

	a1.close()
	apitest.Eventually(t, "a closed stream frees its slot", func() bool { return env.Service.MCP().OpenStreams(sid) == 2 })
	open("203.0.113.3")

	env.Service.MCP().CloseStreams()
	apitest.Eventually(t, "every stream ends", func() bool { return env.Service.MCP().OpenStreams(sid) == 0 })
	http.DefaultClient.CloseIdleConnections()
	apitest.Eventually(t, "no goroutine left behind", func() bool { return runtime.NumGoroutine() <= before })
}

// TestListenShutdown: an instance shutting down ends its listen streams
// with their result at once, instead of waiting its shutdown timeout on
// them.
func TestListenShutdown(t *testing.T) {
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Listen")
	id := createDesign(t, owner, listenDesign(t))

	cfg := env.Config
	cfg.ShutdownTimeout = time.Minute
	second, err := service.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	t.Cleanup(func() { _ = second.Close() })
	require.NoError(t, second.Listen())
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- second.Run(ctx) }()

	l := listenTo(t, "http://"+second.Addr()+"/api/platform/"+id+"/mcp", `"s"`, map[string]any{"toolsListChanged": true}, nil)
	require.Contains(t, l.next(), "notifications/subscriptions/acknowledged")
	start := time.Now()
	stop()
	requireFinal(t, l, `"s"`)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("the shutdown waited on the listen stream")
	}
	require.Less(t, time.Since(start), 5*time.Second)
}

// TestListenSDKClient: the Go SDK client opens subscriptions/listen itself
// once discover advertises listChanged, and its handlers hear a design
// edited through the REST API and a broadcasting scenario.
func TestListenSDKClient(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Listen")
	id := createDesign(t, owner, listenDesign(t))
	endpoint := env.URL + "/api/platform/" + id + "/mcp"

	toolsChanged, promptsChanged := make(chan struct{}, 8), make(chan struct{}, 8)
	client := mcp.NewClient(&mcp.Implementation{Name: "listener", Version: "1.0.0"}, &mcp.ClientOptions{
		ToolListChangedHandler:   func(context.Context, *mcp.ToolListChangedRequest) { toolsChanged <- struct{}{} },
		PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { promptsChanged <- struct{}{} },
	})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	require.NoError(t, err)
	defer session.Close()
	caps := session.InitializeResult().Capabilities
	require.True(t, caps.Tools.ListChanged)
	require.True(t, caps.Prompts.ListChanged)
	require.True(t, caps.Resources.ListChanged)
	require.True(t, caps.Resources.Subscribe)
	sid := uuid.MustParse(id)
	apitest.Eventually(t, "the client's listen stream", func() bool { return env.Service.MCP().OpenStreams(sid) == 1 })

	wait := func(ch chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s did not reach the client's handler", what)
		}
	}
	owner.Do(http.MethodPost, "/api/servers/"+id+"/tools", raw(t, map[string]any{"name": "added", "description": "New.",
		"input_schema": map[string]any{"type": "object"}, "mock_scenarios": []any{map[string]any{"name": "a", "response": map[string]any{}}}})).
		Status(http.StatusCreated)
	wait(toolsChanged, "a tool added through the REST API")
	list, err := session.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list.Tools, 4)

	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "trigger_prompts", Arguments: map[string]any{}})
	require.NoError(t, err)
	wait(promptsChanged, "a broadcast prompts change")

	require.NoError(t, session.Close())
	apitest.Eventually(t, "the closed session's stream", func() bool { return env.Service.MCP().OpenStreams(sid) == 0 })
}
