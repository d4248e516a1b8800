package designdoc_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/designdoc"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// TestSchemaFileIsCurrent: the committed schema is what the OpenAPI
// document gives (make generate writes it).
func TestSchemaFileIsCurrent(t *testing.T) {
	file, err := os.ReadFile("../../gen/schema/design.json")
	require.NoError(t, err)
	require.Equal(t, string(designdoc.Schema()), string(file), "run make generate")
	var s map[string]any
	require.NoError(t, json.Unmarshal(file, &s))
	require.Equal(t, "https://json-schema.org/draft/2020-12/schema", s["$schema"])
	require.NotContains(t, string(file), "$ref")
	require.NotContains(t, string(file), "nullable")
	require.NotContains(t, string(file), "x-go-type")
	_, err = schema.Compile(file)
	require.NoError(t, err)
}

// TestDocumentHasTheServerCreateFields: a document's server fields are
// CreateServerRequest's, schema for schema, so the two cannot drift; all
// but the upstream, whose header values a file must not carry.
func TestDocumentHasTheServerCreateFields(t *testing.T) {
	spec, err := api.GetSpec()
	require.NoError(t, err)
	doc := spec.Components.Schemas["DesignDocument"].Value
	create := spec.Components.Schemas["CreateServerRequest"].Value
	_, hasUpstream := doc.Properties["upstream"]
	require.False(t, hasUpstream, "a design document carries no upstream")
	for name, want := range create.Properties {
		if name == "upstream" {
			continue
		}
		got, ok := doc.Properties[name]
		require.True(t, ok, "DesignDocument lacks %s", name)
		wj, _ := json.Marshal(want)
		gj, _ := json.Marshal(got)
		require.JSONEq(t, string(wj), string(gj), name)
	}
	for name, part := range map[string]string{"tools": "CreateToolRequest", "resources": "CreateResourceRequest", "prompts": "CreatePromptRequest"} {
		require.Equal(t, "#/components/schemas/"+part, doc.Properties[name].Value.Items.Ref, name)
	}
	extra := []string{}
	for name := range doc.Properties {
		if _, ok := create.Properties[name]; !ok {
			extra = append(extra, name)
		}
	}
	require.ElementsMatch(t, []string{"apiVersion", "kind", "id", "enabled", "tools", "resources", "prompts"}, extra)
}

func compiled(t *testing.T) *schema.Schema {
	t.Helper()
	s, err := schema.Compile(designdoc.Schema())
	require.NoError(t, err)
	return s
}

// TestExamples: every example document is valid against the schema,
// parses, and exports to a valid document that parses to the same design.
func TestExamples(t *testing.T) {
	files, err := filepath.Glob("../../openapi/examples/designs/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	s := compiled(t)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			require.NoError(t, err)
			apitest.RequireValidDocument(t, s, raw)
			doc, err := designdoc.Parse(raw)
			require.NoError(t, err)
			require.NotEmpty(t, doc.Design.Tools)
			require.NotEmpty(t, doc.Design.Resources)
			require.NotEmpty(t, doc.Design.Prompts)

			js, err := designdoc.Export(doc.Design)
			require.NoError(t, err)
			apitest.RequireValidDocument(t, s, js)
			y, err := designdoc.ToYAML(js)
			require.NoError(t, err)
			apitest.RequireValidDocument(t, s, y)

			// YAML and JSON exports are the same document.
			fromYAML, err := designdoc.ToJSON(y)
			require.NoError(t, err)
			require.JSONEq(t, string(js), string(fromYAML))
			again, err := designdoc.Parse(y)
			require.NoError(t, err)
			js2, err := designdoc.Export(again.Design)
			require.NoError(t, err)
			require.Equal(t, string(js), string(js2))
		})
	}
}

func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	fe, ok := failure.As(err)
	require.True(t, ok, "%v", err)
	var out []string
	for _, f := range fe.Fields {
		out = append(out, f.Field)
	}
	return out
}

const head = "apiVersion: mockmcp/v1\nkind: MCPServer\nname: x\n"

