package testgen

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/resttest"
)

const weatherSchema = `{"type":"object","properties":{
	"city":{"type":"string"},
	"days":{"type":"integer","minimum":1},
	"tags":{"type":"array","items":{"type":"string"}},
	"zip":{"type":"string","pattern":"^[0-9]{5}$"},
	"address":{"type":"object","properties":{"country":{"type":"string"}}}},
	"required":["city","days"]}`

type sc struct{ name, cond, resp string }

func makeTool(name, inputSchema string, scenarios ...sc) design.Tool {
	t := design.Tool{
		ID:          uuid.MustParse("11111111-1111-4111-8111-111111111111"),
		ServerID:    uuid.MustParse("22222222-2222-4222-8222-222222222222"),
		Name:        name,
		InputSchema: json.RawMessage(inputSchema),
	}
	for _, s := range scenarios {
		resp := s.resp
		if resp == "" {
			resp = `{"scenario":` + strconv.Quote(s.name) + `}`
		}
		var cond json.RawMessage
		if s.cond != "" {
			cond = json.RawMessage(s.cond)
		}
		t.Scenarios = append(t.Scenarios, design.Scenario{Name: s.name, Condition: cond, Response: json.RawMessage(resp)})
	}
	return t
}

func weatherTool() design.Tool {
	return makeTool("get_weather", weatherSchema,
		sc{name: "paris", cond: `{"city":"Paris"}`},
		sc{name: "long stay", cond: `{"field":"days","operator":"gt","value":7}`},
		sc{name: "london-ish", cond: `{"field":"city","operator":"matches","value":"^Lon"}`},
		sc{name: "storm", cond: `{"field":"tags","operator":"contains","value":"storm"}`},
		sc{name: "norway", cond: `{"address.country":"NO"}`},
		sc{name: "by zip", cond: `{"field":"zip","operator":"exists"}`},
		sc{name: "rome or oslo", cond: `{"field":"city","operator":"in","value":["Rome","Oslo"]}`},
		sc{name: "burg", cond: `{"field":"city","operator":"ends_with","value":"burg"}`},
		sc{name: "not berlin", cond: `{"field":"city","operator":"not_equals","value":"Berlin"}`},
		sc{name: "short stay", cond: `{"field":"days","operator":"lte","value":3}`},
		sc{name: "north", cond: `{"field":"address.country","operator":"starts_with","value":"N"}`},
		sc{name: "fallback", cond: `{}`},
	)
}

// invokedScenario runs args through tools/call's own logic and returns the
// scenario it picks.
func invokedScenario(t *testing.T, tool design.Tool, args map[string]any) string {
	t.Helper()
	inv, vs, err := mcpserve.Invoke(tool, args)
	require.NoError(t, err)
	require.Empty(t, vs, "arguments %v break the input schema", args)
	return inv.Scenario
}

