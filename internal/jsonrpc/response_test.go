package jsonrpc

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseResponse(t *testing.T) {
	for _, tc := range []struct {
		msg            string
		ok             bool
		id, res, error string
	}{
		{`{"jsonrpc":"2.0","id":"a","result":{"action":"accept"}}`, true, `"a"`, `{"action":"accept"}`, ""},
		{`{"id":7,"error":{"code":-32601,"message":"m"},"jsonrpc":"2.0"}`, true, `7`, "", `{"code":-32601,"message":"m"}`},
		{`{"jsonrpc":"2.0","id":"a","result":null}`, true, `"a"`, `null`, ""},
		{`{"jsonrpc":"2.0","id":"a","method":"x","result":{}}`, false, "", "", ""},
		{`{"jsonrpc":"2.0","id":"a","result":{},"error":{"code":1,"message":"m"}}`, false, "", "", ""},
		{`{"jsonrpc":"2.0","id":"a"}`, false, "", "", ""},
		{`{"jsonrpc":"1.0","id":"a","result":{}}`, false, "", "", ""},
		{`{"jsonrpc":"2.0","id":null,"result":{}}`, false, "", "", ""},
		{`{"jsonrpc":"2.0","result":{}}`, false, "", "", ""},
		{`{"jsonrpc":"2.0","id":1,"error":"bad"}`, false, "", "", ""},
		{`[{"jsonrpc":"2.0","id":1,"result":{}}]`, false, "", "", ""},
		{`{"json\u0072pc":"2.0","\u0069d":1,"result":{}}`, true, `1`, `{}`, ""},
	} {
		r, ok := ParseResponse([]byte(tc.msg))
		require.Equal(t, tc.ok, ok, tc.msg)
		if ok {
			require.Equal(t, tc.id, string(r.ID), tc.msg)
			require.Equal(t, tc.res, string(r.Result), tc.msg)
			require.Equal(t, tc.error, string(r.Error), tc.msg)
		}
	}
}
