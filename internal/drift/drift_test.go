package drift_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/drift"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

func ptr(s string) *string { return &s }

func forecast() design.Tool {
	return design.Tool{Name: "get_forecast", Description: "The forecast.",
		InputSchema:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"temp":{"type":"number"}}}`)}
}

func guide() design.Resource {
	return design.Resource{Name: "guide", URI: "docs://guide", Description: "Read me.", MimeType: ptr("text/plain"),
		Content: json.RawMessage(`"Design text."`)}
}

func greet() design.Prompt {
	return design.Prompt{Name: "greet", Description: "Greets.",
		Arguments: []design.PromptArgument{{Name: "who", Description: "whom", Required: true}, {Name: "how", Description: "tone"}},
		Messages:  []design.PromptMessage{{Role: "user", Text: "Hello {{who}}!"}}}
}

func weather() design.Design {
	return design.Design{Tools: []design.Tool{forecast()}, Resources: []design.Resource{guide()}, Prompts: []design.Prompt{greet()}}
}

// change is a Change written compactly for the table.
type change struct{ kind, name, field, design, live string }

func TestCompare(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		live func(d *design.Design)
		want []change
	}{
		{name: "the same design", live: func(*design.Design) {}},
		{name: "schemas compare as JSON, not as text", live: func(d *design.Design) {
			d.Tools[0].InputSchema = json.RawMessage(`{ "required": ["city"], "properties": {"city": {"type": "string"}}, "type": "object" }`)
			d.Tools[0].OutputSchema = json.RawMessage(`{"properties":{"temp":{"type":"number"}},"type":"object"}`)
		}},
		{name: "mock data is not compared", live: func(d *design.Design) {
			d.Tools[0].Scenarios = []design.Scenario{{Name: "any", Response: json.RawMessage(`{"temp":1}`)}}
			d.Resources[0].Content = json.RawMessage(`""`)
			d.Prompts[0].Messages = nil
			d.Prompts[0].Arguments[0].Completions = []string{"Ann"}
		}},
		{name: "prompt arguments in another order", live: func(d *design.Design) {
			a := d.Prompts[0].Arguments
			a[0], a[1] = a[1], a[0]
		}},
		{name: "an input schema changed", live: func(d *design.Design) {
			d.Tools[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city","days"]}`)
		}, want: []change{{"tool", "get_forecast", "input_schema",
			`{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`,
			`{"properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city","days"],"type":"object"}`}}},
		{name: "a number spelled otherwise is the same; another value is not", live: func(d *design.Design) {
			d.Tools[0].OutputSchema = json.RawMessage(`{"type":"object","properties":{"temp":{"type":"number","maximum":1e2}}}`)
		}, want: []change{{"tool", "get_forecast", "output_schema",
			`{"properties":{"temp":{"type":"number"}},"type":"object"}`,
			`{"properties":{"temp":{"maximum":100,"type":"number"}},"type":"object"}`}}},
		{name: "an output schema dropped, a description changed", live: func(d *design.Design) {
			d.Tools[0].OutputSchema = nil
			d.Tools[0].Description = "Tomorrow's weather."
		}, want: []change{
			{"tool", "get_forecast", "description", `"The forecast."`, `"Tomorrow's weather."`},
			{"tool", "get_forecast", "output_schema", `{"properties":{"temp":{"type":"number"}},"type":"object"}`, `null`},
		}},
		{name: "tools only on one side", live: func(d *design.Design) {
			d.Tools = []design.Tool{{Name: "alerts", InputSchema: design.DefaultInputSchema}}
		}, want: []change{
			{"tool", "alerts", "presence", `null`, `"alerts"`},
			{"tool", "get_forecast", "presence", `"get_forecast"`, `null`},
		}},
		{name: "resource fields and a live-only template", live: func(d *design.Design) {
			d.Resources[0].Name = "Guide"
			d.Resources[0].MimeType = ptr("text/markdown")
			d.Resources = append(d.Resources, design.Resource{Name: "city", URI: "weather://{city}"})
		}, want: []change{
			{"resource", "docs://guide", "name", `"guide"`, `"Guide"`},
			{"resource", "docs://guide", "mime_type", `"text/plain"`, `"text/markdown"`},
			{"resource", "weather://{city}", "presence", `null`, `"weather://{city}"`},
		}},
		{name: "prompt arguments and description", live: func(d *design.Design) {
			d.Prompts[0].Description = ""
			d.Prompts[0].Arguments = d.Prompts[0].Arguments[:1]
			d.Prompts[0].Arguments[0].Required = false
		}, want: []change{
			{"prompt", "greet", "description", `"Greets."`, `null`},
			{"prompt", "greet", "arguments",
				`[{"description":"tone","name":"how","required":false},{"description":"whom","name":"who","required":true}]`,
				`[{"description":"whom","name":"who","required":false}]`},
		}},
		{name: "every kind, in order", live: func(d *design.Design) {
			d.Prompts = nil
			d.Resources = nil
			d.Tools = append(d.Tools, design.Tool{Name: "a_first", InputSchema: design.DefaultInputSchema})
		}, want: []change{
			{"tool", "a_first", "presence", `null`, `"a_first"`},
			{"resource", "docs://guide", "presence", `"docs://guide"`, `null`},
			{"prompt", "greet", "presence", `"greet"`, `null`},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			live := weather()
			tc.live(&live)
			got := drift.Compare(weather(), live)
			require.Len(t, got, len(tc.want), "%+v", got)
			for i, w := range tc.want {
				g := got[i]
				require.Equal(t, []string{w.kind, w.name, w.field}, []string{g.Kind, g.Name, g.Field}, "change %d", i)
				require.Equal(t, w.design, string(g.Design), "change %d: design", i)
				require.Equal(t, w.live, string(g.Live), "change %d: live", i)
			}
		})
	}
}