// bodyArguments decodes the arguments of a generated case's request body
// as the endpoint does.
func bodyArguments(t *testing.T, c resttest.Case) map[string]any {
	t.Helper()
	var req struct {
		Params struct {
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(c.Input.Body, &req))
	return req.Params.Arguments
}

func requireEveryScenarioReached(t *testing.T, tool design.Tool) {
	t.Helper()
	gens := FromTool("http://localhost:8080", tool)
	require.Len(t, gens, len(tool.Scenarios))
	for i, s := range tool.Scenarios {
		args, ok := Arguments(tool, i)
		require.True(t, ok, "scenario %q: arguments %v", s.Name, args)
		require.Equal(t, s.Name, invokedScenario(t, tool, args), "scenario %q: arguments %v", s.Name, args)

		g := gens[i]
		require.Equal(t, s.Name, g.Scenario)
		require.Empty(t, g.Warning, "scenario %q", s.Name)
		// The body as sent, decoded as the endpoint decodes it, reaches the
		// scenario too.
		require.Equal(t, s.Name, invokedScenario(t, tool, bodyArguments(t, g.Case)), "scenario %q", s.Name)
	}
}

func TestArgumentsReachEveryScenario(t *testing.T) {
	tool := weatherTool()
	requireEveryScenarioReached(t, tool)

	t.Run("steering", func(t *testing.T) {
		byName := map[string]map[string]any{}
		for i, s := range tool.Scenarios {
			args, ok := Arguments(tool, i)
			require.True(t, ok)
			byName[s.Name] = args
		}
		require.NotEqual(t, "Paris", byName["long stay"]["city"])
		require.Greater(t, byName["long stay"]["days"], 7.0)
		require.Equal(t, []any{"storm"}, byName["storm"]["tags"])
		require.Equal(t, map[string]any{"country": "NO"}, byName["norway"]["address"])
		require.Regexp(t, `^[0-9]{5}$`, byName["by zip"]["zip"])
		require.Equal(t, "Rome", byName["rome or oslo"]["city"])
		// After "not berlin", only Berlin gets through; after "short stay",
		// only more than 3 days.
		require.Equal(t, "Berlin", byName["short stay"]["city"])
		require.Equal(t, "Berlin", byName["north"]["city"])
		require.Greater(t, byName["north"]["days"], 3.0)
		require.Equal(t, "Berlin", byName["fallback"]["city"])
		require.Greater(t, byName["fallback"]["days"], 7.0-4) // > 3, not > 7
		require.LessOrEqual(t, byName["fallback"]["days"], 7.0)
		require.NotContains(t, byName["fallback"], "zip")
		require.NotContains(t, byName["fallback"], "address")
	})
}

func TestArgumentsSchemaFeatures(t *testing.T) {
	cases := []struct {
		name   string
		schema string
		scens  []sc
	}{
		{
			name: "refs, combinators, formats and bounds",
			schema: `{"type":"object","additionalProperties":false,
				"$defs":{"addr":{"type":"object","properties":{
					"street":{"type":"string","minLength":12},
					"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["street","zip"]}},
				"properties":{
					"address":{"$ref":"#/$defs/addr"},
					"unit":{"enum":["c","f"]},
					"kind":{"const":"weather"},
					"email":{"type":"string","format":"email"},
					"when":{"type":"string","format":"date-time"},
					"limit":{"type":["integer","null"],"exclusiveMinimum":10,"maximum":100},
					"ratio":{"type":"number","minimum":0.5},
					"ids":{"type":"array","items":{"type":"integer"},"minItems":2},
					"mode":{"anyOf":[{"type":"string","maxLength":4},{"type":"null"}]},
					"extra":{"allOf":[
						{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},
						{"properties":{"b":{"type":"boolean"}},"required":["b"]}]}},
				"required":["address","unit","kind","email","when","limit","ratio","ids","mode","extra"]}`,
			scens: []sc{
				{name: "zip", cond: `{"address.zip":"12345"}`},
				{name: "big limit", cond: `{"field":"limit","operator":"gte","value":50}`},
				{name: "low ratio", cond: `{"field":"ratio","operator":"lt","value":0.75}`},
				{name: "first id", cond: `{"ids[0]":7}`},
				{name: "second id", cond: `{"field":"ids.1","operator":"gt","value":3.5}`},
				{name: "fahrenheit", cond: `{"field":"unit","operator":"equals","value":"f"}`},
				{name: "corp", cond: `{"field":"email","operator":"ends_with","value":"@corp.example"}`},
				{name: "no mode", cond: `{"field":"mode","operator":"not_exists"}`},
				{name: "extra b", cond: `{"extra.b":true}`},
				{name: "street", cond: `{"field":"address.street","operator":"matches","value":"^[A-Z][a-z]+ (Road|Street)$"}`},
				{name: "fallback"},
			},
		},
		{
			name: "definitions, optional fields and not_exists",
			schema: `{"type":"object","definitions":{"tag":{"type":"string","minLength":2}},
				"properties":{
					"q":{"type":"string"},
					"note":{"type":"string"},
					"tags":{"type":"array","items":{"$ref":"#/definitions/tag"},"uniqueItems":true},
					"page":{"type":"integer"},
					"filter":{"type":"object","properties":{"lang":{"type":"string"}},"required":["lang"]}},
				"required":["q"]}`,
			scens: []sc{
				{name: "no q", cond: `{"field":"q","operator":"equals","value":""}`},
				{name: "stormy note", cond: `{"field":"note","operator":"contains","value":"storm"}`},
				{name: "page in", cond: `{"field":"page","operator":"in","value":[2,3]}`},
				{name: "object filter", cond: `{"filter":{"lang":"en"}}`},
				{name: "tagged", cond: `{"field":"tags","operator":"contains","value":"go"}`},
				{name: "lang", cond: `{"field":"filter.lang","operator":"exists"}`},
				{name: "no note", cond: `{"field":"note","operator":"not_exists"}`},
				{name: "fallback"},
			},
		},
		{
			name:   "not_equals on an optional field first",
			schema: `{"type":"object","properties":{"mode":{"type":"string"},"n":{"type":"number"}}}`,
			scens: []sc{
				{name: "not fast", cond: `{"field":"mode","operator":"not_equals","value":"fast"}`},
				{name: "big", cond: `{"field":"n","operator":"gte","value":10}`},
				{name: "fallback", cond: `null`},
			},
		},
		{
			name:   "literal dotted property",
			schema: `{"type":"object","properties":{"a.b":{"type":"string"}},"required":["a.b"]}`,
			scens: []sc{
				{name: "dotted", cond: `{"a.b":"x"}`},
				{name: "fallback"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			requireEveryScenarioReached(t, makeTool("tool", tc.schema, tc.scens...))
		})
	}
}

func TestUnreachableScenarios(t *testing.T) {
	cases := []struct {
		name        string
		schema      string
		scens       []sc
		unreachable []string
	}{
		{
			name:        "same condition twice",
			schema:      weatherSchema,
			scens:       []sc{{name: "paris", cond: `{"city":"Paris"}`}, {name: "paris again", cond: `{"city":"Paris"}`}, {name: "fallback"}},
			unreachable: []string{"paris again"},
		},
		{
			name:        "after a fallback",
			schema:      weatherSchema,
			scens:       []sc{{name: "fallback"}, {name: "paris", cond: `{"city":"Paris"}`}},
			unreachable: []string{"paris"},
		},
		{
			name:        "a required field absent",
			schema:      weatherSchema,
			scens:       []sc{{name: "no city", cond: `{"field":"city","operator":"not_exists"}`}, {name: "fallback"}},
			unreachable: []string{"no city"},
		},
		{
			name:        "a value the schema refuses",
			schema:      weatherSchema,
			scens:       []sc{{name: "no days", cond: `{"field":"days","operator":"lt","value":1}`}, {name: "fallback"}},
			unreachable: []string{"no days"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tool := makeTool("get_weather", tc.schema, tc.scens...)
			gens := FromTool("http://localhost:8080", tool)
			for i, s := range tool.Scenarios {
				args, ok := Arguments(tool, i)
				require.NotNil(t, args)
				if !contains(tc.unreachable, s.Name) {
					require.True(t, ok, s.Name)
					require.Empty(t, gens[i].Warning, s.Name)
					continue
				}
				require.False(t, ok, s.Name)
				require.NotEmpty(t, gens[i].Warning, s.Name)
				require.Contains(t, gens[i].Case.Description, gens[i].Warning)
				// The case is still made.
				require.Equal(t, "get_weather: "+s.Name, gens[i].Case.Name)
				require.NotEmpty(t, gens[i].Case.Input.Body)
			}
		})
	}
	t.Run("out of range", func(t *testing.T) {
		args, ok := Arguments(weatherTool(), 99)
		require.False(t, ok)
		require.NotNil(t, args)
	})
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func TestCaseShape(t *testing.T) {
	tool := makeTool("get_weather", weatherSchema,
		sc{name: "paris", cond: `{"city":"Paris"}`, resp: `{"temp": 18, "sky": {"now": "clear"}, "alerts": []}`},
		sc{name: "fallback", resp: `{"temp":10}`},
	)
	gens := FromTool("https://mock.example:8443", tool)
	require.Len(t, gens, 2)
	g := gens[0]
	require.Equal(t, "paris", g.Scenario)
	require.Empty(t, g.Warning)

	c := g.Case
	require.Equal(t, "get_weather: paris", c.Name)
	require.Contains(t, c.Description, `scenario "paris" of tool "get_weather"`)
	require.Equal(t, "https://mock.example:8443", c.BaseURL)
	require.Equal(t, []resttest.Scope{{Method: "POST", Path: "/api/platform/{server_id}/mcp"}}, c.Scopes)
	require.Equal(t, map[string]string{"server_id": tool.ServerID.String()}, c.Input.PathParams)
	require.Equal(t, map[string]string{"Accept": "application/json"}, c.Input.Headers)
	require.Empty(t, c.Input.QueryParams)

	args, ok := Arguments(tool, 0)
	require.True(t, ok)
	wantBody, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "get_weather", "arguments": args},
	})
	require.NoError(t, err)
	require.JSONEq(t, string(wantBody), string(c.Input.Body))
	require.Equal(t, "Paris", bodyArguments(t, c)["city"])

	require.Len(t, c.Input.Expectations, 1)
	exp, ok := c.Input.Expectations["POST /api/platform/{server_id}/mcp"]
	require.True(t, ok)
	require.NotNil(t, exp.ExpectedStatus)
	require.Equal(t, 200, *exp.ExpectedStatus)
	require.Equal(t, []resttest.Condition{
		{Path: "result", Operation: "isObject"},
		{Path: "result.content[0].type", Operation: "eq", Value: json.RawMessage(`"text"`)},
		{Path: "result.content[0].text.temp", Operation: "eq", Value: json.RawMessage(`18`)},
		{Path: "result.content[0].text.sky.now", Operation: "eq", Value: json.RawMessage(`"clear"`)},
		{Path: "result.content[0].text.alerts", Operation: "eq", Value: json.RawMessage(`[]`)},
	}, exp.Conditions)

	// The case survives its wire form.
	wire, err := json.Marshal(c)
	require.NoError(t, err)
	var back resttest.Case
	require.NoError(t, json.Unmarshal(wire, &back))
	require.Equal(t, c.Input.Expectations, back.Input.Expectations)
}

