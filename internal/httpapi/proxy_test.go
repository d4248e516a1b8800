package httpapi_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// proxiedServer creates an enabled design whose get_weather tool answers
// Paris locally, with the given upstream, and returns its id.
func proxiedServer(t *testing.T, c *apitest.Client, upstream map[string]any) string {
	t.Helper()
	id := c.Do("POST", "/api/servers", map[string]any{"name": "proxied", "upstream": upstream}).Status(http.StatusCreated).String("id")
	mkChild(t, c, id, "tools", map[string]any{
		"name": "get_weather", "input_schema": map[string]any{"type": "object"},
		"mock_scenarios": []any{
			map[string]any{"name": "paris", "condition": map[string]any{"field": "city", "operator": "equals", "value": "Paris"},
				"response": map[string]any{"forecast": "local sun"}},
		},
	})
	c.EnableServer(id)
	return id
}

// upstreamDesign creates an enabled design answering get_weather and
// get_tide from its own scenarios, the upstream of the tests.
func upstreamDesign(t *testing.T, c *apitest.Client) (id, endpoint string) {
	t.Helper()
	id = mkServer(t, c, "real")
	mkChild(t, c, id, "tools", map[string]any{"name": "get_weather", "input_schema": map[string]any{"type": "object"},
		"mock_scenarios": []any{map[string]any{"name": "any", "response": map[string]any{"forecast": "upstream rain"}}}})
	mkChild(t, c, id, "tools", map[string]any{"name": "get_tide", "input_schema": map[string]any{"type": "object"},
		"mock_scenarios": []any{map[string]any{"name": "any", "response": map[string]any{"tide": "high"}}}})
	return id, c.EnableServer(id).String("endpoint_url")
}

func TestUpstreamFallbackAndRecord(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Proxy Org")
	_, endpoint := upstreamDesign(t, c)
	server := proxiedServer(t, c, map[string]any{"url": endpoint,
		"headers": map[string]any{"Authorization": secretValue}})

	local := callTool(t, env, server, "get_weather", map[string]any{"city": "Paris"})
	require.Contains(t, local.String("result.content.0.text"), "local sun", "a matching scenario answers locally")

	proxied := callTool(t, env, server, "get_weather", map[string]any{"city": "Rome"})
	require.Contains(t, proxied.String("result.content.0.text"), "upstream rain", "an unmatched call is the upstream's")

	tide := callTool(t, env, server, "get_tide", map[string]any{})
	require.Contains(t, tide.String("result.content.0.text"), "high", "a tool the design lacks is the upstream's")

	page := journalPage(t, c, server, "?method=tools/call", 3)
	items := page.Get("items").([]any)
	byOutcome := map[string]map[string]any{}
	for _, it := range items {
		m := it.(map[string]any)
		byOutcome[m["outcome"].(string)+":"+m["tool"].(string)] = m
	}
	require.Contains(t, byOutcome, "result:get_weather")
	require.Nil(t, byOutcome["result:get_weather"]["upstream"])
	p := byOutcome["proxied:get_weather"]
	require.NotNil(t, p, "body: %s", page.Raw)
	up := p["upstream"].(map[string]any)
	require.Contains(t, up["answer"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"], "upstream rain")
	require.Equal(t, false, up["truncated"])
	require.GreaterOrEqual(t, up["latency_ms"].(float64), 0.0)
	require.Contains(t, byOutcome, "proxied:get_tide")
	require.NotContains(t, string(page.Raw), "sk-upstream", "header values never reach the journal")

	// Record: every call is the upstream's, one that would match too.
	c.Do("PATCH", "/api/servers/"+server, map[string]any{"upstream": map[string]any{"mode": "record"}}).Status(http.StatusOK)
	apitest.Eventually(t, "record mode served", func() bool {
		r := callTool(t, env, server, "get_weather", map[string]any{"city": "Paris"})
		return strings.Contains(r.String("result.content.0.text"), "upstream rain")
	})

	// Without the upstream the design answers no match again.
	c.Do("PATCH", "/api/servers/"+server, map[string]any{"upstream": nil}).Status(http.StatusOK)
	apitest.Eventually(t, "upstream removed", func() bool {
		r := callTool(t, env, server, "get_weather", map[string]any{"city": "Rome"})
		return !strings.Contains(r.String("result.content.0.text"), "upstream rain")
	})
	for _, path := range []string{"/api/servers/" + server, "/api/servers", "/api/servers/" + server + "/journal"} {
		require.NotContains(t, string(c.Do("GET", path, nil).Status(http.StatusOK).Raw), "sk-upstream", path)
	}
}

func TestUpstreamPrivateAddressRefused(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Proxy Private")
	server := proxiedServer(t, c, map[string]any{"url": "http://10.0.0.1/mcp"})
	r := callTool(t, env, server, "get_weather", map[string]any{"city": "Rome"})
	require.Nil(t, r.Get("result"))
	msg := r.String("error.message")
	t.Logf("refusal: %s (code %v)", msg, r.Get("error.code"))
	require.Contains(t, msg, "upstream")
	require.Contains(t, msg, "private addresses are not allowed", "the refusal says why: %s", msg)
}

// TestUpstreamUnreachableNamesNoAddress: an upstream that cannot be
// reached is reported in words, to the client and in the journal, without
// the address dialed, its port or the net package's wording.
func TestUpstreamUnreachableNamesNoAddress(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.AllowPrivateTargets = true }})
	c := env.Signup(t, "Proxy Closed")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	_, port, _ := net.SplitHostPort(l.Addr().String())
	require.NoError(t, l.Close())
	server := proxiedServer(t, c, map[string]any{"url": "http://localhost:" + port + "/mcp"})
	r := callTool(t, env, server, "get_weather", map[string]any{"city": "Rome"})
	msg := r.String("error.message")
	require.Contains(t, msg, "could not be reached (connection refused)", "body: %s", r.Raw)
	page := journalPage(t, c, server, "?method=tools/call", 1)
	recorded := page.Get("items").([]any)[0].(map[string]any)["response"].(string)
	require.Contains(t, recorded, "could not be reached")
	for _, text := range []string{string(r.Raw), recorded} {
		require.NotContains(t, text, "127.0.0.1")
		require.NotContains(t, text, "[::1]")
		require.NotContains(t, text, "dial tcp")
		require.NotContains(t, text, "connect:")
	}
}

