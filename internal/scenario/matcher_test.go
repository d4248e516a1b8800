package scenario_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/scenario"
)

func TestMatcher(t *testing.T) {
	conds := []string{
		`{"field":"city","operator":"equals","value":"Paris"}`,
		`{"city":"Paris","units":"metric"}`,
		`{"field":"city","operator":"starts_with","value":"P"}`,
		`null`,
	}
	compiled := make([]scenario.Condition, len(conds))
	for i, c := range conds {
		compiled[i] = mustCompile(t, c)
	}
	m := scenario.NewMatcher(compiled)

	cases := []struct {
		name    string
		args    string
		want    int
		wantHit bool
	}{
		{name: "first match wins over later matches", args: `{"city":"Paris","units":"metric"}`, want: 0, wantHit: true},
		{name: "later scenario", args: `{"city":"Prague"}`, want: 2, wantHit: true},
		{name: "fallback", args: `{"city":"Rome"}`, want: 3, wantHit: true},
		{name: "fallback for nil args", args: "", want: 3, wantHit: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := m.Match(decodeArgs(t, tc.args, false))
			require.Equal(t, tc.wantHit, ok)
			require.Equal(t, tc.want, got)
		})
	}

	t.Run("no match", func(t *testing.T) {
		m := scenario.NewMatcher(compiled[:3])
		got, ok := m.Match(map[string]any{"city": "Rome"})
		require.False(t, ok)
		require.Equal(t, -1, got)
	})

	t.Run("zero matcher", func(t *testing.T) {
		var m scenario.Matcher
		got, ok := m.Match(nil)
		require.False(t, ok)
		require.Equal(t, -1, got)
	})

	t.Run("copies conditions", func(t *testing.T) {
		own := []scenario.Condition{mustCompile(t, `{"a":1}`)}
		m := scenario.NewMatcher(own)
		own[0] = scenario.Condition{}
		_, ok := m.Match(nil)
		require.False(t, ok)
	})
}

func TestNoMatchMessage(t *testing.T) {
	cases := []struct {
		name string
		tool string
		want string
	}{
		{name: "plain", tool: "get_weather", want: `{"message":"No mock scenario matched the arguments for tool 'get_weather'"}`},
		{name: "quote and backslash", tool: `a"b\c`, want: `{"message":"No mock scenario matched the arguments for tool 'a\"b\\c'"}`},
		{name: "control character", tool: "a\nb", want: `{"message":"No mock scenario matched the arguments for tool 'a\nb'"}`},
		{name: "html characters kept", tool: "<a&b>", want: `{"message":"No mock scenario matched the arguments for tool '<a&b>'"}`},
		{name: "unicode", tool: "météo", want: `{"message":"No mock scenario matched the arguments for tool 'météo'"}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := scenario.NoMatchMessage(tc.tool)
			require.Equal(t, tc.want, got)
			require.JSONEq(t, tc.want, got)
		})
	}
}
