package oasimport

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/oasdiff/yaml"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/schema"
	"github.com/mockmcp/mockmcp/internal/testgen"
)

// testFile reads the file name of testdata.
func testFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return data
}

func importFile(t *testing.T, name string, opts Options) Result {
	t.Helper()
	return importData(t, testFile(t, name), opts)
}

func importText(t *testing.T, doc string) Result {
	t.Helper()
	return importData(t, []byte(doc), Options{})
}

// importData imports data, requiring success and a design the checks
// accept.
func importData(t *testing.T, data []byte, opts Options) Result {
	t.Helper()
	res, err := Import(context.Background(), data, opts)
	require.NoError(t, err)
	checkDesign(t, res)
	return res
}

// checkDesign checks what every imported design must be: a server the
// design rules accept, and tools whose schemas are self-contained Draft 7
// (the input schema an object schema), that pass design.CheckTool, and
// whose every scenario some arguments reach.
func checkDesign(t *testing.T, res Result) {
	t.Helper()
	require.NoError(t, design.CheckServer(res.Design.Server))
	require.Equal(t, "openapi", res.Design.Server.Type)
	require.Equal(t, "2024-11-05", res.Design.Server.ProtocolVersion)
	require.Equal(t, "none", res.Design.Server.AuthMode)
	require.Equal(t, "modern_and_legacy", res.Design.Server.Eras)
	require.Equal(t, 60000, res.Design.Server.CacheTTLMs)
	require.Equal(t, "private", res.Design.Server.CacheScope)
	for _, tl := range res.Design.Tools {
		require.NoError(t, design.CheckTool(tl), tl.Name)
		_, err := schema.Compile(tl.InputSchema, schema.RequireObject)
		require.NoError(t, err, "%s input schema %s", tl.Name, tl.InputSchema)
		require.NotContains(t, string(tl.InputSchema), "$ref", tl.Name)
		require.NotContains(t, string(tl.InputSchema), "$schema", tl.Name)
		require.NotContains(t, string(tl.InputSchema), "nullable", tl.Name)
		if tl.OutputSchema != nil {
			_, err := schema.Compile(tl.OutputSchema, schema.RequireObject)
			require.NoError(t, err, "%s output schema", tl.Name)
			require.NotContains(t, string(tl.OutputSchema), "$ref", tl.Name)
		}
		require.NotEmpty(t, tl.Scenarios, tl.Name)
		for i, sc := range tl.Scenarios {
			if slices.ContainsFunc(res.Warnings, func(w string) bool {
				return strings.Contains(w, fmt.Sprintf("example %q: ", sc.Name)) && strings.Contains(w, "no call can select its scenario")
			}) {
				continue // as the warning says
			}
			_, ok := testgen.Arguments(tl, i)
			require.True(t, ok, "%s: scenario %q can be reached", tl.Name, sc.Name)
		}
	}
}

func tool(t *testing.T, res Result, name string) design.Tool {
	t.Helper()
	for _, tl := range res.Design.Tools {
		if tl.Name == name {
			return tl
		}
	}
	require.Failf(t, "no such tool", "%s", name)
	return design.Tool{}
}

func names(res Result) []string {
	var out []string
	for _, tl := range res.Design.Tools {
		out = append(out, tl.Name)
	}
	return out
}

func decode(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	if raw == nil {
		return nil
	}
	var v map[string]any
	require.NoError(t, json.Unmarshal(raw, &v))
	return v
}

func properties(t *testing.T, tl design.Tool) map[string]any {
	t.Helper()
	return decode(t, tl.InputSchema)["properties"].(map[string]any)
}

func required(t *testing.T, tl design.Tool) []any {
	t.Helper()
	r, _ := decode(t, tl.InputSchema)["required"].([]any)
	return r
}

type scenarioView struct {
	Name      string
	Condition map[string]any
	Response  map[string]any
}

func scenarios(t *testing.T, tl design.Tool) []scenarioView {
	t.Helper()
	var out []scenarioView
	for _, sc := range tl.Scenarios {
		out = append(out, scenarioView{sc.Name, decode(t, sc.Condition), decode(t, sc.Response)})
	}
	return out
}

// invoke runs the tool as tools/call does and returns the chosen scenario.
func invoke(t *testing.T, tl design.Tool, args map[string]any) string {
	t.Helper()
	inv, violations, err := mcpserve.Invoke(tl, args)
	require.NoError(t, err)
	require.Empty(t, violations, "arguments %v", args)
	return inv.Scenario
}

