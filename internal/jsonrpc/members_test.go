package jsonrpc

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// membersOf is what members finds in obj, by key as decoded.
func membersOf(obj []byte) map[string]string {
	out := map[string]string{}
	Members(obj, func(k, v []byte) bool {
		var key string
		if json.Unmarshal(append(append([]byte{'"'}, k...), '"'), &key) != nil {
			key = "!" + string(k)
		}
		out[key] = string(v)
		return true
	})
	return out
}

func TestMembers(t *testing.T) {
	cases := []struct {
		name string
		obj  string
		want map[string]string
	}{
		{"empty", `{}`, map[string]string{}},
		{"not an object", `[1,2]`, map[string]string{}},
		{"every kind of value", `{"a":1,"b":"x\"}","c":{"d":[1,{"e":"]"}]},"f":null,"g":true,"h":-1.5e3}`,
			map[string]string{"a": "1", "b": `"x\"}"`, "c": `{"d":[1,{"e":"]"}]}`, "f": "null", "g": "true", "h": "-1.5e3"}},
		{"white space", " { \"a\" :\n 1 ,\t\"b\": [ ] } ", map[string]string{"a": "1", "b": "[ ]"}},
		{"escaped key", `{"\u005fmeta":{}}`, map[string]string{"_meta": "{}"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, membersOf([]byte(tc.obj)))
		})
	}
	require.True(t, KeyIs([]byte(`\u005fmeta`), "_meta"))
	require.False(t, KeyIs([]byte(`_met`), "_meta"))
	s, ok := StringValue([]byte(`"a\"b"`))
	require.True(t, ok)
	require.Equal(t, `a"b`, string(s))
	_, ok = StringValue([]byte(`12`))
	require.False(t, ok)
}

// FuzzMembers: on any valid JSON object, Members finds what encoding/json
// finds (the last of repeated keys aside, which Members gives in order).
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":{"b":[1,"]",{"c":"}"}]},"d":"\\\""}`, `{"\u00e9":null, "x" : true }`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]json.RawMessage
		if json.Unmarshal(data, &want) != nil || want == nil {
			return
		}
		got := membersOf(data)
		require.Len(t, got, len(want), "%s", data)
		for k, v := range want {
			var compact bytes.Buffer
			require.NoError(t, json.Compact(&compact, []byte(got[k])), "member %q of %s", k, data)
			var wantCompact bytes.Buffer
			require.NoError(t, json.Compact(&wantCompact, v))
			if !bytes.Equal(compact.Bytes(), wantCompact.Bytes()) && bytes.Count(data, []byte(k)) == 1 {
				t.Fatalf("member %q: got %s, want %s in %s", k, got[k], v, data)
			}
		}
	})
}
