package platformmcp_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/platformmcp"
)

// TestAssistantExpiresAndRevokesOAuthTokens: through the service endpoint,
// an assistant expires, then revokes, the tokens of a design's
// authorization server, and lists and deletes its clients.
func TestAssistantExpiresAndRevokesOAuthTokens(t *testing.T) {
	env, owner, raw := signupWithKey(t, "OAuth Assistant Org", "assistant")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	server := owner.Do("POST", "/api/servers", map[string]any{"name": "guarded", "auth_mode": "oauth"}).
		Status(http.StatusCreated).String("id")

	platform := connect(t, ctx, env.URL+platformmcp.Path, keyTransport{"X-API-Key", raw})
	out := callJSON(t, ctx, platform, "expire_oauth_tokens", map[string]any{"server_id": server})
	require.NotNil(t, out["oauth_tokens_not_before"])
	require.Nil(t, out["oauth_refresh_not_before"])
	out = callJSON(t, ctx, platform, "revoke_oauth_tokens", map[string]any{"server_id": server})
	require.NotNil(t, out["oauth_refresh_not_before"])
	got := owner.Do("GET", "/api/servers/"+server, nil).Status(http.StatusOK)
	require.Equal(t, out["oauth_refresh_not_before"], got.Get("oauth_refresh_not_before"))

	owner.Do("PATCH", "/api/servers/"+server, map[string]any{"enabled": true}).Status(http.StatusOK) // its authorization server serves
	resp, err := http.Post(env.URL+"/api/platform/"+server+"/oauth/register", "application/json", strings.NewReader(
		`{"client_name": "assistant-listed", "token_endpoint_auth_method": "client_secret_post", "grant_types": ["client_credentials"]}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	out = callJSON(t, ctx, platform, "list_oauth_clients", map[string]any{"server_id": server})
	require.Len(t, out["items"], 1)
	require.Equal(t, "assistant-listed", out["items"].([]any)[0].(map[string]any)["client_name"])

	res, err := platform.CallTool(ctx, &mcp.CallToolParams{Name: "delete_oauth_clients", Arguments: map[string]any{"server_id": server}})
	require.NoError(t, err)
	require.False(t, res.IsError, "%+v", res.Content)
	out = callJSON(t, ctx, platform, "list_oauth_clients", map[string]any{"server_id": server})
	require.Empty(t, out["items"])
	res, err = platform.CallTool(ctx, &mcp.CallToolParams{Name: "delete_oauth_clients", Arguments: map[string]any{"server_id": uuid.NewString()}})
	require.NoError(t, err)
	require.True(t, res.IsError, "an unknown server is not found")
}