func TestResponseConditions(t *testing.T) {
	many := map[string]int{}
	for i := range maxFieldConditions + 1 {
		many["k"+strconv.Itoa(i)] = i
	}
	manyJSON, err := json.Marshal(many)
	require.NoError(t, err)

	cases := []struct {
		name     string
		response string
		want     []resttest.Condition // after the two result conditions
	}{
		{"leaves", `{"temp":18,"sky":{"now":"clear","wind":{}},"alerts":[{"a":1}],"none":null}`, []resttest.Condition{
			{Path: textPath + ".temp", Operation: "eq", Value: json.RawMessage(`18`)},
			{Path: textPath + ".sky.now", Operation: "eq", Value: json.RawMessage(`"clear"`)},
			{Path: textPath + ".sky.wind", Operation: "eq", Value: json.RawMessage(`{}`)},
			{Path: textPath + ".alerts", Operation: "eq", Value: json.RawMessage(`[{"a":1}]`)},
			{Path: textPath + ".none", Operation: "eq", Value: json.RawMessage(`null`)},
		}},
		{"array", `[1, 2]`, whole(`[1,2]`)},
		{"string", `"sunny"`, whole(`"sunny"`)},
		{"number", `42`, whole(`42`)},
		{"empty object", `{ }`, whole(`{}`)},
		{"dotted key", `{"a.b":1}`, whole(`{"a.b":1}`)},
		{"bracket key", `{"x":{"a[0]":1}}`, whole(`{"x":{"a[0]":1}}`)},
		{"digit key", `{"0":1}`, whole(`{"0":1}`)},
		{"empty key", `{"":1}`, whole(`{"":1}`)},
		{"duplicate key", `{"a":1,"a":2}`, whole(`{"a":1,"a":2}`)},
		{"too many leaves", string(manyJSON), whole(string(manyJSON))},
		{"html characters", `{"s":"<b>&</b>"}`, []resttest.Condition{
			{Path: textPath + ".s", Operation: "eq", Value: json.RawMessage(`"<b>&</b>"`)},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tool := makeTool("t", weatherSchema, sc{name: "only", resp: tc.response})
			gens := FromTool("http://h", tool)
			require.Len(t, gens, 1)
			require.Empty(t, gens[0].Warning)
			conds := gens[0].Case.Input.Expectations["POST "+endpointPath].Conditions
			require.GreaterOrEqual(t, len(conds), 2)
			require.Len(t, conds[2:], len(tc.want))
			for i, w := range tc.want {
				require.Equal(t, w.Path, conds[2+i].Path)
				require.Equal(t, w.Operation, conds[2+i].Operation)
				require.JSONEq(t, string(w.Value), string(conds[2+i].Value))
			}
		})
	}
}

