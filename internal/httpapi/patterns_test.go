package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// hugePattern is the 140 KB expression that once took 22 s of CPU a call.
var hugePattern = strings.Repeat("(?:a|b)", 20000)

// TestToolPatternsBounded: regular expressions in conditions and schemas
// are refused when saved if they are longer than 1,000 characters or
// compile to more than 2,000 instructions, naming the field.
func TestToolPatternsBounded(t *testing.T) {
	t.Parallel()
	_, ada, _, tools := designFixture(t, "Patterns", "Codes", "tools")
	obj := map[string]any{"type": "object"}
	withPattern := func(expr string) map[string]any {
		return map[string]any{"type": "object", "properties": map[string]any{"code": map[string]any{"type": "string", "pattern": expr}}}
	}
	// 1,000 characters that compile to 12,377 instructions.
	tooLarge := strings.Repeat("[ab]{99}", 125)

	for _, tc := range []struct {
		name  string
		tool  map[string]any
		field string
	}{
		{"condition", map[string]any{"input_schema": obj,
			"mock_scenarios": []any{scenario("code", op("code", "matches", hugePattern), map[string]any{})}},
			"mock_scenarios[0].condition.value"},
		{"condition compiling too large", map[string]any{"input_schema": obj,
			"mock_scenarios": []any{scenario("ok", op("code", "matches", "^[A-Z]{3}$"), map[string]any{}),
				scenario("code", op("code", "matches", tooLarge), map[string]any{})}},
			"mock_scenarios[1].condition.value"},
		{"input schema pattern", map[string]any{"input_schema": withPattern(hugePattern)},
			"input_schema.properties.code.pattern"},
		{"input schema pattern compiling too large", map[string]any{"input_schema": withPattern(tooLarge)},
			"input_schema.properties.code.pattern"},
		{"input schema patternProperties key", map[string]any{"input_schema": map[string]any{"type": "object",
			"properties": map[string]any{"tags": map[string]any{"type": "object", "patternProperties": map[string]any{hugePattern: obj}}}}},
			"input_schema.properties.tags.patternProperties"},
		{"output schema pattern in $defs under items", map[string]any{"input_schema": obj, "output_schema": map[string]any{"type": "object",
			"$defs": map[string]any{"codes": map[string]any{"type": "array", "items": map[string]any{"pattern": hugePattern}}}}},
			"output_schema.$defs.codes.items.pattern"},
		{"Draft 7 definitions", map[string]any{"input_schema": map[string]any{"type": "object",
			"definitions": map[string]any{"code": map[string]any{"type": "string", "pattern": hugePattern}},
			"properties":  map[string]any{"code": map[string]any{"$ref": "#/definitions/code"}}}},
			"input_schema.definitions.code.pattern"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.tool["name"] = "lookup"
			r := ada.For(t).Do("POST", tools, tc.tool).Problem(http.StatusUnprocessableEntity, tc.field)
			msg := fmt.Sprint(r.Get("errors.0.message"))
			require.True(t, strings.Contains(msg, "characters long") || strings.Contains(msg, "instructions"), msg)
			require.Less(t, len(r.Raw), 2000, "the answer does not quote the expression whole")
		})
	}

	t.Run("ordinary patterns accepted", func(t *testing.T) {
		id := ada.For(t).Do("POST", tools, map[string]any{"name": "ordinary",
			"input_schema": map[string]any{"type": "object",
				"properties":        map[string]any{"email": map[string]any{"type": "string", "pattern": `^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$`}},
				"patternProperties": map[string]any{`^x-[a-z]+$`: map[string]any{"type": "string"}}},
			"mock_scenarios": []any{scenario("date", op("when", "matches", `^\d{4}-\d{2}-\d{2}$`), map[string]any{})},
		}).Status(http.StatusCreated).String("id")

		// And a change to one refused, naming the field.
		ada.For(t).Do("PATCH", tools+"/"+id, map[string]any{
			"input_schema": withPattern(hugePattern),
		}).Problem(http.StatusUnprocessableEntity, "input_schema.properties.code.pattern")
		ada.For(t).Do("PATCH", tools+"/"+id, map[string]any{
			"mock_scenarios": []any{scenario("x", op("q", "matches", tooLarge), map[string]any{})},
		}).Problem(http.StatusUnprocessableEntity, "mock_scenarios[0].condition.value")
	})
}

