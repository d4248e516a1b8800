package schema

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// weatherSchema is the shape of a typical tool input schema.
const weatherSchema = `{
	"type": "object",
	"properties": {
		"city": {"type": "string"},
		"days": {"type": "integer", "minimum": 1},
		"address": {
			"type": "object",
			"properties": {"city": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
			"required": ["city"]
		},
		"stops": {
			"type": "array",
			"items": {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]}
		}
	},
	"required": ["city"]
}`

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		value  string
		want   []Violation
	}{
		{
			name:   "valid",
			schema: weatherSchema,
			value:  `{"city":"Paris","days":3,"address":{"city":"Paris","zip":"75001"},"stops":[{"id":1}]}`,
		},
		{
			name:   "top-level required",
			schema: weatherSchema,
			value:  `{}`,
			want:   []Violation{{Path: "", Field: "city", Keyword: "required", Message: "Required property 'city' is missing"}},
		},
		{
			name:   "nested required",
			schema: weatherSchema,
			value:  `{"city":"Paris","address":{}}`,
			want:   []Violation{{Path: "/address", Field: "address.city", Keyword: "required", Message: "Required property 'city' is missing"}},
		},
		{
			name:   "required inside an array item",
			schema: weatherSchema,
			value:  `{"city":"Paris","stops":[{"id":1},{}]}`,
			want:   []Violation{{Path: "/stops/1", Field: "stops[1].id", Keyword: "required", Message: "Required property 'id' is missing"}},
		},
		{
			name:   "several required, sorted by field",
			schema: `{"type":"object","required":["zeta","alpha","mid"]}`,
			value:  `{"mid":1}`,
			want: []Violation{
				{Path: "", Field: "alpha", Keyword: "required", Message: "Required property 'alpha' is missing"},
				{Path: "", Field: "zeta", Keyword: "required", Message: "Required property 'zeta' is missing"},
			},
		},
		{
			name:   "type",
			schema: weatherSchema,
			value:  `{"city":"Paris","days":"three"}`,
			want:   []Violation{{Path: "/days", Field: "days", Keyword: "type", Message: "Value is string but should be integer"}},
		},
		{
			name:   "required first, then by path",
			schema: weatherSchema,
			value:  `{"days":0,"address":{"zip":"abc"},"stops":[{"id":"x"}]}`,
			want: []Violation{
				{Path: "", Field: "city", Keyword: "required", Message: "Required property 'city' is missing"},
				{Path: "/address", Field: "address.city", Keyword: "required", Message: "Required property 'city' is missing"},
				{Path: "/address/zip", Field: "address.zip", Keyword: "pattern", Message: "Value does not match the required pattern ^[0-9]{5}$"},
				{Path: "/days", Field: "days", Keyword: "minimum", Message: "0 should be at least 1"},
				{Path: "/stops/0/id", Field: "stops[0].id", Keyword: "type", Message: "Value is string but should be integer"},
			},
		},
		{
			name:   "additionalProperties false names the member",
			schema: `{"type":"object","properties":{"a":{}},"additionalProperties":false}`,
			value:  `{"a":1,"b":2}`,
			want:   []Violation{{Path: "/b", Field: "b", Keyword: "additionalProperties", Message: "Property 'b' is not allowed"}},
		},
		{
			name:   "member names are escaped in the pointer",
			schema: `{"type":"object","properties":{"a/b~c":{"type":"string"}}}`,
			value:  `{"a/b~c":1}`,
			want:   []Violation{{Path: "/a~1b~0c", Field: "a/b~c", Keyword: "type", Message: "Value is integer but should be string"}},
		},
		{
			name:   "failures behind $ref are reported where they occur",
			schema: `{"definitions":{"pos":{"type":"integer","minimum":1}},"type":"object","properties":{"n":{"$ref":"#/definitions/pos"}}}`,
			value:  `{"n":0}`,
			want:   []Violation{{Path: "/n", Field: "n", Keyword: "minimum", Message: "0 should be at least 1"}},
		},
		{
			name:   "anyOf explains its alternatives",
			schema: `{"type":"object","properties":{"v":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`,
			value:  `{"v":1}`,
			want: []Violation{{Path: "/v", Field: "v", Keyword: "anyOf",
				Message: "Value matches none of the anyOf alternatives: Value is integer but should be string; or Value is integer but should be null"}},
		},
		{
			name:   "dependentSchemas apply to the whole object",
			schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","dependentSchemas":{"card":{"required":["billing"]}}}`,
			value:  `{"card":"4111"}`,
			want:   []Violation{{Path: "", Field: "billing", Keyword: "required", Message: "Required property 'billing' is missing"}},
		},
		{
			name:   "if/then",
			schema: `{"if":{"properties":{"kind":{"const":"city"}}},"then":{"required":["city"]}}`,
			value:  `{"kind":"city"}`,
			want:   []Violation{{Path: "", Field: "city", Keyword: "required", Message: "Required property 'city' is missing"}},
		},
		{
			name:   "parameters are substituted once",
			schema: `{"enum":["a","b"]}`,
			value:  `"{expected}"`,
			want:   []Violation{{Path: "", Field: "", Keyword: "enum", Message: "Value {expected} should be one of the allowed values: a, b"}},
		},
		{
			name:   "top-level type",
			schema: `{"type":"object"}`,
			value:  `[]`,
			want:   []Violation{{Path: "", Field: "", Keyword: "type", Message: "Value is array but should be object"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustCompile(t, tt.schema)
			require.Equal(t, tt.want, s.Validate(decodeJSON(t, tt.value)))
			require.Equal(t, tt.want, s.Validate(decodeNumbers(t, tt.value)), "with json.Number")
		})
	}
}

