package mcpserve_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/service"
)

// mcpCall posts one JSON-RPC message to an MCP endpoint and returns the
// status and body.
func mcpCall(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, raw := apitest.Send(t, apitest.JSONRequest(t, "POST", url, strings.NewReader(body)))
	return resp.StatusCode, string(raw)
}

// TestChangesReachAnotherInstance runs two service instances on one
// database: a change made through the first instance's REST API is served by
// the second, whose cache was warm (for requests of both eras), within a
// second.
func TestChangesReachAnotherInstance(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	second, err := service.New(context.Background(), env.Config, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	srv2 := httptest.NewServer(second.Handler())
	t.Cleanup(func() { srv2.Close(); _ = second.Close() })

	ada := env.Signup(t, "Acme")
	id := ada.Do("POST", "/api/servers", map[string]any{"name": "Weather"}).Status(http.StatusCreated).String("id")
	toolID := ada.Do("POST", "/api/servers/"+id+"/tools", map[string]any{
		"name": "get_forecast", "mock_scenarios": []map[string]any{{"name": "all", "response": map[string]any{"forecast": "sunny"}}},
	}).Status(http.StatusCreated).String("id")
	ada.Do("PATCH", "/api/servers/"+id, map[string]any{"enabled": true}).Status(http.StatusOK)

	endpoint := srv2.URL + "/api/platform/" + id + "/mcp"
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast"}}`
	sessions := []*session{legacyEra.open(t, endpoint), modernEra.open(t, endpoint)}
	// answers are the answers of get_forecast in each era, joined.
	answers := func() string {
		var out []string
		for _, s := range sessions {
			r := s.call("tools/call", map[string]any{"name": "get_forecast"})
			out = append(out, strconv.Itoa(r.status)+" "+string(r.Result))
		}
		return strings.Join(out, "\n")
	}
	require.Equal(t, 2, strings.Count(answers(), "sunny"), "the second instance now has the design cached, and its modern view")

	eventually := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(time.Second)
		for !ok() {
			require.True(t, time.Now().Before(deadline), "%s did not reach the second instance within 1s", what)
			time.Sleep(10 * time.Millisecond)
		}
	}

	ada.Do("PATCH", "/api/servers/"+id+"/tools/"+toolID, map[string]any{
		"mock_scenarios": []map[string]any{{"name": "all", "response": map[string]any{"forecast": "snow"}}},
	}).Status(http.StatusOK)
	eventually("a scenario change", func() bool {
		return strings.Count(answers(), "snow") == 2
	})

	ada.Do("PATCH", "/api/servers/"+id, map[string]any{"name": "Weather v2"}).Status(http.StatusOK)
	eventually("a rename", func() bool {
		_, body := mcpCall(t, endpoint, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2024-11-05","clientInfo":{"name":"t","version":"1"},"capabilities":{}}}`)
		return strings.Contains(body, "Weather v2")
	})

	ada.Do("PATCH", "/api/servers/"+id, map[string]any{"enabled": false}).Status(http.StatusOK)
	eventually("a disable", func() bool {
		return strings.Count(answers(), "404 ") == 2
	})

	ada.Do("PATCH", "/api/servers/"+id, map[string]any{"enabled": true}).Status(http.StatusOK)
	eventually("a re-enable", func() bool {
		code, _ := mcpCall(t, endpoint, call)
		return code == http.StatusOK
	})

	ada.Do("DELETE", "/api/servers/"+id, nil).Status(http.StatusNoContent)
	eventually("a delete", func() bool {
		code, _ := mcpCall(t, endpoint, call)
		return code == http.StatusNotFound
	})
}

// TestWarmRequestsTouchNoDatabase closes the database pool under a warm
// endpoint: cached designs are still served, to requests of either era,
// their tools and their skills.
func TestWarmRequestsTouchNoDatabase(t *testing.T) {
	t.Parallel()
	// With the pool closed, the journal's records of these calls can never
	// be written: a short shutdown stops the service without waiting the
	// default 15 s for them.
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.ShutdownTimeout = 100 * time.Millisecond }})
	ada := env.Signup(t, "Acme")
	id := ada.Do("POST", "/api/servers", map[string]any{"name": "Weather", "skills": []any{map[string]any{
		"name": "forecasting", "description": "Read a forecast", "body": "# Forecasts\n",
		"files": []any{map[string]any{"path": "references/UNITS.md", "text": "Celsius"}}}}}).Status(http.StatusCreated).String("id")
	ada.Do("POST", "/api/servers/"+id+"/tools", map[string]any{
		"name": "get_forecast", "mock_scenarios": []map[string]any{{"name": "all", "response": map[string]any{"forecast": "sunny"}}},
	}).Status(http.StatusCreated)
	ada.Do("PATCH", "/api/servers/"+id, map[string]any{"enabled": true}).Status(http.StatusOK)
	endpoint := env.URL + "/api/platform/" + id + "/mcp"
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast"}}`
	code, _ := mcpCall(t, endpoint, call)
	require.Equal(t, http.StatusOK, code)
	// Notifications of the changes above arrive asynchronously and may drop
	// the copy just loaded. They arrive in commit order, so once a marker
	// notified after them has been handled, so have they.
	settleNotifications(t, env)
	code, _ = mcpCall(t, endpoint, call)
	require.Equal(t, http.StatusOK, code)
	entries, _ := env.Service.MCP().CacheStats()
	require.Equal(t, 1, entries)
	sessions := []*session{legacyEra.open(t, endpoint), modernEra.open(t, endpoint)}
	for _, s := range sessions { // the modern view is built on the first modern request
		require.Contains(t, s.call("tools/call", map[string]any{"name": "get_forecast"}).ok(t), "sunny")
	}

	env.Service.Store().Close()
	for range 20 {
		code, body := mcpCall(t, endpoint, call)
		require.Equal(t, http.StatusOK, code)
		require.True(t, bytes.Contains([]byte(body), []byte("sunny")))
		for _, s := range sessions {
			require.Contains(t, s.call("tools/call", map[string]any{"name": "get_forecast"}).ok(t), "sunny", s.era.name)
			require.Contains(t, s.call("skills/list", nil).ok(t), "skill://forecasting/SKILL.md", s.era.name)
			require.Contains(t, s.call("skills/get", map[string]any{"uri": "skill://forecasting/SKILL.md"}).ok(t), "Read a forecast", s.era.name)
			require.Contains(t, s.call("resources/read", map[string]any{"uri": "skill://forecasting/references/UNITS.md"}).ok(t), "Celsius", s.era.name)
			require.Contains(t, s.call("resources/directory/read", map[string]any{"uri": "skill://forecasting"}).ok(t), "inode/directory", s.era.name)
		}
	}
}

// settleNotifications waits until every design notification sent so far has
// been handled: it caches a miss for a marker id, notifies that id, and
// waits for the miss to be dropped.
func settleNotifications(t *testing.T, env *apitest.Env) {
	t.Helper()
	marker := uuid.New()
	code, _ := mcpCall(t, env.URL+"/api/platform/"+marker.String()+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	require.Equal(t, http.StatusNotFound, code)
	require.True(t, env.Service.MCP().Cached(marker), "the miss is cached")
	_, err := env.Service.Store().Pool().Exec(context.Background(), "SELECT pg_notify('mockmcp_design', $1)", marker.String())
	require.NoError(t, err)
	deadline := time.Now().Add(5 * time.Second)
	for env.Service.MCP().Cached(marker) {
		require.True(t, time.Now().Before(deadline), "the marker notification was not handled")
		time.Sleep(5 * time.Millisecond)
	}
}
