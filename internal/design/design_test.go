package design

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mockspec"
)

// fieldsOf returns the fields an Invalid failure names, in order, and nil
// for a nil error.
func fieldsOf(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	f, ok := failure.As(err)
	require.True(t, ok, "not a failure: %v", err)
	require.Equal(t, failure.KindInvalid, f.Kind)
	out := make([]string, len(f.Fields))
	for i, fe := range f.Fields {
		require.NotEmpty(t, fe.Message, "field %s has no message", fe.Field)
		out[i] = fe.Field
	}
	return out
}

func ptr(s string) *string { return &s }

// values makes n distinct completion values.
func values(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("v%d", i)
	}
	return out
}

func TestCheckServer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		server Server
		fields []string
	}{
		{"name only", Server{Name: "Weather"}, nil},
		{"http provider", Server{Name: "W", ProviderURL: ptr("http://acme.example")}, nil},
		{"https provider with path and port", Server{Name: "W", ProviderURL: ptr("https://acme.example:8443/docs?x=1")}, nil},
		{"blank name", Server{Name: " \t "}, []string{"name"}},
		{"empty name", Server{Name: ""}, []string{"name"}},
		{"ftp provider", Server{Name: "W", ProviderURL: ptr("ftp://acme.example")}, []string{"provider_url"}},
		{"provider without scheme", Server{Name: "W", ProviderURL: ptr("acme.example")}, []string{"provider_url"}},
		{"provider without host", Server{Name: "W", ProviderURL: ptr("https:///path")}, []string{"provider_url"}},
		{"provider that does not parse", Server{Name: "W", ProviderURL: ptr("http://[::1")}, []string{"provider_url"}},
		{"empty provider", Server{Name: "W", ProviderURL: ptr("")}, []string{"provider_url"}},
		{"javascript provider", Server{Name: "W", ProviderURL: ptr("javascript:alert(1)")}, []string{"provider_url"}},
		{"both at once", Server{Name: "", ProviderURL: ptr("mailto:a@b.c")}, []string{"provider_url", "name"}},
		{"fault", Server{Name: "W", Fault: &mockspec.Fault{Rate: 0.25, Error: &mockspec.RPCError{Code: -32000, Message: "Busy"}, DelayMS: 30000}}, nil},
		{"fault with only a rate", Server{Name: "W", Fault: &mockspec.Fault{Rate: 1}}, nil},
		{"fault rate above 1", Server{Name: "W", Fault: &mockspec.Fault{Rate: 1.5}}, []string{"fault.rate"}},
		{"fault with a bad error and delay", Server{Name: "W", Fault: &mockspec.Fault{Rate: 0.5, Error: &mockspec.RPCError{Message: " "}, DelayMS: 30001}},
			[]string{"fault.error.code", "fault.error.message", "fault.delay_ms"}},
		{"NUL in the fault", Server{Name: "W", Fault: &mockspec.Fault{Rate: 0.5, Error: &mockspec.RPCError{Code: 1, Message: "a\x00", Data: json.RawMessage(`"\u0000"`)}}},
			[]string{"fault.error.message", "fault.error.data"}},
		{"NUL anywhere", Server{Name: "a\x00", Description: "\x00", Version: "1\x00", ProviderName: ptr("\x00"), ProviderURL: ptr("http://a\x00")},
			[]string{"provider_url", "name", "description", "version", "provider_name"}},
		{"defaults of eras and caching", Server{Name: "W", Eras: DefaultEras, CacheTTLMs: DefaultCacheTTLMs, CacheScope: DefaultCacheScope}, nil},
		{"legacy only, no caching", Server{Name: "W", Eras: ErasLegacyOnly, CacheTTLMs: 0, CacheScope: CacheScopePublic}, nil},
		{"modern only, a day's caching", Server{Name: "W", Eras: ErasModernOnly, CacheTTLMs: MaxCacheTTLMs, CacheScope: CacheScopePrivate}, nil},
		{"unknown eras", Server{Name: "W", Eras: "modern"}, []string{"eras"}},
		{"unknown cache scope", Server{Name: "W", CacheScope: "shared"}, []string{"cache_scope"}},
		{"negative cache TTL", Server{Name: "W", CacheTTLMs: -1}, []string{"cache_ttl_ms"}},
		{"cache TTL over a day", Server{Name: "W", CacheTTLMs: MaxCacheTTLMs + 1}, []string{"cache_ttl_ms"}},
		{"every protocol setting wrong", Server{Name: "W", Eras: "all", CacheTTLMs: -5, CacheScope: "x"}, []string{"eras", "cache_scope", "cache_ttl_ms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.fields, fieldsOf(t, CheckServer(tc.server)))
		})
	}
}