func TestPetstore30(t *testing.T) {
	res := importFile(t, "petstore-3.0.yaml", Options{})
	require.Equal(t, "openapi 3.0.3", res.Format)
	require.Equal(t, "Swagger Petstore", res.Title)
	s := res.Design.Server
	require.Equal(t, "Swagger Petstore", s.Name)
	require.Equal(t, "A sample API that uses a petstore as an example.", s.Description)
	require.Equal(t, "1.0.0", s.Version)
	require.Empty(t, res.Design.Resources)
	require.Empty(t, res.Design.Prompts)

	require.Equal(t, []string{"list_pets", "create_pets", "show_pet_by_id", "delete_pet", "get_pet_stats"}, names(res),
		"paths in order, then GET, PUT, POST, DELETE...")
	require.Equal(t, []string{
		`GET /pets: the response is an array, not a JSON object: the scenarios answer {"value": <the response>}`,
		`POST /pets: examples default, stray have no request values to tell them apart; only default is kept as the fallback`,
		`GET /stats: cookie parameter "session" is not a tool input; it is left out`,
	}, res.Warnings)

	t.Run("list_pets: a query parameter, the fallback from the media type's example", func(t *testing.T) {
		tl := tool(t, res, "list_pets")
		require.Equal(t, "List all pets\n\nHTTP: GET /pets", tl.Description)
		require.Equal(t, map[string]any{"limit": map[string]any{
			"type": "integer", "format": "int32", "maximum": 100.0,
			"description": "How many items to return at one time (max 100)",
		}}, properties(t, tl))
		require.Nil(t, required(t, tl))
		require.Nil(t, tl.OutputSchema, "an array schema is no output schema")
		require.Equal(t, []scenarioView{{Name: "default", Response: map[string]any{"value": []any{
			map[string]any{"id": 1.0, "name": "Rex", "tag": "dog"},
			map[string]any{"id": 2.0, "name": "Tom", "tag": "cat"},
		}}}}, scenarios(t, tl))
	})

	t.Run("create_pets: named examples with same-named request examples", func(t *testing.T) {
		tl := tool(t, res, "create_pets")
		require.Equal(t, map[string]any{"body": map[string]any{
			"type":     "object",
			"required": []any{"name"},
			"properties": map[string]any{
				"name": map[string]any{"type": "string", "minLength": 1.0},
				"tag":  map[string]any{"type": []any{"string", "null"}},
			},
		}}, properties(t, tl))
		require.Equal(t, []any{"body"}, required(t, tl))
		require.Equal(t, "object", decode(t, tl.OutputSchema)["type"])
		require.Equal(t, []scenarioView{
			{"cat", map[string]any{"body": map[string]any{"name": "Tom", "tag": "cat"}}, map[string]any{"id": 11.0, "name": "Tom", "tag": "cat"}},
			{"dog", map[string]any{"body": map[string]any{"name": "Rex", "tag": "dog"}}, map[string]any{"id": 10.0, "name": "Rex", "tag": "dog"}},
			{"default", nil, map[string]any{"id": 12.0, "name": "Unnamed"}},
		}, scenarios(t, tl), "the cat's request example is a $ref to components.examples")

		require.Equal(t, "dog", invoke(t, tl, map[string]any{"body": map[string]any{"name": "Rex", "tag": "dog"}}))
		require.Equal(t, "cat", invoke(t, tl, map[string]any{"body": map[string]any{"name": "Tom", "tag": "cat"}}))
		require.Equal(t, "default", invoke(t, tl, map[string]any{"body": map[string]any{"name": "Felix"}}))
	})

	t.Run("show_pet_by_id: conditions from parameter examples, the fallback from the schema's example", func(t *testing.T) {
		tl := tool(t, res, "show_pet_by_id")
		props := properties(t, tl)
		require.Equal(t, map[string]any{"type": "string", "description": "The id of the pet to retrieve"}, props["petId"])
		require.Equal(t, map[string]any{"type": "string", "format": "uuid", "description": "Correlates the request with the logs."}, props["X-Request-ID"])
		require.Equal(t, []any{"petId"}, required(t, tl), "path parameters are required, the optional header is not")
		require.Equal(t, []scenarioView{
			{"rex", map[string]any{"petId": "1"}, map[string]any{"id": 1.0, "name": "Rex", "tag": "dog"}},
			{"tom", map[string]any{"petId": "2"}, map[string]any{"id": 2.0, "name": "Tom", "tag": "cat"}},
			{"default", nil, map[string]any{"id": 1.0, "name": "Rex", "tag": "dog"}},
		}, scenarios(t, tl))
		require.Equal(t, "tom", invoke(t, tl, map[string]any{"petId": "2"}))
		require.Equal(t, "default", invoke(t, tl, map[string]any{"petId": "99"}))
	})

	t.Run("delete_pet: no content", func(t *testing.T) {
		tl := tool(t, res, "delete_pet")
		require.Equal(t, []scenarioView{{Name: "generated", Response: map[string]any{}}}, scenarios(t, tl))
	})

	t.Run("get_pet_stats: generated from the response schema", func(t *testing.T) {
		tl := tool(t, res, "get_pet_stats")
		require.Equal(t, "Pet statistics\n\nCounts of the pets in the store, by tag.\n\nHTTP: GET /stats", tl.Description)
		require.Empty(t, properties(t, tl), "the cookie is left out")
		require.Equal(t, []scenarioView{{Name: "generated", Response: map[string]any{"total": 0.0}}}, scenarios(t, tl))
		out, err := schema.Compile(tl.OutputSchema, schema.RequireObject)
		require.NoError(t, err)
		require.Empty(t, out.Validate(decode(t, tl.Scenarios[0].Response)))
	})
}

