package mcpserve

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// TestStatefulMatchAndExplain: a scenario matches when both its condition
// and its when_state hold, and the journal's explanation names, for each
// scenario tried, its failing argument clause or else its failing state
// clause.
func TestStatefulMatchAndExplain(t *testing.T) {
	scenarios := []mockspec.Scenario{
		{Name: "wrong argument", Condition: json.RawMessage(`{"a": "x"}`), WhenState: json.RawMessage(`{"k": 1}`)},
		{Name: "wrong state", WhenState: json.RawMessage(`{"k": 1}`)},
		{Name: "pattern, wrong state", Condition: json.RawMessage(`{"field": "a", "operator": "matches", "value": "^y$"}`),
			WhenState: json.RawMessage(`{"field": "k", "operator": "exists"}`)},
		{Name: "fallback"},
	}
	conds := make([]scenario.Condition, len(scenarios))
	for i, sc := range scenarios {
		conds[i], _ = scenario.Compile(sc.Condition)
	}
	st := compileStateful(scenarios, conds, false)
	require.NotNil(t, st)
	require.Nil(t, compileStateful(scenarios[3:], conds[3:], false), "no scenario uses the state")

	args, live := map[string]any{"a": "y"}, map[string]any{"j": 2.0}
	b := regexlimit.NewBudget()
	i, ok := st.match(args, live, &b)
	require.True(t, ok)
	require.Equal(t, 3, i)
	b = regexlimit.NewBudget()
	i, ok = st.match(args, map[string]any{"k": 1.0}, &b)
	require.True(t, ok)
	require.Equal(t, 1, i, "the state now holds for the second")

	got := explain(scenario.NewMatcher(conds), st.whenMatcher, []string{"wrong argument", "wrong state", "pattern, wrong state", "fallback"},
		args, map[string]any{}, 3)
	require.Len(t, got, 3)
	require.Equal(t, "wrong argument", got[0].Scenario)
	require.Equal(t, "a", got[0].Field)
	require.Equal(t, "wrong state", got[1].Scenario)
	require.Equal(t, "when_state.k", got[1].Field)
	require.Equal(t, "pattern, wrong state", got[2].Scenario)
	require.Equal(t, "when_state.k", got[2].Field, "the pattern held: the state is what failed")
	require.Equal(t, "exists", got[2].Operator)
}
