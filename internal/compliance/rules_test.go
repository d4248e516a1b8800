package compliance_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/compliance"
	"github.com/mockmcp/mockmcp/internal/mockspec"
)

// longDescription is exactly 200 characters, the shortest description that
// draws no warning.
const longDescription = "Returns the current temperature and conditions for a city. " +
	"Use it when the user asks about the weather now; for later days use get_forecast_7d. " +
	"A city is a name such as Paris; units default to metric."

// compliantDefinition returns a definition that draws no finding; each test
// breaks one thing in it.
func compliantDefinition() compliance.Definition {
	return compliance.Definition{
		Tools: []compliance.Tool{
			{
				Name:         "get_weather",
				Description:  longDescription,
				InputSchema:  json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"},"units":{"enum":["metric","imperial"]}},"required":["city"]}`),
				OutputSchema: json.RawMessage(`{"type":"object","properties":{"temperature":{"type":"number"},"readings":{"type":"array","items":{"type":"number"}}},"required":["temperature"]}`),
				Scenarios: []compliance.Scenario{
					{Name: "paris", Condition: json.RawMessage(`{"city":"Paris","units":"metric"}`), Response: json.RawMessage(`{"temperature":21.5,"readings":[20,21.5]}`)},
					{Name: "fallback", Response: json.RawMessage(`{"temperature":15}`)},
				},
			},
			{
				Name:        "get_forecast_7d",
				Description: longDescription,
				InputSchema: json.RawMessage(`{"type":"object"}`),
				Scenarios: []compliance.Scenario{
					{Name: "any", Condition: json.RawMessage(`{"field":"city","operator":"exists"}`), Response: json.RawMessage(`{"days":[]}`)},
				},
			},
		},
		Resources: []compliance.Resource{
			{URI: "docs://guide", Name: "guide", Description: "The user guide.", MimeType: "text/markdown"},
			{URI: "weather://{city}/now", Name: "now", Description: "Current weather in a city."},
		},
		Prompts: []compliance.Prompt{
			{Name: "summarize", Description: "Summarize a text.", Arguments: []compliance.PromptArgument{
				{Name: "text", Required: true},
				{Name: "style"},
			}},
		},
	}
}

func TestCompliantDefinition(t *testing.T) {
	require.Len(t, []rune(longDescription), 200)
	res := compliance.Check(compliantDefinition())
	require.True(t, res.Valid)
	require.NotNil(t, res.Findings)
	require.Empty(t, res.Findings)

	b, err := json.Marshal(res)
	require.NoError(t, err)
	require.JSONEq(t, `{"valid":true,"findings":[]}`, string(b))
}

func TestEmptyDefinition(t *testing.T) {
	res := compliance.Check(compliance.Definition{})
	require.Equal(t, compliance.Result{Valid: true, Findings: []compliance.Finding{}}, res)
}

// want is an expected finding; msg is a fragment its message must contain.
type want struct {
	rule, severity, path, msg string
}

func requireFindings(t *testing.T, got []compliance.Finding, wants ...want) {
	t.Helper()
	require.Len(t, got, len(wants), "findings: %+v", got)
	for i, w := range wants {
		require.Equal(t, w.rule, got[i].Rule, "finding %d: %+v", i, got[i])
		require.Equal(t, w.severity, got[i].Severity, "finding %d: %+v", i, got[i])
		require.Equal(t, w.path, got[i].Path, "finding %d: %+v", i, got[i])
		require.Contains(t, got[i].Message, w.msg, "finding %d: %+v", i, got[i])
	}
}

