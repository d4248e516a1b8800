package scenario_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/scenario"
)

func TestPaths(t *testing.T) {
	key := func(k string) scenario.Segment { return scenario.Segment{Key: k, Index: -1} }
	cases := []struct {
		name string
		cond string
		want []scenario.Path
	}{
		{name: "absent", cond: ``},
		{name: "null", cond: `null`},
		{name: "empty object", cond: `{}`},
		{
			name: "operator form",
			cond: `{"field":"address.city","operator":"equals","value":"Paris"}`,
			want: []scenario.Path{{Raw: "address.city", Segments: []scenario.Segment{key("address"), key("city")}}},
		},
		{
			name: "plain form in sorted key order",
			cond: `{"units":"metric","city":"Paris"}`,
			want: []scenario.Path{
				{Raw: "city", Segments: []scenario.Segment{key("city")}},
				{Raw: "units", Segments: []scenario.Segment{key("units")}},
			},
		},
		{
			name: "bracketed index",
			cond: `{"field":"items[0].id","operator":"exists"}`,
			want: []scenario.Path{{Raw: "items[0].id", Segments: []scenario.Segment{
				key("items"), {Index: 0, ArrayOnly: true}, key("id"),
			}}},
		},
		{
			name: "numeric dot segment is a key and an index",
			cond: `{"field":"items.12","operator":"exists"}`,
			want: []scenario.Path{{Raw: "items.12", Segments: []scenario.Segment{
				key("items"), {Key: "12", Index: 12},
			}}},
		},
		{
			name: "leading zero is only a key",
			cond: `{"field":"items.01","operator":"exists"}`,
			want: []scenario.Path{{Raw: "items.01", Segments: []scenario.Segment{key("items"), key("01")}}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := mustCompile(t, tc.cond)
			require.Equal(t, tc.want, c.Paths())
		})
	}
}

func TestPathsOfInvalidCondition(t *testing.T) {
	c, errs := scenario.Compile(json.RawMessage(`{"a..b":1,"ok":2}`))
	require.NotEmpty(t, errs)
	require.Nil(t, c.Paths())
}

// TestPathsAreCopies guards the immutability Match relies on for
// concurrent use.
func TestPathsAreCopies(t *testing.T) {
	c := mustCompile(t, `{"field":"a.b","operator":"equals","value":1}`)
	got := c.Paths()
	got[0].Raw = "x"
	got[0].Segments[0].Key = "x"
	require.Equal(t, "a.b", c.Paths()[0].Raw)
	require.Equal(t, "a", c.Paths()[0].Segments[0].Key)
	require.True(t, c.Match(map[string]any{"a": map[string]any{"b": 1.0}}))
}
