package platformmcp_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/platformmcp"
)

// TestStateTools: the live state of a design is read, replaced and reset
// through the platform tools as through REST.
func TestStateTools(t *testing.T) {
	env, owner, raw := signupWithKey(t, "State Org", "state")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	platform := connect(t, ctx, env.URL+platformmcp.Path, keyTransport{"X-API-Key", raw})

	id := owner.Do("POST", "/api/servers", map[string]any{"name": "Stateful", "state": map[string]any{"items": []any{}}}).
		Status(http.StatusCreated).String("id")
	require.Equal(t, map[string]any{"items": []any{}}, callJSON(t, ctx, platform, "get_state", map[string]any{"server_id": id}))
	set := callJSON(t, ctx, platform, "set_state", map[string]any{"server_id": id, "item": map[string]any{"id": "1"}})
	require.Equal(t, map[string]any{"item": map[string]any{"id": "1"}}, set)
	require.JSONEq(t, `{"item": {"id": "1"}}`, string(owner.Do("GET", "/api/servers/"+id+"/state", nil).Status(http.StatusOK).Raw))
	require.Equal(t, map[string]any{"items": []any{}}, callJSON(t, ctx, platform, "reset_state", map[string]any{"server_id": id}))
}
