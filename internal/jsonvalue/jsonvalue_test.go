package jsonvalue_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

func TestEqual(t *testing.T) {
	big := json.Number("9007199254740993")
	for _, tt := range []struct {
		name string
		a, b any
		want bool
	}{
		{"same floats", 3.0, 3.0, true},
		{"different floats", 3.0, 3.5, false},
		{"float and integer text", 3.0, json.Number("3"), true},
		{"float and fraction text", 1.5, json.Number("1.50"), true},
		{"float and exponent text", 100.0, json.Number("1e2"), true},
		{"texts by value", json.Number("1e2"), json.Number("100.0"), true},
		{"large integers exactly", big, json.Number("9007199254740992"), false},
		{"large integer and its rounding", big, 9007199254740992.0, false},
		{"large integer and itself", big, json.Number("9007199254740993"), true},
		{"2^53 as text and float", json.Number("9007199254740992"), 9007199254740992.0, true},
		{"minus zero", json.Number("-0"), 0.0, true},
		{"negative texts", json.Number("-12345678901234567890"), json.Number("-12345678901234567890"), true},
		{"sign matters", json.Number("-12345678901234567890"), json.Number("12345678901234567890"), false},
		{"Go int", 7, 7.0, true},
		{"Go int64 beyond 2^53", int64(9007199254740993), big, true},
		{"Go int64 beyond 2^53 and float", int64(9007199254740993), 9007199254740992.0, false},
		{"number and string", 1.0, "1", false},
		{"strings", "a", "a", true},
		{"bools", true, false, false},
		{"null", nil, nil, true},
		{"null and false", nil, false, false},
		{"objects in any order", map[string]any{"a": 1.0, "b": []any{big}}, map[string]any{"b": []any{json.Number("9007199254740993")}, "a": json.Number("1")}, true},
		{"objects with another member", map[string]any{"a": 1.0}, map[string]any{"a": 1.0, "b": nil}, false},
		{"arrays by position", []any{1.0, 2.0}, []any{2.0, 1.0}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, jsonvalue.Equal(tt.a, tt.b))
			require.Equal(t, tt.want, jsonvalue.Equal(tt.b, tt.a), "symmetric")
		})
	}
}

func TestEqualAllocatesNothingForCommonValues(t *testing.T) {
	var a, b any = "Oslo", "Oslo"
	var x, y any = 3.0, 3.0
	var n, f any = json.Number("12"), 12.0
	allocs := testing.AllocsPerRun(100, func() {
		if !jsonvalue.Equal(a, b) || !jsonvalue.Equal(x, y) || !jsonvalue.Equal(n, f) || jsonvalue.Equal(a, x) {
			panic("unexpected")
		}
	})
	require.Zero(t, allocs)
}

func TestDecodeKeepsLargeIntegers(t *testing.T) {
	v, err := jsonvalue.Decode([]byte(` {"id": 9007199254740993, "n": 3, "x": 1.5, "e": 1e30, "edge": 9007199254740992,
		"list": [-9007199254740993, 12345678901234567890.5]} `))
	require.NoError(t, err)
	require.Equal(t, map[string]any{
		"id": json.Number("9007199254740993"), "n": 3.0, "x": 1.5, "e": 1e30, "edge": 9007199254740992.0,
		"list": []any{json.Number("-9007199254740993"), 12345678901234567890.5},
	}, v)

	_, err = jsonvalue.Decode([]byte(`{} {}`))
	require.Error(t, err)
	_, err = jsonvalue.Decode([]byte(`{`))
	require.Error(t, err)
}

func TestHasLongDigitRun(t *testing.T) {
	require.True(t, jsonvalue.HasLongDigitRun([]byte(`{"id":9007199254740993}`)))
	require.True(t, jsonvalue.HasLongDigitRun([]byte(`{"id":1234567890123456}`)))
	require.False(t, jsonvalue.HasLongDigitRun([]byte(`{"id":123456789012345,"n":1.5e300}`)))
	for _, text := range []string{"9007199254740993", "-9007199254740993", "00009007199254740993", "99999999999999999999"} {
		require.True(t, jsonvalue.IsLargeInteger(text), text)
		require.True(t, jsonvalue.HasLongDigitRun([]byte(text)), text)
	}
	for _, text := range []string{"9007199254740992", "-9007199254740992", "1", "9007199254740993.0", "1e300"} {
		require.False(t, jsonvalue.IsLargeInteger(text), text)
	}
}