func TestCheckTool(t *testing.T) {
	obj := json.RawMessage(`{"type":"object"}`)
	resp := json.RawMessage(`{"ok":true}`)
	sc := func(name, cond string, response json.RawMessage) Scenario {
		s := Scenario{Name: name, Response: response}
		if cond != "" {
			s.Condition = json.RawMessage(cond)
		}
		return s
	}
	many := func(n int) []Scenario {
		out := make([]Scenario, n)
		for i := range out {
			out[i] = sc(fmt.Sprintf("s%d", i), "", resp)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		tool   Tool
		fields []string
	}{
		{"default input schema", Tool{Name: "t", InputSchema: DefaultInputSchema}, nil},
		{"a tool fault", Tool{Name: "t", InputSchema: obj, Fault: &mockspec.Fault{Rate: 0.5, DelayMS: 10}}, nil},
		{"a tool fault out of range", Tool{Name: "t", InputSchema: obj, Fault: &mockspec.Fault{Rate: 2, DelayMS: -1, Error: &mockspec.RPCError{Message: "m"}}},
			[]string{"fault.rate", "fault.error.code", "fault.delay_ms"}},
		{"NUL in a tool fault", Tool{Name: "t", InputSchema: obj, Fault: &mockspec.Fault{Rate: 1, Error: &mockspec.RPCError{Code: 1, Message: "a\x00"}}},
			[]string{"fault.error.message"}},
		{"a scenario fault out of range", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{
			{Name: "s", Response: resp, Fault: &mockspec.Fault{Rate: -1}}}}, []string{"mock_scenarios[0].fault.rate"}},
		{"NUL in a scenario fault", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{
			{Name: "s", Response: resp, Fault: &mockspec.Fault{Rate: 1, Error: &mockspec.RPCError{Code: 1, Message: "a\x00"}}}}},
			[]string{"mock_scenarios[0].fault.error.message"}},
		{"a misspelt operator", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{
			sc("s", `{"field":"q","oprator":"gt","value":3}`, resp)}}, []string{"mock_scenarios[0].condition.oprator"}},
		{"2020-12 schema with $defs", Tool{Name: "t", InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
			"$defs":{"c":{"type":"string"}},"properties":{"c":{"$ref":"#/$defs/c"}},"additionalProperties":false}`)}, nil},
		{"2019-09 schema", Tool{Name: "t", InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object"}`)}, nil},
		{"every operator", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{
			sc("eq", `{"field":"a","operator":"equals","value":{"x":[1]}}`, resp),
			sc("ne", `{"field":"a","operator":"not_equals","value":null}`, resp),
			sc("contains", `{"field":"a","operator":"contains","value":"x"}`, resp),
			sc("sw", `{"field":"a","operator":"starts_with","value":"x"}`, resp),
			sc("ew", `{"field":"a","operator":"ends_with","value":""}`, resp),
			sc("re", `{"field":"a","operator":"matches","value":"^a+$"}`, resp),
			sc("ex", `{"field":"a.b","operator":"exists"}`, resp),
			sc("nex", `{"field":"a","operator":"not_exists","value":null}`, resp),
			sc("gt", `{"field":"n","operator":"gt","value":1}`, resp),
			sc("gte", `{"field":"n","operator":"gte","value":1.5}`, resp),
			sc("lt", `{"field":"n","operator":"lt","value":-1}`, resp),
			sc("lte", `{"field":"items[0].n","operator":"lte","value":0}`, resp),
			sc("in", `{"field":"n","operator":"in","value":[1,"a",null]}`, resp),
			sc("plain", `{"city":"Paris","address.zip":"75001"}`, resp),
			sc("empty", `{}`, resp),
			sc("null", `null`, resp),
			sc("absent", ``, json.RawMessage(`{}`)),
		}}, nil},
		{"output schema", Tool{Name: "t", InputSchema: obj, OutputSchema: json.RawMessage(`{"type":"object","properties":{"t":{"type":"number"}}}`)}, nil},
		{"exactly the scenario limit", Tool{Name: "t", InputSchema: obj, Scenarios: many(MaxScenarios)}, nil},
		{"every client capability", Tool{Name: "t", InputSchema: obj, RequiredClientCapabilities: []string{"elicitation", "roots", "sampling"}}, nil},
		{"no client capability", Tool{Name: "t", InputSchema: obj, RequiredClientCapabilities: []string{}}, nil},

		{"unknown client capability", Tool{Name: "t", InputSchema: obj, RequiredClientCapabilities: []string{"roots", "tools"}},
			[]string{"required_client_capabilities[1]"}},
		{"client capability twice", Tool{Name: "t", InputSchema: obj, RequiredClientCapabilities: []string{"sampling", "roots", "sampling"}},
			[]string{"required_client_capabilities[2]"}},
		{"more client capabilities than there are", Tool{Name: "t", InputSchema: obj,
			RequiredClientCapabilities: []string{"roots", "sampling", "elicitation", "roots"}},
			[]string{"required_client_capabilities", "required_client_capabilities[3]"}},
		{"empty client capability", Tool{Name: "t", InputSchema: obj, RequiredClientCapabilities: []string{""}},
			[]string{"required_client_capabilities[0]"}},

		{"input schema of type string", Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"string"}`)}, []string{"input_schema"}},
		{"input schema without type", Tool{Name: "t", InputSchema: json.RawMessage(`{}`)}, []string{"input_schema"}},
		{"input schema an array", Tool{Name: "t", InputSchema: json.RawMessage(`[]`)}, []string{"input_schema"}},
		{"input schema not JSON", Tool{Name: "t", InputSchema: json.RawMessage(`{"type":`)}, []string{"input_schema"}},
		{"input schema missing", Tool{Name: "t"}, []string{"input_schema"}},
		{"dangling $ref", Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/definitions/nope"}}}`)}, []string{"input_schema"}},
		{"remote $ref", Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"http://example.com/x.json"}}}`)}, []string{"input_schema"}},
		{"misspelt type", Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"strin"}}}`)}, []string{"input_schema.properties.a.type"}},
		{"unknown dialect", Tool{Name: "t", InputSchema: json.RawMessage(`{"$schema":"https://example.com/dialect","type":"object"}`)}, []string{"input_schema"}},
		{"output schema of type array", Tool{Name: "t", InputSchema: obj, OutputSchema: json.RawMessage(`{"type":"array"}`)}, []string{"output_schema"}},
		{"output schema with a dangling $ref", Tool{Name: "t", InputSchema: obj, OutputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"$ref":"#/x"}}}`)}, []string{"output_schema"}},
		{"one over the scenario limit", Tool{Name: "t", InputSchema: obj, Scenarios: many(MaxScenarios + 1)}, []string{"mock_scenarios"}},
		{"unknown operator", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", `{"field":"a","operator":"like","value":"x"}`, resp)}},
			[]string{"mock_scenarios[0].condition.operator"}},
		{"bad regex", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", `{"field":"a","operator":"matches","value":"a(b"}`, resp)}},
			[]string{"mock_scenarios[0].condition.value"}},
		{"gt with a string", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", `{"field":"a","operator":"gt","value":"3"}`, resp)}},
			[]string{"mock_scenarios[0].condition.value"}},
		{"gt without a value", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", `{"field":"a","operator":"gt"}`, resp)}},
			[]string{"mock_scenarios[0].condition.value"}},
		{"equals without a value", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", `{"field":"a","operator":"equals"}`, resp)}},
			[]string{"mock_scenarios[0].condition.value"}},
		{"exists with a value", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", `{"field":"a","operator":"exists","value":1}`, resp)}},
			[]string{"mock_scenarios[0].condition.value"}},
		{"in with an object", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", `{"field":"a","operator":"in","value":{}}`, resp)}},
			[]string{"mock_scenarios[0].condition.value"}},
		{"empty field", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", `{"field":"","operator":"exists"}`, resp)}},
			[]string{"mock_scenarios[0].condition.field"}},
		{"condition an array", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", `[1]`, resp)}},
			[]string{"mock_scenarios[0].condition"}},
		{"blank scenario name", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc(" ", "", resp)}},
			[]string{"mock_scenarios[0].name"}},
		{"response an array", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", "", json.RawMessage(`[{}]`))}},
			[]string{"mock_scenarios[0].response"}},
		{"response a string", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", "", json.RawMessage(`"{}"`))}},
			[]string{"mock_scenarios[0].response"}},
		{"response null", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", "", json.RawMessage(`null`))}},
			[]string{"mock_scenarios[0].response"}},
		{"response missing", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", "", nil)}},
			[]string{"mock_scenarios[0].response"}},
		{"NUL in name and description", Tool{Name: "a\x00", Description: "\x00", InputSchema: obj}, []string{"name", "description"}},
		{"NUL escaped in the schemas", Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","title":"\u0000"}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"a\u0000":{}}}`)}, []string{"input_schema", "output_schema"}},
		{"escaped backslash before u0000 is text", Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object","title":"\\u0000"}`),
			Scenarios: []Scenario{sc("s", `{"a":"\\u0000"}`, json.RawMessage(`{"b":"\\u0000"}`))}}, nil},
		{"NUL in a scenario", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{
			sc("\x00", `{"field":"a","operator":"equals","value":"\u0000"}`, json.RawMessage(`{"b":["\u0000"]}`))}},
			[]string{"mock_scenarios[0].name", "mock_scenarios[0].condition", "mock_scenarios[0].response"}},
		{"response not JSON", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("s", "", json.RawMessage(`{"a":`))}},
			[]string{"mock_scenarios[0].response"}},
		{"result with structuredContent", Tool{Name: "t", InputSchema: obj, OutputSchema: json.RawMessage(`{"type":"object","required":["t"]}`),
			Scenarios: []Scenario{{Name: "r", Result: json.RawMessage(`{"content":[],"structuredContent":{"t":1}}`)}}}, nil},
		{"error, sequence and notifications", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{
			{Name: "e", Error: &mockspec.RPCError{Code: -32603, Message: "Down", Data: json.RawMessage(`{"x":1}`)}, DelayMS: 100},
			{Name: "s", Sequence: &mockspec.Sequence{Steps: []mockspec.Step{{Response: resp}, {Error: &mockspec.RPCError{Code: 1, Message: "m"}}}, Then: mockspec.ThenCycle},
				Notifications: []mockspec.Notification{{Type: "log", Level: "info", Data: json.RawMessage(`"hi"`), Logger: "l"}}},
		}}, nil},
		{"result without structuredContent for an output schema", Tool{Name: "t", InputSchema: obj, OutputSchema: json.RawMessage(`{"type":"object"}`),
			Scenarios: []Scenario{{Name: "r", Result: json.RawMessage(`{"content":[{"type":"text","text":"x"}]}`)}}},
			[]string{"mock_scenarios[0].result.structuredContent"}},
		{"structuredContent against the output schema", Tool{Name: "t", InputSchema: obj, OutputSchema: json.RawMessage(`{"type":"object","properties":{"t":{"type":"number"}}}`),
			Scenarios: []Scenario{{Name: "r", Result: json.RawMessage(`{"content":[],"structuredContent":{"t":"warm"}}`)}}},
			[]string{"mock_scenarios[0].result.structuredContent.t"}},
		{"results are not held to an output schema that does not compile", Tool{Name: "t", InputSchema: obj, OutputSchema: json.RawMessage(`{"type":"object","required":"t"}`),
			Scenarios: []Scenario{{Name: "r", Result: json.RawMessage(`{"content":[{"type":"text","text":"x"}]}`)}}},
			[]string{"output_schema.required"}},
		{"bad base64 in a sequence step", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{{Name: "s", Sequence: &mockspec.Sequence{Steps: []mockspec.Step{
			{Response: resp}, {Result: json.RawMessage(`{"content":[{"type":"image","data":"%%","mimeType":"image/png"}]}`)}}}}}},
			[]string{"mock_scenarios[0].sequence.steps[1].result.content[0].data"}},
		{"two answers", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{{Name: "s", Response: resp, Error: &mockspec.RPCError{Code: 1, Message: "m"}}}},
			[]string{"mock_scenarios[0].error"}},
		{"a wait too long", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{sc("fine", "", resp), {Name: "slow", Response: resp, DelayMS: 20001,
			Notifications: []mockspec.Notification{{Type: "progress", Progress: new(float64), DelayMS: 10000}}}}},
			[]string{"mock_scenarios[1].delay_ms"}},
		{"NUL in the answers", Tool{Name: "t", InputSchema: obj, Scenarios: []Scenario{
			{Name: "r", Result: json.RawMessage(`{"content":[{"type":"text","text":"\u0000"}]}`)},
			{Name: "e", Error: &mockspec.RPCError{Code: 1, Message: "\x00", Data: json.RawMessage(`["\u0000"]`)}},
			{Name: "s", Sequence: &mockspec.Sequence{Steps: []mockspec.Step{{Response: json.RawMessage(`{"a":"\u0000"}`)}}},
				Notifications: []mockspec.Notification{{Type: "log", Level: "info", Logger: "\x00", Data: json.RawMessage(`"\u0000"`)}, {Type: "progress", Progress: new(float64), Message: "\x00"}}},
		}}, []string{"mock_scenarios[0].result", "mock_scenarios[1].error.message", "mock_scenarios[1].error.data",
			"mock_scenarios[2].sequence.steps[0].response", "mock_scenarios[2].notifications[0].logger", "mock_scenarios[2].notifications[0].data",
			"mock_scenarios[2].notifications[1].message"}},
		{"everything at once, in order", Tool{Name: "t",
			InputSchema:  json.RawMessage(`{"type":"integer"}`),
			OutputSchema: json.RawMessage(`{"type":"string"}`),
			Scenarios: []Scenario{
				sc("fine", "", resp),
				sc("", `{"field":"a","operator":"nope"}`, json.RawMessage(`1`)),
				sc("s", `{"field":"a","operator":"lt","value":[]}`, resp),
			},
		}, []string{"input_schema", "output_schema", "mock_scenarios[1].name", "mock_scenarios[1].condition.operator",
			"mock_scenarios[1].response", "mock_scenarios[2].condition.value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.fields, fieldsOf(t, CheckTool(tc.tool)))
		})
	}
}