func TestValidateNumbers(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"days":{"type":"integer","minimum":1,"maximum":9007199254740993}}}`)
	tests := []struct {
		name  string
		value any
		valid bool
	}{
		{name: "float64 integer", value: 3.0, valid: true},
		{name: "float64 fraction", value: 1.5},
		{name: "float64 below minimum", value: 0.0},
		{name: "json.Number integer", value: json.Number("3"), valid: true},
		{name: "json.Number exponent integer", value: json.Number("3e0"), valid: true},
		{name: "json.Number fraction", value: json.Number("1.5")},
		{name: "json.Number below minimum", value: json.Number("0")},
		{name: "json.Number beyond float64 precision", value: json.Number("9007199254740994")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := s.Validate(map[string]any{"days": tt.value})
			if tt.valid {
				require.Nil(t, vs)
				return
			}
			require.Len(t, vs, 1)
			require.Equal(t, "/days", vs[0].Path)
		})
	}
}

func TestValidateDeterministic(t *testing.T) {
	s := mustCompile(t, `{"type":"object","patternProperties":{"^x":{"type":"string"}},"properties":{"a":{"type":"string"},"b":{"type":"string"},"c":{"type":"string"}},"required":["a","b","c","d","e"],"additionalProperties":false}`)
	value := `{"a":1,"b":2,"c":3,"x1":1,"x2":2,"y":1,"z":2}`
	first := s.Validate(decodeJSON(t, value))
	require.Len(t, first, 9)
	for range 50 {
		require.Equal(t, first, s.Validate(decodeJSON(t, value)))
	}
}

func TestValidateRefusesDeepValues(t *testing.T) {
	s := mustCompile(t, `{"type":"object","properties":{"a":{"$ref":"#"}}}`)
	deep := func(n int) any {
		return decodeJSON(t, strings.Repeat(`{"a":`, n)+`{}`+strings.Repeat(`}`, n))
	}
	require.Nil(t, s.Validate(deep(maxDepth-1)))
	require.Equal(t, []Violation{tooDeep}, s.Validate(deep(maxDepth)))
}
