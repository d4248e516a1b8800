package platformmcp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/platformmcp"
)

// TestAssistantPromotesRecordings: through the service endpoint, an
// assistant turns a call recorded from a design's upstream into a scenario.
func TestAssistantPromotesRecordings(t *testing.T) {
	env, owner, raw := signupWithKey(t, "Promote Assistant Org", "assistant")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	real := owner.Do("POST", "/api/servers", map[string]any{"name": "real"}).Status(http.StatusCreated).String("id")
	owner.Do("POST", "/api/servers/"+real+"/tools", map[string]any{"name": "get_weather", "input_schema": map[string]any{"type": "object"},
		"mock_scenarios": []any{map[string]any{"name": "any", "response": map[string]any{"forecast": "upstream rain"}}}}).
		Status(http.StatusCreated)
	endpoint := owner.EnableServer(real).String("endpoint_url")
	server := owner.Do("POST", "/api/servers", map[string]any{"name": "recorder",
		"upstream": map[string]any{"url": endpoint, "mode": "record"}}).Status(http.StatusCreated).String("id")
	owner.EnableServer(server)

	anon := env.Anonymous(t)
	anon.Header.Set("Accept", "application/json")
	anon.Do("POST", "/api/platform/"+server+"/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "Oslo"}}}).Status(http.StatusOK)
	require.Eventually(t, func() bool {
		return owner.Do("GET", "/api/servers/"+server+"/journal?outcome=proxied", nil).Status(http.StatusOK).Len("items") == 1
	}, 10*time.Second, 20*time.Millisecond)

	platform := connect(t, ctx, env.URL+platformmcp.Path, keyTransport{"X-API-Key", raw})
	out := callJSON(t, ctx, platform, "promote_recordings", map[string]any{"server_id": server, "tool": "get_weather"})
	require.Equal(t, false, out["dry_run"])
	items := out["promoted"].([]any)
	require.Len(t, items, 1)
	item := items[0].(map[string]any)
	require.Equal(t, "created", item["action"])
	require.Equal(t, "recorded city=Oslo", item["scenario"])
	require.Equal(t, []any{"get_weather"}, out["tools_created"])
	tools := owner.Do("GET", "/api/servers/"+server+"/tools", nil).Status(http.StatusOK)
	require.Equal(t, "recorded city=Oslo", tools.Get("items.0.mock_scenarios.0.name"))
}
