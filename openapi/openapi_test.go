package openapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/openapi"
)

func TestYAMLIsTheRepositoryFile(t *testing.T) {
	onDisk, err := os.ReadFile("openapi.yaml")
	require.NoError(t, err)
	require.Equal(t, onDisk, openapi.YAML())
}

func TestJSONIsTheDocumentInItsOrder(t *testing.T) {
	var fromJSON, fromYAML any
	require.NoError(t, json.Unmarshal(openapi.JSON(), &fromJSON))
	require.NoError(t, yaml.Unmarshal(openapi.YAML(), &fromYAML))
	// yaml.v3 decodes mappings as map[string]any and numbers as int or
	// float64; one round through encoding/json makes them comparable.
	b, err := json.Marshal(fromYAML)
	require.NoError(t, err)
	var want any
	require.NoError(t, json.Unmarshal(b, &want))
	require.Equal(t, want, fromJSON)

	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal(openapi.YAML(), &doc))
	require.Equal(t, yamlKeys(t, &doc, "paths"), jsonKeys(t, openapi.JSON(), "paths"), "paths in the document's order")
	require.Equal(t, yamlKeys(t, &doc, ""), jsonKeys(t, openapi.JSON(), ""), "top-level keys in the document's order")
}

// yamlKeys lists the keys of the top-level mapping's member under (or of the
// top-level mapping itself), in order.
func yamlKeys(t *testing.T, doc *yaml.Node, under string) []string {
	t.Helper()
	m := doc.Content[0]
	if under != "" {
		for i := 0; i < len(m.Content); i += 2 {
			if m.Content[i].Value == under {
				m = m.Content[i+1]
			}
		}
	}
	var keys []string
	for i := 0; i < len(m.Content); i += 2 {
		keys = append(keys, m.Content[i].Value)
	}
	require.NotEmpty(t, keys)
	return keys
}