func TestRules(t *testing.T) {
	const (
		e = compliance.SeverityError
		w = compliance.SeverityWarning
	)
	tool0 := func(d *compliance.Definition) *compliance.Tool { return &d.Tools[0] }
	cases := []struct {
		name   string
		change func(d *compliance.Definition)
		want   []want
	}{
		{
			name:   "tool name required",
			change: func(d *compliance.Definition) { d.Tools[1].Name = " " },
			want:   []want{{"tool-name-required", e, "tools[1].name", "required"}},
		},
		{
			name:   "tool name camelCase",
			change: func(d *compliance.Definition) { tool0(d).Name = "getWeather" },
			want:   []want{{"tool-name-snake-case", e, "tools[0].name", `"getWeather"`}},
		},
		{
			name:   "tool name kebab-case",
			change: func(d *compliance.Definition) { tool0(d).Name = "get-weather" },
			want:   []want{{"tool-name-snake-case", e, "tools[0].name", `"get-weather"`}},
		},
		{
			name:   "tool name double underscore",
			change: func(d *compliance.Definition) { tool0(d).Name = "get__weather" },
			want:   []want{{"tool-name-snake-case", e, "tools[0].name", "snake_case"}},
		},
		{
			name:   "tool name trailing underscore",
			change: func(d *compliance.Definition) { tool0(d).Name = "get_weather_" },
			want:   []want{{"tool-name-snake-case", e, "tools[0].name", "snake_case"}},
		},
		{
			name:   "tool name leading digit",
			change: func(d *compliance.Definition) { tool0(d).Name = "7d_forecast" },
			want:   []want{{"tool-name-snake-case", e, "tools[0].name", "snake_case"}},
		},
		{
			name: "tool name unique",
			change: func(d *compliance.Definition) {
				dup := d.Tools[1]
				dup.Name = "get_weather"
				d.Tools = append(d.Tools, dup)
			},
			want: []want{{"tool-name-unique", e, "tools[2].name", `"get_weather" is already used by tools[0]`}},
		},
		{
			name: "tool name not snake case and repeated",
			change: func(d *compliance.Definition) {
				d.Tools[0].Name, d.Tools[1].Name = "Get", "Get"
			},
			want: []want{
				{"tool-name-snake-case", e, "tools[0].name", `"Get"`},
				{"tool-name-snake-case", e, "tools[1].name", `"Get"`},
				{"tool-name-unique", e, "tools[1].name", "tools[0]"},
			},
		},
		{
			name:   "tool description required",
			change: func(d *compliance.Definition) { tool0(d).Description = " \n\t" },
			want:   []want{{"tool-description-required", e, "tools[0].description", "required"}},
		},
		{
			name:   "tool description of 199 characters",
			change: func(d *compliance.Definition) { tool0(d).Description = longDescription[:199] },
			want:   []want{{"tool-description-length", w, "tools[0].description", "is 199 characters long"}},
		},
		{
			name:   "tool description length counts characters, not bytes",
			change: func(d *compliance.Definition) { tool0(d).Description = strings.Repeat("é", 199) },
			want:   []want{{"tool-description-length", w, "tools[0].description", "is 199 characters long"}},
		},
		{
			name:   "tool description of 200 multi-byte characters",
			change: func(d *compliance.Definition) { tool0(d).Description = strings.Repeat("é", 200) },
		},
		{
			name:   "tool description length ignores surrounding space",
			change: func(d *compliance.Definition) { tool0(d).Description = "  " + longDescription[:199] + "\n" },
			want:   []want{{"tool-description-length", w, "tools[0].description", "is 199 characters long"}},
		},
		{
			name:   "input schema missing",
			change: func(d *compliance.Definition) { tool0(d).InputSchema = nil },
			want:   []want{{"input-schema-valid", e, "tools[0].inputSchema", "required"}},
		},
		{
			name:   "input schema null",
			change: func(d *compliance.Definition) { tool0(d).InputSchema = json.RawMessage(`null`) },
			want:   []want{{"input-schema-valid", e, "tools[0].inputSchema", "required"}},
		},
		{
			name:   "input schema not an object schema",
			change: func(d *compliance.Definition) { tool0(d).InputSchema = json.RawMessage(`{"type":"string"}`) },
			want:   []want{{"input-schema-valid", e, "tools[0].inputSchema", `"type": "object"`}},
		},
		{
			name: "input schema with a misspelt type",
			change: func(d *compliance.Definition) {
				tool0(d).InputSchema = json.RawMessage(`{"type":"object","properties":{"city":{"type":"strin"}}}`)
			},
			want: []want{{"input-schema-valid", e, "tools[0].inputSchema", "invalid schema"}},
		},
		{
			name: "input schema in 2020-12",
			change: func(d *compliance.Definition) {
				tool0(d).InputSchema = json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"city":{},"units":{}}}`)
			},
			want: []want{{"input-schema-draft-7", w, "tools[0].inputSchema", "2020-12"}},
		},
		{
			name: "input schema in draft-07 without the empty fragment",
			change: func(d *compliance.Definition) {
				tool0(d).InputSchema = json.RawMessage(`{"$schema":"https://json-schema.org/draft-07/schema","type":"object","properties":{"city":{},"units":{}}}`)
			},
		},
		{
			name:   "output schema invalid",
			change: func(d *compliance.Definition) { tool0(d).OutputSchema = json.RawMessage(`{"type":"strin"}`) },
			want:   []want{{"output-schema-valid", e, "tools[0].outputSchema", "invalid schema"}},
		},
		{
			name:   "output schema not JSON",
			change: func(d *compliance.Definition) { tool0(d).OutputSchema = json.RawMessage(`{"type":`) },
			want:   []want{{"output-schema-valid", e, "tools[0].outputSchema", "not valid JSON"}},
		},
		{
			name:   "output schema null is absent",
			change: func(d *compliance.Definition) { tool0(d).OutputSchema = json.RawMessage(`null`) },
		},
		{
			name: "output schema must be an object schema, as when saving a tool",
			change: func(d *compliance.Definition) {
				tool0(d).OutputSchema = json.RawMessage(`{"type":"string"}`)
			},
			want: []want{{"output-schema-valid", e, "tools[0].outputSchema", `"type": "object"`}},
		},
		{
			name: "scenario condition with an unknown operator",
			change: func(d *compliance.Definition) {
				tool0(d).Scenarios[1].Condition = json.RawMessage(`{"field":"city","operator":"like","value":"P"}`)
			},
			want: []want{{"scenario-condition-valid", e, "tools[0].mock_scenarios[1].condition.operator", `unknown operator "like"`}},
		},
		{
			name: "scenario condition with a bad plain key",
			change: func(d *compliance.Definition) {
				tool0(d).Scenarios[0].Condition = json.RawMessage(`{"city":"Paris","a..b":1}`)
			},
			want: []want{{"scenario-condition-valid", e, `tools[0].mock_scenarios[0].condition["a..b"]`, "invalid field path"}},
		},
		{
			name:   "scenario condition not an object",
			change: func(d *compliance.Definition) { tool0(d).Scenarios[0].Condition = json.RawMessage(`"Paris"`) },
			want:   []want{{"scenario-condition-valid", e, "tools[0].mock_scenarios[0].condition", "must be a JSON object or null"}},
		},
		{
			name: "scenario condition on an undeclared field",
			change: func(d *compliance.Definition) {
				tool0(d).Scenarios[1].Condition = json.RawMessage(`{"field":"cty","operator":"equals","value":"Paris"}`)
			},
			want: []want{{"scenario-condition-declared", e, "tools[0].mock_scenarios[1].condition", `condition field "cty": inputSchema declares no property "cty" at the top level; declared there: city, units`}},
		},
		{
			name: "scenario condition on every undeclared plain key",
			change: func(d *compliance.Definition) {
				tool0(d).Scenarios[0].Condition = json.RawMessage(`{"zone":1,"city":"Paris","area":2}`)
			},
			want: []want{
				{"scenario-condition-declared", e, "tools[0].mock_scenarios[0].condition", `"area"`},
				{"scenario-condition-declared", e, "tools[0].mock_scenarios[0].condition", `"zone"`},
			},
		},
		{
			name: "scenario conditions are not compared with an input schema that does not compile",
			change: func(d *compliance.Definition) {
				tool0(d).InputSchema = json.RawMessage(`{"type":"object","properties":{"city":{"type":"strin"}}}`)
				tool0(d).Scenarios[1].Condition = json.RawMessage(`{"cty":"Paris"}`)
			},
			want: []want{{"input-schema-valid", e, "tools[0].inputSchema", "invalid schema"}},
		},
		{
			name: "scenario response of the wrong type",
			change: func(d *compliance.Definition) {
				tool0(d).Scenarios[0].Response = json.RawMessage(`{"temperature":"hot"}`)
			},
			want: []want{{"scenario-response-output-schema", e, "tools[0].mock_scenarios[0].response.temperature", "number"}},
		},
		{
			name:   "scenario response missing a required property",
			change: func(d *compliance.Definition) { tool0(d).Scenarios[1].Response = json.RawMessage(`{}`) },
			want:   []want{{"scenario-response-output-schema", e, "tools[0].mock_scenarios[1].response.temperature", "Required property 'temperature' is missing"}},
		},
		{
			name: "scenario response with a bad array element",
			change: func(d *compliance.Definition) {
				tool0(d).Scenarios[0].Response = json.RawMessage(`{"temperature":1,"readings":[1,"x"]}`)
			},
			want: []want{{"scenario-response-output-schema", e, "tools[0].mock_scenarios[0].response.readings[1]", "number"}},
		},
		{
			name:   "scenario response not an object",
			change: func(d *compliance.Definition) { tool0(d).Scenarios[0].Response = json.RawMessage(`[1]`) },
			want:   []want{{"scenario-response-output-schema", e, "tools[0].mock_scenarios[0].response", "object"}},
		},
		{
			name:   "scenario response not JSON",
			change: func(d *compliance.Definition) { tool0(d).Scenarios[0].Response = json.RawMessage(`{"temperature":`) },
			want:   []want{{"scenario-response-output-schema", e, "tools[0].mock_scenarios[0].response", "not valid JSON"}},
		},
		{
			name:   "scenario response missing",
			change: func(d *compliance.Definition) { tool0(d).Scenarios[0].Response = nil },
			want:   []want{{"scenario-response-output-schema", e, "tools[0].mock_scenarios[0].response", "empty"}},
		},
		{
			// Responses are decoded keeping numbers exact, so integers past
			// 2^53 compare as written.
			name: "scenario response keeps large integers exact",
			change: func(d *compliance.Definition) {
				tool0(d).OutputSchema = json.RawMessage(`{"type":"object","properties":{"temperature":{"const":9007199254740993}}}`)
				tool0(d).Scenarios = tool0(d).Scenarios[:1]
				tool0(d).Scenarios[0].Response = json.RawMessage(`{"temperature":9007199254740992}`)
			},
			want: []want{{"scenario-response-output-schema", e, "tools[0].mock_scenarios[0].response.temperature", ""}},
		},
		{
			name: "scenario response equal to a large integer",
			change: func(d *compliance.Definition) {
				tool0(d).OutputSchema = json.RawMessage(`{"type":"object","properties":{"temperature":{"const":9007199254740993}}}`)
				tool0(d).Scenarios = tool0(d).Scenarios[:1]
				tool0(d).Scenarios[0].Response = json.RawMessage(`{"temperature":9007199254740993}`)
			},
		},
		{
			name: "scenario responses are not checked against an output schema that does not compile",
			change: func(d *compliance.Definition) {
				tool0(d).OutputSchema = json.RawMessage(`{"type":"strin"}`)
				tool0(d).Scenarios[0].Response = json.RawMessage(`{"temperature":"hot"}`)
			},
			want: []want{{"output-schema-valid", e, "tools[0].outputSchema", "invalid schema"}},
		},
		{
			name:   "resource uri required",
			change: func(d *compliance.Definition) { d.Resources[1].URI = "" },
			want:   []want{{"resource-uri-required", e, "resources[1].uri", "required"}},
		},
		{
			name:   "resource uri relative",
			change: func(d *compliance.Definition) { d.Resources[0].URI = "/docs/guide" },
			want:   []want{{"resource-uri-valid", e, "resources[0].uri", `resource uri "/docs/guide" must be an absolute URI`}},
		},
		{
			name:   "resource uri with white space",
			change: func(d *compliance.Definition) { d.Resources[0].URI = "docs://my guide" },
			want:   []want{{"resource-uri-valid", e, "resources[0].uri", "white space"}},
		},
		{
			name:   "resource uri template with a bad parameter",
			change: func(d *compliance.Definition) { d.Resources[1].URI = "weather://{the-city}/now" },
			want:   []want{{"resource-uri-valid", e, "resources[1].uri", "{the-city}"}},
		},
		{
			name: "resource uri unique",
			change: func(d *compliance.Definition) {
				d.Resources = append(d.Resources, compliance.Resource{URI: "docs://guide", Description: "Again."})
			},
			want: []want{{"resource-uri-unique", e, "resources[2].uri", `"docs://guide" is already used by resources[0]`}},
		},
		{
			name: "tool view exists",
			change: func(d *compliance.Definition) {
				d.Tools[0].View = "ui://missing/view.html"
				d.Tools[1].View = "docs://guide" // linked to a resource the design has
			},
			want: []want{{"tool-view-exists", e, "tools[0]._meta.ui.resourceUri", `"ui://missing/view.html", which is none of the resources`}},
		},
		{
			name:   "resource description required",
			change: func(d *compliance.Definition) { d.Resources[1].Description = "" },
			want:   []want{{"resource-description-required", w, "resources[1].description", "description"}},
		},
		{
			name:   "prompt name required",
			change: func(d *compliance.Definition) { d.Prompts[0].Name = "" },
			want:   []want{{"prompt-name-required", e, "prompts[0].name", "required"}},
		},
		{
			name:   "prompt description required",
			change: func(d *compliance.Definition) { d.Prompts[0].Description = " " },
			want:   []want{{"prompt-description-required", w, "prompts[0].description", "description"}},
		},
		{
			name:   "prompt argument name required",
			change: func(d *compliance.Definition) { d.Prompts[0].Arguments[1].Name = "" },
			want:   []want{{"prompt-argument-name-required", e, "prompts[0].arguments[1].name", "required"}},
		},
		{
			name: "prompt argument unique",
			change: func(d *compliance.Definition) {
				d.Prompts[0].Arguments = append(d.Prompts[0].Arguments, compliance.PromptArgument{Name: " text "})
			},
			want: []want{{"prompt-argument-unique", e, "prompts[0].arguments[2].name", `"text" is already declared by arguments[0]`}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := compliantDefinition()
			tc.change(&d)
			res := compliance.Check(d)
			requireFindings(t, res.Findings, tc.want...)
			valid := true
			for _, w := range tc.want {
				if w.severity == e {
					valid = false
				}
			}
			require.Equal(t, valid, res.Valid)
		})
	}
}

// TestOrder checks that findings follow the definition, not the order rules
// run in or the text of their paths (tools[10] sorts before tools[2] as
// text), and that the same definition always gives the same result.
func TestOrder(t *testing.T) {
	d := compliantDefinition()
	for i := len(d.Tools); i < 12; i++ {
		tool := d.Tools[1]
		tool.Name = fmt.Sprintf("tool_%d", i)
		d.Tools = append(d.Tools, tool)
	}
	d.Tools[11].Name = "Bad"
	d.Tools[11].Description = "short"
	d.Tools[2].OutputSchema = json.RawMessage(`{"type":"object","required":["ok"]}`)
	d.Tools[2].InputSchema = json.RawMessage(`{"type":"object","properties":{"a":{}}}`)
	d.Tools[2].Scenarios = []compliance.Scenario{
		{Condition: json.RawMessage(`{"b":1,"a":1}`), Response: json.RawMessage(`{}`)},
		{Condition: json.RawMessage(`{"field":"a","operator":"gt","value":"x"}`), Response: json.RawMessage(`{"ok":1}`)},
	}
	d.Tools[2].Name = "get_weather" // repeats tools[0]
	d.Resources[0].Description = ""
	d.Resources[1].URI = "relative"
	d.Prompts = append([]compliance.Prompt{{Arguments: []compliance.PromptArgument{{}}}}, d.Prompts...)

	res := compliance.Check(d)
	requireFindings(t, res.Findings,
		want{"tool-name-unique", "error", "tools[2].name", "tools[0]"},
		want{"scenario-condition-declared", "error", "tools[2].mock_scenarios[0].condition", `"b"`},
		want{"scenario-response-output-schema", "error", "tools[2].mock_scenarios[0].response.ok", "missing"},
		want{"scenario-condition-valid", "error", "tools[2].mock_scenarios[1].condition.value", "number"},
		want{"tool-name-snake-case", "error", "tools[11].name", `"Bad"`},
		want{"tool-description-length", "warning", "tools[11].description", "is 5 characters"},
		want{"resource-description-required", "warning", "resources[0].description", ""},
		want{"resource-uri-valid", "error", "resources[1].uri", `"relative"`},
		want{"prompt-name-required", "error", "prompts[0].name", ""},
		want{"prompt-description-required", "warning", "prompts[0].description", ""},
		want{"prompt-argument-name-required", "error", "prompts[0].arguments[0].name", ""},
	)
	require.False(t, res.Valid)
	for range 20 {
		require.Equal(t, res, compliance.Check(d))
	}
}

// TestConditionDeclared walks condition field paths through input schemas.
// Each schema must compile, or the rule would not run and every case would
// pass.
func TestConditionDeclared(t *testing.T) {
	const weather = `{"type":"object","properties":{
		"city":{"type":"string"},
		"address":{"type":"object","properties":{"city":{"type":"string"},"zip":{"type":"string"}}},
		"tags":{"type":"array","items":{"type":"string"}},
		"readings":{"type":"array","items":{"type":"object","properties":{"value":{"type":"number"}}}},
		"metadata":{"type":"object"},
		"labels":{"type":"object","additionalProperties":{"type":"string"}},
		"closed":{"type":"object","additionalProperties":false},
		"anything":true,
		"a.b":{"type":"string"},
		"byCode":{"type":"object","properties":{"0":{"type":"string"}}}
	}}`
	const composed = `{"type":"object",
		"allOf":[{"properties":{"city":{"type":"string"}}},{"properties":{"address":{"type":"object","properties":{"zip":{}}}}}],
		"anyOf":[{"properties":{"postcode":{}}},{"properties":{"lat":{},"lon":{}}}]
	}`
	const refs = `{"type":"object",
		"definitions":{"address":{"type":"object","properties":{"city":{},"zip":{}}}},
		"properties":{"home":{"$ref":"#/definitions/address"},"work":{"anyOf":[{"$ref":"#/definitions/address"},{"type":"null"}]},"child":{"$ref":"#"},"n":{}}
	}`
	const tuples = `{"type":"object","properties":{
		"closedPair":{"type":"array","items":[{"type":"number"},{"type":"object","properties":{"x":{}}}],"additionalItems":false},
		"openPair":{"type":"array","items":[{"type":"number"},{"type":"number"}]},
		"restPair":{"type":"array","items":[{"type":"number"}],"additionalItems":{"type":"object","properties":{"y":{}}}}
	}}`
	const prefixItems = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{
		"pair":{"type":"array","prefixItems":[{"type":"number"},{"type":"object","properties":{"x":{}}}],"items":false},
		"$defsRef":{"$ref":"#/$defs/point"}
	},"$defs":{"point":{"type":"object","properties":{"x":{},"y":{}}}}}`
	const patterns = `{"type":"object","properties":{"name":{}},"patternProperties":{"^tag_[a-z]+$":{"type":"object","properties":{"color":{}}}}}`

	cases := []struct {
		name   string
		schema string
		field  string
		want   string // fragment of the finding's message; "" for none
	}{
		{name: "declared top-level", schema: weather, field: "city"},
		{name: "declared nested object", schema: weather, field: "address.zip"},
		{name: "array index through items", schema: weather, field: "tags[0]"},
		{name: "array index then member", schema: weather, field: "readings[3].value"},
		{name: "numeric dot segment through items", schema: weather, field: "readings.3.value"},
		{name: "undeclared top-level", schema: weather, field: "cty", want: `no property "cty" at the top level; declared there: a.b, address, anything, byCode, city, closed, labels, metadata, readings, tags`},
		{name: "undeclared nested", schema: weather, field: "address.ciy", want: `no property "ciy" in "address"; declared there: city, zip`},
		{name: "undeclared behind an index", schema: weather, field: "readings[0].valeu", want: `no property "valeu" in "readings[0]"; declared there: value`},
		{name: "additionalProperties open object accepted", schema: weather, field: "metadata.source.id"},
		{name: "additionalProperties schema accepted", schema: weather, field: "labels.colour"},
		{name: "additionalProperties false", schema: weather, field: "closed.x", want: `declares no properties in "closed" and allows no others`},
		{name: "member of a string", schema: weather, field: "city.name", want: `declares "city" as string, which has no properties`},
		{name: "index into a string", schema: weather, field: "city[0]", want: `declares "city" as string, not an array`},
		{name: "index into an object", schema: weather, field: "address[0]", want: `declares "address" as object, not an array`},
		{name: "true schema says nothing", schema: weather, field: "anything.at.all[2]"},
		{name: "dotted top-level name read literally", schema: weather, field: "a.b"},
		{name: "numeric dot segment as an object key", schema: weather, field: "byCode.0"},
		{name: "numeric dot segment as an undeclared key", schema: weather, field: "byCode.1", want: `no property "1" in "byCode"`},

		{name: "allOf member", schema: composed, field: "city"},
		{name: "allOf member nested", schema: composed, field: "address.zip"},
		{name: "allOf member nested undeclared", schema: composed, field: "address.city", want: `no property "city" in "address"; declared there: zip`},
		{name: "anyOf branch", schema: composed, field: "lon"},
		{name: "undeclared in every member", schema: composed, field: "country", want: `declared there: address, city, lat, lon, postcode`},

		{name: "$ref to definitions", schema: refs, field: "home.city"},
		{name: "$ref to definitions undeclared", schema: refs, field: "home.cty", want: `no property "cty" in "home"; declared there: city, zip`},
		{name: "$ref inside anyOf", schema: refs, field: "work.zip"},
		{name: "$ref inside anyOf undeclared", schema: refs, field: "work.zipcode", want: `no property "zipcode" in "work"`},
		{name: "recursive $ref", schema: refs, field: "child.child.n"},
		{name: "recursive $ref undeclared", schema: refs, field: "child.child.m", want: `no property "m" in "child.child"`},
		{name: "$ref to $defs", schema: prefixItems, field: "$defsRef.y"},

		{name: "tuple element", schema: tuples, field: "closedPair[1].x"},
		{name: "tuple element undeclared member", schema: tuples, field: "closedPair[1].z", want: `no property "z" in "closedPair[1]"`},
		{name: "past a closed tuple", schema: tuples, field: "closedPair[2]", want: `declares "closedPair" as a tuple of 2 items with no more allowed, so index 2 is past its end`},
		{name: "past an open tuple", schema: tuples, field: "openPair[5].anything"},
		{name: "additionalItems schema", schema: tuples, field: "restPair[4].y"},
		{name: "additionalItems schema undeclared", schema: tuples, field: "restPair[4].z", want: `no property "z" in "restPair[4]"`},
		{name: "prefixItems element", schema: prefixItems, field: "pair.1.x"},
		{name: "past prefixItems", schema: prefixItems, field: "pair[2]", want: "tuple of 2 items"},

		{name: "patternProperties match", schema: patterns, field: "tag_red.color"},
		{name: "patternProperties match undeclared", schema: patterns, field: "tag_red.shade", want: `no property "shade" in "tag_red"`},
		{name: "patternProperties no match", schema: patterns, field: "tag_1", want: `no property "tag_1" at the top level; declared there: name`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cond, err := json.Marshal(map[string]string{"field": tc.field, "operator": "exists"})
			require.NoError(t, err)
			res := compliance.Check(compliance.Definition{Tools: []compliance.Tool{{
				Name:        "t",
				InputSchema: json.RawMessage(tc.schema),
				Scenarios:   []compliance.Scenario{{Condition: cond}},
			}}})
			var got []compliance.Finding
			for _, f := range res.Findings {
				require.NotEqual(t, "input-schema-valid", f.Rule, "the schema must compile: %s", f.Message)
				require.NotEqual(t, "scenario-condition-valid", f.Rule, "the condition must compile: %s", f.Message)
				if f.Rule == "scenario-condition-declared" {
					got = append(got, f)
				}
			}
			if tc.want == "" {
				require.Empty(t, got)
				return
			}
			requireFindings(t, got, want{"scenario-condition-declared", "error", "tools[0].mock_scenarios[0].condition", tc.want})
			require.True(t, strings.HasPrefix(got[0].Message, fmt.Sprintf("condition field %q: ", tc.field)), got[0].Message)
		})
	}
}

// TestRichScenarios checks the rules on scenarios that answer with a
// result, an error or a sequence: only what they serve as structuredContent
// is held to the output schema, and no plain response is asked of them.
func TestRichScenarios(t *testing.T) {
	const e = compliance.SeverityError
	stored := []mockspec.Scenario{
		{Name: "result", Result: json.RawMessage(`{"content":[],"structuredContent":{"temperature":"hot"}}`)},
		{Name: "error result", Result: json.RawMessage(`{"content":[{"type":"text","text":"x"}],"isError":true}`)},
		{Name: "error", Error: &mockspec.RPCError{Code: -32603, Message: "Down"}},
		{Name: "sequence", Sequence: &mockspec.Sequence{Steps: []mockspec.Step{
			{Response: json.RawMessage(`{"temperature":1}`)},
			{Response: json.RawMessage(`{}`)},
			{Error: &mockspec.RPCError{Code: 1, Message: "m"}},
			{Result: json.RawMessage(`{"content":[],"structuredContent":{"temperature":[]}}`)},
			{Result: json.RawMessage(`{"content":[{"type":"text","text":"x"}],"isError":true}`)},
		}}},
		{Name: "plain", Response: json.RawMessage(`{"temperature":2}`)},
	}
	d := compliantDefinition()
	d.Tools[0].Scenarios = nil
	d.Tools[1].Scenarios = nil
	for _, sc := range stored {
		d.Tools[0].Scenarios = append(d.Tools[0].Scenarios, compliance.MockScenario(sc))
		d.Tools[1].Scenarios = append(d.Tools[1].Scenarios, compliance.MockScenario(sc)) // no output schema
	}
	res := compliance.Check(d)
	requireFindings(t, res.Findings,
		want{"scenario-response-output-schema", e, "tools[0].mock_scenarios[0].result.structuredContent.temperature", "number"},
		want{"scenario-response-output-schema", e, "tools[0].mock_scenarios[3].sequence.steps[1].response.temperature", "missing"},
		want{"scenario-response-output-schema", e, "tools[0].mock_scenarios[3].sequence.steps[3].result.structuredContent.temperature", "number"},
	)

	t.Run("MockScenario", func(t *testing.T) {
		require.Equal(t, compliance.Scenario{Name: "plain", Response: json.RawMessage(`{"temperature":2}`)}, compliance.MockScenario(stored[4]))
		require.Equal(t, compliance.Scenario{Name: "error", Explicit: true}, compliance.MockScenario(stored[2]))
		require.Equal(t, compliance.Scenario{Name: "error result", Explicit: true}, compliance.MockScenario(stored[1]))
		got := compliance.MockScenario(mockspec.Scenario{Name: "c", Condition: json.RawMessage(`{"a":1}`), Result: stored[0].Result})
		require.Equal(t, compliance.Scenario{Name: "c", Condition: json.RawMessage(`{"a":1}`), Explicit: true, Structured: []compliance.Structured{
			{Path: "result.structuredContent", Value: json.RawMessage(`{"temperature":"hot"}`)},
		}}, got)
	})
}