func whole(compact string) []resttest.Condition {
	v, _ := json.Marshal(compact)
	return []resttest.Condition{{Path: textPath, Operation: "eq", Value: v}}
}

// TestGeneratedCasesPassAgainstTheirResults checks each generated case's
// conditions against the result tools/call gives for its arguments, read
// the way the runner reads paths (descending into the JSON text).
func TestGeneratedCasesPassAgainstTheirResults(t *testing.T) {
	tool := weatherTool()
	tool.Scenarios[0].Response = json.RawMessage(`{"temp": 18, "sky": {"now": "clear"}, "alerts": []}`)
	tool.Scenarios[1].Response = json.RawMessage(`[1, {"a": "b"}]`)
	tool.Scenarios[2].Response = json.RawMessage(`"just text"`)
	tool.Scenarios[3].Response = json.RawMessage(`{"a.b": {"c": 1.50}}`)
	for _, g := range FromTool("http://h", tool) {
		args := bodyArguments(t, g.Case)
		inv, vs, err := mcpserve.Invoke(tool, args)
		require.NoError(t, err)
		require.Empty(t, vs)
		var text bytes.Buffer
		require.NoError(t, json.Compact(&text, inv.Output))
		result := map[string]any{"jsonrpc": "2.0", "id": 1.0, "result": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": text.String()}},
		}}
		for _, c := range g.Case.Input.Expectations["POST "+endpointPath].Conditions {
			require.True(t, checkCondition(t, result, c), "scenario %q: condition %+v on %s", g.Scenario, c, text.String())
		}
	}

	// And a case does not pass against another scenario's result.
	gens := FromTool("http://h", tool)
	other := map[string]any{"result": map[string]any{
		"content": []any{map[string]any{"type": "text", "text": `{"temp":19,"sky":{"now":"clear"},"alerts":[]}`}},
	}}
	passed := true
	for _, c := range gens[0].Case.Input.Expectations["POST "+endpointPath].Conditions {
		passed = passed && checkCondition(t, other, c)
	}
	require.False(t, passed)
}

