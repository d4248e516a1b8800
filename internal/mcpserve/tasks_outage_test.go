package mcpserve_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// TestTasksThroughOutage: while the database is out, tasks/get,
// tasks/update and tasks/cancel, and a call that begins a task, answer 503
// problem+json with Retry-After (not 200 with -32603); when its packets are
// dropped they do so within the bound on a task statement, not after TCP
// gives up; once it is back the task answers again.
func TestTasksThroughOutage(t *testing.T) {
	var proxy *testdb.Proxy
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		proxy, c.DatabaseURL = testdb.NewProxy(t, c.DatabaseURL)
	}})
	owner := env.Signup(t, "Tasks out")
	endpoint := env.URL + "/api/platform/" + createDesign(t, owner, taskDesign()) + "/mcp"
	c := tasksClient{t: t, endpoint: endpoint, extension: true}
	taskID := c.result("tools/call", "build", map[string]any{"name": "build"})["taskId"].(string)
	c.get(taskID) // the design is cached: only the task needs the database

	send := func(method, name string, params map[string]any) (*http.Response, string) {
		t.Helper()
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": modernVersion,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{
				"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}
		body := raw(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		req := apitest.JSONRequest(t, http.MethodPost, endpoint, strings.NewReader(string(body)))
		req.Header.Set("Mcp-Protocol-Version", modernVersion)
		req.Header.Set("Mcp-Method", method)
		req.Header.Set("Mcp-Name", name)
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, b := apitest.Send(t, req)
		return resp, string(b)
	}
	requireUnavailable := func(resp *http.Response, body string) {
		t.Helper()
		require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, body)
		require.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"), body)
		require.Equal(t, "5", resp.Header.Get("Retry-After"))
		var p map[string]any
		require.NoError(t, json.Unmarshal([]byte(body), &p), body)
		require.Equal(t, float64(503), p["status"])
		require.NotContains(t, body, "127.0.0.1")
	}
	every := func() {
		t.Helper()
		requireUnavailable(send("tasks/get", taskID, map[string]any{"taskId": taskID}))
		requireUnavailable(send("tasks/update", taskID, map[string]any{"taskId": taskID, "inputResponses": map[string]any{}}))
		requireUnavailable(send("tasks/cancel", taskID, map[string]any{"taskId": taskID}))
		requireUnavailable(send("tools/call", "build", map[string]any{"name": "build"}))
	}

	proxy.Cut()
	every()

	proxy.Restore()
	apitest.Eventually(t, "the task answers again", func() bool {
		resp, _ := send("tasks/get", taskID, map[string]any{"taskId": taskID})
		return resp.StatusCode == http.StatusOK
	})

	proxy.Stall()
	start := time.Now()
	requireUnavailable(send("tasks/get", taskID, map[string]any{"taskId": taskID}))
	require.Less(t, time.Since(start), 6*time.Second, "a statement whose packets are dropped is bounded")
	t.Logf("stalled: %s", time.Since(start))

	proxy.Cut() // the stalled connections are broken: drop them
	proxy.Restore()
	apitest.Eventually(t, "the task answers after the stall", func() bool {
		resp, _ := send("tasks/get", taskID, map[string]any{"taskId": taskID})
		return resp.StatusCode == http.StatusOK
	})
}
