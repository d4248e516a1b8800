package service_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// reply is an HTTP answer.
type reply struct {
	status int
	hdr    http.Header
	body   string
}

// send sends a request with a JSON body (none when empty) and an API key
// (none when empty).
func send(t *testing.T, method, url, key, body string) reply {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := apitest.JSONRequest(t, method, url, rd)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, raw := apitest.Send(t, req)
	return reply{resp.StatusCode, resp.Header, string(raw)}
}

// mcpCall sends one tools/call to an MCP endpoint as plain HTTP.
func mcpCall(t *testing.T, endpoint, tool string) reply {
	t.Helper()
	return send(t, http.MethodPost, endpoint, "",
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`)
}

// modernCall sends one tools/call as a client of MCP 2026-07-28.
func modernCall(t *testing.T, endpoint, tool string) reply {
	t.Helper()
	req := apitest.JSONRequest(t, http.MethodPost, endpoint, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+tool+`","arguments":{},`+
			`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", tool)
	resp, raw := apitest.Send(t, req)
	return reply{resp.StatusCode, resp.Header, string(raw)}
}

// requireUnavailable checks a 503 problem document with Retry-After.
func requireUnavailable(t *testing.T, r reply) {
	t.Helper()
	require.Equal(t, http.StatusServiceUnavailable, r.status, "body: %s", r.body)
	require.Equal(t, "application/problem+json", r.hdr.Get("Content-Type"), "body: %s", r.body)
	require.Equal(t, "5", r.hdr.Get("Retry-After"))
	var p map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.body), &p))
	require.Equal(t, float64(503), p["status"])
	require.NotContains(t, r.body, "127.0.0.1", "internal addresses stay in the logs")
}

// TestServesThroughDatabaseOutage cuts the service off its database with a
// TCP proxy: cached designs keep answering, everything that needs the
// database answers 503 with Retry-After, and once the proxy lets
// connections through again writes work and design changes reach the
// endpoint, without a restart.
func TestServesThroughDatabaseOutage(t *testing.T) {
	t.Parallel()
	var proxy *testdb.Proxy
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		proxy, c.DatabaseURL = testdb.NewProxy(t, c.DatabaseURL)
	}})
	owner := env.Signup(t, "Outage")
	key := owner.Do("POST", "/api/keys", map[string]any{"name": "engine"}).Status(http.StatusCreated).String("raw_key")

	design := func(name, forecast string) (serverID, toolID string) {
		serverID = owner.Do("POST", "/api/servers", map[string]any{"name": name, "version": "1.0.0"}).
			Status(http.StatusCreated).String("id")
		toolID = owner.Do("POST", "/api/servers/"+serverID+"/tools", map[string]any{
			"name": "forecast", "description": "The forecast.",
			"input_schema":   map[string]any{"type": "object"},
			"mock_scenarios": []map[string]any{{"name": "any", "condition": map[string]any{}, "response": map[string]any{"forecast": forecast}}},
		}).Status(http.StatusCreated).String("id")
		owner.Do("PATCH", "/api/servers/"+serverID, map[string]any{"enabled": true}).Status(http.StatusOK)
		return serverID, toolID
	}
	sdkID, sdkTool := design("Through the SDK", "sunny")
	plainID, _ := design("Through plain HTTP", "windy")
	coldID, _ := design("Never called", "foggy")
	lockedID, _ := design("Behind a key", "misty")
	owner.Do("PATCH", "/api/servers/"+lockedID, map[string]any{"auth_mode": "api_key"}).Status(http.StatusOK)
	designKey := owner.Do("POST", "/api/keys", map[string]any{"name": "agent"}).Status(http.StatusCreated).String("raw_key")
	unseenKey := owner.Do("POST", "/api/keys", map[string]any{"name": "unseen"}).Status(http.StatusCreated).String("raw_key")
	lockedCall := func(key string) reply {
		t.Helper()
		return send(t, http.MethodPost, env.URL+"/api/platform/"+lockedID+"/mcp", key,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"forecast","arguments":{}}}`)
	}
	endpoint := func(id string) string { return env.URL + "/api/platform/" + id + "/mcp" }

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "outage", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint(sdkID)}, nil)
	require.NoError(t, err)
	defer session.Close()
	sdkForecast := func() string {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "forecast", Arguments: map[string]any{}})
		require.NoError(t, err)
		require.False(t, res.IsError)
		require.Len(t, res.Content, 1)
		return res.Content[0].(*mcp.TextContent).Text
	}
	require.Contains(t, sdkForecast(), "sunny")
	r := mcpCall(t, endpoint(plainID), "forecast")
	require.Equal(t, http.StatusOK, r.status)
	require.Contains(t, r.body, "windy")
	r = lockedCall(designKey)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	require.Contains(t, r.body, "misty")

	proxy.Cut()
	cutAt := time.Now()
	require.Eventually(t, func() bool { return !env.Service.MCP().Listening() }, 5*time.Second, 10*time.Millisecond,
		"the listener notices the lost connection")

	t.Run("a design not in cache answers 503", func(t *testing.T) {
		requireUnavailable(t, mcpCall(t, endpoint(coldID), "forecast"))
	})
	t.Run("the first modern request to a design cached for legacy clients answers 503", func(t *testing.T) {
		// Its modern form (answers shaped for 2026-07-28) reads the design again.
		requireUnavailable(t, modernCall(t, endpoint(plainID), "forecast"))
		r := mcpCall(t, endpoint(plainID), "forecast")
		require.Equal(t, http.StatusOK, r.status, "legacy clients are still answered: %s", r.body)
	})
	t.Run("a key checked before the outage keeps opening its design", func(t *testing.T) {
		r := lockedCall(designKey)
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Contains(t, r.body, "misty")
		requireUnavailable(t, lockedCall(unseenKey))
		r = lockedCall("")
		require.Equal(t, http.StatusUnauthorized, r.status, "no key is still refused: %s", r.body)
	})
	t.Run("REST answers 503", func(t *testing.T) {
		r := owner.For(t).Do("GET", "/api/servers", nil).Problem(http.StatusServiceUnavailable)
		require.Equal(t, "5", r.Hdr.Get("Retry-After"))
		r = owner.For(t).Do("POST", "/api/servers", map[string]any{"name": "Offline", "version": "1.0.0"}).
			Problem(http.StatusServiceUnavailable)
		require.Equal(t, "5", r.Hdr.Get("Retry-After"))
		requireUnavailable(t, send(t, "GET", env.URL+"/api/servers", key, ""))
	})
	t.Run("the service endpoint answers 503", func(t *testing.T) {
		requireUnavailable(t, send(t, "POST", env.URL+"/api/platform-mcp/mcp", key,
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	})
	t.Run("a policy route answers 503", func(t *testing.T) {
		requireUnavailable(t, send(t, "GET", endpoint(sdkID)+"/spec", key, ""))
	})
	t.Run("health reports the database unavailable", func(t *testing.T) {
		r := owner.For(t).Do("GET", "/api/health", nil).Status(http.StatusServiceUnavailable)
		require.Equal(t, "unavailable", r.String("database"))
	})

	// Warm designs answer all along, for 10 s.
	calls := 0
	for time.Since(cutAt) < 10*time.Second {
		require.Contains(t, sdkForecast(), "sunny")
		r := mcpCall(t, endpoint(plainID), "forecast")
		require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
		require.Contains(t, r.body, "windy")
		calls++
		time.Sleep(500 * time.Millisecond)
	}
	require.GreaterOrEqual(t, calls, 10)
	requireUnavailable(t, mcpCall(t, endpoint(coldID), "forecast"))

	proxy.Restore()
	restoredAt := time.Now()
	require.Eventually(t, func() bool {
		return owner.Do("POST", "/api/servers", map[string]any{"name": "Back", "version": "1.0.0"}).Code == http.StatusCreated
	}, 5*time.Second, 100*time.Millisecond, "writes work again within 5 s")
	t.Logf("writes worked again %s after the database came back", time.Since(restoredAt).Round(time.Millisecond))
	require.Eventually(t, env.Service.MCP().Listening, 10*time.Second, 20*time.Millisecond, "the listener reconnects")

	// A change made after recovery reaches the endpoint, through the
	// reconnected listener; so does a second one, made once the design
	// was reloaded as current (only a notification can change it then).
	for _, forecast := range []string{"hail", "thunder"} {
		owner.Do("PATCH", "/api/servers/"+sdkID+"/tools/"+sdkTool, map[string]any{
			"mock_scenarios": []map[string]any{{"name": "any", "condition": map[string]any{}, "response": map[string]any{"forecast": forecast}}},
		}).Status(http.StatusOK)
		require.Eventually(t, func() bool { return strings.Contains(sdkForecast(), forecast) }, 5*time.Second, 50*time.Millisecond,
			"the change to %q is served", forecast)
	}
	r = mcpCall(t, endpoint(coldID), "forecast")
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	require.Contains(t, r.body, "foggy")
	r = modernCall(t, endpoint(plainID), "forecast")
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
	require.Contains(t, r.body, `"resultType":"complete"`)
	require.Contains(t, r.body, "windy")
	r = send(t, "POST", env.URL+"/api/platform-mcp/mcp", key, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	require.Equal(t, http.StatusOK, r.status, "body: %s", r.body)
}
