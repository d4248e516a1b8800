package compliance_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/compliance"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/mockspec"
)

// policyDesign is a small stored design: a tool with a scenario whose
// condition names an undeclared field, a resource and a prompt.
func policyDesign() design.Design {
	mime := "text/markdown"
	at := time.Date(2030, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))
	return design.Design{
		Server: design.Server{ID: uuid.MustParse("6f1c9a52-9d0e-4a43-9d54-1f1b8d2b9a01"), Name: "weather", Version: "2.1.0",
			Description: "Weather data", ProtocolVersion: "2024-11-05", UpdatedAt: at},
		Tools: []design.Tool{{Name: "get_forecast", Description: "Short description.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
			Scenarios: []mockspec.Scenario{{Name: "typo", Condition: json.RawMessage(`{"town":"x"}`),
				Response: json.RawMessage(`{"t":0}`)}}}},
		Resources: []design.Resource{{URI: "docs://guide", Name: "guide", Description: "The guide", MimeType: &mime}},
		Prompts: []design.Prompt{{Name: "summarize", Description: "Summarize a text",
			Arguments: []design.PromptArgument{{Name: "text", Description: "what to summarize", Required: true}}}},
	}
}

// canonicalHash is apitest.CanonicalHash of v as JSON.
func canonicalHash(t *testing.T, v any, drop string) string {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return apitest.CanonicalHash(t, raw, drop)
}

func TestSpecOf(t *testing.T) {
	d := policyDesign()
	spec, err := compliance.SpecOf(d)
	require.NoError(t, err)
	raw, err := json.Marshal(spec)
	require.NoError(t, err)
	require.JSONEq(t, `{
		"server":{"id":"6f1c9a52-9d0e-4a43-9d54-1f1b8d2b9a01","name":"weather","version":"2.1.0","description":"Weather data",
			"protocol_version":"2024-11-05","enabled":false},
		"tools":[{"name":"get_forecast","description":"Short description.",
			"inputSchema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],
		"resources":[{"uri":"docs://guide","name":"guide","description":"The guide","mimeType":"text/markdown"}],
		"prompts":[{"name":"summarize","description":"Summarize a text",
			"arguments":[{"name":"text","description":"what to summarize","required":true}]}],
		"spec_sha256":"`+spec.SHA256+`"}`, string(raw), "no scenarios, no outputSchema when the tool has none")
	require.Equal(t, canonicalHash(t, spec, "spec_sha256"), spec.SHA256)
	// Policy engines pin this hash: the same design must keep it.
	require.Equal(t, "6c9fbf69bd0893736d0312fb52d0e7ab06ce21c4db4f2522c2e9e2d310550311", spec.SHA256)

	again, err := compliance.SpecOf(policyDesign())
	require.NoError(t, err)
	require.Equal(t, spec.SHA256, again.SHA256, "same design, same hash")

	d.Server.Enabled = true
	d.Tools[0].OutputSchema = json.RawMessage(`{"type":"object"}`)
	changed, err := compliance.SpecOf(d)
	require.NoError(t, err)
	require.NotEqual(t, spec.SHA256, changed.SHA256)
	require.Equal(t, canonicalHash(t, changed, "spec_sha256"), changed.SHA256)
	require.JSONEq(t, `{"type":"object"}`, string(changed.Tools[0].OutputSchema))
}

func TestValidate(t *testing.T) {
	stored := compliance.Validate(compliance.Stored(policyDesign()), compliance.SourceStored)
	require.False(t, stored.Valid)
	require.Equal(t, compliance.SourceStored, stored.Source)
	require.NotEmpty(t, stored.Findings)

	empty := compliance.Validate(compliance.Definition{}, compliance.SourceCandidate)
	require.True(t, empty.Valid)
	require.Equal(t, compliance.SourceCandidate, empty.Source)
	raw, err := json.Marshal(empty)
	require.NoError(t, err)
	require.JSONEq(t, `{"valid":true,"source":"candidate","findings":[]}`, string(raw), "findings is a list, never null")
}

