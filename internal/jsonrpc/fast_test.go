package jsonrpc

import (
	"reflect"
	"testing"
)

// commonCases are requests parseCommon takes, and some it must leave to
// encoding/json.
var commonCases = []struct {
	msg  string
	fast bool
}{
	{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":1}}}`, true},
	{` { "jsonrpc" : "2.0" , "id" : "abc" , "method" : "custom/method" } `, true},
	{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, true},
	{`{"jsonrpc":"2.0","id":-1.5e3,"method":"ping","params":{},"extra":[1,2]}`, true},
	{`{"jsonrpc":"2.0","id":1,"method":"ping","id":2}`, false},          // repeated: encoding/json keeps the last
	{`{"JSONRPC":"2.0","id":1,"method":"ping"}`, false},                 // another case
	{`{"jsonrpc":"2.0","method":"ping","id":1,"jſonrpc":"1.0"}`, false}, // ſ folds to s: encoding/json takes the last
	{`{"jsonrpc":"2.0","i\u0064":1,"method":"ping"}`, false},            // an escaped name
	{`{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}`, false},            // an escaped method
	{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, false},              // an id that is not one
	{`{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`, false},    // params not an object
	{`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`, false},   // null params
	{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":""}`, false},
	{`{"jsonrpc":"2.0","id":1,"method":"ping"`, false}, // not JSON
	{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffng\"}", false},
}

// TestParseCommon checks that the in-place reading takes the common
// requests and answers them exactly as encoding/json does.
func TestParseCommon(t *testing.T) {
	for _, c := range commonCases {
		got, ok := parseCommon([]byte(c.msg))
		if ok != c.fast {
			t.Errorf("parseCommon(%s): ok %v, want %v", c.msg, ok, c.fast)
		}
		if ok {
			want, err := parseDecoded([]byte(c.msg))
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("parseCommon(%s) = %+v, encoding/json: %+v, %v", c.msg, got, want, err)
			}
		}
	}
}

// FuzzParseCommon checks on arbitrary bytes that whatever the in-place
// reading takes, it reads as encoding/json does.
func FuzzParseCommon(f *testing.F) {
	for _, c := range commonCases {
		f.Add([]byte(c.msg))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		got, ok := parseCommon(msg)
		if !ok {
			return
		}
		want, err := parseDecoded(msg)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("parseCommon(%q) = %+v, encoding/json: %+v, %v", msg, got, want, err)
		}
	})
}

// TestParseCommonAllocations: a common request costs one allocation (its
// id and params).
func TestParseCommonAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts of pooled code are not exact under the race detector")
	}
	msg := []byte(commonCases[0].msg)
	if n := testing.AllocsPerRun(100, func() { _, _ = Parse(msg) }); n > 1 {
		t.Errorf("Parse allocates %v times, want at most 1", n)
	}
}
