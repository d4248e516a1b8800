package pgtext

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestJSONBProblem(t *testing.T) {
	for _, tc := range []struct {
		name, raw, want string // want: a fragment of the problem, "" when storable
	}{
		{"plain", `{"a":["b",1,null]}`, ""},
		{"other escapes", `"\u00e9\u0001\n\"\/"`, ""},
		{"surrogate pair", `"\ud83d\ude00"`, ""},
		{"escaped backslash before u0000", `"\\u0000"`, ""},
		{"escaped backslash before a surrogate", `"\\ud800"`, ""},
		{"NUL", `"a\u0000"`, "NUL"},
		{"NUL after an escaped backslash", `"\\\u0000"`, "NUL"},
		{"NUL in a key", `{"\u0000":1}`, "NUL"},
		{"NUL after a pair", `["\ud83d\ude00","\u0000"]`, "NUL"},
		{"lone high surrogate", `"\ud800"`, "surrogate"},
		{"high surrogate before text", `"\ud800x"`, "surrogate"},
		{"lone low surrogate", `"\udc00"`, "surrogate"},
		{"high surrogate before a letter escape", `"\ud800\u0041"`, "surrogate"},
		{"two high surrogates", `"\ud800\ud800"`, "surrogate"},
		{"upper-case hex", `"\uD800"`, "surrogate"},
		{"invalid UTF-8 in a string", "{\"k\":\"\xff\"}", "UTF-8"},
		{"invalid UTF-8 in a key", "{\"\xc3\x28\":1}", "UTF-8"},
		{"a UTF-8 encoded surrogate", "\"\xed\xa0\x80\"", "UTF-8"},
		{"valid UTF-8", "\"\u00e9\xc3\xa9\xf0\x9f\x98\x80\"", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.True(t, json.Valid([]byte(tc.raw)), "the case must be valid JSON")
			got := JSONBProblem([]byte(tc.raw))
			if tc.want == "" {
				require.Empty(t, got)
				return
			}
			require.Contains(t, got, tc.want)
		})
	}
}

func TestJSONProblems(t *testing.T) {
	for _, tc := range []struct {
		name, raw string
		want      []JSONProblem
	}{
		{"clean", `{"a":[1,"b",{"c":null}],"d":1e400}`, nil},
		{"escaped backslash", `{"a":"\\u0000"}`, nil},
		{"NUL in a member", `{"name":"a\u0000"}`, []JSONProblem{{[]string{"name"}, NULMessage}}},
		{"NUL deep", `{"a":[{"b":"x"},{"b":["y","\u0000"]}],"c":"ok"}`,
			[]JSONProblem{{[]string{"a", "1", "b", "1"}, NULMessage}}},
		{"NUL in a key names the object", `{"a":{"k\u0000":1}}`, []JSONProblem{{[]string{"a"}, NULMessage}}},
		{"NUL in a root key", `{"\u0000":1}`, []JSONProblem{{[]string{}, NULMessage}}},
		{"NUL in a root string", `"\u0000"`, []JSONProblem{{[]string{}, NULMessage}}},
		{"surrogate after containers", `{"a":[[],{}],"b":"\ud800"}`, []JSONProblem{{[]string{"b"}, "must not contain an unpaired UTF-16 surrogate escape"}}},
		{"raw invalid UTF-8", "{\"a\":[\"ok\",\"\xff\"]}", []JSONProblem{{[]string{"a", "1"}, UTF8Message}}},
		{"several", `{"a":"\u0000","b":{"c":"\u0000"}}`,
			[]JSONProblem{{[]string{"a"}, NULMessage}, {[]string{"b", "c"}, NULMessage}}},
		{"invalid JSON stops the walk", `{"a":"\u0000",`, []JSONProblem{{[]string{"a"}, NULMessage}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, JSONProblems([]byte(tc.raw)))
		})
	}
}

func TestTextProblem(t *testing.T) {
	require.Empty(t, TextProblem("héllo"))
	require.Equal(t, NULMessage, TextProblem("a\x00"))
	require.Equal(t, UTF8Message, TextProblem("a\xff"))
}
