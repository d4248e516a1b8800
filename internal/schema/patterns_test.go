package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// huge is the 140 KB expression of the report that led to the limits.
var huge = strings.Repeat("(?:a|b)", 20000)

func schemaJSON(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return raw
}

func TestCompileBoundsPatterns(t *testing.T) {
	tooLarge := strings.Repeat("[ab]{99}", 125) // 1,000 characters, 12,377 instructions
	require.Len(t, tooLarge, regexlimit.MaxLength)
	cases := []struct {
		name           string
		schema         any
		pointer, field string
		message        string
	}{
		{"pattern", map[string]any{"type": "object", "properties": map[string]any{"code": map[string]any{"type": "string", "pattern": huge}}},
			"/properties/code/pattern", "properties.code.pattern", "is 140000 characters long"},
		{"patternProperties key", map[string]any{"type": "object", "patternProperties": map[string]any{huge: map[string]any{}}},
			"/patternProperties", "patternProperties", `the key "(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a…" is 140000 characters long`},
		{"1,000 characters compiling too large", map[string]any{"type": "object", "properties": map[string]any{"code": map[string]any{"pattern": tooLarge}}},
			"/properties/code/pattern", "properties.code.pattern", "compiles to 12377 instructions"},
		{"in $defs under items", map[string]any{"type": "object", "$defs": map[string]any{"tag": map[string]any{"items": map[string]any{"pattern": huge}}}},
			"/$defs/tag/items/pattern", "$defs.tag.items.pattern", "characters long"},
		{"in Draft 7 definitions", map[string]any{"type": "object", "definitions": map[string]any{"a.b": map[string]any{"pattern": huge}}},
			"/definitions/a.b/pattern", `definitions["a.b"].pattern`, "characters long"},
		{"in anyOf of a nested property", map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{
			"anyOf": []any{map[string]any{}, map[string]any{"propertyNames": map[string]any{"pattern": huge}}}}}},
			"/properties/x/anyOf/1/propertyNames/pattern", "properties.x.anyOf[1].propertyNames.pattern", "characters long"},
		{"behind a $ref into an unknown keyword", map[string]any{"type": "object", "x-lib": map[string]any{"p": map[string]any{"pattern": huge}},
			"properties": map[string]any{"a": map[string]any{"$ref": "#/x-lib/p"}}},
			"/x-lib/p/pattern", "x-lib.p.pattern", "characters long"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(schemaJSON(t, tc.schema), RequireObject)
			require.ErrorIs(t, err, ErrInvalidSchema)
			var pe *PatternError
			require.True(t, errors.As(err, &pe), "%v", err)
			require.Equal(t, tc.pointer, pe.Pointer)
			require.Equal(t, tc.field, pe.Field)
			require.Contains(t, pe.Message, tc.message)
			require.Less(t, len(err.Error()), 400, "the message does not quote the expression whole")
		})
	}

	for _, expr := range []string{`^[A-Z]{3}$`, `^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$`, `^\d{4}-\d{2}-\d{2}$`, strings.Repeat("a", 1000)} {
		mustCompile(t, string(schemaJSON(t, map[string]any{"type": "object",
			"properties":        map[string]any{"code": map[string]any{"type": "string", "pattern": expr}},
			"patternProperties": map[string]any{expr: map[string]any{}}})), RequireObject)
	}
}