func TestOpenAPI31(t *testing.T) {
	res := importFile(t, "todo-3.1.json", Options{})
	require.Equal(t, "openapi 3.1.0", res.Format)
	require.Equal(t, "Todo API", res.Design.Server.Name)
	require.Equal(t, "2.1.0", res.Design.Server.Version)
	require.Equal(t, []string{
		"list_todos", "create_todo", "get_todo", "delete_todo", "update_todo", "put_todos_by_todo_id_tags_by_tag",
	}, names(res), "an operation without operationId is named after its method and path")
	require.Equal(t, []string{
		`PUT /todos/{todoId}/tags/{tag}: the response is an array, not a JSON object: the scenarios answer {"value": <the response>}`,
	}, res.Warnings)

	t.Run("type arrays, $ref parameters, the generated fallback", func(t *testing.T) {
		tl := tool(t, res, "list_todos")
		require.Equal(t, map[string]any{
			"status": map[string]any{"type": "string", "enum": []any{"open", "done"}},
			"limit":  map[string]any{"type": "integer", "minimum": 1.0, "maximum": 100.0, "default": 20.0, "description": "Page size."},
			"cursor": map[string]any{"type": []any{"string", "null"}},
		}, properties(t, tl))
		out := decode(t, tl.OutputSchema)
		require.Equal(t, []any{"items", "next"}, out["required"])
		require.Equal(t, []scenarioView{{Name: "generated", Response: map[string]any{"items": []any{}, "next": "example"}}}, scenarios(t, tl))
	})

	t.Run("const, exclusive bounds and $ref examples", func(t *testing.T) {
		tl := tool(t, res, "create_todo")
		require.Equal(t, "Create a to-do item\n\nThe item starts open.\n\nHTTP: POST /todos", tl.Description)
		body := properties(t, tl)["body"].(map[string]any)
		require.Equal(t, false, body["additionalProperties"])
		require.Equal(t, map[string]any{"type": "integer", "exclusiveMinimum": 0.0, "maximum": 5.0}, body["properties"].(map[string]any)["priority"])
		out := decode(t, tl.OutputSchema)
		require.Equal(t, map[string]any{"const": "todo"}, out["properties"].(map[string]any)["kind"])

		scs := scenarios(t, tl)
		require.Len(t, scs, 3)
		require.Equal(t, "groceries", scs[0].Name)
		require.Equal(t, map[string]any{"body": map[string]any{"title": "Buy milk", "priority": 2.0}}, scs[0].Condition)
		require.Equal(t, "urgent", scs[1].Name)
		require.Equal(t, map[string]any{"body": map[string]any{"title": "Pay rent", "priority": 5.0, "due": "2024-06-01"}}, scs[1].Condition)
		require.Equal(t, "Pay rent", scs[1].Response["title"])
		require.Equal(t, scenarioView{Name: "default", Response: map[string]any{
			"id": "0f8fad5b-d9cb-469f-a165-70867728950e", "kind": "todo", "title": "Water the plants",
			"status": "done", "due": "2024-05-01", "priority": 1.0, "tags": []any{"home"},
		}}, scs[2], "every example has request values: the fallback is the schema's first example")

		require.Equal(t, "urgent", invoke(t, tl, map[string]any{"body": map[string]any{"title": "Pay rent", "priority": 5.0, "due": "2024-06-01"}}))
		require.Equal(t, "default", invoke(t, tl, map[string]any{"body": map[string]any{"title": "Read"}}))
	})

	t.Run("path-level parameters and a +json body", func(t *testing.T) {
		tl := tool(t, res, "update_todo")
		props := properties(t, tl)
		require.Equal(t, map[string]any{"type": "string", "format": "uuid"}, props["todoId"])
		body := props["body"].(map[string]any)
		require.Equal(t, map[string]any{"type": []any{"integer", "null"}, "exclusiveMinimum": 0.0, "maximum": 5.0},
			body["properties"].(map[string]any)["priority"])
		require.Equal(t, []any{"todoId"}, required(t, tl), "the body is optional")
	})

	t.Run("route names", func(t *testing.T) {
		tl := tool(t, res, "put_todos_by_todo_id_tags_by_tag")
		require.Equal(t, "Tag a to-do item\n\nHTTP: PUT /todos/{todoId}/tags/{tag}", tl.Description)
		require.Equal(t, []any{"todoId", "tag"}, required(t, tl))
		require.Equal(t, []scenarioView{{Name: "generated", Response: map[string]any{"value": []any{}}}}, scenarios(t, tl))
	})
}

