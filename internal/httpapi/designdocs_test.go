package httpapi_test

import (
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// weatherDoc is the example design document kept in openapi/examples.
func weatherDoc(t *testing.T) []byte {
	t.Helper()
	raw, err := os.ReadFile("../../openapi/examples/designs/weather.yaml")
	require.NoError(t, err)
	return raw
}

// applyDoc posts a design document with a content type.
func applyDoc(t *testing.T, c *apitest.Client, contentType string, doc []byte, query string) *apitest.Response {
	t.Helper()
	c = c.For(t)
	c.Header.Set("Content-Type", contentType)
	return c.Do(http.MethodPost, "/api/servers/apply"+query, doc)
}

func exportDoc(t *testing.T, c *apitest.Client, id, format string) []byte {
	t.Helper()
	r := c.For(t).Do(http.MethodGet, "/api/servers/"+id+"/export?format="+format, nil).Status(http.StatusOK)
	want := map[string]string{"json": "application/json", "yaml": "application/yaml"}[format]
	require.Equal(t, want, r.Hdr.Get("Content-Type"))
	return r.Raw
}

// actions lists the actions of a plan's parts of kind, by name.
func actions(r *apitest.Response, kind string) map[string]string {
	out := map[string]string{}
	items, _ := r.Get(kind).([]any)
	for _, it := range items {
		m := it.(map[string]any)
		out[m["name"].(string)] = m["action"].(string)
	}
	return out
}

func serverNames(t *testing.T, c *apitest.Client) []string {
	t.Helper()
	r := c.For(t).Do(http.MethodGet, "/api/servers", nil).Status(http.StatusOK)
	var names []string
	for _, it := range r.Get("items").([]any) {
		names = append(names, it.(map[string]any)["name"].(string))
	}
	return names
}

// publishedSchema compiles the schema the service publishes, fetched
// without credentials.
func publishedSchema(t *testing.T, env *apitest.Env) *schema.Schema {
	t.Helper()
	r := env.Anonymous(t).Do(http.MethodGet, "/api/schemas/design.json", nil).Status(http.StatusOK)
	require.Equal(t, "application/schema+json", r.Hdr.Get("Content-Type"))
	require.Equal(t, "https://json-schema.org/draft/2020-12/schema", r.String("$schema"))
	s, err := schema.Compile(r.Raw)
	require.NoError(t, err)
	return s
}

// TestDesignExportApplyRoundTrip: the example is applied in one
// organization, exported, applied in others from its JSON and from its
// YAML, and exported again byte for byte; every export is valid against
// the published schema.
func TestDesignExportApplyRoundTrip(t *testing.T) {
	t.Parallel()
	env, a, b := apitest.Rivals(t, "Design Source", "Design Copy")
	yc := env.Signup(t, "Design Yaml Copy")
	sch := publishedSchema(t, env)
	apitest.RequireValidDocument(t, sch, weatherDoc(t))

	r := applyDoc(t, a, "application/yaml", weatherDoc(t), "").Status(http.StatusCreated)
	require.Equal(t, "created", r.String("server.action"))
	require.Equal(t, true, r.Get("changed"))
	require.Equal(t, false, r.Get("dry_run"))
	require.Equal(t, map[string]string{"get_forecast": "created"}, actions(r, "tools"))
	require.Equal(t, map[string]string{"plan_trip": "created"}, actions(r, "prompts"))
	require.Equal(t, 2, r.Len("resources"))
	idA := r.String("server.id")
	require.Equal(t, env.URL+"/api/platform/"+idA+"/mcp", r.String("server.endpoint_url"))
	srv := a.Do(http.MethodGet, "/api/servers/"+idA, nil).Status(http.StatusOK)
	require.Equal(t, true, srv.Get("enabled"), "the document enables the server")

	js := exportDoc(t, a, idA, "json")
	ym := exportDoc(t, a, idA, "yaml")
	apitest.RequireValidDocument(t, sch, js)
	apitest.RequireValidDocument(t, sch, ym)
	for _, noise := range []string{idA, `"created_at"`, `"updated_at"`, `"endpoint_url"`, `"source"`, `"server_id"`, `"created_by"`} {
		require.NotContains(t, string(js), noise)
	}
	var top map[string]any
	require.NoError(t, json.Unmarshal(js, &top))
	require.NotContains(t, top, "id", "the document can be applied in any organization")
	require.Contains(t, string(ym), "text: |", "multi-line strings are literal blocks")
	require.True(t, strings.HasPrefix(string(ym), "apiVersion: mockmcp/v1\nkind: MCPServer\nname: Weather\n"), "%s", ym)

	rb := applyDoc(t, b, "application/json", js, "").Status(http.StatusCreated)
	idB := rb.String("server.id")
	require.NotEqual(t, idA, idB)
	require.Equal(t, string(js), string(exportDoc(t, b, idB, "json")))
	require.Equal(t, string(ym), string(exportDoc(t, b, idB, "yaml")))

	applyDoc(t, yc, "application/yaml", ym, "").Status(http.StatusCreated)
	for _, ct := range []string{"application/x-yaml", "text/yaml; charset=utf-8"} {
		r := applyDoc(t, yc, ct, ym, "").Status(http.StatusOK)
		require.Equal(t, false, r.Get("changed"), ct)
	}
	idC := yc.Do(http.MethodGet, "/api/servers", nil).Status(http.StatusOK).String("items.0.id")
	require.Equal(t, string(ym), string(exportDoc(t, yc, idC, "yaml")))
	require.Equal(t, string(js), string(exportDoc(t, yc, idC, "json")))
}

// TestDesignApplyIsIdempotent: the same document applied again changes
// nothing, and a dry run writes nothing.
func TestDesignApplyIsIdempotent(t *testing.T) {
	t.Parallel()
	_, c := apitest.SignedUp(t, "Design Idempotence")

	dry := applyDoc(t, c, "application/yaml", weatherDoc(t), "?dry_run=true").Status(http.StatusOK)
	require.Equal(t, true, dry.Get("dry_run"))
	require.Equal(t, true, dry.Get("changed"))
	require.Equal(t, "created", dry.String("server.action"))
	require.Nil(t, dry.Get("server.id"), "a dry run creates no id")
	require.Empty(t, serverNames(t, c), "a dry run writes nothing")

	first := applyDoc(t, c, "application/yaml", weatherDoc(t), "").Status(http.StatusCreated)
	id := first.String("server.id")
	before := exportDoc(t, c, id, "json")
	updatedAt := c.Do(http.MethodGet, "/api/servers/"+id, nil).String("updated_at")

	again := applyDoc(t, c, "application/yaml", weatherDoc(t), "").Status(http.StatusOK)
	require.Equal(t, false, again.Get("changed"))
	require.Equal(t, "unchanged", again.String("server.action"))
	require.Equal(t, id, again.String("server.id"))
	for _, kind := range []string{"tools", "resources", "prompts"} {
		for name, action := range actions(again, kind) {
			require.Equal(t, "unchanged", action, "%s %s", kind, name)
		}
	}
	require.Equal(t, updatedAt, c.Do(http.MethodGet, "/api/servers/"+id, nil).String("updated_at"))

	// The exported JSON, applied, is the same design too (jsonb reorders keys).
	require.Equal(t, false, applyDoc(t, c, "application/json", before, "").Status(http.StatusOK).Get("changed"))

	// A dry run of a change reports it and writes nothing.
	changed := strings.Replace(string(weatherDoc(t)), "version: 1.2.0", "version: 1.3.0", 1)
	changed = strings.Replace(changed, "  - name: plan_trip\n", "  - name: plan_holiday\n", 1)
	dry = applyDoc(t, c, "application/yaml", []byte(changed), "?dry_run=true").Status(http.StatusOK)
	require.Equal(t, true, dry.Get("changed"))
	require.Equal(t, "updated", dry.String("server.action"))
	require.Equal(t, id, dry.String("server.id"))
	require.Equal(t, map[string]string{"plan_holiday": "created", "plan_trip": "deleted"}, actions(dry, "prompts"))
	require.Equal(t, string(before), string(exportDoc(t, c, id, "json")))
	require.Equal(t, []string{"Weather"}, serverNames(t, c))
}

// TestDesignApplyUpdatesParts: tools, resources and prompts are added,
// changed and deleted by their keys, the server keeping its id.
func TestDesignApplyUpdatesParts(t *testing.T) {
	t.Parallel()
	_, c := apitest.SignedUp(t, "Design Updates")
	id := applyDoc(t, c, "application/yaml", weatherDoc(t), "").Status(http.StatusCreated).String("server.id")
	toolID := c.Do(http.MethodGet, "/api/servers/"+id+"/tools", nil).String("items.0.id")

	doc := map[string]any{
		"apiVersion": "mockmcp/v1", "kind": "MCPServer", "name": "Weather", "enabled": false,
		"tools": []any{
			map[string]any{"name": "get_forecast", "description": "Now with a new description.",
				"input_schema": map[string]any{"type": "object"}},
			map[string]any{"name": "get_alerts", "mock_scenarios": []any{
				map[string]any{"name": "none", "response": map[string]any{"alerts": []any{}}}}},
		},
		"resources": []any{
			map[string]any{"name": "Stations (renamed)", "uri": "weather://stations", "content": "PAR-01"},
		},
	}
	r := applyDoc(t, c, "application/json", apitest.JSON(t, doc), "").Status(http.StatusOK)
	require.Equal(t, "updated", r.String("server.action"))
	require.Equal(t, id, r.String("server.id"))
	require.Equal(t, map[string]string{"get_forecast": "updated", "get_alerts": "created"}, actions(r, "tools"))
	require.Equal(t, map[string]string{"Stations (renamed)": "updated", "Current conditions": "deleted"}, actions(r, "resources"))
	require.Equal(t, map[string]string{"plan_trip": "deleted"}, actions(r, "prompts"))
	require.Equal(t, "weather://stations", r.String("resources.0.uri"))

	srv := c.Do(http.MethodGet, "/api/servers/"+id, nil).Status(http.StatusOK)
	require.Equal(t, false, srv.Get("enabled"))
	require.Equal(t, "1.0.0", srv.String("version"), "an absent field takes its create default")
	tools := c.Do(http.MethodGet, "/api/servers/"+id+"/tools", nil).Status(http.StatusOK)
	require.Equal(t, 2, tools.Len("items"))
	c.Do(http.MethodGet, "/api/servers/"+id+"/tools/"+toolID, nil).Status(http.StatusOK) // updated in place
	require.Equal(t, 0, c.Do(http.MethodGet, "/api/servers/"+id+"/prompts", nil).Len("items"))
	res := c.Do(http.MethodGet, "/api/servers/"+id+"/resources", nil).Status(http.StatusOK)
	require.Equal(t, 1, res.Len("items"))
	require.Equal(t, "PAR-01", res.String("items.0.content"))

	// Without enabled, the server keeps its state.
	c.EnableServer(id)
	delete(doc, "enabled")
	r = applyDoc(t, c, "application/json", apitest.JSON(t, doc), "").Status(http.StatusOK)
	require.Equal(t, false, r.Get("changed"))
	require.Equal(t, true, c.Do(http.MethodGet, "/api/servers/"+id, nil).Get("enabled"))
}

// TestDesignApplyPinnedID: a document with an id creates the server with
// that id and finds it by id afterwards, even renamed.
func TestDesignApplyPinnedID(t *testing.T) {
	t.Parallel()
	_, c := apitest.SignedUp(t, "Design Pinned")
	id := uuid.NewString()
	doc := map[string]any{"apiVersion": "mockmcp/v1", "kind": "MCPServer", "id": id, "name": "Pinned"}
	r := applyDoc(t, c, "application/json", apitest.JSON(t, doc), "?dry_run=true").Status(http.StatusOK)
	require.Equal(t, id, r.String("server.id"), "a dry run reports the pinned id")
	r = applyDoc(t, c, "application/json", apitest.JSON(t, doc), "").Status(http.StatusCreated)
	require.Equal(t, id, r.String("server.id"))
	require.Equal(t, "/api/platform/"+id+"/mcp", r.String("server.endpoint_url")[len(r.String("server.endpoint_url"))-len("/api/platform/"+id+"/mcp"):])

	doc["name"] = "Pinned, renamed"
	r = applyDoc(t, c, "application/json", apitest.JSON(t, doc), "").Status(http.StatusOK)
	require.Equal(t, "updated", r.String("server.action"))
	require.Equal(t, id, r.String("server.id"))
	require.Equal(t, []string{"Pinned, renamed"}, serverNames(t, c))
}

// TestDesignApplyRefusesBadDocuments: checks as the REST bodies have,
// named by their path in the document.
func TestDesignApplyRefusesBadDocuments(t *testing.T) {
	t.Parallel()
	_, c := apitest.SignedUp(t, "Design Refusals")
	for name, tc := range map[string]struct {
		contentType, doc string
		code             int
		fields           []string
	}{
		"bad input schema": {"application/yaml", "apiVersion: mockmcp/v1\nkind: MCPServer\nname: x\ntools:\n  - name: t\n    input_schema: {type: 5}\n",
			422, []string{"tools[0].input_schema"}},
		"unknown field": {"application/json", `{"apiVersion":"mockmcp/v1","kind":"MCPServer","name":"x","colour":"red"}`,
			422, []string{"colour"}},
		"unknown tool field": {"application/yaml", "apiVersion: mockmcp/v1\nkind: MCPServer\nname: x\ntools:\n  - name: t\n    inputSchema: {}\n",
			422, []string{"tools[0].inputSchema"}},
		"missing name": {"application/yaml", "apiVersion: mockmcp/v1\nkind: MCPServer\n", 422, []string{"name"}},
		"wrong kind":   {"application/yaml", "apiVersion: mockmcp/v1\nkind: Server\nname: x\n", 422, []string{"kind"}},
		"tool named twice": {"application/yaml", "apiVersion: mockmcp/v1\nkind: MCPServer\nname: x\ntools:\n  - name: t\n  - name: t\n",
			422, []string{"tools[1].name"}},
		"resource without content": {"application/yaml", "apiVersion: mockmcp/v1\nkind: MCPServer\nname: x\nresources:\n  - name: r\n    uri: a://b\n",
			422, []string{"resources[0].content"}},
		"bad scenario operator": {"application/yaml", "apiVersion: mockmcp/v1\nkind: MCPServer\nname: x\ntools:\n  - name: t\n    mock_scenarios:\n      - name: s\n        condition: {field: a, operator: near, value: 1}\n        response: {}\n",
			422, nil},
		"yaml syntax":    {"application/yaml", "apiVersion: mockmcp/v1\nkind: MCPServer\nname: [x\n", 400, []string{"body"}},
		"json syntax":    {"application/json", "{\"name\": }", 400, nil},
		"not a document": {"text/plain", "name: x", 400, []string{"body"}},
		"json key twice": {"application/json", "{\"apiVersion\":\"mockmcp/v1\",\"kind\":\"MCPServer\",\"name\":\"x\",\n\"tools\":[{\"name\":\"t\",\"description\":\"a\",\"description\":\"b\"}]}",
			422, []string{"tools[0].description"}},
		"yaml alias cycle": {"application/yaml", "apiVersion: mockmcp/v1\nkind: MCPServer\nname: x\ntools: &t [ *t ]\n", 422, []string{"tools[0]"}},
	} {
		t.Run(name, func(t *testing.T) {
			r := applyDoc(t, c, tc.contentType, []byte(tc.doc), "").Problem(tc.code, tc.fields...)
			if name == "yaml syntax" {
				require.Regexp(t, `line \d+: `, string(r.Raw))
			}
			if name == "json key twice" {
				require.Contains(t, string(r.Raw), "line 2: the key appears twice")
			}
			if name == "yaml alias cycle" {
				require.Contains(t, string(r.Raw), "anchor 't' contains itself")
			}
			if name == "bad scenario operator" {
				require.Contains(t, r.FieldErrors()[0], "tools[0].mock_scenarios[0].condition")
			}
		})
	}
	require.Empty(t, serverNames(t, c))
}

// TestDesignDocumentIsolation: another organization can neither export a
// server nor reach it by applying a document with its id.
func TestDesignDocumentIsolation(t *testing.T) {
	t.Parallel()
	_, a, b := apitest.Rivals(t, "Design Owner", "Design Intruder")
	id := uuid.NewString()
	doc := map[string]any{"apiVersion": "mockmcp/v1", "kind": "MCPServer", "id": id, "name": "Owned"}
	applyDoc(t, a, "application/json", apitest.JSON(t, doc), "").Status(http.StatusCreated)
	before := exportDoc(t, a, id, "json")

	b.Do(http.MethodGet, "/api/servers/"+id+"/export", nil).Problem(http.StatusNotFound)
	doc["name"] = "Taken over"
	applyDoc(t, b, "application/json", apitest.JSON(t, doc), "").Problem(http.StatusConflict, "id")
	applyDoc(t, b, "application/json", apitest.JSON(t, doc), "?dry_run=true").Problem(http.StatusConflict, "id")
	require.Equal(t, string(before), string(exportDoc(t, a, id, "json")))
	require.Empty(t, serverNames(t, b))

	// By name, each organization has its own server.
	delete(doc, "id")
	doc["name"] = "Owned"
	r := applyDoc(t, b, "application/json", apitest.JSON(t, doc), "").Status(http.StatusCreated)
	require.NotEqual(t, id, r.String("server.id"))
	require.Equal(t, string(before), string(exportDoc(t, a, id, "json")))
}