func TestCheckResource(t *testing.T) {
	text := json.RawMessage(`"hello"`)
	for _, tc := range []struct {
		name     string
		resource Resource
		fields   []string
	}{
		{"text", Resource{Name: "r", URI: "docs://guide", Content: text}, nil},
		{"JSON object", Resource{Name: "r", URI: "docs://guide", Content: json.RawMessage(`{"a":1}`)}, nil},
		{"JSON false", Resource{Name: "r", URI: "docs://guide", Content: json.RawMessage(`false`)}, nil},
		{"empty string", Resource{Name: "r", URI: "docs://guide", Content: json.RawMessage(`""`)}, nil},
		{"template", Resource{Name: "r", URI: "weather://{city}/now", Content: text}, nil},
		{"media type", Resource{Name: "r", URI: "docs://guide", MimeType: ptr("text/markdown"), Content: text}, nil},
		{"media type with parameters", Resource{Name: "r", URI: "docs://guide", MimeType: ptr("text/plain; charset=utf-8"), Content: text}, nil},
		{"vendor media type", Resource{Name: "r", URI: "docs://guide", MimeType: ptr("application/vnd.acme+json"), Content: text}, nil},
		{"empty media type is none", Resource{Name: "r", URI: "docs://guide", MimeType: ptr(""), Content: text}, nil},

		{"blob", Resource{Name: "r", URI: "docs://logo.png", Binary: true, Content: json.RawMessage(`"iVBORw0KGgo="`)}, nil},
		{"empty blob", Resource{Name: "r", URI: "docs://empty", Binary: true, Content: json.RawMessage(`""`)}, nil},
		{"blob on a template", Resource{Name: "r", URI: "img://{name}.png", Binary: true, Content: json.RawMessage(`"iVBORw0KGgo="`)}, nil},
		{"completions of template parameters", Resource{Name: "r", URI: "weather://{city}/{day}", Content: text,
			Completions: map[string][]string{"city": {"Paris", "Oslo"}, "day": values(MaxCompletions)}}, nil},
		{"empty completions on a plain URI", Resource{Name: "r", URI: "docs://guide", Content: text, Completions: map[string][]string{}}, nil},

		{"blob not base64", Resource{Name: "r", URI: "docs://logo.png", Binary: true, Content: json.RawMessage(`"not base64"`)}, []string{"blob"}},
		{"blob URL-safe", Resource{Name: "r", URI: "docs://logo.png", Binary: true, Content: json.RawMessage(`"-_-_"`)}, []string{"blob"}},
		{"blob not a string", Resource{Name: "r", URI: "docs://logo.png", Binary: true, Content: json.RawMessage(`{"a":1}`)}, []string{"blob"}},
		{"blob null", Resource{Name: "r", URI: "docs://logo.png", Binary: true, Content: json.RawMessage(`null`)}, []string{"blob"}},
		{"completions of no parameter", Resource{Name: "r", URI: "weather://{city}/now", Content: text,
			Completions: map[string][]string{"town": {"Paris"}, "city": {"Oslo"}, "country": {"FR"}}}, []string{"completions.country", "completions.town"}},
		{"completions on a plain URI", Resource{Name: "r", URI: "docs://guide", Content: text, Completions: map[string][]string{"x": {"a"}}}, []string{"completions"}},
		{"too many completions", Resource{Name: "r", URI: "weather://{city}", Content: text, Completions: map[string][]string{"city": values(MaxCompletions + 1)}},
			[]string{"completions.city"}},
		{"NUL in a completion", Resource{Name: "r", URI: "weather://{city}", Content: text, Completions: map[string][]string{"city": {"ok", "a\x00"}}},
			[]string{"completions.city[1]"}},
		{"content missing", Resource{Name: "r", URI: "docs://guide"}, []string{"content"}},
		{"content null", Resource{Name: "r", URI: "docs://guide", Content: json.RawMessage(`null`)}, []string{"content"}},
		{"content null with spaces", Resource{Name: "r", URI: "docs://guide", Content: json.RawMessage(" null\n")}, []string{"content"}},
		{"content blank", Resource{Name: "r", URI: "docs://guide", Content: json.RawMessage("  ")}, []string{"content"}},
		{"media type without subtype", Resource{Name: "r", URI: "docs://guide", MimeType: ptr("text"), Content: text}, []string{"mime_type"}},
		{"media type with an empty subtype", Resource{Name: "r", URI: "docs://guide", MimeType: ptr("text/"), Content: text}, []string{"mime_type"}},
		{"media type with spaces", Resource{Name: "r", URI: "docs://guide", MimeType: ptr("text / plain"), Content: text}, []string{"mime_type"}},
		{"media type with a bad parameter", Resource{Name: "r", URI: "docs://guide", MimeType: ptr("text/plain; charset"), Content: text}, []string{"mime_type"}},
		{"uri without scheme", Resource{Name: "r", URI: "guide", Content: text}, []string{"uri"}},
		{"NUL in content", Resource{Name: "r", URI: "docs://guide", Content: json.RawMessage(`{"a":[{"b":"x\u0000"}]}`)}, []string{"content"}},
		{"NUL in every text", Resource{Name: "\x00", Description: "\x00", URI: "docs://\x00", MimeType: ptr("text/plain\x00"), Content: text},
			[]string{"uri", "mime_type", "name", "description"}},
		{"everything at once, in order", Resource{Name: "r", URI: "a://{x}/{x}", MimeType: ptr("nope"), Content: json.RawMessage(`null`)},
			[]string{"uri", "mime_type", "content"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.fields, fieldsOf(t, CheckResource(tc.resource)))
		})
	}
}