func TestParseRefuses(t *testing.T) {
	for name, tc := range map[string]struct {
		doc    string
		kind   failure.Kind
		fields []string
		msg    string
	}{
		"unknown field":     {head + "colour: red\n", failure.KindInvalid, []string{"colour"}, ""},
		"input schema":      {head + "tools:\n  - name: t\n    input_schema: {type: 5}\n", failure.KindInvalid, []string{"tools[0].input_schema"}, ""},
		"input schema type": {head + "tools:\n  - name: t\n    input_schema: 5\n", failure.KindInvalid, []string{"tools[0].input_schema"}, ""},
		"bad tool name":     {head + "tools:\n  - name: 'a b'\n", failure.KindInvalid, []string{"tools[0].name"}, ""},
		"both contents":     {head + "resources:\n  - {name: r, uri: 'a://b', content: x, blob: eA==}\n", failure.KindInvalid, []string{"resources[0].blob"}, ""},
		"duplicate key":     {head + "description: a\ndescription: b\n", failure.KindInvalid, []string{"description"}, "line 5"},
		"syntax":            {head + "tools: [\n", failure.KindBadRequest, []string{"body"}, "line "},
		"two documents":     {head + "---\n" + head, failure.KindBadRequest, []string{"body"}, "line 4"},
		"json syntax":       {`{"name": "x",}`, failure.KindBadRequest, []string{"body"}, "line 1, column"},
		"json duplicate key": {"{\"apiVersion\": \"mockmcp/v1\", \"kind\": \"MCPServer\", \"name\": \"x\",\n \"tools\": [{\"name\": \"a\",\n \"name\": \"b\"}]}",
			failure.KindInvalid, []string{"tools[0].name"}, "line 3: the key appears twice"},
		"alias cycle": {head + "tools: &t [ *t ]\n", failure.KindInvalid, []string{"tools[0]"}, "anchor 't' contains itself"},
		"alias expansion": {head + "description: &d " + strings.Repeat("x", 100_000) + "\ntools: [" + strings.Repeat("*d, ", 2_000) + "*d]\n",
			failure.KindInvalid, []string{"tools[9]"}, "more than 1048576 bytes of JSON"},
		"not an object": {"- a\n- b\n", failure.KindInvalid, []string{"body"}, ""},
		"empty":         {"  \n", failure.KindBadRequest, []string{"body"}, ""},
		"version":       {"apiVersion: mockmcp/v2\nkind: MCPServer\nname: x\n", failure.KindInvalid, []string{"apiVersion"}, ""},
		"blank name":    {"apiVersion: mockmcp/v1\nkind: MCPServer\nname: '  '\n", failure.KindInvalid, []string{"name"}, ""},
		"provider url":  {head + "provider_url: ftp://x\n", failure.KindInvalid, []string{"provider_url"}, ""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := designdoc.Parse([]byte(tc.doc))
			require.Error(t, err)
			fe, ok := failure.As(err)
			require.True(t, ok, "%v", err)
			require.Equal(t, tc.kind, fe.Kind, "%v", err)
			require.Equal(t, tc.fields, fieldsOf(t, err), "%v", err)
			if tc.msg != "" {
				require.Contains(t, fe.Fields[0].Message, tc.msg)
			}
		})
	}
}

// TestYAMLValues: YAML's values become the JSON a JSON document would
// have given, numbers keeping their text and dates staying strings.
func TestYAMLValues(t *testing.T) {
	js, err := designdoc.ToJSON([]byte("a: 12345678901234567890123\nb: 1.50\nc: 2024-11-05\nd: 0x1F\ne: ~\nf: yes\ng: true\nh: '007'\ni: &x {k: 1}\nj: *x\n"))
	require.NoError(t, err)
	require.Equal(t, `{"a":12345678901234567890123,"b":1.50,"c":"2024-11-05","d":31,"e":null,"f":"yes","g":true,"h":"007","i":{"k":1},"j":{"k":1}}`, string(js))
	_, err = designdoc.ToJSON([]byte("a: .inf\n"))
	require.Error(t, err)
	_, err = designdoc.ToJSON([]byte("? [a]\n: 1\n"))
	require.Error(t, err)
}

// TestToYAML: block style, literal blocks for multi-line strings, strings
// that would read as other values quoted.
func TestToYAML(t *testing.T) {
	y, err := designdoc.ToYAML([]byte(`{"b":"two\nlines","a":["2024-11-05","true","1"],"n":1.0,"e":{}}`))
	require.NoError(t, err)
	require.Equal(t, "b: |-\n  two\n  lines\na:\n  - \"2024-11-05\"\n  - \"true\"\n  - \"1\"\nn: 1.0\ne: {}\n", string(y))
	back, err := designdoc.ToJSON(y)
	require.NoError(t, err)
	require.JSONEq(t, `{"b":"two\nlines","a":["2024-11-05","true","1"],"n":1.0,"e":{}}`, string(back))
	require.True(t, strings.HasPrefix(string(back), `{"b":`), "key order is kept: %s", back)
}

// TestParseAppMeta: a document's tools and resources keep their meta
// through export, and meta the MCP Apps schemas refuse is named by its
// place in the document.
func TestParseAppMeta(t *testing.T) {
	doc, err := designdoc.Parse([]byte(head + `tools:
  - name: show
    meta: {ui: {resourceUri: "ui://v/view.html", visibility: [app]}, other: 1}
resources:
  - {name: view, uri: "ui://v/view.html", content: "<p>hi</p>", meta: {ui: {prefersBorder: false}}}
`))
	require.NoError(t, err)
	require.JSONEq(t, `{"ui":{"resourceUri":"ui://v/view.html","visibility":["app"]},"other":1}`, string(doc.Design.Tools[0].Meta))
	js, err := designdoc.Export(doc.Design)
	require.NoError(t, err)
	require.Contains(t, string(js), `"meta": {`)
	again, err := designdoc.Parse(js)
	require.NoError(t, err)
	require.JSONEq(t, string(doc.Design.Resources[0].Meta), string(again.Design.Resources[0].Meta))

	_, err = designdoc.Parse([]byte(head + `tools:
  - {name: show, meta: {ui: {resourceUri: "https://v", visibility: [user]}}}
resources:
  - {name: view, uri: "ui://v/view.html", mime_type: text/html, content: "<p>hi</p>", meta: {ui: {csp: {connectDomains: [1]}}}}
`))
	require.ElementsMatch(t, []string{"tools[0].meta.ui.resourceUri", "tools[0].meta.ui.visibility[0]",
		"resources[0].mime_type", "resources[0].meta.ui.csp.connectDomains[0]"}, fieldsOf(t, err))
}
