package conformance_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// sdk2Report is what testdata/sdkclient2.mjs reports the v2 client received.
type sdk2Report struct {
	Fatal           json.RawMessage `json:"fatal"` // an sdk2Error
	Server          map[string]any  `json:"server"`
	ProtocolVersion string          `json:"protocolVersion"`
	Era             string          `json:"era"`
	Tools           []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
	Steps map[string]sdkOutcome `json:"steps"`
}

// TestSDKV2Client serves testdata/design-2026.json to the TypeScript SDK v2
// client (@modelcontextprotocol/client), pinned to revision 2026-07-28 and in
// its default legacy mode: it lists every tool, a 2020-12 input schema
// intact, and calls tools, one of them with an argument it mirrors in a
// Mcp-Param-* header.
func TestSDKV2Client(t *testing.T) {
	node, cli := toolchain(t)
	packages := packagesDir(t, cli)
	if _, err := os.Stat(filepath.Join(packages, "node_modules", "@modelcontextprotocol", "client")); err != nil {
		t.Skipf("@modelcontextprotocol/client is not installed in %s: run `make conformance`", packages)
	}
	owner := serve(t)
	file := filepath.Join("testdata", "design-2026.json")
	endpoint := createDesign(t, owner, file)
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	var d struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(raw, &d))

	call := func(id, tool string, args map[string]any) sdkStep {
		return sdkStep{ID: id, Method: "tools/call", Params: map[string]any{"name": tool, "arguments": args}}
	}
	steps := []sdkStep{
		call("text", "test_simple_text", map[string]any{}),
		call("header", "test_custom_header", map[string]any{"region": "eu-west-1"}),
		call("non-ASCII header", "test_custom_header", map[string]any{"region": "Zürich"}),
		call("tool error", "test_error_handling", map[string]any{}),
	}
	for _, tc := range []struct{ era, version string }{{"modern", "2026-07-28"}, {"legacy", "2025-11-25"}} {
		t.Run(tc.era, func(t *testing.T) {
			var report sdk2Report
			runScript(t, node, "sdkclient2.mjs", steps, &report, packages, endpoint, tc.era)
			require.Empty(t, string(report.Fatal), "the client failed")
			require.Equal(t, tc.version, report.ProtocolVersion)
			require.Equal(t, map[string]any{"name": "MCP conformance 2026-07-28", "version": "1.0.0"}, report.Server)

			require.Len(t, report.Tools, len(d.Tools), "the client kept every tool")
			for i, tool := range d.Tools {
				require.Equal(t, tool.Name, report.Tools[i].Name, "tool %d", i)
				if len(tool.InputSchema) > 0 {
					require.JSONEq(t, string(tool.InputSchema), string(report.Tools[i].InputSchema), tool.Name)
				}
			}
			// A modern result names the server in its _meta.
			var meta string
			if tc.era == "modern" {
				meta = `"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"MCP conformance 2026-07-28","version":"1.0.0"}},`
			}
			requireResult(t, step2(t, report, "text"),
				`{`+meta+`"content":[{"type":"text","text":"This is a simple text response for testing."}]}`)
			requireResult(t, step2(t, report, "header"), `{`+meta+`"content":[{"type":"text","text":"region accepted"}]}`)
			requireResult(t, step2(t, report, "non-ASCII header"), `{`+meta+`"content":[{"type":"text","text":"region accepted"}]}`)
			requireResult(t, step2(t, report, "tool error"),
				`{`+meta+`"isError":true,"content":[{"type":"text","text":"This tool intentionally returns an error for testing"}]}`)
		})
	}
}

// step2 is the outcome of the step with id, which must have run.
func step2(t *testing.T, r sdk2Report, id string) sdkOutcome {
	t.Helper()
	got, ok := r.Steps[id]
	require.True(t, ok, "no step %q in the report", id)
	return got
}
