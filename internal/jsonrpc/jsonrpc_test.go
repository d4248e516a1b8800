package jsonrpc

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		name   string
		msg    string
		code   int64  // 0: valid
		id     string // raw id expected back ("" for none)
		method string
	}{
		{name: "request", msg: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, id: "1", method: "ping"},
		{name: "string id and params", msg: `{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}`, id: `"a"`, method: "tools/call"},
		{name: "notification", msg: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, method: "notifications/initialized"},
		{name: "null params", msg: `{"jsonrpc":"2.0","id":2,"method":"ping","params":null}`, id: "2", method: "ping"},
		{name: "not JSON", msg: `{"jsonrpc":`, code: -32700},
		{name: "missing jsonrpc", msg: `{"id":3,"method":"ping"}`, code: -32600, id: "3"},
		{name: "wrong jsonrpc", msg: `{"jsonrpc":"1.0","id":3,"method":"ping"}`, code: -32600, id: "3"},
		{name: "jsonrpc a number", msg: `{"jsonrpc":2,"id":4,"method":"ping"}`, code: -32600, id: "4"},
		{name: "missing method", msg: `{"jsonrpc":"2.0","id":5}`, code: -32600, id: "5"},
		{name: "method a number", msg: `{"jsonrpc":"2.0","id":5,"method":7}`, code: -32600, id: "5"},
		{name: "params an array", msg: `{"jsonrpc":"2.0","id":6,"method":"ping","params":[1]}`, code: -32600, id: "6"},
		{name: "id an object", msg: `{"jsonrpc":"2.0","id":{},"method":"ping"}`, code: -32600, id: "null"},
		{name: "a JSON string", msg: `"hello"`, code: -32600},
		// Member names are exact, as the official SDK servers read them.
		{name: "names in capitals", msg: `{"JSONRPC":"2.0","ID":18,"METHOD":"ping"}`, code: -32600},
		{name: "method in another case", msg: `{"jsonrpc":"2.0","id":18,"Method":"ping"}`, code: -32600, id: "18"},
		{name: "escaped names", msg: `{"json\u0072pc":"2.0","\u0069d":19,"method":"ping"}`, id: "19", method: "ping"},
		{name: "duplicate id", msg: `{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`, code: -32600},
		{name: "duplicate method", msg: `{"jsonrpc":"2.0","id":3,"method":"ping","method":"tools/list"}`, code: -32600, id: "3"},
		{name: "duplicate params", msg: `{"jsonrpc":"2.0","id":4,"method":"ping","params":{},"params":{}}`, code: -32600, id: "4"},
		{name: "duplicate by escape", msg: `{"jsonrpc":"2.0","id":5,"method":"ping","m\u0065thod":"x"}`, code: -32600, id: "5"},
		{name: "invalid UTF-8 in the id", msg: "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}", code: -32700},
		{name: "invalid UTF-8 in params", msg: "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":{\"a\":\"\xc3(\"}}", code: -32700},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse([]byte(tc.msg))
			if tc.code == 0 {
				require.NoError(t, err)
				require.Equal(t, tc.method, r.Method)
				require.Equal(t, tc.id == "", r.IsNotification())
			} else {
				require.Equal(t, tc.code, Wire(err).Code, "error: %v", err)
			}
			require.Equal(t, tc.id, string(r.ID))
		})
	}
}

// TestFields reads members exactly: names decoded and case-sensitive, a
// repeated name reported.
func TestFields(t *testing.T) {
	names := []string{"name", "_meta"}
	vals := make([][]byte, 2)
	require.Empty(t, Fields([]byte(`{"Name":"a","name":"b","_met\u0061":{}}`), names, vals))
	require.Equal(t, `"b"`, string(vals[0]))
	require.Equal(t, `{}`, string(vals[1]))
	require.Equal(t, "name", Fields([]byte(`{"name":"a","n\u0061me":"b"}`), names, vals))
	require.Empty(t, Fields([]byte(`{"NAME":"a"}`), names, vals))
	require.Nil(t, vals[0])
	plain := []byte(`{"name":"a","arguments":{"x":1},"_meta":{}}`)
	allocs := testing.AllocsPerRun(100, func() { Fields(plain, names, vals) })
	require.Zero(t, allocs)
}

func TestWire(t *testing.T) {
	wrapped := fmt.Errorf("%w: missing required field 'city'", ErrInvalidParams)
	require.True(t, errors.Is(wrapped, ErrInvalidParams))
	require.False(t, errors.Is(wrapped, ErrInvalidRequest))
	w := Wire(wrapped)
	require.Equal(t, int64(-32602), w.Code)
	require.Equal(t, "Invalid params: missing required field 'city'", w.Message)

	w = Wire(WithData(wrapped, map[string]string{"field": "city"}))
	require.Equal(t, map[string]string{"field": "city"}, w.Data)

	// A foreign error never reaches the caller's eyes.
	w = Wire(errors.New("pq: connection refused at 10.0.0.5"))
	require.Equal(t, &Error{Code: -32603, Message: "Internal error"}, w)
	w = Wire(fmt.Errorf("%w: stack trace here", ErrInternal))
	require.Equal(t, "Internal error", w.Message)

	// Detail that quotes a decoder's error is told in JSON's words.
	var p struct {
		Name []string `json:"name"`
	}
	decodeErr := json.Unmarshal([]byte(`{"name": 1}`), &p)
	w = Wire(fmt.Errorf("%w: %v", ErrInvalidParams, decodeErr))
	require.Equal(t, "Invalid params: name must be an array, not a number", w.Message)
}

func TestAppend(t *testing.T) {
	require.Equal(t, `{"jsonrpc":"2.0","id":7,"result":{}}`, string(AppendResult(nil, []byte("7"), []byte("{}"))))
	require.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		string(AppendError(nil, nil, ErrParse)))
	require.Equal(t, `{"jsonrpc":"2.0","id":"x","error":{"code":-32002,"message":"Resource not found: a://b","data":{"uri":"a://b"}}}`,
		string(AppendError(nil, []byte(`"x"`), &Error{Code: -32002, Message: "Resource not found: a://b", Data: map[string]string{"uri": "a://b"}})))
}
