package platformmcp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// TestServiceEndpointBatches: the service endpoint bounds batches as the
// per-server endpoints do, with MAX_BATCH_MESSAGES, and refuses them under
// the protocol versions that removed batching.
func TestServiceEndpointBatches(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.MaxBatchMessages = 2 }})
	owner := env.Signup(t, "Batch Org")
	key := map[string]string{"X-API-Key": newKey(owner, map[string]any{"name": "k"})}
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`

	code, body := post(t, env, key, "["+ping+","+ping+"]")
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":1,"result":{}}]`, body)

	code, body = post(t, env, key, "["+strings.Repeat(ping+",", 2)+ping+"]")
	require.Equal(t, http.StatusOK, code)
	require.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: a batch holds at most 2 messages"}}`, body)

	key["Mcp-Protocol-Version"] = "2025-11-25"
	code, body = post(t, env, key, "["+ping+"]")
	require.Equal(t, http.StatusBadRequest, code)
	require.Contains(t, body, `"code":-32600`)
	code, _ = post(t, env, key, ping)
	require.Equal(t, http.StatusOK, code)
}