func TestSwagger20(t *testing.T) {
	res := importFile(t, "swagger-2.0.json", Options{})
	require.Equal(t, "swagger 2.0 (converted to OpenAPI 3)", res.Format)
	require.Equal(t, "Swagger Petstore", res.Design.Server.Name)
	require.Equal(t, "This is a sample server Petstore server.", res.Design.Server.Description)
	require.Equal(t, "1.0.7", res.Design.Server.Version)
	require.Equal(t, []string{
		"update_pet", "add_pet", "find_pets_by_status", "get_pet_by_id", "update_pet_with_form", "delete_pet", "get_inventory", "login_user",
	}, names(res))
	require.Equal(t, []string{
		"PUT /pet: no success (2xx) response is declared; the mock answers {}",
		`GET /pet/findByStatus: the response is an array, not a JSON object: the scenarios answer {"value": <the response>}`,
		"POST /pet/{petId}: the request body is application/x-www-form-urlencoded, not JSON; it is not a tool input",
		"POST /pet/{petId}: no success (2xx) response is declared; the mock answers {}",
		"DELETE /pet/{petId}: no success (2xx) response is declared; the mock answers {}",
		`GET /user/login: the response is a string, not a JSON object: the scenarios answer {"value": <the response>}`,
	}, res.Warnings)

	t.Run("a body parameter becomes the body argument", func(t *testing.T) {
		tl := tool(t, res, "add_pet")
		body := properties(t, tl)["body"].(map[string]any)
		require.Equal(t, "Pet object that needs to be added to the store", body["description"])
		require.Equal(t, []any{"name", "photoUrls"}, body["required"])
		require.Equal(t, map[string]any{"type": "object", "properties": map[string]any{
			"id": map[string]any{"type": "integer", "format": "int64"}, "name": map[string]any{"type": "string"},
		}}, body["properties"].(map[string]any)["category"], "#/definitions refs are inlined")
		require.Equal(t, []any{"body"}, required(t, tl))
		require.Equal(t, []scenarioView{{Name: "default", Response: map[string]any{
			"id": 10.0, "category": map[string]any{"id": 1.0, "name": "Dogs"}, "name": "doggie",
			"photoUrls": []any{"https://example.com/doggie.png"}, "tags": []any{}, "status": "available",
		}}}, scenarios(t, tl), "from responses.200.examples[application/json]")
	})

	t.Run("parameters", func(t *testing.T) {
		find := tool(t, res, "find_pets_by_status")
		require.Equal(t, map[string]any{
			"type":        "array",
			"description": "Status values that need to be considered for filter",
			"items":       map[string]any{"type": "string", "enum": []any{"available", "pending", "sold"}, "default": "available"},
		}, properties(t, find)["status"])
		require.Equal(t, []any{"status"}, required(t, find))

		del := tool(t, res, "delete_pet")
		require.Equal(t, map[string]any{"type": "string"}, properties(t, del)["api_key"])
		require.Equal(t, map[string]any{"type": "integer", "format": "int64", "description": "Pet id to delete"}, properties(t, del)["petId"])
		require.Equal(t, []any{"petId"}, required(t, del))

		form := tool(t, res, "update_pet_with_form")
		require.Equal(t, []string{"petId"}, keys(properties(t, form)), "form data is not a tool input")
	})

	t.Run("non-object responses are wrapped", func(t *testing.T) {
		tl := tool(t, res, "login_user")
		require.Equal(t, []scenarioView{{Name: "generated", Response: map[string]any{"value": "example"}}}, scenarios(t, tl))
		require.Equal(t, "generated", invoke(t, tl, map[string]any{"username": "u", "password": "p"}))
	})

	t.Run("YAML too", func(t *testing.T) {
		y, err := yaml.JSONToYAML(testFile(t, "swagger-2.0.json"))
		require.NoError(t, err)
		fromYAML := importData(t, y, Options{})
		require.Equal(t, res.Design.Tools, fromYAML.Design.Tools)
		require.Equal(t, res.Warnings, fromYAML.Warnings)
	})
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestJSONAndYAMLAgree(t *testing.T) {
	y := testFile(t, "petstore-3.0.yaml")
	j, err := yaml.YAMLToJSON(y)
	require.NoError(t, err)
	fromYAML := importData(t, y, Options{})
	fromJSON := importData(t, j, Options{})
	require.Equal(t, fromYAML.Design, fromJSON.Design)
	require.Equal(t, fromYAML.Warnings, fromJSON.Warnings)
}

func TestOptions(t *testing.T) {
	res := importFile(t, "petstore-3.0.yaml", Options{Name: "  My pets  ", MaxOperations: 2})
	require.Equal(t, "My pets", res.Design.Server.Name)
	require.Equal(t, []string{"list_pets", "create_pets"}, names(res))
	require.Contains(t, res.Warnings,
		"document: it has 5 operations but a server holds at most 2 tools: GET /pets/{petId} and the operations after it are left out")
}

func requireInvalid(t *testing.T, err error, message string) {
	t.Helper()
	require.Error(t, err)
	require.True(t, failure.Is(err, failure.ErrInvalid), "a 422: %v", err)
	fe, _ := failure.As(err)
	require.Len(t, fe.Fields, 1)
	require.Equal(t, "document", fe.Fields[0].Field)
	require.Contains(t, fe.Fields[0].Message, message)
}

func TestBadDocuments(t *testing.T) {
	file := func(name string) string { return string(testFile(t, name)) }
	for _, tc := range []struct{ name, doc, message string }{
		{"not JSON or YAML", file("invalid.yaml"), "the document is neither JSON nor YAML: YAML: line "},
		{"broken JSON", "{\n  \"openapi\": \"3.0.0\"\n  \"info\": {}\n}", "the document is neither JSON nor YAML: JSON: line 3, column 3: invalid character after object key:value pair"},
		{"empty", " \n", "the document is empty"},
		{"not OpenAPI", file("not-openapi.json"), `not an OpenAPI or Swagger document: it has no "openapi" or "swagger" field`},
		{"a YAML scalar", "just some text", "not an OpenAPI or Swagger document: the top level is a string"},
		{"swagger 1.2", `{"swaggerVersion": "1.2", "apis": [{"path": "/pets"}]}`, "Swagger 1.2 documents cannot be imported"},
		{"swagger 3", `{"swagger": "3.0", "paths": {}}`, `unsupported Swagger version "3.0"`},
		{"openapi 4", "openapi: 4.0.0\ninfo: {title: t, version: '1'}\npaths: {}\n", `unsupported OpenAPI version "4.0.0"`},
		{"no operations", "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n", "the document has no operations"},
		{"no paths", "openapi: 3.1.0\ninfo: {title: t, version: '1'}\nwebhooks: {}\n", "the document has no operations"},
		{"unreadable", "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {/x: {get: {responses: []}}}\n", "the document cannot be read as OpenAPI: Operation.responses: an array found where an object was expected"},
		{"dangling $ref", "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      responses:\n        '200': {$ref: '#/components/responses/Missing'}\n",
			`the document cannot be read as OpenAPI: failed to resolve "components" in fragment in URI: "#/components/responses/Missing"`},
		{"only external operations", "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /x: {$ref: 'paths.yaml#/x'}\n",
			`the document has no operations that can be imported: /x: the path item is a $ref to "paths.yaml#/x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Import(context.Background(), []byte(tc.doc), Options{})
			requireInvalid(t, err, tc.message)
		})
	}
}

func TestVersionWrittenAsANumber(t *testing.T) {
	res := importText(t, "openapi: 3.1\ninfo: {title: t, version: 2}\npaths: {/x: {get: {responses: {'200': {description: ok}}}}}\n")
	require.Equal(t, "openapi 3.1", res.Format)
	require.Equal(t, "2", res.Design.Server.Version)
	require.Equal(t, "t", res.Design.Server.Name)
}

func TestLenientValidation(t *testing.T) {
	// No info.version, a response without a description, an operationId
	// used twice: strict validation complains, the import goes on.
	res := importText(t, `
openapi: 3.0.3
info: {title: Sloppy}
paths:
  /a:
    get:
      operationId: fetch
      responses:
        '200':
          content:
            application/json:
              schema: {type: object, properties: {a: {type: string}}}
  /b:
    get:
      operationId: fetch
      responses:
        '200': {description: ok}
`)
	require.Equal(t, []string{"fetch", "fetch_2"}, names(res), "names are made unique")
	require.Equal(t, "1.0.0", res.Design.Server.Version, "the default version")
	require.NotEmpty(t, res.Warnings)
	for _, w := range res.Warnings {
		require.True(t, strings.HasPrefix(w, "document: "), w)
	}
	require.Contains(t, strings.Join(res.Warnings, "\n"), "not valid OpenAPI, imported anyway")
}

func TestExternalRefs(t *testing.T) {
	res := importFile(t, "external-ref.yaml", Options{})
	require.Equal(t, []string{"get_local"}, names(res))
	require.Equal(t, []string{
		`GET /remote: it refers to "http://example.com/schema.json", outside the document, which is never fetched; the operation is skipped`,
	}, res.Warnings)
}

func TestExternalRefsAreNeverFetched(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"type": "object", "properties": {"x": {"type": "string"}}}`)
	}))
	defer srv.Close()
	doc := fmt.Sprintf(`
openapi: 3.0.3
info: {title: Remote, version: '1'}
paths:
  /local:
    get:
      operationId: getLocal
      responses: {'200': {description: ok}}
  /remote-path: {$ref: '%[1]s/paths.yaml'}
  /things:
    parameters:
      - $ref: '%[1]s/parameters.yaml#/Limit'
    get:
      operationId: listThings
      responses: {'200': {description: ok}}
  /things/{id}:
    get:
      operationId: getThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
    delete:
      operationId: deleteThing
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}}
      responses:
        '404': {$ref: '%[1]s/responses.yaml#/NotFound'}
        '204': {description: deleted}
components:
  schemas:
    Thing:
      type: object
      properties:
        owner: {$ref: '#/components/schemas/Owner'}
    Owner:
      $ref: '%[1]s/owner.json'
`, srv.URL)
	res, err := Import(context.Background(), []byte(doc), Options{})
	require.Equal(t, int32(0), hits.Load(), "nothing is fetched")
	require.NoError(t, err)
	checkDesign(t, res)
	require.Equal(t, []string{"get_local"}, names(res))
	require.Equal(t, []string{
		fmt.Sprintf(`/remote-path: the path item is a $ref to "%s/paths.yaml", outside the document, which is never fetched; its operations are skipped`, srv.URL),
		fmt.Sprintf(`GET /things: it refers to "%s/parameters.yaml#/Limit", outside the document, which is never fetched; the operation is skipped`, srv.URL),
		fmt.Sprintf(`GET /things/{id}: it refers to "%s/owner.json", outside the document, which is never fetched; the operation is skipped`, srv.URL),
		fmt.Sprintf(`DELETE /things/{id}: it refers to "%s/responses.yaml#/NotFound", outside the document, which is never fetched; the operation is skipped`, srv.URL),
	}, res.Warnings)

	// Should a reference slip past, the loader refuses it rather than
	// reading it.
	raw := map[string]any{
		"openapi": "3.0.3", "info": map[string]any{"title": "t", "version": "1"},
		"paths": map[string]any{"/x": map[string]any{"get": map[string]any{"responses": map[string]any{
			"200": map[string]any{"description": "ok", "content": map[string]any{"application/json": map[string]any{
				"schema": map[string]any{"$ref": srv.URL + "/schema.json"}}}}}}}},
	}
	_, err = load(context.Background(), raw, "openapi")
	requireInvalid(t, err, fmt.Sprintf(`the document refers to "%s/schema.json", outside the document; references are never fetched`, srv.URL))
	require.Equal(t, int32(0), hits.Load(), "nothing is fetched")
}

