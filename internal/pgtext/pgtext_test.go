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
