package schema

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Composition keywords without references apply every branch to the same
// value: many branches applied to each of many array items add up to more
// work than a call may take, and the estimate stops at the budget before
// the library runs.
func TestValidateCompositionWithinBudget(t *testing.T) {
	for _, keyword := range []string{"anyOf", "oneOf", "allOf"} {
		t.Run(keyword, func(t *testing.T) {
			branches := make([]any, 2000)
			for i := range branches {
				branches[i] = map[string]any{"type": "integer", "minimum": i}
			}
			s := mustCompile(t, string(schemaJSON(t, map[string]any{"type": "object", "properties": map[string]any{
				"rows": map[string]any{"type": "array", "items": map[string]any{keyword: branches}}}})))
			rows := make([]any, 20000)
			for i := range rows {
				rows[i] = float64(i)
			}
			start := time.Now()
			vs := s.Validate(map[string]any{"rows": rows})
			require.Less(t, time.Since(start), 5*time.Second, "the check was not bounded")
			require.Len(t, vs, 1, "%v", vs)
			require.Contains(t, vs[0].Message, "too large")
			require.Regexp(t, `^rows\[\d+\]$`, vs[0].Field)
		})
	}
	t.Run("if then else and not", func(t *testing.T) {
		s := mustCompile(t, `{"type":"object","properties":{"rows":{"type":"array","items":{"if":{"type":"integer"},"then":{"minimum":0},"else":{"not":{"type":"null"}}}}}}`)
		require.Empty(t, s.Validate(map[string]any{"rows": []any{float64(1), "a"}}))
		vs := s.Validate(map[string]any{"rows": []any{float64(-1), nil}})
		require.Len(t, vs, 2, "%v", vs)
		require.Equal(t, "rows[0]", vs[0].Field)
		require.Equal(t, "rows[1]", vs[1].Field)
	})
}

// toolSchema2020 is the input schema of the conformance suite's
// json_schema_2020_12_tool: $defs with an $anchor, a $ref, composition and
// conditional keywords.
const toolSchema2020 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`

func TestValidateJSONSchema202012(t *testing.T) {
	s := mustCompile(t, toolSchema2020, RequireObject)
	for _, tc := range []struct {
		name, args string
		fields     []string // of the violations, in order
	}{
		{"phone by phone", `{"name":"Ada","contactMethod":"phone","phone":"1"}`, nil},
		{"email otherwise", `{"email":"a@b.c","address":{"street":"Main","city":"X"}}`, nil},
		{"phone wanted, email given", `{"contactMethod":"phone","email":"a@b.c"}`, []string{"phone"}},
		{"neither", `{"name":"Ada"}`, []string{""}},
		{"address through $ref", `{"email":"a@b.c","address":{"street":7}}`, []string{"address.street"}},
		{"additional property", `{"email":"a@b.c","fax":"1"}`, []string{"fax"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vs := s.Validate(decodeJSON(t, tc.args))
			fields := make([]string, 0, len(vs))
			for _, v := range vs {
				fields = append(fields, v.Field)
			}
			if tc.fields == nil {
				require.Empty(t, vs)
				return
			}
			require.NotEmpty(t, vs)
			require.Subset(t, fields, tc.fields, "%v", vs)
		})
	}
	t.Run("$ref to the $anchor", func(t *testing.T) {
		s := mustCompile(t, `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"a":{"$anchor":"addressDef","type":"string"}},"properties":{"a":{"$ref":"#addressDef"}}}`)
		require.Empty(t, s.Validate(decodeJSON(t, `{"a":"x"}`)))
		require.Len(t, s.Validate(decodeJSON(t, `{"a":1}`)), 1)
	})
	for _, ref := range []string{"other.json", "other.json#/$defs/a", "#nowhere", "#/$defs/missing", "urn:example:a"} {
		t.Run("refuses $ref "+ref, func(t *testing.T) {
			_, err := Compile([]byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"a":{"type":"string"}},"properties":{"a":{"$ref":"`+ref+`"}}}`), RequireObject)
			require.ErrorIs(t, err, ErrInvalidSchema)
		})
	}
}
