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
	"github.com/mockmcp/mockmcp/internal/testclock"
)

// TestTaskAfterQuestions: a branch of a tool's questions that answers
// with a task gets the answers given before it, kept with the task, and
// its outcome quotes them when it is polled (on any instance: they come
// back from the store).
func TestTaskAfterQuestions(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.Clock = clock.Now }})
	owner := env.Signup(t, "Tasks")
	id := createDesign(t, owner, serverDesign{
		Server:  json.RawMessage(`{"name":"Greeter","version":"1.0.0"}`),
		Enabled: true,
		Tools: []json.RawMessage{json.RawMessage(`{"name":"greet_later","description":"Asks a name, then greets as a task.",` +
			`"input_schema":{"type":"object"},"mock_scenarios":[{"name":"ask then task",` +
			`"ask":{"user_name":{"elicitation":{"message":"Your name?","requested_schema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}},` +
			`"then":[{"when":{"user_name.action":"accept"},"task":{"steps":[{"duration_ms":1000}],` +
			`"result":{"content":[{"type":"text","text":"Hello, {{user_name.content.name}}!"}]}}}]}]}`)},
	})
	endpoint := env.URL + "/api/platform/" + id + "/mcp"
	c := tasksClient{t: t, endpoint: endpoint, extension: true}

	asked := callAsking(t, endpoint, map[string]any{"name": "greet_later"})
	require.Equal(t, "input_required", asked["resultType"])
	require.NotContains(t, asked, "taskId")
	params := map[string]any{"name": "greet_later",
		"inputResponses": map[string]any{"user_name": map[string]any{"action": "accept", "content": map[string]any{"name": "Alice"}}}}
	if state, ok := asked["requestState"]; ok {
		params["requestState"] = state
	}
	created := callAsking(t, endpoint, params)
	require.Equal(t, "task", created["resultType"])
	taskID, _ := created["taskId"].(string)
	require.NotEmpty(t, taskID)

	clock.Advance(time.Second)
	got := c.get(taskID)
	require.Equal(t, "completed", got["status"])
	require.Equal(t, map[string]any{"content": []any{map[string]any{"type": "text", "text": "Hello, Alice!"}}}, got["result"])
}

// callAsking calls a tool as a modern client that declares elicitation
// and the tasks extension, and returns the result.
func callAsking(t *testing.T, endpoint string, params map[string]any) map[string]any {
	t.Helper()
	params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": modernVersion,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"elicitation": map[string]any{},
			"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}
	body := raw(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
	req := apitest.JSONRequest(t, http.MethodPost, endpoint, strings.NewReader(string(body)))
	req.Header.Set("Mcp-Protocol-Version", modernVersion)
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", params["name"].(string))
	req.Header.Set("Accept", "application/json")
	_, b := apitest.Send(t, req)
	var out struct {
		Result map[string]any
		Error  any
	}
	require.NoError(t, json.Unmarshal(b, &out), "%s", b)
	require.Nil(t, out.Error, "%s", b)
	return out.Result
}
