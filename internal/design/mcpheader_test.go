package design

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckToolMCPHeaders(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema string
		fields []string
	}{
		{"string property", `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}`, nil},
		{"integer and boolean properties", `{"type":"object","properties":{
			"n":{"type":"integer","x-mcp-header":"N"},"b":{"type":"boolean","x-mcp-header":"Dry-Run"}}}`, nil},
		{"nested through properties", `{"type":"object","properties":{"a":{"type":"object","properties":{
			"b":{"type":"string","x-mcp-header":"B"}}}}}`, nil},
		{"every tchar", "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"!#$%&'*+-.^_`|~09az\"}}}", nil},
		{"a property named x-mcp-header", `{"type":"object","properties":{"x-mcp-header":{"type":"string"}}}`, nil},
		{"an instance holding the keyword", `{"type":"object","properties":{"a":{"type":"object",
			"default":{"x-mcp-header":"A"},"enum":[{"x-mcp-header":"A"}],"const":{"x-mcp-header":"A"}}}}`, nil},
		{"repeated case-insensitively", `{"type":"object","properties":{
			"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"REGION"}}}`,
			[]string{"input_schema.properties.b.x-mcp-header"}},
		{"repeated at another depth", `{"type":"object","properties":{"a":{"type":"string","x-mcp-header":"Region"},
			"o":{"type":"object","properties":{"b":{"type":"string","x-mcp-header":"region"}}}}}`,
			[]string{"input_schema.properties.o.properties.b.x-mcp-header"}},
		{"number", `{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}}`,
			[]string{"input_schema.properties.n.x-mcp-header"}},
		{"object", `{"type":"object","properties":{"o":{"type":"object","x-mcp-header":"O"}}}`,
			[]string{"input_schema.properties.o.x-mcp-header"}},
		{"no type", `{"type":"object","properties":{"a":{"x-mcp-header":"A"}}}`,
			[]string{"input_schema.properties.a.x-mcp-header"}},
		{"type list", `{"type":"object","properties":{"a":{"type":["string","null"],"x-mcp-header":"A"}}}`,
			[]string{"input_schema.properties.a.x-mcp-header"}},
		{"root", `{"type":"object","x-mcp-header":"Root"}`, []string{"input_schema.x-mcp-header"}},
		{"items", `{"type":"object","properties":{"list":{"type":"array","items":{"type":"string","x-mcp-header":"L"}}}}`,
			[]string{"input_schema.properties.list.items.x-mcp-header"}},
		{"prefixItems", `{"type":"object","properties":{"list":{"type":"array","prefixItems":[{"type":"string","x-mcp-header":"L"}]}}}`,
			[]string{"input_schema.properties.list.prefixItems[0].x-mcp-header"}},
		{"properties under items", `{"type":"object","properties":{"list":{"type":"array","items":{"type":"object",
			"properties":{"a":{"type":"string","x-mcp-header":"A"}}}}}}`,
			[]string{"input_schema.properties.list.items.properties.a.x-mcp-header"}},
		{"anyOf", `{"type":"object","anyOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
			[]string{"input_schema.anyOf[0].properties.a.x-mcp-header"}},
		{"oneOf on a property", `{"type":"object","properties":{"a":{"oneOf":[{"type":"string","x-mcp-header":"A"}]}}}`,
			[]string{"input_schema.properties.a.oneOf[0].x-mcp-header"}},
		{"allOf", `{"type":"object","allOf":[{"properties":{"a":{"type":"string","x-mcp-header":"A"}}}]}`,
			[]string{"input_schema.allOf[0].properties.a.x-mcp-header"}},
		{"not", `{"type":"object","properties":{"a":{"type":"string","not":{"type":"string","x-mcp-header":"A"}}}}`,
			[]string{"input_schema.properties.a.not.x-mcp-header"}},
		{"if then else", `{"type":"object",
			"if":{"properties":{"a":{"type":"string","x-mcp-header":"A"}}},
			"then":{"properties":{"b":{"type":"string","x-mcp-header":"B"}}},
			"else":{"properties":{"c":{"type":"string","x-mcp-header":"C"}}}}`,
			[]string{"input_schema.else.properties.c.x-mcp-header", "input_schema.if.properties.a.x-mcp-header",
				"input_schema.then.properties.b.x-mcp-header"}},
		{"$defs reached by $ref", `{"type":"object","$defs":{"r":{"type":"string","x-mcp-header":"R"}},
			"properties":{"region":{"$ref":"#/$defs/r"}}}`,
			[]string{"input_schema.$defs.r.x-mcp-header"}},
		{"additionalProperties", `{"type":"object","additionalProperties":{"type":"string","x-mcp-header":"A"}}`,
			[]string{"input_schema.additionalProperties.x-mcp-header"}},
		{"several at once", `{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"},"s":{"type":"string","x-mcp-header":"a b"}},
			"items":{"x-mcp-header":"I"}}`,
			[]string{"input_schema.items.x-mcp-header", "input_schema.properties.n.x-mcp-header", "input_schema.properties.s.x-mcp-header"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tool := Tool{Name: "t", InputSchema: json.RawMessage(tc.schema)}
			require.Equal(t, tc.fields, fieldsOf(t, CheckTool(tool)))
		})
	}
}

// TestCheckToolMCPHeaderName: an annotation that is empty, not a string or
// not an HTTP token is refused at its own path.
func TestCheckToolMCPHeaderName(t *testing.T) {
	refused := map[string]string{"empty": `""`, "not a string": `7`, "space": `"Re gion"`, "colon": `"Region:"`,
		"line feed": `"Re\ngion"`, "carriage return": `"Region\r"`, "control character": `"Re\u0007gion"`, "non-ASCII": `"Régión"`}
	for name, header := range refused {
		t.Run(name, func(t *testing.T) {
			schema := `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":` + header + `}}}`
			tool := Tool{Name: "t", InputSchema: json.RawMessage(schema)}
			require.Equal(t, []string{"input_schema.properties.region.x-mcp-header"}, fieldsOf(t, CheckTool(tool)))
		})
	}
}

// TestMCPHeaders: the annotations that name headers, with their paths from
// the arguments' root, and none of those the checks refuse.
func TestMCPHeaders(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"filter":{"type":"object","properties":{"tenant":{"type":"integer","x-mcp-header":"Tenant"}}},
		"list":{"type":"array","items":{"type":"object","properties":{"x":{"type":"string","x-mcp-header":"X"}}}},
		"bad":{"type":"string","x-mcp-header":"a b"}},
		"$defs":{"d":{"type":"object","properties":{"y":{"type":"string","x-mcp-header":"Y"}}}}}`)
	require.Equal(t, []MCPHeader{
		{Name: "Tenant", Path: []string{"filter", "tenant"}, Type: "integer"},
		{Name: "Region", Path: []string{"region"}, Type: "string"},
	}, MCPHeaders(schema))
	require.Nil(t, MCPHeaders(json.RawMessage(`{"type":"object"}`)))
}
