package design

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckToolSchemaKeywordField: a schema keyword its dialect's
// meta-schema refuses, or a count the validator cannot hold, is refused at
// the keyword's own path.
func TestCheckToolSchemaKeywordField(t *testing.T) {
	const s2020 = `"$schema":"https://json-schema.org/draft/2020-12/schema",`
	const s2019 = `"$schema":"https://json-schema.org/draft/2019-09/schema",`
	const draft4 = `"$schema":"http://json-schema.org/draft-04/schema#",`
	for _, tc := range []struct {
		name, schema, field string
	}{
		{"maxLength beyond 2^63", `{"type":"object","properties":{"q":{"type":"string","maxLength":1e20}}}`,
			"properties.q.maxLength"},
		{"minItems beyond 2^63", `{"type":"object","properties":{"l":{"type":"array","minItems":9223372036854775808}}}`,
			"properties.l.minItems"},
		{"array items under 2020-12", `{` + s2020 + `"type":"object","properties":{"t":{"items":[{"type":"string"}]}}}`,
			"properties.t.items"},
		{"unknown type name", `{"type":"object","properties":{"q":{"type":"strin"}}}`, "properties.q.type"},
		{"dependentRequired not string arrays under 2019-09", `{` + s2019 + `"type":"object","dependentRequired":{"a":"b"}}`,
			"dependentRequired.a"},
		{"empty prefixItems under 2020-12", `{` + s2020 + `"type":"object","properties":{"t":{"prefixItems":[]}}}`,
			"properties.t.prefixItems"},
		{"$defs member not a schema under 2020-12", `{` + s2020 + `"type":"object","$defs":{"d":5}}`, "$defs.d"},
		{"boolean subschema under Draft 4", `{` + draft4 + `"type":"object","properties":{"n":false}}`, "properties.n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := Tool{Name: "t", InputSchema: json.RawMessage(tc.schema), OutputSchema: json.RawMessage(tc.schema)}
			require.Equal(t, []string{"input_schema." + tc.field, "output_schema." + tc.field}, fieldsOf(t, CheckTool(tool)))
		})
	}
}
