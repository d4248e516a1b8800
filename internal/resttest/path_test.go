package resttest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	v, err := decodeJSON([]byte(s))
	require.NoError(t, err)
	return v
}

func TestPathLookup(t *testing.T) {
	doc := `{
		"a": {"b": {"c": 7}},
		"items": [{"id": 10}, {"id": 11, "tags": ["x", "y"]}],
		"n": null,
		"obj": {"0": "zero", "01": "leading"},
		"a.b": "dotted",
		"$": "dollar",
		"result": {"content": [{"type": "text", "text": "{\"temp\": 21.5, \"list\": [1, 2]}"}]},
		"plain": "not json",
		"nested": "[{\"deep\": \"{\\\"x\\\": true}\"}]"
	}`
	body := mustDecode(t, doc)

	tests := []struct {
		path  string
		want  string // JSON of the value; "" for missing
		found bool
	}{
		{path: "a.b.c", want: `7`, found: true},
		{path: "$.a.b.c", want: `7`, found: true},
		{path: "a.b", want: `{"c":7}`, found: true},
		{path: "items[1].id", want: `11`, found: true},
		{path: "items.1.id", want: `11`, found: true},
		{path: "$.items[0]", want: `{"id":10}`, found: true},
		{path: "items[1].tags[1]", want: `"y"`, found: true},
		{path: "items.1.tags.0", want: `"x"`, found: true},
		{path: "n", want: `null`, found: true},
		{path: "obj.0", want: `"zero"`, found: true},
		{path: "obj.01", want: `"leading"`, found: true},
		{path: `["a.b"]`, want: `"dotted"`, found: true},
		{path: `$["$"]`, want: `"dollar"`, found: true},
		{path: "$", want: "", found: true},
		{path: "result.content[0].text.temp", want: `21.5`, found: true},
		{path: "result.content[0].text.list[1]", want: `2`, found: true},
		{path: "result.content[0].text", want: `"{\"temp\": 21.5, \"list\": [1, 2]}"`, found: true},
		{path: "nested[0].deep.x", want: `true`, found: true},
		// missing
		{path: "missing"},
		{path: "a.b.c.d"},
		{path: "items[2]"},
		{path: "items[0].missing"},
		{path: "obj[0]"},       // a bracketed index never reads a member
		{path: `items["0"]`},   // a quoted key never reads an element
		{path: "plain.x"},      // a string that is not JSON
		{path: "n.x"},          // null has no members
		{path: "a.b.c[0]"},     // a number has no elements
		{path: "items.01"},     // 01 is not an index
		{path: "result.x.y.z"}, // deep miss
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			p, err := ParsePath(tt.path)
			require.NoError(t, err)
			require.Equal(t, tt.path, p.String())
			got, found := p.Lookup(body)
			require.Equal(t, tt.found, found)
			if !tt.found {
				require.Nil(t, got)
				return
			}
			if tt.path == "$" {
				require.Equal(t, body, got)
				return
			}
			require.JSONEq(t, tt.want, string(marshalValue(got)))
		})
	}
}

func TestPathRootArray(t *testing.T) {
	body := mustDecode(t, `[{"id": 1}, {"id": 2}]`)
	for _, path := range []string{"[1].id", "1.id", "$[1].id", "$.1.id"} {
		p, err := ParsePath(path)
		require.NoError(t, err, path)
		got, ok := p.Lookup(body)
		require.True(t, ok, path)
		require.Equal(t, json.Number("2"), got, path)
	}
	p, err := ParsePath("[2]")
	require.NoError(t, err)
	_, ok := p.Lookup(body)
	require.False(t, ok)
}

func TestParsePathErrors(t *testing.T) {
	tests := []struct {
		path, msg string
	}{
		{"", "must not be empty: use $ for the whole body"},
		{".a", "has an empty key at offset 0"},
		{"a..b", "has an empty key at offset 2"},
		{"a.", "must not end with '.'"},
		{"$.", "must not end with '.'"},
		{"a.[0]", "has '.' before '[' at offset 1"},
		{"a[0", "has an unclosed '[' at offset 1"},
		{"a[x]", `has an invalid array index "x" at offset 1: want a non-negative integer without leading zeros, or a quoted key`},
		{"a[01]", `has an invalid array index "01" at offset 1: want a non-negative integer without leading zeros, or a quoted key`},
		{"a[-1]", `has an invalid array index "-1" at offset 1: want a non-negative integer without leading zeros, or a quoted key`},
		{"a]", "has an unexpected ']' at offset 1"},
		{"a[0]b", "needs '.' or '[' at offset 4"},
		{`a["b]`, `has an unclosed ["…"] at offset 1`},
		{`a["b"`, `has an unclosed ["…"] at offset 1`},
		{`a["\q"]`, `has an invalid quoted key at offset 1: invalid character 'q' in string escape code`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, err := ParsePath(tt.path)
			require.EqualError(t, err, tt.msg)
		})
	}
	long := make([]byte, MaxPathLength+1)
	for i := range long {
		long[i] = 'a'
	}
	_, err := ParsePath(string(long))
	require.EqualError(t, err, "must be at most 1000 bytes long, got 1001")
}
