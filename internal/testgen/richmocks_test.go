package testgen

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/resttest"
)

// richTool is a weather tool whose scenarios answer in every form.
func richTool(scs ...design.Scenario) design.Tool {
	t := makeTool("get_weather", weatherSchema)
	t.Scenarios = scs
	return t
}

// only generates the one case of a tool with one scenario, checked as the
// generate-tests route checks it before saving it.
func only(t *testing.T, sc design.Scenario) Generated {
	t.Helper()
	gens := FromTool("http://h", richTool(sc))
	require.Len(t, gens, 1)
	g := gens[0]
	resttest.Normalize(&g.Case)
	require.Empty(t, resttest.CheckCase(g.Case), "the case is valid")
	return g
}

func conditionsOf(g Generated) []resttest.Condition {
	return g.Case.Input.Expectations["POST "+endpointPath].Conditions
}

// passes reports whether every condition of g holds on the reply doc.
func passes(t *testing.T, g Generated, doc string) bool {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(doc), &v))
	for _, c := range conditionsOf(g) {
		if !checkCondition(t, v, c) {
			return false
		}
	}
	return true
}

func TestResultScenario(t *testing.T) {
	const result = `{"content":[
		{"type":"text","text":"{\"temp\":18}"},
		{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png","annotations":{"priority":1}},
		{"type":"resource","resource":{"uri":"file:///a.txt","text":"a"}},
		{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"},
		{"type":"resource_link","uri":"file:///b","name":"b"}],
		"isError":true,"structuredContent":{"temp":18}}`
	g := only(t, design.Scenario{Name: "rich", Result: json.RawMessage(result)})
	require.Empty(t, g.Warning)
	require.Equal(t, "get_weather: rich", g.Case.Name)
	require.Equal(t, []resttest.Condition{
		{Path: "result", Operation: "isObject"},
		{Path: "result.isError", Operation: "eq", Value: json.RawMessage(`true`)},
		{Path: "result.content", Operation: "isArray"},
		{Path: "result.content[0].type", Operation: "eq", Value: json.RawMessage(`"text"`)},
		{Path: "result.content[0].text", Operation: "eq", Value: json.RawMessage(`"{\"temp\":18}"`)},
		{Path: "result.content[1].type", Operation: "eq", Value: json.RawMessage(`"image"`)},
		{Path: "result.content[1].mimeType", Operation: "eq", Value: json.RawMessage(`"image/png"`)},
		{Path: "result.content[1].data", Operation: "eq", Value: json.RawMessage(`"iVBORw0KGgo="`)},
		{Path: "result.content[2].type", Operation: "eq", Value: json.RawMessage(`"resource"`)},
		{Path: "result.content[2].resource", Operation: "eq", Value: json.RawMessage(`{"uri":"file:///a.txt","text":"a"}`)},
		{Path: "result.content[3]", Operation: "isObject"},
		{Path: "result.content[4]", Operation: "isObject"},
	}, conditionsOf(g))
	require.Contains(t, g.Case.Description, "the scenario's result (isError true) with its 5 content blocks")
	require.Contains(t, g.Case.Description, "structuredContent")
	require.Contains(t, g.Case.Description, "audio and resource_link")

	// The result as a 2025-06-18 server serves it passes, and as a
	// 2024-11-05 server serves it too (audio and the link become text,
	// structuredContent is left out).
	require.True(t, passes(t, g, `{"jsonrpc":"2.0","id":1,"result":`+result+`}`))
	require.True(t, passes(t, g, `{"jsonrpc":"2.0","id":1,"result":{"content":[
		{"type":"text","text":"{\"temp\":18}"},
		{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png","annotations":{"priority":1}},
		{"type":"resource","resource":{"text":"a","uri":"file:///a.txt"}},
		{"type":"text","text":"[audio content (audio/wav) omitted]"},
		{"type":"text","text":"[resource link: b <file:///b>]"}],"isError":true}}`))
	// Another answer does not.
	require.False(t, passes(t, g, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"temp\":19}"}],"isError":true}}`))
	require.False(t, passes(t, g, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"x"}}`))

	t.Run("isError false is not checked", func(t *testing.T) {
		g := only(t, design.Scenario{Name: "ok", Result: json.RawMessage(`{"content":[{"type":"text","text":"fine"}],"isError":false}`)})
		require.NotContains(t, fmt.Sprint(conditionsOf(g)), "isError")
		require.True(t, passes(t, g, `{"result":{"content":[{"type":"text","text":"fine"}]}}`))
	})

	t.Run("no content", func(t *testing.T) {
		g := only(t, design.Scenario{Name: "empty", Result: json.RawMessage(`{"content":[],"structuredContent":{"a":1}}`)})
		require.Len(t, conditionsOf(g), 2)
		require.Contains(t, g.Case.Description, "with no content blocks")
	})

	t.Run("many blocks stay under the runner's limit", func(t *testing.T) {
		blocks := make([]string, mockspec.MaxContentBlocks)
		for i := range blocks {
			blocks[i] = fmt.Sprintf(`{"type":"text","text":"%d"}`, i)
		}
		g := only(t, design.Scenario{Name: "many", Result: json.RawMessage(`{"content":[` + strings.Join(blocks, ",") + `]}`)})
		require.LessOrEqual(t, len(conditionsOf(g)), maxResultConditions)
		require.Contains(t, g.Case.Description, "with the first 29 of its 100 content blocks")
	})
}

