package platformmcp_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// TestToolsCallParams: the service endpoint reads the params of tools/call
// as the per-server endpoints do, naming the field that is wrong.
func TestToolsCallParams(t *testing.T) {
	t.Parallel()
	env, owner := apitest.SignedUp(t, "Params Org")
	key := map[string]string{"X-API-Key": newKey(owner, map[string]any{"name": "k"})}
	for _, tc := range []struct{ name, params, want string }{
		{"no params", ``,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: missing required field 'name'","data":{"field":"name","reason":"tools/call needs the name of the tool"}}}`},
		{"no name", `,"params":{"arguments":{}}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: missing required field 'name'","data":{"field":"name","reason":"tools/call needs the name of the tool"}}}`},
		{"arguments not an object", `,"params":{"name":"list_servers","arguments":[1]}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: field 'arguments' must be an object"}}`},
		{"name not a string", `,"params":{"name":7}`,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params: field 'name' must be a string"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := post(t, env, key, `{"jsonrpc":"2.0","id":1,"method":"tools/call"`+tc.params+`}`)
			require.Equal(t, http.StatusOK, code)
			require.JSONEq(t, tc.want, body)
		})
	}
	t.Run("a method not in the table", func(t *testing.T) {
		code, body := post(t, env, key, `{"jsonrpc":"2.0","id":1,"method":"resources/list"}`)
		require.Equal(t, http.StatusOK, code)
		require.JSONEq(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found: resources/list"}}`, body)
	})
}