func TestRecursiveSchema(t *testing.T) {
	res := importText(t, `
openapi: 3.0.3
info: {title: Trees, version: '1'}
paths:
  /nodes:
    post:
      operationId: createNode
      requestBody:
        required: true
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Node'}
      responses:
        '201':
          description: created
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Node'}
components:
  schemas:
    Node:
      type: object
      required: [name]
      properties:
        name: {type: string}
        children:
          type: array
          items: {$ref: '#/components/schemas/Node'}
`)
	tl := tool(t, res, "create_node")
	body := properties(t, tl)["body"].(map[string]any)
	require.Equal(t, map[string]any{"type": "array", "items": map[string]any{}}, body["properties"].(map[string]any)["children"],
		"{} where the schema recurs")
	require.Equal(t, map[string]any{"type": "array", "items": map[string]any{}},
		decode(t, tl.OutputSchema)["properties"].(map[string]any)["children"])
	require.Equal(t, []string{
		"POST /nodes: request body (application/json): at properties.children.items: the schema #/components/schemas/Node contains itself; the recursion is cut there and any value is accepted",
		"POST /nodes: response 201: at properties.children.items: the schema #/components/schemas/Node contains itself; the recursion is cut there and any value is accepted",
	}, res.Warnings)
	require.Equal(t, []scenarioView{{Name: "generated", Response: map[string]any{"name": "example"}}}, scenarios(t, tl))
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"listPets":           "list_pets",
		"getPetById":         "get_pet_by_id",
		"HTTPGetURL":         "http_get_url",
		"getV2Pets":          "get_v2_pets",
		"pets.list-all":      "pets_list_all",
		"  __Find  Pets__  ": "find_pets",
		"already_snake_case": "already_snake_case",
		"Überprüfen":         "berpr_fen",
		"---":                "",
	} {
		require.Equal(t, want, snake(in), in)
	}
	require.Equal(t, "get_pets_by_pet_id_photos", routeName("GET", "/pets/{petId}/photos"))
	require.Equal(t, "get", routeName("GET", "/"))
	require.Equal(t, "post_v1_0_orders", routeName("POST", "/v1.0/orders"))

	taken := map[string]bool{}
	require.Equal(t, "list_pets", unique("list_pets", design.MaxToolName, taken))
	require.Equal(t, "list_pets_2", unique("list_pets", design.MaxToolName, taken))
	require.Equal(t, "list_pets_3", unique("list_pets", design.MaxToolName, taken))
	long := strings.Repeat("a", 200)
	first := unique(long, design.MaxToolName, taken)
	require.Len(t, first, design.MaxToolName)
	second := unique(long, design.MaxToolName, taken)
	require.Len(t, second, design.MaxToolName)
	require.True(t, strings.HasSuffix(second, "_2"))

	res := importText(t, `
openapi: 3.0.3
info: {title: Names, version: '1'}
paths:
  /pets:
    get:
      operationId: listPets
      responses: {'200': {description: ok}}
    post:
      operationId: list_pets
      responses: {'200': {description: ok}}
    put:
      operationId: '---'
      responses: {'200': {description: ok}}
`)
	require.Equal(t, []string{"list_pets", "put_pets", "list_pets_2"}, names(res))
	require.Equal(t, "HTTP: GET /pets", tool(t, res, "list_pets").Description, "no summary nor description")
}