func TestURIProblem(t *testing.T) {
	for _, tc := range []struct {
		uri, want string // want: a fragment of the problem, "" when valid
	}{
		{"docs://guide", ""},
		{"weather://{city}/now", ""},
		{"weather://{city}/{day}", ""},
		{"weather://{_c1}", ""},
		{"file:///tmp/x", ""},
		{"urn:isbn:0451450523", ""},
		{"mailto:a@b.c", ""},
		{"https://example.com/a?b=c#d", ""},
		{"x+y.z-w://a", ""},
		{"no-scheme", "absolute URI"},
		{"", "absolute URI"},
		{"/abs/path", "absolute URI"},
		{"1abc://x", "absolute URI"},
		{"://x", "absolute URI"},
		{"docs://my guide", "white space"},
		{"docs://guide\n", "white space"},
		{"weather://{ci ty}", "white space"},
		{"a://{x}/{x}", "appears twice"},
		{"a://{x}/{y}/{x}", "appears twice"},
		{"weather://{city", "unbalanced"},
		{"weather://city}", "unbalanced"},
		{"weather://{{city}}", "unbalanced"},
		{"weather://{}", "template parameter {}"},
		{"weather://{1city}", "template parameter {1city}"},
		{"weather://{the-city}", "template parameter {the-city}"},
		{"weather://{city.name}", "template parameter {city.name}"},
		{"docs://guide%zz", "not a valid URI"},
	} {
		t.Run(tc.uri, func(t *testing.T) {
			got := uriProblem(tc.uri)
			if tc.want == "" {
				require.Empty(t, got)
				return
			}
			require.Contains(t, got, tc.want)
		})
	}
}

