package mcptransport

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
)

// decodeBoth decodes params both ways: DecodeCall and the full decoding by
// encoding/json it stands for.
func decodeBoth[A ~map[string]V, V any](t *testing.T, params []byte) {
	t.Helper()
	got, gotErr := DecodeCall[A](params, "no name")
	want, wantErr := decodeCall[A](params, "no name")
	if wantErr != nil {
		require.Error(t, gotErr, "%s", params)
		require.Equal(t, wantErr.Error(), gotErr.Error(), "%s", params)
		return
	}
	require.NoError(t, gotErr, "%s", params)
	require.Equal(t, want.Name, got.Name, "%s", params)
	require.Equal(t, want.Arguments, got.Arguments, "%s", params)
	require.Equal(t, string(want.ProgressToken), string(got.ProgressToken), "%s", params)
}

// decodeCallCases are params DecodeCall must read as encoding/json does.
var decodeCallCases = []string{
	`{"name":"t","arguments":{"city":"Oslo","days":3}}`,
	`{"name":"t"}`,
	`{"arguments":{"a":1}}`,
	`{}`,
	`null`,
	`{"name":"t","arguments":null}`,
	`{"name":"t","arguments":[1]}`,
	`{"name":7}`,
	`{"name":null}`,
	`{"name":"t\u00e9\"x","arguments":{"a":{"b":[1,"]"]}}}`,
	`{"Name":"t","ARGUMENTS":{"a":1}}`,
	`{"name":"t","Name":"u"}`,
	`{"name":"t","arguments":{"a":1},"argumentſ":{"b":2}}`, // ſ folds to s, a byte longer
	`{"n\u0061me":"t"}`,
	`{"name":"a","name":"b"}`,
	`{"name":"t","arguments":{"a":1},"arguments":{"b":2}}`,
	`{"name":"t","_meta":{"progressToken":"p-1"}}`,
	`{"name":"t","_meta":{"progressToken":7,"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
	`{"name":"t","_meta":{"ProgressToken":"p"}}`,
	`{"name":"t","_meta":null}`,
	`{"name":"t","_meta":[]}`,
	`{"name":"t","_meta":{"progressToken":null}}`,
	`{"name":"t","arguments":{"big":1e999}}`,
	` { "name" : "t" , "arguments" : { "x" : true } } `,
}

func TestDecodeCallAsEncodingJSON(t *testing.T) {
	for _, c := range decodeCallCases {
		decodeBoth[map[string]any](t, []byte(c))
		decodeBoth[map[string]json.RawMessage](t, []byte(c))
	}
}

// FuzzDecodeCall: on any params object, DecodeCall answers as the full
// decoding by encoding/json does, errors included.
func FuzzDecodeCall(f *testing.F) {
	for _, c := range decodeCallCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		var probe map[string]json.RawMessage
		if json.Unmarshal(params, &probe) != nil {
			return // jsonrpc.Parse lets only objects and null through
		}
		decodeBoth[map[string]any](t, params)
		decodeBoth[map[string]json.RawMessage](t, params)
	})
}

// TestDecodeParamsExactNames: the members dispatch reads are matched
// exactly, escapes decoded, and a repeated one is refused naming it.
func TestDecodeParamsExactNames(t *testing.T) {
	for _, tc := range []struct {
		params, name, args, err string
	}{
		{params: `{"Name":"echo"}`, err: "missing required field 'name'"},
		{params: `{"NAME":"echo","name":"t"}`, name: "t", args: `{}`},
		{params: `{"name":"t","Arguments":{"x":1}}`, name: "t", args: `{}`},
		{params: `{"n\u0061me":"t","\u0061rguments":{"x":1}}`, name: "t", args: `{"x":1}`},
		{params: `{"N\u0061me":"t"}`, err: "missing required field 'name'"},
		{params: `{"name":"t","arguments":{"x":1},"arguments":{"y":2}}`, err: "'arguments' appears more than once"},
		{params: `{"name":"a","name":"b"}`, err: "'name' appears more than once"},
		{params: `{"name":"a","n\u0061me":"b"}`, err: "'name' appears more than once"},
		{params: `{"name":"a","_meta":{},"_meta":{}}`, err: "'_meta' appears more than once"},
		// Inside the arguments, at any depth, and the progress token.
		{params: `{"name":"t","arguments":{"x":1,"x":2}}`, err: "'arguments.x' appears more than once"},
		{params: `{"name":"t","arguments":{"q":{"z":1,"\u007a":2}}}`, err: "'arguments.q.z' appears more than once"},
		{params: `{"name":"t","arguments":{"l":[{"a":1},{"a":1,"a":1}]},"_meta":{"progressToken":1234567890123456}}`,
			err: "'arguments.l[1].a' appears more than once"},
		{params: `{"name":"t","arguments":{"x":1,"X":2}}`, name: "t", args: `{"x":1,"X":2}`},
		{params: `{"name":"t","_meta":{"progressToken":1,"progressToken":2}}`, err: "'_meta.progressToken' appears more than once"},
		{params: `{"name":"t","_meta":{"progressToken":{"a":1,"a":2}}}`, err: "'_meta.progressToken.a' appears more than once"},
	} {
		p, err := DecodeCallValues([]byte(tc.params), "no name")
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.params)
			continue
		}
		require.NoError(t, err, tc.params)
		require.Equal(t, tc.name, p.Name, tc.params)
		args, _ := json.Marshal(p.Arguments)
		require.JSONEq(t, tc.args, string(args), tc.params)
	}
	_, err := DecodeCall[map[string]json.RawMessage]([]byte(`{"name":"t","arguments":{"x":1,"x":2}}`), "no name")
	require.ErrorContains(t, err, "'arguments.x' appears more than once")
	var uri struct {
		URI string `json:"uri"`
	}
	require.NoError(t, DecodeParams([]byte(`{"uri":"b://y","URI":"a://x"}`), &uri))
	require.Equal(t, "b://y", uri.URI)
	require.ErrorContains(t, DecodeParams([]byte(`{"uri":"a://x","uri":"b://y"}`), &uri), "'uri' appears more than once")
}

// TestNumberOutOfRange: JSON allows numbers past float64's range (RFC 8259
// §6); one in the params is refused with a message that says so and names
// the member, not "must be a float64".
func TestNumberOutOfRange(t *testing.T) {
	var p struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	for _, tc := range []struct{ params, want string }{
		{`{"name":"t","arguments":{"a":1,"q":{"z":1e400}}}`,
			"field 'arguments.q.z' is the number 1e400, out of the range a value can hold"},
		{`{"name":"t","arguments":{"big":-2e308}}`,
			"field 'arguments.big' is the number -2e308, out of the range a value can hold"},
		{`{"name":"t","arguments":{"list":[1,1e999]}}`,
			"field 'arguments' is the number 1e999, out of the range a value can hold"},
	} {
		err := DecodeParams(json.RawMessage(tc.params), &p)
		require.ErrorIs(t, err, jsonrpc.ErrInvalidParams, tc.params)
		require.Contains(t, err.Error(), tc.want, tc.params)
		require.NotContains(t, err.Error(), "float64")
		_, err = DecodeCall[map[string]any](json.RawMessage(tc.params), "no name")
		require.ErrorIs(t, err, jsonrpc.ErrInvalidParams, tc.params)
		require.Contains(t, err.Error(), tc.want, "tools/call reads its params the same way: %s", tc.params)
	}
}
