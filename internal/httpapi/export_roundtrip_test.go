package httpapi_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// roundTripDesign is a design made through the REST API: its server body
// and its parts' bodies.
type roundTripDesign struct {
	server                   string
	tools, resources, prompt []string
}

const (
	askName = `{"who":{"elicitation":{"message":"Who?","requested_schema":{"type":"object","properties":{"name":{"type":"string"}}}}}}`
	// secretUpstream is an upstream whose URL and header carry secrets;
	// an export never carries it.
	secretUpstream = `{"url":"https://upstream.example/mcp?key=s3cr3t-query","mode":"fallback","headers":{"Authorization":"Bearer s3cr3t-header"}}`
)

// roundTripDesigns vary every field a server create body has, and the
// forms of tools, resources and prompts.
var roundTripDesigns = map[string]roundTripDesign{
	"minimal": {server: `{"name":"Minimal"}`},
	"every server field": {
		server: `{"name":"Everything","description":"All the fields.","version":"2.0.1","provider_name":"Acme",
			"provider_url":"https://acme.example","type":"mock","protocol_version":"2025-06-18","eras":"legacy_only",
			"cache_ttl_ms":1000,"cache_scope":"public","auth_mode":"oauth",
			"oauth":{"scopes_supported":["files:read","files:write"],"required_scopes":["files:read"],
				"token_lifetime_seconds":600,"consent":"page","chaos":{"wrong_issuer":true,"refuse_refresh":true}},
			"fault":{"rate":0.25,"delay_ms":10,"error":{"code":-32000,"message":"injected"}},
			"state":{"items":[{"id":"1","price":18.50}],"mode":"open","count":0},
			"skills":[{"name":"pdf-processing","description":"Extract: fill, and assemble PDFs","license":"MIT",
				"metadata":{"author":"acme","io.example/x":"1"},"body":"# PDF\n",
				"files":[{"path":"references/FORMS.md","text":"# Forms\n"},{"path":"logo.png","base64":"iVBORw==","mime_type":"image/png"}]},
				{"name":"review","description":"Review code","body":""}],
			"upstream":` + secretUpstream + `}`,
		tools: []string{
			`{"name":"get_forecast","description":"Forecast.","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},
				"output_schema":{"type":"object","properties":{"temp":{"type":"number"}}},
				"required_client_capabilities":["elicitation"],"required_scopes":["files:write"],
				"mock_scenarios":[
					{"name":"paris","condition":{"city":"Paris"},"response":{"temp":18.50},"delay_ms":5},
					{"name":"regex","condition":{"field":"city","operator":"matches","value":"^L"},"response":{"temp":1e2}},
					{"name":"stateful","condition":{"city":"Rome"},"when_state":{"field":"mode","operator":"equals","value":"open"},
						"set_state":{"mode":"closed","count":null},"response":{"temp":25}},
					{"name":"fallback","condition":{},"response":{"temp":21}}]}`,
			`{"name":"flaky","input_schema":{"type":"object"},"fault":{"rate":0.5,"delay_ms":2,"error":{"code":-32050,"message":"tool fault"}},"mock_scenarios":[
				{"name":"steps","sequence":{"steps":[{"response":{"n":1}},{"error":{"code":-32001,"message":"busy"},"delay_ms":3},
					{"result":{"content":[{"type":"text","text":"third"}]}}],"then":"cycle"}},
				{"name":"failing","error":{"code":-32002,"message":"down","data":{"retry":true}},"fault":{"rate":0},
					"notifications":[{"type":"progress","progress":1,"total":2},{"type":"log","level":"info","data":"half"}]}]}`,
			`{"name":"ask_name","input_schema":{"type":"object"},"mock_scenarios":[
				{"name":"asks","ask":` + askName + `,"then":[{"when":{"who.action":"accept"},"response":{"hello":"{{who.content.name}}"}},{"response":{"hello":"nobody"}}]}]}`,
		},
		resources: []string{
			`{"name":"Guide","uri":"docs://guide","description":"Read me.","mime_type":"text/markdown","content":"# Guide\nTwo lines."}`,
			`{"name":"City","uri":"weather://{city}/now","content":"Weather in {city}","completions":{"city":["Paris","London"]}}`,
			`{"name":"Logo","uri":"img://logo","mime_type":"image/png","blob":"iVBORw0KGgo="}`,
			`{"name":"Sealed","uri":"r://sealed","content":"sealed","ask":` + askName + `,"then":[{"content":"for {{who.content.name}}"}]}`,
		},
		prompt: []string{
			`{"name":"plan_trip","description":"Plans a trip.","arguments":[{"name":"city","description":"Where","required":true},{"name":"days"}],
				"messages":[{"role":"user","text":"Plan {{days}} days in {{city}}."},{"role":"assistant","text":"Sure."}]}`,
			`{"name":"with_context","ask":` + askName + `,"then":[{"messages":[{"role":"user","text":"For {{who.content.name}}"}]}]}`,
		},
	},
	"api key, modern only": {
		server: `{"name":"Keyed","auth_mode":"api_key","eras":"modern_only","protocol_version":"2025-11-25","fault":{"rate":1,"delay_ms":1}}`,
		tools:  []string{`{"name":"t","mock_scenarios":[{"name":"s","result":{"content":[{"type":"text","text":"x"}],"isError":true}}]}`},
	},
}

