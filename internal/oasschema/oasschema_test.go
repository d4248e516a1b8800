package oasschema_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/oasschema"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// schemas loads the components.schemas of a document of the given OpenAPI
// version, written in YAML.
func schemas(t *testing.T, version, components string) openapi3.Schemas {
	t.Helper()
	doc := "openapi: " + version + "\ninfo: {title: t, version: '1'}\npaths: {}\ncomponents:\n  schemas:\n" + indent(components, "    ")
	loader := openapi3.NewLoader()
	d, err := loader.LoadFromData([]byte(doc))
	require.NoError(t, err, doc)
	return d.Components.Schemas
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n") + "\n"
}

// convert converts a schema and checks what every output must be: JSON
// that compiles as Draft 7 and has no $ref or $schema left.
func convert(t *testing.T, ref *openapi3.SchemaRef, opts oasschema.Options) (map[string]any, []string) {
	t.Helper()
	out, warnings, err := oasschema.ToJSONSchema(ref, opts)
	require.NoError(t, err)
	raw, err := json.Marshal(out)
	require.NoError(t, err)
	require.NotContains(t, string(raw), `"$ref"`)
	require.NotContains(t, string(raw), `"$schema"`)
	_, err = schema.Compile(raw)
	require.NoError(t, err, "compiles as Draft 7: %s", raw)
	var back map[string]any
	require.NoError(t, json.Unmarshal(raw, &back))
	return back, warnings
}

func TestNullableFolding(t *testing.T) {
	s := schemas(t, "3.0.3", `
Color:
  type: string
  nullable: true
  enum: [red, green]
Count:
  type: integer
  nullable: true
Anything:
  nullable: true
  description: any value, null included
Owner:
  nullable: true
  allOf:
    - $ref: '#/components/schemas/Person'
Person:
  type: object
  properties:
    name: {type: string}
`)
	color, _ := convert(t, s["Color"], oasschema.Options{})
	require.Equal(t, []any{"string", "null"}, color["type"])
	require.Equal(t, []any{"red", "green", nil}, color["enum"])
	require.NotContains(t, color, "nullable")

	count, _ := convert(t, s["Count"], oasschema.Options{})
	require.Equal(t, []any{"integer", "null"}, count["type"])

	anything, _ := convert(t, s["Anything"], oasschema.Options{})
	require.Equal(t, map[string]any{"description": "any value, null included"}, anything)

	owner, _ := convert(t, s["Owner"], oasschema.Options{})
	require.Equal(t, map[string]any{"anyOf": []any{
		map[string]any{"allOf": []any{map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}},
		map[string]any{"type": "null"},
	}}, owner, "a nullable composition admits null")
	compiled := compile(t, owner)
	require.Empty(t, compiled.Validate(nil))
	require.Empty(t, compiled.Validate(map[string]any{"name": "Ann"}))
	require.NotEmpty(t, compiled.Validate(map[string]any{"name": 3.0}))
}

func compile(t *testing.T, s map[string]any) *schema.Schema {
	t.Helper()
	raw, err := json.Marshal(s)
	require.NoError(t, err)
	c, err := schema.Compile(raw)
	require.NoError(t, err)
	return c
}