// TestPolicyValidateHugePattern: the compliance route reports a candidate's
// oversized pattern as a finding, quickly, rather than compile it.
func TestPolicyValidateHugePattern(t *testing.T) {
	t.Parallel()
	f := newPolicyFixture(t, apitest.New(t, nil), "Validate Patterns")
	r := f.key(t, f.boundRaw).Do("POST", "/api/platform/"+f.server+"/mcp/validate", map[string]any{
		"tools": []any{map[string]any{"name": "lookup", "description": "Looks a code up.",
			"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"code": map[string]any{"type": "string", "pattern": hugePattern}}},
			"mock_scenarios": []any{map[string]any{"name": "x",
				"condition": map[string]any{"field": "code", "operator": "matches", "value": hugePattern}, "response": map[string]any{}}},
		}},
	}).Status(http.StatusOK)
	require.Equal(t, false, r.Get("valid"))
	require.Contains(t, string(r.Raw), "/properties/code/pattern: is 140000 characters long")
}

// TestImportHugePattern: imported tools go through the same checks; one
// with an oversized pattern is left out with a warning.
func TestImportHugePattern(t *testing.T) {
	t.Parallel()
	_, c := apitest.SignedUp(t, "Import Patterns")
	param := func(name, pattern string) map[string]any {
		return map[string]any{"name": name, "in": "query", "required": true, "schema": map[string]any{"type": "string", "pattern": pattern}}
	}
	doc := map[string]any{"openapi": "3.0.3", "info": map[string]any{"title": "Codes", "version": "1.0.0"},
		"paths": map[string]any{
			"/codes": map[string]any{"get": map[string]any{"operationId": "listCodes", "summary": "Lists codes.",
				"parameters": []any{param("prefix", "^[A-Z]{1,3}$")}, "responses": map[string]any{"200": map[string]any{"description": "ok"}}}},
			"/lookup": map[string]any{"get": map[string]any{"operationId": "lookupCode", "summary": "Looks a code up.",
				"parameters": []any{param("code", hugePattern)}, "responses": map[string]any{"200": map[string]any{"description": "ok"}}}},
		}}
	r := c.Do("POST", "/api/servers/import/openapi", map[string]any{"document": doc}).Status(http.StatusCreated)
	require.Contains(t, string(r.Raw), "is 140000 characters long", "the warning says why")
	server := r.String("server.id")
	tools := c.Do("GET", "/api/servers/"+server+"/tools", nil).Status(http.StatusOK)
	require.Equal(t, 1, tools.Len("items"), "%s", tools.Raw)
	require.Equal(t, "list_codes", tools.String("items.0.name"))
}

// TestJournalVerifyPatternBudget: a verification's pattern runs on every
// recorded call from one call's budget; past it the verification is
// refused, naming the condition.
func TestJournalVerifyPatternBudget(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Verify Patterns")
	server := weatherServer(t, c)
	for range 3 {
		callTool(t, env, server, "get_weather", map[string]any{"note": strings.Repeat("ab", 10000)})
	}
	verify := "/api/servers/" + server + "/journal/verify"
	r := c.Do("POST", verify, map[string]any{"tool": "get_weather",
		"arguments": map[string]any{"field": "note", "operator": "matches", "value": "^ab"}}).Status(http.StatusOK)
	require.Equal(t, float64(3), r.Get("count"))

	r = c.Do("POST", verify, map[string]any{"tool": "get_weather",
		"arguments": map[string]any{"field": "note", "operator": "matches", "value": `(?:a|b){999}(?:a|b){998}c`}}).
		Problem(http.StatusUnprocessableEntity, "arguments")
	require.Contains(t, r.String("errors.0.message"), `would take more than the 10000000 units`)
	require.Contains(t, r.String("errors.0.message"), `(at "note")`)
}