// TestExportRoundTrips: every example design, and designs made through the
// REST API with every field set, exported (JSON and YAML) and applied again
// are unchanged; applied in another organization they export the same
// document. No export carries the upstream.
func TestExportRoundTrips(t *testing.T) {
	t.Parallel()
	env, a, b := apitest.Rivals(t, "Export Source", "Export Copy")
	sch := publishedSchema(t, env)

	ids := map[string]string{}
	examples, err := filepath.Glob("../../openapi/examples/designs/*")
	require.NoError(t, err)
	require.NotEmpty(t, examples)
	for _, path := range examples {
		doc, err := os.ReadFile(path)
		require.NoError(t, err)
		ids[filepath.Base(path)] = applyDoc(t, a, "application/yaml", doc, "").Status(http.StatusCreated).String("server.id")
	}
	for name, d := range roundTripDesigns {
		var tools, resources, prompts []json.RawMessage
		for _, s := range d.tools {
			tools = append(tools, json.RawMessage(s))
		}
		for _, s := range d.resources {
			resources = append(resources, json.RawMessage(s))
		}
		for _, s := range d.prompt {
			prompts = append(prompts, json.RawMessage(s))
		}
		ids[name] = a.CreateServer(json.RawMessage(d.server), tools, resources, prompts)
	}

	for name, id := range ids {
		t.Run(name, func(t *testing.T) {
			for _, format := range []string{"json", "yaml"} {
				doc := exportDoc(t, a, id, format)
				apitest.RequireValidDocument(t, sch, doc)
				require.NotContains(t, string(doc), "upstream", format)
				require.NotContains(t, string(doc), "s3cr3t", format)
				contentType := "application/" + format

				r := applyDoc(t, a, contentType, doc, "").Status(http.StatusOK)
				require.Equal(t, false, r.Get("changed"), "%s: %s\n%s", format, r.Raw, doc)
				require.Equal(t, id, r.String("server.id"))
				again := applyDoc(t, a, contentType, doc, "").Status(http.StatusOK)
				require.Equal(t, false, again.Get("changed"), "%s: %s", format, again.Raw)
				require.Equal(t, string(doc), string(exportDoc(t, a, id, format)), "applying the export kept the design")
			}
			// In another organization: created, then unchanged, and
			// exported as the same document.
			doc := exportDoc(t, a, id, "yaml")
			copyID := applyDoc(t, b, "application/yaml", doc, "").Status(http.StatusCreated).String("server.id")
			require.Equal(t, false, applyDoc(t, b, "application/yaml", doc, "").Status(http.StatusOK).Get("changed"))
			require.Equal(t, string(doc), string(exportDoc(t, b, copyID, "yaml")))
		})
	}

	// Applying a document keeps the stored upstream.
	var everything string
	for _, it := range a.Do(http.MethodGet, "/api/servers", nil).Status(http.StatusOK).Get("items").([]any) {
		if m := it.(map[string]any); m["name"] == "Everything" {
			everything = m["id"].(string)
		}
	}
	srv := a.Do(http.MethodGet, "/api/servers/"+everything, nil).Status(http.StatusOK)
	require.Equal(t, "https://upstream.example/mcp?key=s3cr3t-query", srv.String("upstream.url"))

	// The initial state and the scenarios' state members travel in the
	// document; a design without a state exports none.
	var exported map[string]any
	require.NoError(t, json.Unmarshal(exportDoc(t, a, everything, "json"), &exported))
	require.Equal(t, map[string]any{"items": []any{map[string]any{"id": "1", "price": 18.5}}, "mode": "open", "count": 0.0},
		exported["state"])
	var scenario map[string]any
	for _, tool := range exported["tools"].([]any) {
		for _, sc := range tool.(map[string]any)["mock_scenarios"].([]any) {
			if sc.(map[string]any)["name"] == "stateful" {
				scenario = sc.(map[string]any)
			}
		}
	}
	require.NotNil(t, scenario)
	require.Equal(t, map[string]any{"field": "mode", "operator": "equals", "value": "open"}, scenario["when_state"])
	require.Equal(t, map[string]any{"mode": "closed", "count": nil}, scenario["set_state"])
	require.NotContains(t, string(exportDoc(t, a, ids["minimal"], "json")), `"state"`)
}