func TestParametersAndExamples(t *testing.T) {
	res := importText(t, `
openapi: 3.0.3
info: {title: Details, version: '1'}
paths:
  /items/{id}:
    parameters:
      - {name: id, in: path, required: true, description: from the path item, schema: {type: integer}}
      - {name: verbose, in: query, schema: {type: boolean}}
    put:
      operationId: putItem
      parameters:
        - {name: id, in: path, required: true, description: the operation's own, schema: {type: integer}}
        - {name: id, in: header, schema: {type: string}}
        - {name: body, in: query, schema: {type: string}}
        - {name: Accept, in: header, schema: {type: string}}
        - {name: Content-Type, in: header, schema: {type: string}}
      requestBody:
        content:
          application/vnd.item+json:
            schema:
              type: object
              properties:
                size: {type: integer, minimum: 1}
            examples:
              small: {value: {size: 1}}
              broken: {value: {size: 0}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                required: [size]
                properties:
                  size: {type: integer}
              examples:
                small: {value: {size: 1}}
                broken: {value: {size: "zero"}}
                remote: {externalValue: 'https://example.com/item.json'}
  /files:
    post:
      operationId: upload
      requestBody:
        content:
          application/octet-stream:
            schema: {type: string, format: binary}
      responses:
        '201':
          description: ok
          content:
            text/plain:
              schema: {type: string}
`)
	tl := tool(t, res, "put_item")
	props := properties(t, tl)
	require.Equal(t, []string{"body", "header_id", "id", "request_body", "verbose"}, sortedKeys(props))
	require.Equal(t, map[string]any{"type": "integer", "description": "the operation's own"}, props["id"], "the operation's parameter wins")
	require.Equal(t, map[string]any{"type": "string"}, props["header_id"])
	require.Equal(t, []any{"id"}, required(t, tl))
	require.Equal(t, []scenarioView{
		{"broken", map[string]any{"request_body": map[string]any{"size": 0.0}}, map[string]any{"size": "zero"}},
		{"small", map[string]any{"request_body": map[string]any{"size": 1.0}}, map[string]any{"size": 1.0}},
		{"default", nil, map[string]any{"size": 1.0}},
	}, scenarios(t, tl))
	require.Equal(t, "small", invoke(t, tl, map[string]any{"id": 1.0, "request_body": map[string]any{"size": 1.0}}))

	require.Equal(t, []string{
		"POST /files: the request body is application/octet-stream, not JSON; it is not a tool input",
		"POST /files: the success response 201 is text/plain, not JSON; the mock answers {}",
		`PUT /items/{id}: a parameter is named "body", so the request body is the argument "request_body"`,
		`PUT /items/{id}: response 200 example "broken" does not satisfy the response schema (size: Value is string but should be integer); it is kept`,
		`PUT /items/{id}: example "broken": the value of "request_body" does not satisfy its schema (size: 0 should be at least 1), so no call can select its scenario`,
		`PUT /items/{id}: response 200 example "remote" is the externalValue "https://example.com/item.json", which is never fetched; it is left out`,
	}, res.Warnings)
	require.Equal(t, []string{"upload", "put_item"}, names(res))
}