func TestWalk(t *testing.T) {
	doc := map[string]any{"items": []any{map[string]any{"id": 1.0}}, "m": map[string]any{"0": "zero", "a.b": nil}}
	for _, tt := range []struct {
		name  string
		segs  []jsonvalue.Segment
		want  any
		found bool
	}{
		{"dotted index", []jsonvalue.Segment{jsonvalue.KeySegment("items"), jsonvalue.KeySegment("0"), jsonvalue.KeySegment("id")}, 1.0, true},
		{"bracketed index", []jsonvalue.Segment{jsonvalue.KeySegment("items"), {Index: 0, ArrayOnly: true}, jsonvalue.KeySegment("id")}, 1.0, true},
		{"digit key of an object", []jsonvalue.Segment{jsonvalue.KeySegment("m"), jsonvalue.KeySegment("0")}, "zero", true},
		{"bracketed index never reads a member", []jsonvalue.Segment{jsonvalue.KeySegment("m"), {Index: 0, ArrayOnly: true}}, nil, false},
		{"quoted key never reads an element", []jsonvalue.Segment{jsonvalue.KeySegment("items"), {Key: "0", Index: 0, ObjectOnly: true}}, nil, false},
		{"present null", []jsonvalue.Segment{jsonvalue.KeySegment("m"), {Key: "a.b", Index: -1, ObjectOnly: true}}, nil, true},
		{"out of range", []jsonvalue.Segment{jsonvalue.KeySegment("items"), jsonvalue.KeySegment("1")}, nil, false},
		{"through a scalar", []jsonvalue.Segment{jsonvalue.KeySegment("items"), jsonvalue.KeySegment("0"), jsonvalue.KeySegment("id"), jsonvalue.KeySegment("x")}, nil, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, found := jsonvalue.Walk(doc, tt.segs)
			require.Equal(t, tt.found, found)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestParseIndex(t *testing.T) {
	for s, want := range map[string]int{"0": 0, "7": 7, "1234567890": 1234567890} {
		got, ok := jsonvalue.ParseIndex(s)
		require.True(t, ok, s)
		require.Equal(t, want, got)
	}
	for _, s := range []string{"", "01", "-1", "1a", "99999999999999999999"} {
		_, ok := jsonvalue.ParseIndex(s)
		require.False(t, ok, s)
	}
}

func TestTypeName(t *testing.T) {
	require.Equal(t, "a number", jsonvalue.TypeName(json.Number("1")))
	require.Equal(t, "a number", jsonvalue.TypeName(1.0))
	require.Equal(t, "a number", jsonvalue.TypeName(1))
	require.Equal(t, "null", jsonvalue.TypeName(nil))
	require.Equal(t, "an object", jsonvalue.TypeName(map[string]any{}))
	require.Equal(t, "an unknown type", jsonvalue.TypeName(struct{}{}))
}

func TestDecodeFailsAsUnmarshal(t *testing.T) {
	for _, doc := range []string{`1e400`, `{"a": [1, -1e999]}`, `{`, `[1,]`, `1 2`} {
		var v any
		want := json.Unmarshal([]byte(doc), &v)
		require.Error(t, want, doc)
		_, err := jsonvalue.Decode([]byte(doc))
		require.EqualError(t, err, want.Error(), doc)
	}
}

func TestNumberTextsEqual(t *testing.T) {
	equal := [][2]string{
		{"1", "1.0"}, {"1", "1e0"}, {"1", "1E+0"}, {"100", "1e2"}, {"0.5", "5e-1"},
		{"0", "-0"}, {"0", "0.000e5"}, {"-2.50", "-2.5"}, {"1.0e400", "10e399"},
	}
	for _, p := range equal {
		require.True(t, jsonvalue.Equal(json.Number(p[0]), json.Number(p[1])), "%s == %s", p[0], p[1])
	}
	differ := [][2]string{{"1", "-1"}, {"1", "10"}, {"0.1", "1"}, {"9007199254740993", "9007199254740992"}, {"1e400", "1e401"}}
	for _, p := range differ {
		require.False(t, jsonvalue.Equal(json.Number(p[0]), json.Number(p[1])), "%s != %s", p[0], p[1])
	}
}

func TestParsePathSyntax(t *testing.T) {
	key := jsonvalue.KeySegment
	full := jsonvalue.PathSyntax{Root: true, QuotedKeys: true, MaxIndex: 99}
	for _, tc := range []struct {
		name    string
		path    string
		syntax  jsonvalue.PathSyntax
		want    []jsonvalue.Segment
		wantErr string
	}{
		{"dollar is a key without Root", "$.a", jsonvalue.PathSyntax{}, []jsonvalue.Segment{key("$"), key("a")}, ""},
		{"dollar is the root with Root", "$.a", full, []jsonvalue.Segment{key("a")}, ""},
		{"a leading index needs Root", "[0]", jsonvalue.PathSyntax{}, nil, "must start with a key"},
		{"a leading index with Root", "[0]", full, []jsonvalue.Segment{{Index: 0, ArrayOnly: true}}, ""},
		{"a quoted key needs QuotedKeys", `a["b"]`, jsonvalue.PathSyntax{}, nil, `has an invalid array index "\"b\"" at offset 1: want a non-negative integer without leading zeros`},
		{"a quoted key with QuotedKeys", `a["b"]`, full, []jsonvalue.Segment{key("a"), {Key: "b", Index: -1, ObjectOnly: true}}, ""},
		{"an index past MaxIndex", "a[100]", full, nil, `has an invalid array index "100" at offset 1: want a non-negative integer without leading zeros, or a quoted key`},
		{"a dotted key past MaxIndex reads members only", "a.100", full, []jsonvalue.Segment{key("a"), {Key: "100", Index: -1}}, ""},
		{"no MaxIndex", "a.100", jsonvalue.PathSyntax{}, []jsonvalue.Segment{key("a"), {Key: "100", Index: 100}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsonvalue.ParsePath(tc.path, tc.syntax)
			if tc.wantErr != "" {
				require.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestDotted(t *testing.T) {
	segs := []jsonvalue.Segment{jsonvalue.KeySegment("items"), {Index: 0, ArrayOnly: true}, jsonvalue.KeySegment("id"), jsonvalue.KeySegment("0")}
	require.Equal(t, "items[0].id.0", jsonvalue.Dotted(segs))
	require.Equal(t, "[2]", jsonvalue.Dotted([]jsonvalue.Segment{{Index: 2, ArrayOnly: true}}))
	require.Empty(t, jsonvalue.Dotted(nil))
}