var indexRE = regexp.MustCompile(`\[(\d+)\]`)

// checkCondition is a minimal stand-in for the runner: eq, isObject and
// isArray, paths with dots and [n], descending into strings that hold JSON.
func checkCondition(t *testing.T, doc any, c resttest.Condition) bool {
	t.Helper()
	path := indexRE.ReplaceAllString(c.Path, ".$1")
	cur := doc
	for _, seg := range strings.Split(path, ".") {
		if s, ok := cur.(string); ok {
			require.NoError(t, json.Unmarshal([]byte(s), &cur))
		}
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[seg]
			if !ok {
				return false
			}
			cur = v
		case []any:
			n, err := strconv.Atoi(seg)
			if err != nil || n >= len(x) {
				return false
			}
			cur = x[n]
		default:
			return false
		}
	}
	switch c.Operation {
	case "isObject":
		_, ok := cur.(map[string]any)
		return ok
	case "isArray":
		_, ok := cur.([]any)
		return ok
	case "eq":
		var want any
		require.NoError(t, json.Unmarshal(c.Value, &want))
		return reflect.DeepEqual(want, cur)
	}
	t.Fatalf("unexpected operation %q", c.Operation)
	return false
}

func TestRegexString(t *testing.T) {
	for _, expr := range []string{
		`^[0-9]{5}$`,
		`^Lon`,
		`(foo|bar)baz`,
		`\d+-\w+`,
		`[A-Z][a-z]{2,}`,
		`.*x`,
		`^(?:\bfoo|bar)$`,
		`(?i)^hello\s+World$`,
		`^[^a-z]+$`,
		`^\p{Greek}{3}$`,
		`^a?b*c{0,2}$`,
		`^(a|b)(c|d){3}[[:upper:]]$`,
	} {
		t.Run(expr, func(t *testing.T) {
			s, ok := regexFor(expr)
			require.True(t, ok)
			require.Regexp(t, regexp.MustCompile(expr), s)
			matched, err := regexp.MatchString(expr, s)
			require.NoError(t, err)
			require.True(t, matched, "%q", s)
		})
	}
	t.Run("with lengths", func(t *testing.T) {
		s, ok := regexString(`^[a-z]+$`, 6, 8)
		require.True(t, ok)
		require.Regexp(t, `^[a-z]{6,8}$`, s)
	})
	t.Run("no match possible", func(t *testing.T) {
		_, ok := regexFor(`^a\bb$`)
		require.False(t, ok)
		_, ok = regexFor(`(`)
		require.False(t, ok)
	})
}

func TestLongNamesAreCut(t *testing.T) {
	tool := makeTool(strings.Repeat("t", 150), weatherSchema, sc{name: strings.Repeat("é", 100)})
	g := FromTool("http://h", tool)[0]
	require.Equal(t, 200, len([]rune(g.Case.Name)))
	require.True(t, strings.HasPrefix(g.Case.Name, strings.Repeat("t", 150)+": é"))
}

func TestWholeTextKeepsCharactersReadable(t *testing.T) {
	tool := makeTool("t", weatherSchema, sc{name: "only", resp: `["<b>", "&"]`})
	conds := FromTool("http://h", tool)[0].Case.Input.Expectations["POST "+endpointPath].Conditions
	require.Equal(t, resttest.Condition{Path: textPath, Operation: "eq", Value: json.RawMessage(`"[\"<b>\",\"&\"]"`)}, conds[2])
}