// jsonKeys lists the keys of the top-level object's member under (or of the
// object itself), in order.
func jsonKeys(t *testing.T, src []byte, under string) []string {
	t.Helper()
	if under != "" {
		var top map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(src, &top))
		src = top[under]
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	_, err := dec.Token() // {
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

func TestToJSON(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, json string
	}{
		{"order kept", "b: 1\na: [x, 2.5, true, null]\n", `{"b":1,"a":["x",2.5,true,null]}`},
		{"keys are strings", "200: ok\ntrue: 1\n", `{"200":"ok","true":1}`},
		{"quoted scalars stay strings", "v: \"2.0\"\nw: '1'\n", `{"v":"2.0","w":"1"}`},
		{"aliases expanded", "a: &x {k: v}\nb: *x\n", `{"a":{"k":"v"},"b":{"k":"v"}}`},
		{"block text", "d: |\n  line one\n  line two\n", `{"d":"line one\nline two\n"}`},
		{"empty document", "", `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := openapi.ToJSON([]byte(tc.yaml))
			require.NoError(t, err)
			require.Equal(t, tc.json, string(got))
		})
	}
	for _, bad := range []string{"? [a, b]\n: c\n", "a: [\n", "x: .inf\n"} {
		_, err := openapi.ToJSON([]byte(bad))
		require.Error(t, err, "%q", bad)
	}
}

// The MCP endpoints' paths and their operations.
var mcpEndpoints = map[string][]string{
	"/api/platform/{server_id}/mcp": {"POST", "OPTIONS", "GET", "DELETE"},
	"/api/platform-mcp/mcp":         {"POST", "OPTIONS", "GET", "DELETE"},
}

func TestDocumentDescribesTheMCPEndpoints(t *testing.T) {
	ctx := context.Background()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.JSON())
	require.NoError(t, err)
	for path, methods := range mcpEndpoints {
		item := doc.Paths.Find(path)
		require.NotNil(t, item, path)
		for _, m := range methods {
			op := item.GetOperation(m)
			require.NotNil(t, op, "%s %s", m, path)
			require.NoError(t, op.Validate(ctx), "%s %s", m, path)
			require.Equal(t, []string{"mcp"}, op.Tags, "%s %s", m, path)
			require.NotContains(t, op.Extensions, "x-mcp-tool", "%s %s is not a platform tool", m, path)
		}
		post := item.Post
		require.Contains(t, post.RequestBody.Value.Content, "application/json")
		answer := post.Responses.Value("200").Value.Content
		require.Contains(t, answer, "application/json")
		require.Contains(t, answer, "text/event-stream")
		require.NotNil(t, post.Responses.Value("202"), path)
		for _, status := range []string{"400", "401", "403", "413", "429", "503"} {
			require.NotNil(t, post.Responses.Value(status), "%s answers %s", path, status)
		}
		require.NotNil(t, item.Get.Responses.Value("405"))
		require.NotNil(t, item.Delete.Responses.Value("405"))
	}
	for name, schema := range doc.Components.Schemas {
		if strings.HasPrefix(name, "JSONRPC") {
			require.NoError(t, schema.Validate(ctx), name)
		}
	}
	server := doc.Paths.Find("/api/platform/{server_id}/mcp").Post
	for _, status := range []string{"404", "406"} {
		require.NotNil(t, server.Responses.Value(status), "the per-server endpoint answers %s", status)
	}
	var headers []string
	for _, p := range server.Parameters {
		if p.Value.In == openapi3.ParameterInHeader {
			headers = append(headers, p.Value.Name)
		}
	}
	require.ElementsMatch(t, []string{"MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"}, headers)

	for _, path := range []string{"/api/openapi.json", "/api/openapi.yaml"} {
		op := doc.Paths.Find(path).Get
		require.NotNil(t, op, path)
		require.NotNil(t, op.Security, "%s: security is stated", path)
		require.Empty(t, *op.Security, "%s needs no authentication", path)
	}
}

// TestOnlyTheMCPOperationsAreLeftToHandlers checks that oapi-codegen leaves
// out exactly the operations tagged mcp or oauth and the exchange's /a2a
// paths: they are answered by the
// MCP endpoints', the authorization servers' and the mock A2A agents' own handlers, and every other operation by the generated
// server, whose embedded copy of the document lacks them.
func TestOnlyTheMCPOperationsAreLeftToHandlers(t *testing.T) {
	raw, err := os.ReadFile("oapi-codegen.yaml")
	require.NoError(t, err)
	var cfg struct {
		OutputOptions struct {
			ExcludeOperationIDs []string `yaml:"exclude-operation-ids"`
		} `yaml:"output-options"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &cfg))

	doc, err := openapi3.NewLoader().LoadFromData(openapi.YAML())
	require.NoError(t, err)
	var tagged, others []string
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			switch {
			case slices.Contains(op.Tags, "mcp"):
				tagged = append(tagged, op.OperationID)
				require.Contains(t, mcpEndpoints, path, "%s %s is tagged mcp", method, path)
			case slices.Contains(op.Tags, "oauth"):
				tagged = append(tagged, op.OperationID)
				require.True(t, strings.Contains(path, "/api/platform/{server_id}/oauth") || strings.HasPrefix(path, "/.well-known/"),
					"%s %s is tagged oauth", method, path)
			case strings.HasSuffix(path, "/a2a"): // an exchange operation, answered by the mock agents' handler
				tagged = append(tagged, op.OperationID)
				require.Contains(t, op.Tags, "exchange", "%s %s is the exchange's", method, path)
			default:
				others = append(others, op.OperationID)
			}
		}
	}
	require.Len(t, tagged, 8+9+2+1)
	require.ElementsMatch(t, tagged, cfg.OutputOptions.ExcludeOperationIDs)

	embedded, err := api.GetSpec()
	require.NoError(t, err)
	var generated []string
	for _, item := range embedded.Paths.Map() {
		for _, op := range item.Operations() {
			// oapi-codegen's copy spells operation ids as Go names.
			generated = append(generated, strings.ToLower(op.OperationID[:1])+op.OperationID[1:])
		}
	}
	require.ElementsMatch(t, others, generated)
	require.False(t, strings.Contains(string(openapi.JSON()), `"x-mcp-tool":"call`), "no MCP endpoint is a platform tool")
}