func TestOpenAPI31Keywords(t *testing.T) {
	s := schemas(t, "3.1.0", `
Item:
  type: object
  required: [id]
  properties:
    id: {type: [string, "null"], format: uuid}
    kind: {const: item}
    score: {type: [integer, number]}
    anything: true
    nothing: false
  examples:
    - {id: "x", kind: item}
  dependentRequired:
    card: [billing]
  dependentSchemas:
    shipping:
      required: [address]
Pair:
  type: array
  prefixItems:
    - {type: string}
    - {type: integer}
  items: {type: boolean}
`)
	item, warnings := convert(t, s["Item"], oasschema.Options{})
	require.Empty(t, warnings)
	props := item["properties"].(map[string]any)
	require.Equal(t, map[string]any{"type": []any{"string", "null"}, "format": "uuid"}, props["id"])
	require.Equal(t, map[string]any{"const": "item"}, props["kind"])
	require.Equal(t, []any{"integer", "number"}, props["score"].(map[string]any)["type"])
	require.Equal(t, map[string]any{}, props["anything"], "boolean schema true")
	require.Equal(t, map[string]any{"not": map[string]any{}}, props["nothing"], "boolean schema false")
	require.Equal(t, []any{map[string]any{"id": "x", "kind": "item"}}, item["examples"])
	require.Equal(t, map[string]any{
		"card":     []any{"billing"},
		"shipping": map[string]any{"required": []any{"address"}},
	}, item["dependencies"], "Draft 7 dependencies")

	c := compile(t, item)
	require.Empty(t, c.Validate(map[string]any{"id": nil, "kind": "item"}))
	require.NotEmpty(t, c.Validate(map[string]any{"id": "x", "kind": "other"}))
	require.NotEmpty(t, c.Validate(map[string]any{"id": "x", "nothing": 1.0}))

	pair, _ := convert(t, s["Pair"], oasschema.Options{})
	require.Equal(t, []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}, pair["items"], "Draft 7 tuple form")
	require.Equal(t, map[string]any{"type": "boolean"}, pair["additionalItems"])
	c = compile(t, pair)
	require.Empty(t, c.Validate([]any{"a", 1.0, true}))
	require.NotEmpty(t, c.Validate([]any{"a", 1.0, "no"}))
}

func TestExclusiveBounds(t *testing.T) {
	t.Run("3.0 booleans move the bound", func(t *testing.T) {
		s := schemas(t, "3.0.3", `
Open:
  type: number
  minimum: 0
  exclusiveMinimum: true
  maximum: 10
  exclusiveMaximum: true
Closed:
  type: number
  minimum: 0
  exclusiveMinimum: false
  maximum: 10
Lonely:
  type: number
  exclusiveMinimum: true
`)
		open, _ := convert(t, s["Open"], oasschema.Options{})
		require.Equal(t, map[string]any{"type": "number", "exclusiveMinimum": 0.0, "exclusiveMaximum": 10.0}, open)
		c := compile(t, open)
		require.NotEmpty(t, c.Validate(0.0))
		require.Empty(t, c.Validate(5.0))
		require.NotEmpty(t, c.Validate(10.0))

		closed, _ := convert(t, s["Closed"], oasschema.Options{})
		require.Equal(t, map[string]any{"type": "number", "minimum": 0.0, "maximum": 10.0}, closed)

		lonely, _ := convert(t, s["Lonely"], oasschema.Options{})
		require.Equal(t, map[string]any{"type": "number"}, lonely, "a flag without a bound says nothing")
	})
	t.Run("3.1 numbers stay", func(t *testing.T) {
		s := schemas(t, "3.1.0", `
Priority:
  type: integer
  exclusiveMinimum: 0
  maximum: 5
`)
		p, _ := convert(t, s["Priority"], oasschema.Options{})
		require.Equal(t, map[string]any{"type": "integer", "exclusiveMinimum": 0.0, "maximum": 5.0}, p)
		c := compile(t, p)
		require.NotEmpty(t, c.Validate(0.0))
		require.Empty(t, c.Validate(5.0))
	})
}

func TestDroppedKeywords(t *testing.T) {
	s := schemas(t, "3.0.3", `
Pet:
  type: object
  x-internal: true
  example: {name: Rex}
  deprecated: true
  discriminator:
    propertyName: name
  xml: {name: pet}
  externalDocs: {url: 'https://example.com'}
  properties:
    name:
      type: string
      readOnly: true
      deprecated: true
      example: Rex
`)
	pet, warnings := convert(t, s["Pet"], oasschema.Options{})
	require.Empty(t, warnings)
	require.Equal(t, map[string]any{
		"type":       "object",
		"properties": map[string]any{"name": map[string]any{"type": "string", "readOnly": true}},
	}, pet)
}

