package scenario_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/scenario"
)

func TestExplain(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name       string
		cond, args string
		want       scenario.Mismatch // Index is always 0
	}{
		{name: "equals, other value", cond: `{"field":"city","operator":"equals","value":"Paris"}`, args: `{"city":"London"}`,
			want: scenario.Mismatch{Field: "city", Operator: "equals", Reason: `city: equals "Paris" but was "London"`}},
		{name: "equals, missing", cond: `{"field":"city","operator":"equals","value":"Paris"}`, args: `{}`,
			want: scenario.Mismatch{Field: "city", Operator: "equals", Reason: `city: missing (equals "Paris")`}},
		{name: "nil arguments", cond: `{"field":"city","operator":"equals","value":"Paris"}`, args: ``,
			want: scenario.Mismatch{Field: "city", Operator: "equals", Reason: `city: missing (equals "Paris")`}},
		{name: "plain object pair reports equals", cond: `{"units":"metric"}`, args: `{"units":"imperial"}`,
			want: scenario.Mismatch{Field: "units", Operator: "equals", Reason: `units: equals "metric" but was "imperial"`}},
		{name: "plain object names its first failing key in sorted order", cond: `{"b":2,"a":1,"c":3}`,
			args: `{"a":1,"b":5,"c":4}`,
			want: scenario.Mismatch{Field: "b", Operator: "equals", Reason: `b: equals 2 but was 5`}},
		{name: "plain object object value", cond: `{"address":{"city":"Paris"}}`, args: `{"address":{"city":"Oslo"}}`,
			want: scenario.Mismatch{Field: "address", Operator: "equals",
				Reason: `address: equals {"city":"Paris"} but was {"city":"Oslo"}`}},
		{name: "nested path", cond: `{"field":"items[0].qty","operator":"gte","value":10}`, args: `{"items":[{"qty":2}]}`,
			want: scenario.Mismatch{Field: "items[0].qty", Operator: "gte", Reason: `items[0].qty: gte 10 but was 2`}},
		{name: "gt", cond: `{"field":"temp","operator":"gt","value":10}`, args: `{"temp":3}`,
			want: scenario.Mismatch{Field: "temp", Operator: "gt", Reason: `temp: gt 10 but was 3`}},
		{name: "gt on a string", cond: `{"field":"temp","operator":"gt","value":10}`, args: `{"temp":"30"}`,
			want: scenario.Mismatch{Field: "temp", Operator: "gt", Reason: `temp: gt 10 but was "30"`}},
		{name: "lt fraction", cond: `{"field":"temp","operator":"lt","value":0.5}`, args: `{"temp":1.25}`,
			want: scenario.Mismatch{Field: "temp", Operator: "lt", Reason: `temp: lt 0.5 but was 1.25`}},
		{name: "matches", cond: `{"field":"name","operator":"matches","value":"^a"}`, args: `{"name":"bob"}`,
			want: scenario.Mismatch{Field: "name", Operator: "matches", Reason: `name: matches "^a" but was "bob"`}},
		{name: "starts_with on a number", cond: `{"field":"name","operator":"starts_with","value":"a"}`, args: `{"name":7}`,
			want: scenario.Mismatch{Field: "name", Operator: "starts_with", Reason: `name: starts_with "a" but was 7`}},
		{name: "ends_with missing", cond: `{"field":"name","operator":"ends_with","value":"z"}`, args: `{}`,
			want: scenario.Mismatch{Field: "name", Operator: "ends_with", Reason: `name: missing (ends_with "z")`}},
		{name: "contains array", cond: `{"field":"tags","operator":"contains","value":"x"}`, args: `{"tags":["a","b"]}`,
			want: scenario.Mismatch{Field: "tags", Operator: "contains", Reason: `tags: contains "x" but was ["a","b"]`}},
		{name: "not_equals", cond: `{"field":"mode","operator":"not_equals","value":"test"}`, args: `{"mode":"test"}`,
			want: scenario.Mismatch{Field: "mode", Operator: "not_equals", Reason: `mode: not_equals "test" but was "test"`}},
		{name: "exists, missing", cond: `{"field":"token","operator":"exists"}`, args: `{}`,
			want: scenario.Mismatch{Field: "token", Operator: "exists", Reason: `token: missing (exists)`}},
		{name: "exists, null", cond: `{"field":"token","operator":"exists"}`, args: `{"token":null}`,
			want: scenario.Mismatch{Field: "token", Operator: "exists", Reason: `token: exists but was null`}},
		{name: "not_exists", cond: `{"field":"token","operator":"not_exists"}`, args: `{"token":"t"}`,
			want: scenario.Mismatch{Field: "token", Operator: "not_exists", Reason: `token: not_exists but was "t"`}},
		{name: "in", cond: `{"field":"unit","operator":"in","value":["C","F"]}`, args: `{"unit":"K"}`,
			want: scenario.Mismatch{Field: "unit", Operator: "in", Reason: `unit: in ["C","F"] but was "K"`}},
		{name: "html characters kept", cond: `{"q":"<a&b>"}`, args: `{"q":"x"}`,
			want: scenario.Mismatch{Field: "q", Operator: "equals", Reason: `q: equals "<a&b>" but was "x"`}},
	}
	for _, tc := range cases {
		for _, useNumber := range []bool{false, true} {
			name := tc.name
			if useNumber {
				name += "/json.Number"
			}
			t.Run(name, func(t *testing.T) {
				m := scenario.NewMatcher([]scenario.Condition{mustCompile(t, tc.cond)})
				args := decodeArgs(t, tc.args, useNumber)
				_, matched := m.Match(args)
				require.False(t, matched, "the case must not match")
				require.Equal(t, []scenario.Mismatch{tc.want}, m.Explain(args, -1))
			})
		}
	}
}