// sdkUpstream is a real MCP server built with the official SDK.
func sdkUpstream(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "real-weather", Version: "1.0.0"}, nil)
	type in struct {
		City string `json:"city"`
	}
	type out struct {
		Forecast string `json:"forecast"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "get_weather"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, out, error) {
		if a.City == "Atlantis" {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no such city"}}}, out{}, nil
		}
		return nil, out{Forecast: "sdk fog in " + a.City}, nil
	})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestUpstreamOfficialSDKServer(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.AllowPrivateTargets = true }})
	c := env.Signup(t, "Proxy SDK")
	server := proxiedServer(t, c, map[string]any{"url": sdkUpstream(t)})
	c.Do("PATCH", "/api/servers/"+server, map[string]any{"protocol_version": "2025-11-25"}).Status(http.StatusOK)
	var r *apitest.Response
	require.Eventually(t, func() bool {
		r = mcpCall(t, env, server, "initialize", map[string]any{"protocolVersion": "2025-11-25",
			"capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "t", "version": "1"}})
		return r.Get("result.protocolVersion") == "2025-11-25"
	}, 10*time.Second, 20*time.Millisecond)

	r = callTool(t, env, server, "get_weather", map[string]any{"city": "Lima"})
	require.Contains(t, r.String("result.content.0.text"), "sdk fog in Lima")
	require.Equal(t, "sdk fog in Lima", r.Get("result.structuredContent.forecast"), "structuredContent is relayed")

	r = callTool(t, env, server, "get_weather", map[string]any{"city": "Atlantis"})
	require.Equal(t, true, r.Get("result.isError"), "isError is relayed")
	require.Equal(t, "no such city", r.Get("result.content.0.text"))

	r = callTool(t, env, server, "get_tide", map[string]any{})
	require.NotNil(t, r.Get("error"), "the upstream's JSON-RPC error is relayed: %s", r.Raw)
	require.Contains(t, r.String("error.message"), "get_tide")

	page := journalPage(t, c, server, "?outcome=proxied", 3)
	require.Contains(t, string(page.Raw), "sdk fog in Lima")

	// A design of a revision without structuredContent serves the
	// upstream's result as its own answers: without it, to clients of
	// the earlier revisions; the journal keeps what the upstream sent.
	c.Do("PATCH", "/api/servers/"+server, map[string]any{"protocol_version": "2024-11-05"}).Status(http.StatusOK)
	require.Eventually(t, func() bool {
		r = callTool(t, env, server, "get_weather", map[string]any{"city": "Quito"})
		return r.Get("result.structuredContent") == nil
	}, 10*time.Second, 20*time.Millisecond, "structuredContent is shaped away: %s", r.Raw)
	require.Contains(t, r.String("result.content.0.text"), "sdk fog in Quito")
	// (Quito may have been called more than once while the design's change
	// reached the endpoint.)
	require.Eventually(t, func() bool {
		page := c.Do("GET", "/api/servers/"+server+"/journal?outcome=proxied", nil).Status(http.StatusOK)
		return strings.Contains(string(page.Raw), `"structuredContent":{"forecast":"sdk fog in Quito"}`)
	}, 10*time.Second, 20*time.Millisecond, "the journal keeps the upstream's structuredContent")
}

func TestUpstreamResourcesAndPrompts(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Proxy Reads")
	real := mkServer(t, c, "real")
	mkChild(t, c, real, "resources", map[string]any{"name": "readme", "uri": "docs://readme", "content": "upstream text"})
	mkChild(t, c, real, "prompts", map[string]any{"name": "greet", "messages": []any{
		map[string]any{"role": "user", "text": "hello from upstream"}}})
	endpoint := c.EnableServer(real).String("endpoint_url")
	server := proxiedServer(t, c, map[string]any{"url": endpoint})
	mkChild(t, c, server, "resources", map[string]any{"name": "local", "uri": "docs://local", "content": "local text"})

	r := mcpCall(t, env, server, "resources/read", map[string]any{"uri": "docs://local"})
	require.Equal(t, "local text", r.Get("result.contents.0.text"))
	r = mcpCall(t, env, server, "resources/read", map[string]any{"uri": "docs://readme"})
	require.Equal(t, "upstream text", r.Get("result.contents.0.text"), "body: %s", r.Raw)
	r = mcpCall(t, env, server, "prompts/get", map[string]any{"name": "greet"})
	require.Equal(t, "hello from upstream", r.Get("result.messages.0.content.text"), "body: %s", r.Raw)
	r = mcpCall(t, env, server, "resources/read", map[string]any{"uri": "docs://nowhere"})
	require.NotNil(t, r.Get("error"), "the upstream's not-found is relayed: %s", r.Raw)

	page := journalPage(t, c, server, "?outcome=proxied", 3)
	require.Contains(t, string(page.Raw), "upstream text")
}

// TestUpstreamOfficialSDKServerReplayed records calls to a real server
// built with the official SDK, promotes them, and replays them with the
// upstream gone: each answers locally as the server did.
func TestUpstreamOfficialSDKServerReplayed(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.AllowPrivateTargets = true }})
	c := env.Signup(t, "Replay SDK")
	server := proxiedServer(t, c, map[string]any{"url": sdkUpstream(t), "mode": "record"})

	// Paris is not among them: the design's own scenario for it comes
	// before any promoted one.
	calls := []map[string]any{{"city": "Lima"}, {"city": "Atlantis"}, {"city": "Quito"}}
	var live []*apitest.Response
	for _, args := range calls {
		live = append(live, callTool(t, env, server, "get_weather", args))
	}
	require.Equal(t, true, live[1].Get("result.isError"))
	journalPage(t, c, server, "?outcome=proxied", len(calls))

	r := c.Do("POST", "/api/servers/"+server+"/recordings/promote", map[string]any{"tool": "get_weather"}).Status(http.StatusOK)
	require.Len(t, r.Get("promoted"), len(calls), "body: %s", r.Raw)
	c.Do("PATCH", "/api/servers/"+server, map[string]any{"upstream": nil}).Status(http.StatusOK)
	// The endpoint has dropped the upstream once a tool neither side has
	// is the design's own "not found".
	require.Eventually(t, func() bool {
		r := mcpCall(t, env, server, "tools/call", map[string]any{"name": "get_tide", "arguments": map[string]any{}})
		return r.Get("error.message") == "Tool not found: get_tide"
	}, 10*time.Second, 20*time.Millisecond)

	for i, args := range calls {
		var replayed *apitest.Response
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			replayed = callTool(t, env, server, "get_weather", args)
			if replayed.Get("result.content.0.text") == live[i].Get("result.content.0.text") &&
				replayed.Get("result.isError") == live[i].Get("result.isError") {
				break
			}
			require.True(t, time.Now().Before(deadline), "%v replays as recorded: live %s, replayed %s", args, live[i].Raw, replayed.Raw)
		}
	}
	page := journalPage(t, c, server, "?outcome=result", len(calls))
	require.NotContains(t, string(page.Raw), `"outcome":"proxied"`)
}

// TestUpstreamInBothEras: the upstream answers what the design does not,
// whichever era the client speaks (the modern form of a design once lost
// its upstream, and a modern call of a tool the design lacks was refused).
func TestUpstreamInBothEras(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Proxy Eras Org")
	_, endpoint := upstreamDesign(t, c)
	server := proxiedServer(t, c, map[string]any{"url": endpoint})
	c.Do("PATCH", "/api/servers/"+server, map[string]any{"protocol_version": "2025-11-25"}).Status(http.StatusOK)
	for _, modern := range []bool{false, true} {
		tide := oauthCall(t, env, server, "", modern, "tools/call", map[string]any{"name": "get_tide", "arguments": map[string]any{}})
		require.Contains(t, string(tide.Raw), "high", "modern=%v: a tool the design lacks is the upstream's", modern)
		rome := oauthCall(t, env, server, "", modern, "tools/call", map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Rome"}})
		require.Contains(t, string(rome.Raw), "upstream rain", "modern=%v: an unmatched call is the upstream's", modern)
		paris := oauthCall(t, env, server, "", modern, "tools/call", map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Paris"}})
		require.Contains(t, string(paris.Raw), "local sun", "modern=%v: a matching scenario answers locally", modern)
	}
}
