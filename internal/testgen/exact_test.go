package testgen

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// TestGeneratedCaseOnALargeInteger: a scenario on an integer float64
// cannot hold (its neighbour 2^53 has a scenario of its own, first) gets
// arguments that reach it through the real matcher, and the case's
// conditions pass, as the REST test runner evaluates them, on what the tool
// answers.
func TestGeneratedCaseOnALargeInteger(t *testing.T) {
	tool := makeTool("account", `{"type":"object","required":["id"],"properties":{"id":{"type":"integer"}}}`,
		sc{name: "neighbour", cond: `{"id": 9007199254740992}`, resp: `{"who":"neighbour"}`},
		sc{name: "large", cond: `{"id": 9007199254740993}`, resp: `{"who":"large","id":9007199254740993}`},
		sc{name: "not large", cond: `{"field":"id","operator":"not_equals","value":9007199254740993}`, resp: `{"who":"other"}`},
	)
	gens := FromTool("http://h", tool)
	require.Len(t, gens, 2+1)
	for i, g := range gens {
		require.Empty(t, g.Warning, g.Scenario)
		raw, args := exactArguments(t, g.Case)

		inv, vs, err := mcpserve.Invoke(tool, args)
		require.NoError(t, err)
		require.Empty(t, vs)
		require.Equal(t, tool.Scenarios[i].Name, inv.Scenario, "the arguments %s reach their scenario", raw)

		var text bytes.Buffer
		require.NoError(t, json.Compact(&text, inv.Output))
		answer, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": map[string]any{
			"content": []any{map[string]any{"type": "text", "text": text.String()}}}})
		require.NoError(t, err)
		dec := json.NewDecoder(bytes.NewReader(answer))
		dec.UseNumber() // as the runner reads a response
		var body any
		require.NoError(t, dec.Decode(&body))
		for _, c := range g.Case.Input.Expectations["POST "+endpointPath].Conditions {
			res := resttest.Evaluate(c, body)
			require.True(t, res.Passed, "scenario %q: %+v", g.Scenario, res)
		}
	}
	large, _ := Arguments(tool, 1)
	require.Equal(t, json.Number("9007199254740993"), large["id"])
}

// operatorExamples holds, for each scenario operator, a condition value
// test generation must satisfy and negate.
var operatorExamples = map[scenario.Operator]string{
	scenario.OpEquals:     `{"a": [1, 9007199254740993]}`,
	scenario.OpNotEquals:  `9007199254740993`,
	scenario.OpContains:   `"needle"`,
	scenario.OpStartsWith: `"pre"`,
	scenario.OpEndsWith:   `"post"`,
	scenario.OpMatches:    `"^[a-c]{3}-[0-9]+$"`,
	scenario.OpExists:     `null`,
	scenario.OpNotExists:  `null`,
	scenario.OpGt:         `9007199254740993`,
	scenario.OpGte:        `2.5`,
	scenario.OpLt:         `-3`,
	scenario.OpLte:        `0`,
	scenario.OpIn:         `["x", 12345678901234567891, {"k": true}]`,
}

// TestEveryOperatorIsGenerated: for every operator the matcher knows, test
// generation finds arguments that make a condition with it hold (reaching
// its scenario) and arguments that make it fail (reaching the fallback).
func TestEveryOperatorIsGenerated(t *testing.T) {
	for _, op := range scenario.Operators() {
		t.Run(string(op), func(t *testing.T) {
			value, ok := operatorExamples[op]
			require.True(t, ok, "operator %q has no example here: add one, and teach test generation the operator", op)
			cond := `{"field":"f","operator":"` + string(op) + `","value":` + value + `}`
			c, errs := scenario.Compile(json.RawMessage(cond))
			require.Empty(t, errs)
			tool := makeTool("t", `{"type":"object","properties":{"f":{}}}`,
				sc{name: "operator", cond: cond}, sc{name: "fallback"})

			args, ok := Arguments(tool, 0)
			require.True(t, ok, "arguments for %s", cond)
			require.True(t, c.Match(args), "%v satisfies %s", args, cond)
			args, ok = Arguments(tool, 1)
			require.True(t, ok, "arguments past %s", cond)
			require.False(t, c.Match(args), "%v fails %s", args, cond)

			for i, g := range FromTool("http://h", tool) {
				require.Empty(t, g.Warning)
				raw, args := exactArguments(t, g.Case)
				require.Equal(t, i == 0, c.Match(args), "the body of case %q, %s", g.Scenario, raw)
			}
		})
	}
	require.Len(t, operatorExamples, len(scenario.Operators()), "every example names an operator")
}

// exactArguments returns the arguments of a generated case's request body,
// as written and as the endpoint decodes them (numbers exactly).
func exactArguments(t *testing.T, c resttest.Case) (json.RawMessage, map[string]any) {
	t.Helper()
	var req struct {
		Params struct {
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(c.Input.Body, &req))
	decoded, err := jsonvalue.Decode(req.Params.Arguments)
	require.NoError(t, err)
	return req.Params.Arguments, decoded.(map[string]any)
}