func TestStored(t *testing.T) {
	d := policyDesign()
	d.Resources = append(d.Resources, design.Resource{URI: "docs://plain", Name: "plain"})
	got := compliance.Stored(d)
	require.Equal(t, []compliance.Resource{
		{URI: "docs://guide", Name: "guide", Description: "The guide", MimeType: "text/markdown"},
		{URI: "docs://plain", Name: "plain"},
	}, got.Resources)
	require.Equal(t, []compliance.Prompt{{Name: "summarize", Description: "Summarize a text",
		Arguments: []compliance.PromptArgument{{Name: "text", Description: "what to summarize", Required: true}}}}, got.Prompts)
	require.Len(t, got.Tools, 1)
	require.Equal(t, []compliance.Scenario{{Name: "typo", Condition: json.RawMessage(`{"town":"x"}`),
		Response: json.RawMessage(`{"t":0}`)}}, got.Tools[0].Scenarios)
}

func TestEvidenceOf(t *testing.T) {
	d := policyDesign()
	now := time.Date(2030, 2, 1, 12, 0, 0, 0, time.FixedZone("y", -7200))
	first := time.Date(2030, 1, 31, 9, 0, 0, 0, time.UTC)
	latest := first.Add(time.Hour)
	ev, err := compliance.EvidenceOf(d, []compliance.RouteCalls{
		{Route: compliance.RouteSpec, Calls: 2, LastAt: first},
		{Route: compliance.RouteValidate, Calls: 1, LastAt: latest},
		{Route: "other", Calls: 4, LastAt: first},
	}, now)
	require.NoError(t, err)
	spec, err := compliance.SpecOf(d)
	require.NoError(t, err)
	require.Equal(t, spec.SHA256, ev.SpecSHA256)
	require.Equal(t, d.Server.ID, ev.ServerID)
	require.Equal(t, now.UTC(), ev.GeneratedAt)
	require.Equal(t, time.UTC, ev.UpdatedAt.Location())
	require.Equal(t, compliance.Calls{Count: 7, ByRoute: compliance.ByRoute{Spec: 2, Validate: 1}, LastAt: &latest}, ev.PolicyCalls)
	require.Equal(t, compliance.Validate(compliance.Stored(d), compliance.SourceStored), ev.Validation)
	require.Equal(t, canonicalHash(t, ev, "evidence_sha256"), ev.SHA256)

	none, err := compliance.EvidenceOf(d, nil, now)
	require.NoError(t, err)
	raw, err := json.Marshal(none.PolicyCalls)
	require.NoError(t, err)
	require.JSONEq(t, `{"count":0,"by_route":{"spec":0,"validate":0,"evidence":0},"last_at":null}`, string(raw))
	require.NotEqual(t, ev.SHA256, none.SHA256)
}

// TestStoredToolView: a stored tool's MCP Apps view is read from its meta
// (ui.resourceUri, else the flat ui/resourceUri key), so a view the design
// lacks is a tool-view-exists finding.
func TestStoredToolView(t *testing.T) {
	d := design.Design{
		Tools: []design.Tool{
			{Name: "shown", Meta: json.RawMessage(`{"ui":{"resourceUri":"ui://a/view.html"}}`)},
			{Name: "flat", Meta: json.RawMessage(`{"ui/resourceUri":"ui://b/view.html"}`)},
			{Name: "plain"},
		},
		Resources: []design.Resource{{URI: "ui://a/view.html", Name: "view"}},
	}
	def := compliance.Stored(d)
	require.Equal(t, []string{"ui://a/view.html", "ui://b/view.html", ""},
		[]string{def.Tools[0].View, def.Tools[1].View, def.Tools[2].View})
	var views []compliance.Finding
	for _, f := range compliance.Check(def).Findings {
		if f.Rule == "tool-view-exists" {
			views = append(views, f)
		}
	}
	require.Len(t, views, 1)
	require.Equal(t, "tools[1]._meta.ui.resourceUri", views[0].Path)
}