func TestErrorScenario(t *testing.T) {
	g := only(t, design.Scenario{Name: "down", Condition: json.RawMessage(`{"city":"Atlantis"}`),
		Error: &mockspec.RPCError{Code: -32603, Message: "Upstream <down> & out", Data: json.RawMessage(`{"retry_after":30}`)}})
	require.Empty(t, g.Warning)
	require.Equal(t, []resttest.Condition{
		{Path: "error", Operation: "isObject"},
		{Path: "error.code", Operation: "eq", Value: json.RawMessage(`-32603`)},
		{Path: "error.message", Operation: "eq", Value: json.RawMessage(`"Upstream <down> & out"`)},
		{Path: "error.data", Operation: "eq", Value: json.RawMessage(`{"retry_after":30}`)},
	}, conditionsOf(g))
	require.Equal(t, 200, *g.Case.Input.Expectations["POST "+endpointPath].ExpectedStatus, "JSON-RPC errors travel with status 200")
	require.Contains(t, g.Case.Description, "JSON-RPC error: code -32603")
	require.Equal(t, "Atlantis", bodyArguments(t, g.Case)["city"])

	require.True(t, passes(t, g, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Upstream <down> & out","data":{"retry_after":30}}}`))
	require.False(t, passes(t, g, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Upstream <down> & out","data":{"retry_after":30}}}`))
	require.False(t, passes(t, g, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`))

	t.Run("without data", func(t *testing.T) {
		g := only(t, design.Scenario{Name: "e", Error: &mockspec.RPCError{Code: 42, Message: "m"}})
		require.Len(t, conditionsOf(g), 3)
	})
}

func TestSequenceScenario(t *testing.T) {
	tool := richTool(design.Scenario{Name: "flaky", Sequence: &mockspec.Sequence{Steps: []mockspec.Step{
		{Error: &mockspec.RPCError{Code: -32000, Message: "Busy"}},
		{Response: json.RawMessage(`{"temp":18}`)},
	}}})
	gens := FromTool("http://h", tool)
	require.Len(t, gens, 1)
	g := gens[0]
	require.Empty(t, resttest.CheckCase(g.Case))
	require.Empty(t, g.Warning)
	require.Equal(t, "get_weather: flaky (first step)", g.Case.Name)
	key := "generated-tests-" + tool.ID.String()
	require.Equal(t, key, g.Case.Input.Headers[mcpserve.SequenceKeyHeader])
	require.Equal(t, "application/json", g.Case.Input.Headers["Accept"])
	require.Contains(t, g.Case.Description, "a sequence of 2 steps and this case checks the first")
	require.Contains(t, g.Case.Description, `POST /api/servers/`+tool.ServerID.String()+`/sequences/reset with {"key": "`+key+`"}`)
	// The first step is expected.
	require.True(t, passes(t, g, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Busy"}}`))
	require.False(t, passes(t, g, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"temp\":18}"}]}}`))

	t.Run("a first step with a plain response", func(t *testing.T) {
		g := only(t, design.Scenario{Name: "s", Sequence: &mockspec.Sequence{Steps: []mockspec.Step{{Response: json.RawMessage(`{"temp":18}`)}}}})
		require.True(t, passes(t, g, `{"result":{"content":[{"type":"text","text":"{\"temp\":18}"}]}}`))
	})

	t.Run("long names keep the first step mark", func(t *testing.T) {
		g := only(t, design.Scenario{Name: strings.Repeat("s", 300), Sequence: &mockspec.Sequence{Steps: []mockspec.Step{{Response: json.RawMessage(`{}`)}}}})
		require.Equal(t, maxNameRunes, len([]rune(g.Case.Name)))
		require.True(t, strings.HasSuffix(g.Case.Name, "s (first step)"))
	})

	t.Run("without steps", func(t *testing.T) {
		g := FromTool("http://h", richTool(design.Scenario{Name: "s", Sequence: &mockspec.Sequence{}}))[0]
		require.Contains(t, g.Warning, "no steps")
	})
}

func TestSlowScenarios(t *testing.T) {
	ms := func(n int) *int { return &n }
	for _, tc := range []struct {
		name string
		sc   design.Scenario
		slow bool
	}{
		{"just under the run's timeout", design.Scenario{Response: json.RawMessage(`{}`), DelayMS: 9999}, false},
		{"the run's timeout", design.Scenario{Response: json.RawMessage(`{}`), DelayMS: 10000}, true},
		{"notifications add up", design.Scenario{Response: json.RawMessage(`{}`), DelayMS: 5000,
			Notifications: []mockspec.Notification{{Type: "log", Level: "info", Data: json.RawMessage(`1`), DelayMS: 5000}}}, true},
		{"the first step's delay replaces the scenario's", design.Scenario{DelayMS: 20000,
			Sequence: &mockspec.Sequence{Steps: []mockspec.Step{{Response: json.RawMessage(`{}`), DelayMS: ms(0)}, {Response: json.RawMessage(`{}`)}}}}, false},
		{"a slow first step", design.Scenario{Sequence: &mockspec.Sequence{Steps: []mockspec.Step{{Response: json.RawMessage(`{}`), DelayMS: ms(12000)}}}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.sc.Name = "s"
			g := only(t, tc.sc)
			if tc.slow {
				require.Contains(t, g.Warning, "would time out")
				require.Contains(t, g.Case.Description, "Warning: "+g.Warning+".")
			} else {
				require.Empty(t, g.Warning)
			}
		})
	}
}

func TestNotificationsAreNotChecked(t *testing.T) {
	g := only(t, design.Scenario{Name: "s", Response: json.RawMessage(`{"a":1}`),
		Notifications: []mockspec.Notification{{Type: "log", Level: "info", Data: json.RawMessage(`"hi"`)}}})
	require.Contains(t, g.Case.Description, "notifications are not checked")
}

// TestEveryFormReachesItsScenario: the arguments do not depend on the
// answer form.
func TestEveryFormReachesItsScenario(t *testing.T) {
	tool := richTool(
		design.Scenario{Name: "paris", Condition: json.RawMessage(`{"city":"Paris"}`), Result: json.RawMessage(`{"content":[{"type":"text","text":"sunny"}]}`)},
		design.Scenario{Name: "atlantis", Condition: json.RawMessage(`{"city":"Atlantis"}`), Error: &mockspec.RPCError{Code: -32602, Message: "No such city"}},
		design.Scenario{Name: "flaky", Condition: json.RawMessage(`{"field":"days","operator":"gt","value":7}`),
			Sequence: &mockspec.Sequence{Steps: []mockspec.Step{{Response: json.RawMessage(`{}`)}}}},
		design.Scenario{Name: "fallback", Response: json.RawMessage(`{"temp":1}`)},
	)
	requireEveryScenarioReached(t, tool)
}
