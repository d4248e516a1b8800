package platformmcp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/platformmcp"
)

// TestAssistantAppliesADesignDocument: through the service endpoint, an
// assistant applies a design document given as the tool's arguments (a
// dry run first), exports it, and applies the export again, unchanged.
func TestAssistantAppliesADesignDocument(t *testing.T) {
	env, owner, raw := signupWithKey(t, "Document Assistant Org", "assistant")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	platform := connect(t, ctx, env.URL+platformmcp.Path, keyTransport{"X-API-Key", raw})

	doc := map[string]any{
		"apiVersion": "mockmcp/v1", "kind": "MCPServer", "name": "Applied via MCP", "enabled": true,
		"tools": []any{map[string]any{"name": "get_forecast",
			"input_schema":   map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
			"mock_scenarios": []any{map[string]any{"name": "default", "response": map[string]any{"forecast": "sunny"}}}}},
		"resources": []any{map[string]any{"name": "Readme", "uri": "docs://readme", "content": "hello"}},
		"prompts":   []any{map[string]any{"name": "greet", "messages": []any{map[string]any{"role": "user", "text": "hi"}}}},
	}
	withDry := map[string]any{"dry_run": true}
	for k, v := range doc {
		withDry[k] = v
	}
	dry := callJSON(t, ctx, platform, "apply_design", withDry)
	require.Equal(t, true, dry["dry_run"])
	require.Nil(t, dry["server"].(map[string]any)["id"])
	require.Equal(t, 0, len(owner.Do("GET", "/api/servers", nil).Status(http.StatusOK).Get("items").([]any)))

	plan := callJSON(t, ctx, platform, "apply_design", doc)
	require.Equal(t, "created", plan["server"].(map[string]any)["action"])
	id := plan["server"].(map[string]any)["id"].(string)
	require.Equal(t, true, owner.Do("GET", "/api/servers/"+id, nil).Status(http.StatusOK).Get("enabled"))

	exported := callJSON(t, ctx, platform, "export_design", map[string]any{"server_id": id})
	require.Equal(t, "Applied via MCP", exported["name"])
	require.Len(t, exported["tools"], 1)
	again := callJSON(t, ctx, platform, "apply_design", exported)
	require.Equal(t, false, again["changed"])
	require.Equal(t, id, again["server"].(map[string]any)["id"])

	// A bad document is a tool error naming the field.
	doc["tools"] = []any{map[string]any{"name": "get_forecast", "input_schema": map[string]any{"type": 5}}}
	res, err := platform.CallTool(ctx, &mcp.CallToolParams{Name: "apply_design", Arguments: doc})
	require.NoError(t, err)
	status, fields, text := toolProblem(t, res)
	require.Equal(t, 422, status, text)
	require.Equal(t, "tools[0].input_schema", fields[0], text)
}
