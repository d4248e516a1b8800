package scenario_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

func matchesCondition(t *testing.T, field, expr string) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(map[string]string{"field": field, "operator": "matches", "value": expr})
	require.NoError(t, err)
	return raw
}

func TestCompileBoundsRegularExpressions(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, expr, want string }{
		{"140 KB", strings.Repeat("(?:a|b)", 20000), "is 140000 characters long; a regular expression may have at most 1000"},
		{"short but compiles too large", strings.Repeat("(?:a|b){999}", 3), "compiles to 2999 instructions"},
		{"1000 characters that compile too large", strings.Repeat("[ab]{99}", 125), "instructions; a regular expression may compile to at most 2000"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.name == "140 KB", len(tc.expr) > regexlimit.MaxLength)
			c, errs := scenario.Compile(matchesCondition(t, "q", tc.expr))
			require.Len(t, errs, 1)
			require.Equal(t, "condition.value", errs[0].Field)
			require.Contains(t, errs[0].Message, tc.want)
			require.False(t, c.Match(map[string]any{"q": "ab"}), "a refused condition matches nothing")
		})
	}
	for _, expr := range []string{`^[a-z]+@example\.com$`, `^\d{4}-\d{2}-\d{2}$`, `(?i)^(paris|oslo)$`, strings.Repeat("a", 1000)} {
		require.Empty(t, scenario.Check(matchesCondition(t, "q", expr)), expr[:min(len(expr), 30)])
	}
}

func TestMatchWithinBudget(t *testing.T) {
	t.Parallel()
	m := scenario.NewMatcher([]scenario.Condition{
		mustCompile(t, `{"kind":"x"}`),
		mustCompile(t, string(matchesCondition(t, "doc.body", `(?:a|b){1000}c`))),
		mustCompile(t, `{}`),
	})

	t.Run("within", func(t *testing.T) {
		b := regexlimit.NewBudget()
		i, ok := m.MatchWithin(map[string]any{"doc": map[string]any{"body": strings.Repeat("ab", 2000)}}, &b)
		require.True(t, ok)
		require.Equal(t, 2, i, "the fallback, after the pattern was run and failed")
		require.False(t, b.Exhausted())
		require.Less(t, b.Left(), int64(regexlimit.CallBudget), "the run was paid for")
	})
	t.Run("beyond", func(t *testing.T) {
		b := regexlimit.NewBudget()
		// 20 KB against 1,003 instructions is 2e7 units, over the budget.
		i, ok := m.MatchWithin(map[string]any{"doc": map[string]any{"body": strings.Repeat("ab", 10000)}}, &b)
		require.False(t, ok, "not even the fallback answers once the budget is gone")
		require.Equal(t, -1, i)
		require.True(t, b.Exhausted())
		require.Equal(t, "doc.body", b.Field())
	})
	t.Run("unbounded Match", func(t *testing.T) {
		i, ok := m.Match(map[string]any{"doc": map[string]any{"body": strings.Repeat("ab", 10000)}})
		require.True(t, ok)
		require.Equal(t, 2, i)
	})
}

// Explain trusts the matcher: it never runs a pattern again, so a pattern
// condition before the matched scenario is reported failed even for
// arguments it would match.
func TestExplainDoesNotRunPatterns(t *testing.T) {
	t.Parallel()
	m := scenario.NewMatcher([]scenario.Condition{
		mustCompile(t, string(matchesCondition(t, "q", `^a`))),
		mustCompile(t, `{"q":"abc"}`),
	})
	got := m.Explain(map[string]any{"q": "abc"}, 1)
	require.Equal(t, []scenario.Mismatch{{Index: 0, Field: "q", Operator: "matches", Reason: `q: matches "^a" but was "abc"`}}, got)
}

func TestMismatchesStopsWhenAsked(t *testing.T) {
	t.Parallel()
	conds := make([]scenario.Condition, 50)
	for i := range conds {
		conds[i] = mustCompile(t, `{"q":"x"}`)
	}
	m := scenario.NewMatcher(conds)
	n := 0
	for range m.Mismatches(map[string]any{"q": "y"}, -1) {
		n++
		if n == 3 {
			break
		}
	}
	require.Equal(t, 3, n)
	require.Len(t, m.Explain(map[string]any{"q": "y"}, -1), 50)
}

// The reasons render values as encoding/json would, without HTML escaping,
// on the fast paths too.
func TestExplainRendersJSON(t *testing.T) {
	t.Parallel()
	m := scenario.NewMatcher([]scenario.Condition{mustCompile(t, `{"q":"x"}`)})
	for _, v := range []any{"plain <b> & text", "a\"b\\c\nd\té\u2028", 3.0, -0.5, 1e21, 1e-7, 0.0, true, nil,
		json.Number("12.50"), []any{"x", 1.5}, map[string]any{"k": "<v>"}} {
		want, err := json.Marshal(v)
		require.NoError(t, err)
		wantText := strings.NewReplacer(`\u003c`, "<", `\u003e`, ">", `\u0026`, "&").Replace(string(want))
		got := m.Explain(map[string]any{"q": v}, -1)
		require.Len(t, got, 1)
		require.Equal(t, `q: equals "x" but was `+wantText, got[0].Reason, "%#v", v)
	}
}