func TestExplainScenarios(t *testing.T) {
	t.Parallel()
	m := scenario.NewMatcher([]scenario.Condition{
		mustCompile(t, `{"field":"city","operator":"equals","value":"Paris"}`),
		mustCompile(t, `{"city":"Oslo","units":"metric"}`),
		mustCompile(t, `{"field":"city","operator":"starts_with","value":"L"}`),
		mustCompile(t, `{"field":"temp","operator":"gt","value":10}`),
		mustCompile(t, `null`),
	})
	args := map[string]any{"city": "London", "temp": 3.0}

	t.Run("before the match", func(t *testing.T) {
		i, ok := m.Match(args)
		require.True(t, ok)
		require.Equal(t, 2, i)
		require.Equal(t, []scenario.Mismatch{
			{Index: 0, Field: "city", Operator: "equals", Reason: `city: equals "Paris" but was "London"`},
			{Index: 1, Field: "city", Operator: "equals", Reason: `city: equals "Oslo" but was "London"`},
		}, m.Explain(args, i))
	})
	t.Run("all scenarios leave out those that match", func(t *testing.T) {
		require.Equal(t, []scenario.Mismatch{
			{Index: 0, Field: "city", Operator: "equals", Reason: `city: equals "Paris" but was "London"`},
			{Index: 1, Field: "city", Operator: "equals", Reason: `city: equals "Oslo" but was "London"`},
			{Index: 3, Field: "temp", Operator: "gt", Reason: `temp: gt 10 but was 3`},
		}, m.Explain(args, -1))
	})
	t.Run("upto beyond the scenarios", func(t *testing.T) {
		require.Len(t, m.Explain(args, 99), 3)
	})
	t.Run("upto zero", func(t *testing.T) {
		require.Empty(t, m.Explain(args, 0))
	})
	t.Run("zero matcher", func(t *testing.T) {
		var z scenario.Matcher
		require.Empty(t, z.Explain(args, -1))
	})
}

func TestExplainInvalidCondition(t *testing.T) {
	t.Parallel()
	c, errs := scenario.Compile([]byte(`{"field":"city","operator":"nope","value":1}`))
	require.NotEmpty(t, errs)
	m := scenario.NewMatcher([]scenario.Condition{c})
	got := m.Explain(map[string]any{"city": 1.0}, -1)
	require.Len(t, got, 1)
	require.Empty(t, got[0].Field)
	require.Contains(t, got[0].Reason, "invalid")
}

func TestExplainCutsLongValues(t *testing.T) {
	t.Parallel()
	m := scenario.NewMatcher([]scenario.Condition{mustCompile(t, `{"q":"short"}`)})
	long := strings.Repeat("é", 300)
	got := m.Explain(map[string]any{"q": long}, -1)
	require.Len(t, got, 1)
	shown := strings.TrimPrefix(got[0].Reason, `q: equals "short" but was `)
	require.Equal(t, 100, len([]rune(shown)), "cut to 100 characters")
	require.True(t, strings.HasSuffix(shown, "…"))
	require.True(t, strings.HasPrefix(shown, `"éé`))
}
