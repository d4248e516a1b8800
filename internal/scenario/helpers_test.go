package scenario_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/scenario"
)

func mustCompile(t testing.TB, cond string) scenario.Condition {
	t.Helper()
	c, errs := scenario.Compile(json.RawMessage(cond))
	require.Empty(t, errs, "condition %s", cond)
	return c
}

// decodeArgs decodes arguments the way the MCP endpoint may: plain
// encoding/json (float64 numbers) or with UseNumber (json.Number).
func decodeArgs(t testing.TB, args string, useNumber bool) map[string]any {
	t.Helper()
	if args == "" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(args)))
	if useNumber {
		dec.UseNumber()
	}
	var m map[string]any
	require.NoError(t, dec.Decode(&m))
	return m
}

type matchCase struct {
	name string
	cond string
	args string
	want bool
}

// runMatchCases checks every case under both number representations, since
// the caller may decode arguments either way.
func runMatchCases(t *testing.T, cases []matchCase) {
	t.Helper()
	for _, tc := range cases {
		for _, useNumber := range []bool{false, true} {
			name := tc.name + "/float64"
			if useNumber {
				name = tc.name + "/json.Number"
			}
			t.Run(name, func(t *testing.T) {
				c := mustCompile(t, tc.cond)
				require.Equal(t, tc.want, c.Match(decodeArgs(t, tc.args, useNumber)))
			})
		}
	}
}
