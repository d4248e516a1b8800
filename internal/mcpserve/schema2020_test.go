package mcpserve_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// schema2020 is the input schema of the conformance suite's
// json_schema_2020_12_tool, with members in an order no encoder would pick.
const schema2020 = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},"additionalProperties":false}`

// TestInputSchemaVerbatim: a JSON Schema 2020-12 input schema is saved and
// listed as written, to modern and legacy clients alike: no keyword dropped
// ($anchor, $defs, allOf, if/then/else), none reordered.
func TestInputSchemaVerbatim(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Verbatim")
	// Sent with white space, which is not part of the schema.
	var indented bytes.Buffer
	require.NoError(t, json.Indent(&indented, []byte(schema2020), "", "  "))
	tool := `{"name":"json_schema_2020_12_tool","description":"Tool with JSON Schema 2020-12 features","input_schema":` + indented.String() + `}`
	id := createDesign(t, owner, serverDesign{Server: raw(t, map[string]any{"name": "Verbatim"}),
		Tools: []json.RawMessage{json.RawMessage(tool)}, Enabled: true})
	endpoint := env.URL + "/api/platform/" + id + "/mcp"

	for _, tc := range []struct {
		name   string
		header http.Header
		meta   string
	}{
		{"modern", http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/list"}},
			`,"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`},
		{"legacy", http.Header{"Mcp-Protocol-Version": {"2025-11-25"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := apitest.PostJSONRPCWith(t, endpoint, tc.header,
				strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"`+tc.meta+`}`))
			require.Equal(t, http.StatusOK, status, "%s", body)
			var got struct {
				Result struct {
					Tools []struct {
						InputSchema json.RawMessage `json:"inputSchema"`
					} `json:"tools"`
				} `json:"result"`
			}
			require.NoError(t, json.Unmarshal(body, &got), "%s", body)
			require.Len(t, got.Result.Tools, 1, "%s", body)
			require.Equal(t, schema2020, string(got.Result.Tools[0].InputSchema))
		})
	}
}