func sortedKeys(m map[string]any) []string {
	out := keys(m)
	slices.Sort(out)
	return out
}

func TestSample(t *testing.T) {
	for _, raw := range []string{
		`{"type": "object", "required": ["id", "tags", "when"], "properties": {"id": {"type": "integer", "exclusiveMinimum": 0}, "tags": {"type": "array", "minItems": 2, "uniqueItems": true, "items": {"type": "string"}}, "when": {"type": ["string", "null"], "format": "date-time"}}}`,
		`{"type": "string", "pattern": "^[A-Z]{3}-[0-9]{2}$"}`,
		`{"enum": ["a", "b"]}`,
		`{}`,
	} {
		v, ok := testgen.Sample(json.RawMessage(raw))
		require.True(t, ok, raw)
		s, err := schema.Compile([]byte(raw))
		require.NoError(t, err)
		require.Empty(t, s.Validate(v), "%s: %v", raw, v)
	}
	_, ok := testgen.Sample(json.RawMessage(`{"type": "string", "minLength": 5, "maxLength": 2}`))
	require.False(t, ok, "no value satisfies it")
	v, ok := testgen.Sample(json.RawMessage(`not json`))
	require.False(t, ok)
	require.Nil(t, v)
}

func TestCanceled(t *testing.T) {
	data := testFile(t, "petstore-3.0.yaml")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Import(ctx, data, Options{})
	require.ErrorIs(t, err, context.Canceled)
}