func TestUnusableKeywordsWarn(t *testing.T) {
	s := schemas(t, "3.0.3", `
Upload:
  type: object
  properties:
    file: {type: string, format: binary}
    code: {type: string, pattern: '^(?!x)[a-z]+$'}
`)
	// Swagger 2.0's "file" type survives conversion to OpenAPI 3.
	s["Upload"].Value.Properties["file"].Value.Type = &openapi3.Types{"file"}
	out, warnings := convert(t, s["Upload"], oasschema.Options{})
	props := out["properties"].(map[string]any)
	require.Equal(t, map[string]any{"format": "binary"}, props["file"])
	require.Equal(t, map[string]any{"type": "string"}, props["code"])
	require.Len(t, warnings, 2)
	require.Contains(t, warnings[0], `at properties.code: pattern "^(?!x)[a-z]+$"`)
	require.Contains(t, warnings[1], `at properties.file: type "file" is not a JSON Schema type`)
}

const recursive = `
Node:
  type: object
  properties:
    name: {type: string}
    children:
      type: array
      items:
        $ref: '#/components/schemas/Node'
Tree:
  type: object
  properties:
    root: {$ref: '#/components/schemas/Node'}
Shared:
  type: object
  properties:
    home: {$ref: '#/components/schemas/Address'}
    work: {$ref: '#/components/schemas/Address'}
Address:
  type: object
  properties:
    city: {type: string}
`

func TestCycleError(t *testing.T) {
	s := schemas(t, "3.0.3", recursive)
	_, _, err := oasschema.ToJSONSchema(s["Tree"], oasschema.Options{})
	require.ErrorIs(t, err, oasschema.ErrRecursive)
	require.ErrorContains(t, err, "at properties.root.properties.children.items: the schema #/components/schemas/Node contains itself")

	// A schema used twice, but not within itself, is no cycle.
	shared, warnings := convert(t, s["Shared"], oasschema.Options{})
	require.Empty(t, warnings)
	props := shared["properties"].(map[string]any)
	require.Equal(t, props["home"], props["work"])
}

func TestCycleAny(t *testing.T) {
	s := schemas(t, "3.0.3", recursive)
	node, warnings := convert(t, s["Node"], oasschema.Options{OnCycle: oasschema.CycleAny})
	require.Equal(t, map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":     map[string]any{"type": "string"},
			"children": map[string]any{"type": "array", "items": map[string]any{}},
		},
	}, node)
	require.Equal(t, []string{"at properties.children.items: the schema #/components/schemas/Node contains itself; the recursion is cut there and any value is accepted"}, warnings)
}

func TestDepthAndSize(t *testing.T) {
	s := schemas(t, "3.0.3", `
Deep:
  type: object
  properties:
    a:
      type: object
      properties:
        b:
          type: object
          properties:
            c: {type: string}
`)
	_, _, err := oasschema.ToJSONSchema(s["Deep"], oasschema.Options{MaxDepth: 2})
	require.ErrorIs(t, err, oasschema.ErrRecursive)
	require.ErrorContains(t, err, "nested deeper than 2 levels")

	cut, warnings := convert(t, s["Deep"], oasschema.Options{MaxDepth: 2, OnCycle: oasschema.CycleAny})
	require.Len(t, warnings, 1)
	require.Equal(t, map[string]any{}, cut["properties"].(map[string]any)["a"].(map[string]any)["properties"].(map[string]any)["b"].(map[string]any)["properties"].(map[string]any)["c"])

	_, _, err = oasschema.ToJSONSchema(s["Deep"], oasschema.Options{MaxNodes: 3, OnCycle: oasschema.CycleAny})
	require.ErrorIs(t, err, oasschema.ErrTooLarge)
}

func TestNilIsAnyValue(t *testing.T) {
	out, warnings, err := oasschema.ToJSONSchema(nil, oasschema.Options{})
	require.NoError(t, err)
	require.Empty(t, warnings)
	require.Equal(t, map[string]any{}, out)
}