// TestCompareIsStable: the order does not depend on the order either side
// lists its elements in.
func TestCompareIsStable(t *testing.T) {
	t.Parallel()
	d := design.Design{Tools: []design.Tool{{Name: "b"}, {Name: "a"}, {Name: "c"}}}
	live := design.Design{Tools: []design.Tool{{Name: "d"}, {Name: "c", Description: "new"}, {Name: "e"}}}
	var names []string
	for _, c := range drift.Compare(d, live) {
		names = append(names, c.Name+"/"+c.Field)
	}
	require.Equal(t, []string{"a/presence", "b/presence", "c/description", "d/presence", "e/presence"}, names)
}

// TestCompareMimeTypes: a design naming no media type matches a live
// server listing none, or the one the mock serves by default; a design
// naming one matches only that one.
func TestCompareMimeTypes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		design    design.Resource
		live      *string
		drift     bool
		designRaw string
		liveRaw   string
	}{
		{name: "none and none", design: design.Resource{Content: json.RawMessage(`"x"`)}},
		{name: "none and empty", design: design.Resource{Content: json.RawMessage(`"x"`)}, live: ptr("")},
		{name: "text content served as text/plain", design: design.Resource{Content: json.RawMessage(`"x"`)}, live: ptr("text/plain")},
		{name: "JSON content served as application/json", design: design.Resource{Content: json.RawMessage(`{"a":1}`)}, live: ptr("application/json")},
		{name: "binary served as octet-stream", design: design.Resource{Content: json.RawMessage(`"AA=="`), Binary: true}, live: ptr("application/octet-stream")},
		{name: "JSON content is not text/plain", design: design.Resource{Content: json.RawMessage(`{"a":1}`)}, live: ptr("text/plain"),
			drift: true, designRaw: `null`, liveRaw: `"text/plain"`},
		{name: "none and another", design: design.Resource{Content: json.RawMessage(`"x"`)}, live: ptr("text/markdown"),
			drift: true, designRaw: `null`, liveRaw: `"text/markdown"`},
		{name: "named and none", design: design.Resource{Content: json.RawMessage(`"x"`), MimeType: ptr("text/plain")},
			drift: true, designRaw: `"text/plain"`, liveRaw: `null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := tc.design
			r.Name, r.URI = "r", "x://r"
			d := design.Design{Resources: []design.Resource{r}}
			live := design.Design{Resources: []design.Resource{{Name: "r", URI: "x://r", MimeType: tc.live, Content: json.RawMessage(`""`)}}}
			got := drift.Compare(d, live)
			if !tc.drift {
				require.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			require.Equal(t, "mime_type", got[0].Field)
			require.Equal(t, tc.designRaw, string(got[0].Design))
			require.Equal(t, tc.liveRaw, string(got[0].Live))
		})
	}
}

// TestCompareOutputSchemaByRevision: a live server speaking a revision
// without output schemas cannot show them, so they are not compared.
func TestCompareOutputSchemaByRevision(t *testing.T) {
	t.Parallel()
	live := weather()
	live.Tools[0].OutputSchema = nil
	for v, want := range map[string]int{"": 1, protocol.V20241105: 0, protocol.V20250326: 0, protocol.V20250618: 1, protocol.Latest: 1} {
		live.Server.ProtocolVersion = v
		require.Len(t, drift.Compare(weather(), live), want, "revision %q", v)
	}
	live.Server.ProtocolVersion = protocol.V20241105
	live.Tools[0].Description = "other"
	got := drift.Compare(weather(), live)
	require.Len(t, got, 1)
	require.Equal(t, "description", got[0].Field, "the other fields are still compared")
}