func TestIsTemplate(t *testing.T) {
	for uri, want := range map[string]bool{
		"weather://{city}/now": true,
		"a://{x}":              true,
		"docs://guide":         false,
		"weather://{city":      false,
		"weather://{}":         true, // braces, though not a valid template
	} {
		require.Equal(t, want, IsTemplate(uri), uri)
	}
}

func TestCheckPrompt(t *testing.T) {
	args := func(names ...string) []PromptArgument {
		out := make([]PromptArgument, len(names))
		for i, n := range names {
			out[i] = PromptArgument{Name: n}
		}
		return out
	}
	msgs := func(pairs ...string) []PromptMessage {
		var out []PromptMessage
		for i := 0; i+1 < len(pairs); i += 2 {
			out = append(out, PromptMessage{Role: pairs[i], Text: pairs[i+1]})
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		prompt Prompt
		fields []string
	}{
		{"empty", Prompt{Name: "p"}, nil},
		{"every role", Prompt{Name: "p", Messages: msgs("user", "a", "assistant", "b", "system", "c")}, nil},
		{"placeholders", Prompt{Name: "p", Arguments: args("city", "days"),
			Messages: msgs("user", "{{city}} {{ days }} {{city}}", "assistant", "{single} {{ }x")}, nil},
		{"argument unused", Prompt{Name: "p", Arguments: args("city"), Messages: msgs("user", "no placeholders")}, nil},
		{"content messages", Prompt{Name: "p", Arguments: args("topic", "page"), Messages: []PromptMessage{
			{Role: "user", Content: json.RawMessage(`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"}`)},
			{Role: "user", Content: json.RawMessage(`{"type":"resource","resource":{"uri":"docs://{{topic}}/{{ page }}","text":"About {{topic}}"}}`)},
			{Role: "assistant", Content: json.RawMessage(`{"type":"resource_link","uri":"docs://{{topic}}","name":"{{topic}}"}`)},
			{Role: "user", Content: json.RawMessage(`{"type":"text","text":"{{page}}"}`)},
			{Role: "user", Text: "plain"},
		}}, nil},
		{"argument completions", Prompt{Name: "p", Arguments: []PromptArgument{{Name: "a", Completions: values(MaxCompletions)}}}, nil},
		{"text and content", Prompt{Name: "p", Messages: []PromptMessage{{Role: "user", Text: "x", Content: json.RawMessage(`{"type":"text","text":"x"}`)}}},
			[]string{"messages[0]"}},
		{"neither text nor content", Prompt{Name: "p", Messages: []PromptMessage{{Role: "user"}}}, []string{"messages[0]"}},
		{"content null", Prompt{Name: "p", Messages: []PromptMessage{{Role: "user", Content: json.RawMessage(`null`)}}}, []string{"messages[0]"}},
		{"bad image", Prompt{Name: "p", Messages: []PromptMessage{{Role: "user", Content: json.RawMessage(`{"type":"image","data":"@","mimeType":"image/png"}`)}}},
			[]string{"messages[0].content.data"}},
		{"content not a block", Prompt{Name: "p", Messages: []PromptMessage{{Role: "user", Content: json.RawMessage(`"hi"`)}}},
			[]string{"messages[0].content"}},
		{"undeclared placeholders in content", Prompt{Name: "p", Arguments: args("topic"), Messages: []PromptMessage{
			{Role: "user", Content: json.RawMessage(`{"type":"resource","resource":{"uri":"docs://{{topic}}/{{page}}","text":"{{who}}"}}`)},
			{Role: "user", Content: json.RawMessage(`{"type":"resource_link","uri":"docs://{{Topic}}","name":"n"}`)},
		}}, []string{"messages[0].content.resource.text", "messages[0].content.resource.uri", "messages[1].content.uri"}},
		{"too many argument completions", Prompt{Name: "p", Arguments: []PromptArgument{{Name: "a", Completions: values(MaxCompletions + 1)}}},
			[]string{"arguments[0].completions"}},
		{"NUL in content and completions", Prompt{Name: "p", Arguments: []PromptArgument{{Name: "a", Completions: []string{"\x00"}}},
			Messages: []PromptMessage{{Role: "user", Content: json.RawMessage(`{"type":"text","text":"\u0000"}`)}}},
			[]string{"arguments[0].completions[0]", "messages[0].content"}},
		{"duplicate argument", Prompt{Name: "p", Arguments: args("city", "city")}, []string{"arguments[1].name"}},
		{"duplicate after trimming", Prompt{Name: "p", Arguments: args("a", "b", " a")}, []string{"arguments[2].name"}},
		{"three of one name", Prompt{Name: "p", Arguments: args("a", "a", "a")}, []string{"arguments[1].name", "arguments[2].name"}},
		{"blank argument", Prompt{Name: "p", Arguments: args("  ")}, []string{"arguments[0].name"}},
		{"undeclared placeholder", Prompt{Name: "p", Messages: msgs("user", "Hi {{who}}")}, []string{"messages[0].text"}},
		{"placeholders are case-sensitive", Prompt{Name: "p", Arguments: args("who"), Messages: msgs("user", "{{Who}}")}, []string{"messages[0].text"}},
		{"empty placeholder", Prompt{Name: "p", Messages: msgs("user", "{{}}")}, []string{"messages[0].text"}},
		{"bad role", Prompt{Name: "p", Messages: msgs("tool", "x")}, []string{"messages[0].role"}},
		{"role in capitals", Prompt{Name: "p", Messages: msgs("USER", "x")}, []string{"messages[0].role"}},
		{"NUL in every text", Prompt{Name: "\x00", Description: "\x00",
			Arguments: []PromptArgument{{Name: "a\x00", Description: "\x00"}}, Messages: msgs("user", "\x00")},
			[]string{"name", "description", "arguments[0].name", "arguments[0].description", "messages[0].text"}},
		{"everything at once, in order", Prompt{Name: "p", Arguments: args("a", "a"),
			Messages: msgs("user", "{{a}}", "bot", "{{b}} {{c}}")},
			[]string{"arguments[1].name", "messages[1].role", "messages[1].text", "messages[1].text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.fields, fieldsOf(t, CheckPrompt(tc.prompt)))
		})
	}
}

func TestLimit(t *testing.T) {
	err := Limit("tools", MaxTools)
	require.Equal(t, []string{"tools"}, fieldsOf(t, err))
	f, _ := failure.As(err)
	require.Contains(t, f.Fields[0].Message, "1000")
	require.True(t, failure.Is(err, failure.ErrInvalid))
	require.Equal(t, 1000, MaxTools)
	require.Equal(t, 1000, MaxResources)
	require.Equal(t, 1000, MaxPrompts)
	require.Equal(t, 200, MaxScenarios)
	require.JSONEq(t, `{"type":"object"}`, string(DefaultInputSchema))
	require.False(t, strings.Contains(f.Fields[0].Message, "%!"), f.Fields[0].Message)
}

// TestCheckLengths checks the limits the OpenAPI document also states, at
// the limit and one past it, counted in characters.
func TestCheckLengths(t *testing.T) {
	long := func(n int) string { return strings.Repeat("é", n) }
	tool := func(name, desc string) Tool {
		return Tool{Name: name, Description: desc, InputSchema: DefaultInputSchema}
	}
	res := func(r Resource) Resource {
		if r.Name == "" {
			r.Name = "r"
		}
		if r.URI == "" {
			r.URI = "docs://guide"
		}
		if r.Content == nil && !r.Binary {
			r.Content = json.RawMessage(`"x"`)
		}
		return r
	}
	prompt := func(p Prompt) Prompt {
		if p.Name == "" {
			p.Name = "p"
		}
		return p
	}
	args := func(n int) []PromptArgument {
		out := make([]PromptArgument, n)
		for i := range out {
			out[i] = PromptArgument{Name: fmt.Sprintf("a%d", i)}
		}
		return out
	}
	msgs := func(n int) []PromptMessage {
		out := make([]PromptMessage, n)
		for i := range out {
			out[i] = PromptMessage{Role: "user", Text: "hi"}
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		err    error
		fields []string
	}{
		{"server name at the limit", CheckServer(Server{Name: long(MaxName)}), nil},
		{"server name over", CheckServer(Server{Name: long(MaxName + 1)}), []string{"name"}},
		{"server description over", CheckServer(Server{Name: "W", Description: long(MaxDescription + 1)}), []string{"description"}},
		{"server version over", CheckServer(Server{Name: "W", Version: long(MaxVersion + 1)}), []string{"version"}},
		{"provider name over", CheckServer(Server{Name: "W", ProviderName: ptr(long(MaxProviderName + 1))}), []string{"provider_name"}},
		{"provider URL over", CheckServer(Server{Name: "W", ProviderURL: ptr("https://a.example/" + strings.Repeat("x", MaxProviderURL))}), []string{"provider_url"}},
		{"known type and mode", CheckServer(Server{Name: "W", Type: "openapi", AuthMode: "api_key"}), nil},
		{"unknown type and mode", CheckServer(Server{Name: "W", Type: "proxy", AuthMode: "oauth2"}), []string{"type", "auth_mode"}},

		{"tool name at the limit", CheckTool(tool(strings.Repeat("a", MaxToolName), "")), nil},
		{"tool name over", CheckTool(tool(strings.Repeat("a", MaxToolName+1), "")), []string{"name"}},
		{"tool name empty", CheckTool(tool("", "")), []string{"name"}},
		{"tool name with a space", CheckTool(tool("get weather", "")), []string{"name"}},
		{"tool name with dots and dashes", CheckTool(tool("a.b-c_D9", "")), nil},
		{"tool description at the limit", CheckTool(tool("t", long(MaxDescription))), nil},
		{"tool description over", CheckTool(tool("t", long(MaxDescription+1))), []string{"description"}},
		{"scenario name over", CheckTool(Tool{Name: "t", InputSchema: DefaultInputSchema, Scenarios: []Scenario{
			{Name: long(MaxName + 1), Response: json.RawMessage(`{}`)}}}), []string{"mock_scenarios[0].name"}},

		{"resource name empty", CheckResource(Resource{URI: "docs://guide", Content: json.RawMessage(`"x"`)}), []string{"name"}},
		{"resource name over", CheckResource(res(Resource{Name: long(MaxName + 1)})), []string{"name"}},
		{"resource URI over", CheckResource(res(Resource{URI: "docs://" + strings.Repeat("g", MaxURI)})), []string{"uri"}},
		{"resource description over", CheckResource(res(Resource{Description: long(MaxDescription + 1)})), []string{"description"}},
		{"media type over", CheckResource(res(Resource{MimeType: ptr("text/" + strings.Repeat("x", MaxMimeType))})), []string{"mime_type"}},
		{"blob over", CheckResource(res(Resource{Binary: true, Content: json.RawMessage(`"` + strings.Repeat("A", MaxBlob+4) + `"`)})), []string{"blob"}},
		{"completion value over", CheckResource(res(Resource{URI: "w://{city}", Completions: map[string][]string{"city": {long(MaxCompletion + 1)}}})),
			[]string{"completions.city[0]"}},

		{"prompt name empty", CheckPrompt(Prompt{}), []string{"name"}},
		{"prompt name over", CheckPrompt(prompt(Prompt{Name: long(MaxName + 1)})), []string{"name"}},
		{"prompt description over", CheckPrompt(prompt(Prompt{Description: long(MaxDescription + 1)})), []string{"description"}},
		{"arguments at the limit", CheckPrompt(prompt(Prompt{Arguments: args(MaxPromptArguments)})), nil},
		{"arguments over", CheckPrompt(prompt(Prompt{Arguments: args(MaxPromptArguments + 1)})), []string{"arguments"}},
		{"messages at the limit", CheckPrompt(prompt(Prompt{Messages: msgs(MaxPromptMessages)})), nil},
		{"messages over", CheckPrompt(prompt(Prompt{Messages: msgs(MaxPromptMessages + 1)})), []string{"messages"}},
		{"argument name over", CheckPrompt(prompt(Prompt{Arguments: []PromptArgument{{Name: long(MaxName + 1)}}})), []string{"arguments[0].name"}},
		{"argument description over", CheckPrompt(prompt(Prompt{Arguments: []PromptArgument{{Name: "a", Description: long(MaxArgumentDescription + 1)}}})),
			[]string{"arguments[0].description"}},
		{"argument completion over", CheckPrompt(prompt(Prompt{Arguments: []PromptArgument{{Name: "a", Completions: []string{long(MaxCompletion + 1)}}}})),
			[]string{"arguments[0].completions[0]"}},
		{"message text at the limit", CheckPrompt(prompt(Prompt{Messages: []PromptMessage{{Role: "user", Text: long(MaxPromptText)}}})), nil},
		{"message text over", CheckPrompt(prompt(Prompt{Messages: []PromptMessage{{Role: "user", Text: long(MaxPromptText + 1)}}})), []string{"messages[0].text"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.fields, fieldsOf(t, tc.err))
		})
	}
}

func TestCheckDesign(t *testing.T) {
	tool := func(name string) Tool { return Tool{Name: name, InputSchema: DefaultInputSchema} }
	tools := func(n int) []Tool {
		out := make([]Tool, n)
		for i := range out {
			out[i] = tool(fmt.Sprintf("t%d", i))
		}
		return out
	}
	text := json.RawMessage(`"x"`)
	for _, tc := range []struct {
		name   string
		d      Design
		fields []string
	}{
		{"a whole design", Design{Server: Server{Name: "W"}, Tools: []Tool{tool("a"), tool("b")},
			Resources: []Resource{{Name: "r", URI: "docs://a", Content: text}},
			Prompts:   []Prompt{{Name: "p"}}}, nil},
		{"exactly the tool limit", Design{Server: Server{Name: "W"}, Tools: tools(MaxTools)}, nil},
		{"one over the tool limit", Design{Server: Server{Name: "W"}, Tools: tools(MaxTools + 1)}, []string{"tools"}},
		{"parts named by index", Design{Server: Server{Name: ""}, Tools: []Tool{tool("a"), tool("bad name")},
			Resources: []Resource{{Name: "r", URI: "no scheme", Content: text}},
			Prompts:   []Prompt{{Name: "p", Messages: []PromptMessage{{Role: "robot", Text: "x"}}}}},
			[]string{"name", "tools[1].name", "resources[0].uri", "prompts[0].messages[0].role"}},
		{"names and URIs twice", Design{Server: Server{Name: "W"}, Tools: []Tool{tool("a"), tool("a")},
			Resources: []Resource{{Name: "r", URI: "docs://a", Content: text}, {Name: "s", URI: "docs://a", Content: text}},
			Prompts:   []Prompt{{Name: "p"}, {Name: "p"}}},
			[]string{"tools[1].name", "resources[1].uri", "prompts[1].name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.fields, fieldsOf(t, CheckDesign(tc.d)))
		})
	}
}