// TestYAMLAliasesBounded: a YAML document's aliases are expanded within
// the limit of JSON bytes, and one inside its own anchor is refused; a
// 101 KB document once stored a 30 MB scenario.
func TestYAMLAliasesBounded(t *testing.T) {
	head := "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /x:\n    get:\n      responses:\n        200:\n          description: ok\n          content:\n            application/json:\n"
	big := head + "              example: {a: &s " + strings.Repeat("x", 100_000) + ", b: [" + strings.Repeat("*s, ", 300) + "*s]}\n"
	start := time.Now()
	_, err := Import(context.Background(), []byte(big), Options{MaxJSONBytes: 1 << 20})
	requireInvalid(t, err, "the document cannot be read as YAML: paths./x.get.responses.200.content.application/json.example.b[9]: line 11: the document expands to more than 1048576 bytes of JSON")
	require.Less(t, time.Since(start), time.Second)

	cycle := head + "              example: &t {a: [*t]}\n"
	_, err = Import(context.Background(), []byte(cycle), Options{})
	requireInvalid(t, err, "anchor 't' contains itself")

	// Within the limit, aliases are expanded, and keys such as 200 are text.
	small := head + "              example: &e {forecast: sunny}\n        201:\n          description: made\n          content: {application/json: {example: *e}}\n"
	res := importText(t, small)
	require.Len(t, res.Design.Tools, 1)
}