func TestValidateWithinBudget(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"doc":{"type":"object","properties":{"code":{"type":"string","pattern":"(?:a|b){1000}c"}}}}}`)

	b := regexlimit.NewBudget()
	vs := s.ValidateWithin(map[string]any{"doc": map[string]any{"code": strings.Repeat("ab", 1000)}}, &b)
	require.Len(t, vs, 1)
	require.Equal(t, "pattern", vs[0].Keyword, "checked, and failed, within the budget")
	require.False(t, b.Exhausted())

	b = regexlimit.NewBudget()
	vs = s.ValidateWithin(map[string]any{"doc": map[string]any{"code": strings.Repeat("ab", 10000)}}, &b)
	require.Len(t, vs, 1)
	require.Empty(t, vs[0].Keyword)
	require.Equal(t, "doc.code", vs[0].Field)
	require.Equal(t, "/doc/code", vs[0].Path)
	require.Contains(t, vs[0].Message, "too large to check against the schema's regular expressions")
	require.True(t, b.Exhausted())
	require.Equal(t, "doc.code", b.Field())

	// Validate has a budget of its own.
	require.Equal(t, vs, s.Validate(map[string]any{"doc": map[string]any{"code": strings.Repeat("ab", 10000)}}))
}

func TestValidatePatternPropertiesWithinBudget(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","patternProperties":{"^(?:a|b){500}$":{"type":"string"}}}}}}`)
	small := map[string]any{"rows": []any{map[string]any{"ab": "x"}}}
	require.Empty(t, s.Validate(small))

	// Each application recompiles the key: many small objects cost as
	// much as one long key.
	rows := make([]any, 20000)
	for i := range rows {
		rows[i] = map[string]any{}
	}
	vs := s.Validate(map[string]any{"rows": rows})
	require.Len(t, vs, 1)
	require.Contains(t, vs[0].Message, "too large")
	require.True(t, strings.HasPrefix(vs[0].Field, "rows["), vs[0].Field)
}

// References may multiply applications: two references to a definition of
// two references to ..., 40 deep, apply the last one 2^40 times to one
// value. The estimate stops at the budget.
func TestValidateReferenceBlowUp(t *testing.T) {
	defs := map[string]any{"d0": map[string]any{"type": "string"}}
	for i := 1; i <= 40; i++ {
		ref := fmt.Sprintf("#/$defs/d%d", i-1)
		defs[fmt.Sprintf("d%d", i)] = map[string]any{"allOf": []any{map[string]any{"$ref": ref}, map[string]any{"$ref": ref}}}
	}
	s := mustCompile(t, string(schemaJSON(t, map[string]any{"type": "object", "$defs": defs,
		"properties": map[string]any{"v": map[string]any{"$ref": "#/$defs/d40"}}})))
	vs := s.Validate(map[string]any{"v": "x"})
	require.Len(t, vs, 1)
	require.Equal(t, "v", vs[0].Field)
	require.Contains(t, vs[0].Message, "too large")
}

// A recursive schema still validates ordinary values: recursion follows the
// value down.
func TestValidateRecursiveSchema(t *testing.T) {
	s := mustCompile(t, `{"type":"object","$defs":{"node":{"type":"object","properties":{"name":{"type":"string","pattern":"^[a-z]+$"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"properties":{"root":{"$ref":"#/$defs/node"}}}`)
	v := decodeJSON(t, `{"root":{"name":"a","children":[{"name":"b","children":[{"name":"c"}]},{"name":"D"}]}}`)
	vs := s.Validate(v)
	require.Len(t, vs, 1)
	require.Equal(t, "root.children[1].name", vs[0].Field)
	require.Equal(t, "pattern", vs[0].Keyword)
}

func TestValidateContentSchemaWithinBudget(t *testing.T) {
	s := mustCompile(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"doc":{"type":"string","contentMediaType":"application/json","contentSchema":{"type":"object","properties":{"code":{"type":"string","pattern":"(?:a|b){1000}c"}}}}}}`)
	inner, err := json.Marshal(map[string]string{"code": strings.Repeat("ab", 10000)})
	require.NoError(t, err)
	vs := s.Validate(map[string]any{"doc": string(inner)})
	require.Len(t, vs, 1)
	require.Equal(t, "doc", vs[0].Field)
	require.Contains(t, vs[0].Message, "too large")

	inner, err = json.Marshal(map[string]string{"code": "ab"})
	require.NoError(t, err)
	vs = s.Validate(map[string]any{"doc": string(inner)})
	require.NotEmpty(t, vs)
	require.NotContains(t, vs[0].Message, "too large")
}
