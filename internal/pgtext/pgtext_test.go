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
