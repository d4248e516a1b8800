package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// scenario builds one mock scenario; a nil condition is left out.
func scenario(name string, condition any, response any) map[string]any {
	sc := map[string]any{"name": name, "response": response}
	if condition != nil {
		sc["condition"] = condition
	}
	return sc
}

// op builds an operator-form condition.
func op(field, operator string, value any) map[string]any {
	return map[string]any{"field": field, "operator": operator, "value": value}
}

func TestToolCreate(t *testing.T) {
	t.Parallel()
	env, ada, server, tools := designFixture(t, "Acme Labs", "Weather", "tools")

	t.Run("with scenarios in order", func(t *testing.T) {
		ada := ada.For(t)
		scs := []any{
			scenario("paris", map[string]any{"city": "Paris", "address.country": "FR"}, map[string]any{"temp": 21, "sky": "clear"}),
			scenario("cold", op("temp", "lt", 0), map[string]any{"advice": "coat"}),
			scenario("some", op("days", "in", []any{1, 2, 3}), map[string]any{"multi": true}),
			scenario("present", op("units", "exists", nil), map[string]any{"units": "given"}),
			scenario("london", op("city", "matches", "^Lon(don)?$"), map[string]any{"temp": 12}),
			scenario("empty condition", map[string]any{}, map[string]any{}),
			scenario("fallback", nil, map[string]any{"temp": 0}),
		}
		r := ada.Do("POST", tools, map[string]any{
			"name": "get_weather", "description": "Current weather",
			"input_schema":   map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}},
			"mock_scenarios": scs,
		}).Status(http.StatusCreated)
		id := r.String("id")
		require.Equal(t, server, r.Get("server_id"))
		require.Equal(t, "get_weather", r.Get("name"))
		require.Equal(t, "Current weather", r.Get("description"))
		require.Nil(t, r.Get("output_schema"))
		require.Contains(t, r.JSON, "output_schema")
		require.Equal(t, []string{"paris", "cold", "some", "present", "london", "empty condition", "fallback"}, names(t, r, "mock_scenarios"))
		require.JSONEq(t, `{"city":"Paris","address.country":"FR"}`, jsonAt(t, r, "mock_scenarios.0.condition"))
		require.JSONEq(t, `{"field":"temp","operator":"lt","value":0}`, jsonAt(t, r, "mock_scenarios.1.condition"))
		require.JSONEq(t, `{"temp":21,"sky":"clear"}`, jsonAt(t, r, "mock_scenarios.0.response"))
		require.Nil(t, r.Get("mock_scenarios.6.condition"))

		requireReadBack(t, ada, tools+"/"+id, r)
		list := ada.Do("GET", tools, nil).Status(http.StatusOK)
		require.Equal(t, 1, list.Len("items"))
		require.JSONEq(t, jsonAt(t, r, "mock_scenarios"), jsonAt(t, list, "items.0.mock_scenarios"))
	})

	t.Run("defaults", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", tools, map[string]any{"name": "bare"}).Status(http.StatusCreated)
		require.JSONEq(t, `{"type":"object"}`, jsonAt(t, r, "input_schema"))
		require.Equal(t, "", r.Get("description"))
		require.Equal(t, 0, r.Len("mock_scenarios"))
		require.Nil(t, r.Get("output_schema"))
		r = ada.Do("POST", tools, map[string]any{"name": "null_output", "output_schema": nil, "mock_scenarios": []any{}}).Status(http.StatusCreated)
		require.Nil(t, r.Get("output_schema"))
		require.Equal(t, 0, r.Len("mock_scenarios"))
	})

	t.Run("schemas are kept as sent", func(t *testing.T) {
		ada := ada.For(t)
		in := `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
			`"$defs":{"city":{"type":"string","minLength":1}},` +
			`"properties":{"city":{"$ref":"#/$defs/city"},"id":{"type":"integer","maximum":12345678901234567890},"ratio":{"type":"number","multipleOf":0.001}},` +
			`"required":["city"],"additionalProperties":false}`
		out := `{"type":"object","properties":{"temp":{"type":"number"}},"required":["temp"]}`
		body := `{"name":"exact","input_schema":` + in + `,"output_schema":` + out +
			`,"mock_scenarios":[{"name":"big","condition":{"id":12345678901234567890},"response":{"temp":1,"n":98765432109876543210}}]}`
		r := ada.Do("POST", tools, body).Status(http.StatusCreated)
		for _, raw := range [][]byte{r.Raw, ada.Do("GET", tools+"/"+r.String("id"), nil).Status(http.StatusOK).Raw} {
			got := exactJSON(t, raw)
			schemaOut, err := json.Marshal(got["input_schema"])
			require.NoError(t, err)
			require.JSONEq(t, in, string(schemaOut))
			props := got["input_schema"].(map[string]any)["properties"].(map[string]any)
			require.Equal(t, json.Number("12345678901234567890"), props["id"].(map[string]any)["maximum"], "a big integer survives exactly")
			require.Equal(t, json.Number("0.001"), props["ratio"].(map[string]any)["multipleOf"])
			require.Equal(t, "https://json-schema.org/draft/2020-12/schema", got["input_schema"].(map[string]any)["$schema"])
			require.Equal(t, false, got["input_schema"].(map[string]any)["additionalProperties"])
			outOut, err := json.Marshal(got["output_schema"])
			require.NoError(t, err)
			require.JSONEq(t, out, string(outOut))
			sc := got["mock_scenarios"].([]any)[0].(map[string]any)
			require.Equal(t, json.Number("12345678901234567890"), sc["condition"].(map[string]any)["id"])
			require.Equal(t, json.Number("98765432109876543210"), sc["response"].(map[string]any)["n"])
		}
		r = ada.Do("POST", tools, map[string]any{"name": "draft7", "input_schema": map[string]any{
			"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
			"definitions": map[string]any{"n": map[string]any{"type": "number"}},
			"properties":  map[string]any{"n": map[string]any{"$ref": "#/definitions/n"}},
		}}).Status(http.StatusCreated)
		require.Equal(t, "#/definitions/n", r.Get("input_schema.properties.n.$ref"))
	})

	t.Run("name unique per server", func(t *testing.T) {
		ada := ada.For(t)
		ada.Do("POST", tools, map[string]any{"name": "dup"}).Status(http.StatusCreated)
		p := ada.Do("POST", tools, map[string]any{"name": "dup", "description": "again"}).Problem(http.StatusConflict)
		require.Contains(t, p.String("detail"), "tool")
		other := mkServer(t, ada, "Other")
		ada.Do("POST", "/api/servers/"+other+"/tools", map[string]any{"name": "dup"}).Status(http.StatusCreated)
		ada.Do("POST", tools, map[string]any{"name": "Dup"}).Status(http.StatusCreated) // case matters
		require.Equal(t, 1, rowCount(t, env, "mcp_tools", "server_id", other))
	})

	t.Run("invalid", func(t *testing.T) {
		ada := ada.For(t)
		obj := map[string]any{"type": "object"}
		ok := map[string]any{}
		before := rowCount(t, env, "mcp_tools", "server_id", server)
		requireInvalid(t, ada, "POST", tools, []invalidBody{
			{"missing name", map[string]any{"description": "x"}, []string{"name"}},
			{"name with a space", map[string]any{"name": "get weather"}, []string{"name"}},
			{"name with a slash", map[string]any{"name": "get/weather"}, []string{"name"}},
			{"name over 128 characters", map[string]any{"name": strings.Repeat("a", 129)}, []string{"name"}},
			{"empty name", map[string]any{"name": ""}, []string{"name", "name"}}, // too short, and not the pattern
			{"unknown field", map[string]any{"name": "x", "inputSchema": obj}, []string{"inputSchema"}},
			{"input_schema not an object", map[string]any{"name": "x", "input_schema": "object"}, []string{"input_schema"}},
			{"input_schema of type string", map[string]any{"name": "x", "input_schema": map[string]any{"type": "string"}}, []string{"input_schema"}},
			{"input_schema without type", map[string]any{"name": "x", "input_schema": map[string]any{"properties": map[string]any{}}}, []string{"input_schema"}},
			{"input_schema with a misspelt type", map[string]any{"name": "x", "input_schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "strin"}}}}, []string{"input_schema.properties.a.type"}},
			{"input_schema with a dangling $ref", map[string]any{"name": "x", "input_schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#/definitions/missing"}}}}, []string{"input_schema"}},
			{"input_schema with a remote $ref", map[string]any{"name": "x", "input_schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "http://example.com/x.json"}}}}, []string{"input_schema"}},
			{"input_schema with an unknown dialect", map[string]any{"name": "x", "input_schema": map[string]any{"$schema": "https://example.com/my-dialect", "type": "object"}}, []string{"input_schema"}},
			{"output_schema of type string", map[string]any{"name": "x", "output_schema": map[string]any{"type": "string"}}, []string{"output_schema"}},
			{"output_schema with a bad keyword value", map[string]any{"name": "x", "output_schema": map[string]any{"type": "object", "required": "temp"}}, []string{"output_schema.required"}},
			{"output_schema not an object", map[string]any{"name": "x", "output_schema": []any{}}, []string{"output_schema"}},
			{"unknown operator", map[string]any{"name": "x", "mock_scenarios": []any{scenario("s", op("city", "approx", "Paris"), ok)}}, []string{"mock_scenarios[0].condition.operator"}},
			{"operator in the wrong case", map[string]any{"name": "x", "mock_scenarios": []any{scenario("s", op("city", "EQUALS", "Paris"), ok)}}, []string{"mock_scenarios[0].condition.operator"}},
			{"bad regex", map[string]any{"name": "x", "mock_scenarios": []any{scenario("s", op("city", "matches", "(unclosed"), ok)}}, []string{"mock_scenarios[0].condition.value"}},
			{"lookahead is not RE2", map[string]any{"name": "x", "mock_scenarios": []any{scenario("s", op("city", "matches", "(?=a)"), ok)}}, []string{"mock_scenarios[0].condition.value"}},
			{"gt with a string", map[string]any{"name": "x", "mock_scenarios": []any{scenario("s", op("temp", "gt", "10"), ok)}}, []string{"mock_scenarios[0].condition.value"}},
			{"in with a string", map[string]any{"name": "x", "mock_scenarios": []any{scenario("s", op("temp", "in", "1,2"), ok)}}, []string{"mock_scenarios[0].condition.value"}},
			{"exists with a value", map[string]any{"name": "x", "mock_scenarios": []any{scenario("s", op("temp", "exists", true), ok)}}, []string{"mock_scenarios[0].condition.value"}},
			{"empty field", map[string]any{"name": "x", "mock_scenarios": []any{scenario("s", op("", "equals", 1), ok)}}, []string{"mock_scenarios[0].condition.field"}},
			{"second scenario at fault", map[string]any{"name": "x", "mock_scenarios": []any{scenario("a", nil, ok), scenario("b", op("n", "lte", nil), ok)}}, []string{"mock_scenarios[1].condition.value"}},
			{"missing scenario name", map[string]any{"name": "x", "mock_scenarios": []any{map[string]any{"response": ok}}}, []string{"mock_scenarios[0].name"}},
			{"empty scenario name", map[string]any{"name": "x", "mock_scenarios": []any{scenario("", nil, ok)}}, []string{"mock_scenarios[0].name"}},
			{"blank scenario name", map[string]any{"name": "x", "mock_scenarios": []any{scenario("  ", nil, ok)}}, []string{"mock_scenarios[0].name"}},
			{"response an array", map[string]any{"name": "x", "mock_scenarios": []any{scenario("s", nil, []any{1})}}, []string{"mock_scenarios[0].response"}},
			{"response a string", map[string]any{"name": "x", "mock_scenarios": []any{scenario("s", nil, "hi")}}, []string{"mock_scenarios[0].response"}},
			{"response null", map[string]any{"name": "x", "mock_scenarios": []any{scenario("s", nil, nil)}}, []string{"mock_scenarios[0].response"}},
			{"missing response", map[string]any{"name": "x", "mock_scenarios": []any{map[string]any{"name": "s"}}}, []string{"mock_scenarios[0].response"}},
			{"condition an array", map[string]any{"name": "x", "mock_scenarios": []any{scenario("s", []any{1}, ok)}}, []string{"mock_scenarios[0].condition"}},
			{"NUL in description", map[string]any{"name": "x", "description": "a\x00"}, []string{"description"}},
			{"NUL in input_schema", map[string]any{"name": "x", "input_schema": map[string]any{"type": "object", "description": "\x00"}}, []string{"input_schema.description"}},
			{"NUL in output_schema", map[string]any{"name": "x", "output_schema": map[string]any{"type": "object", "title": "\x00"}}, []string{"output_schema.title"}},
			{"x-mcp-header on a number", map[string]any{"name": "x", "input_schema": map[string]any{"type": "object", "properties": map[string]any{
				"region": map[string]any{"type": "number", "x-mcp-header": "Region"}}}}, []string{"input_schema.properties.region.x-mcp-header"}},
			{"x-mcp-header inside items", map[string]any{"name": "x", "input_schema": map[string]any{"type": "object", "properties": map[string]any{
				"regions": map[string]any{"type": "array", "items": map[string]any{"type": "string", "x-mcp-header": "Region"}}}}},
				[]string{"input_schema.properties.regions.items.x-mcp-header"}},
			{"NUL in a scenario", map[string]any{"name": "x", "mock_scenarios": []any{
				scenario("a\x00", map[string]any{"k\x00": 1}, map[string]any{"v": []any{"\x00"}})}},
				[]string{"mock_scenarios[0].name", "mock_scenarios[0].condition", "mock_scenarios[0].response.v[0]"}},
			{"unpaired surrogate escape in a response", `{"name":"x","mock_scenarios":[{"name":"s","response":{"a":"\udc00"}}]}`,
				[]string{"mock_scenarios[0].response.a"}},
			{"unknown scenario field", map[string]any{"name": "x", "mock_scenarios": []any{map[string]any{"name": "s", "response": ok, "delay": 5}}}, []string{"mock_scenarios[0].delay"}},
			{"several save-time problems at once", map[string]any{
				"name":          "x",
				"input_schema":  map[string]any{"type": "array"},
				"output_schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "#/nope"}}},
				"mock_scenarios": []any{
					scenario("a", op("city", "approx", 1), ok),
					scenario("  ", op("city", "matches", "["), ok),
					scenario("c", op("n", "gte", "five"), ok),
				},
			}, []string{"input_schema", "output_schema", "mock_scenarios[0].condition.operator",
				"mock_scenarios[1].name", "mock_scenarios[1].condition.value", "mock_scenarios[2].condition.value"}},
			{"several request problems at once", map[string]any{
				"name":           "bad name",
				"colour":         "red",
				"mock_scenarios": []any{map[string]any{"response": []any{}}},
			}, []string{"name", "colour", "mock_scenarios[0].name", "mock_scenarios[0].response"}},
		})
		require.Equal(t, before, rowCount(t, env, "mcp_tools", "server_id", server), "nothing was stored")
		ada.Do("POST", tools, `{"name":`).Problem(http.StatusBadRequest, "body")
	})
}

func TestToolUpdate(t *testing.T) {
	t.Parallel()
	env, ada, server, tools := designFixture(t, "Acme Labs", "Weather", "tools")
	id := mkChild(t, ada, server, "tools", map[string]any{
		"name": "get_weather", "description": "Weather",
		"input_schema":   map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
		"output_schema":  map[string]any{"type": "object"},
		"mock_scenarios": []any{scenario("one", map[string]any{"city": "Paris"}, map[string]any{"n": 1})},
	})
	mkChild(t, ada, server, "tools", map[string]any{"name": "taken"})
	path := tools + "/" + id

	t.Run("rename", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("PATCH", path, map[string]any{"name": "current_weather"}).Status(http.StatusOK)
		require.Equal(t, "current_weather", r.Get("name"))
		require.Equal(t, "Weather", r.Get("description"), "absent fields are kept")
		require.Equal(t, []string{"one"}, names(t, r, "mock_scenarios"))
		require.JSONEq(t, `{"type":"object"}`, jsonAt(t, r, "output_schema"))
		require.True(t, timeAt(t, r, "updated_at").After(timeAt(t, r, "created_at")))
		require.Equal(t, "current_weather", ada.Do("GET", path, nil).Status(http.StatusOK).Get("name"))
		ada.Do("PATCH", path, map[string]any{"name": "taken"}).Problem(http.StatusConflict)
		ada.Do("PATCH", path, map[string]any{"name": "current_weather"}).Status(http.StatusOK) // its own name is fine
	})

	t.Run("replace scenarios", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("PATCH", path, map[string]any{"mock_scenarios": []any{
			scenario("b", op("city", "starts_with", "Lo"), map[string]any{"n": 2}),
			scenario("a", nil, map[string]any{"n": 3}),
		}}).Status(http.StatusOK)
		require.Equal(t, []string{"b", "a"}, names(t, r, "mock_scenarios"))
		got := ada.Do("GET", path, nil).Status(http.StatusOK)
		require.Equal(t, []string{"b", "a"}, names(t, got, "mock_scenarios"))
		require.JSONEq(t, `{"field":"city","operator":"starts_with","value":"Lo"}`, jsonAt(t, got, "mock_scenarios.0.condition"))
		r = ada.Do("PATCH", path, map[string]any{"mock_scenarios": []any{}}).Status(http.StatusOK)
		require.Equal(t, 0, r.Len("mock_scenarios"))
		r = ada.Do("PATCH", path, map[string]any{"mock_scenarios": []any{scenario("only", nil, map[string]any{})}}).Status(http.StatusOK)
		require.Equal(t, []string{"only"}, names(t, r, "mock_scenarios"))
	})

	t.Run("output_schema: absent keeps, null clears, value sets", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("PATCH", path, map[string]any{"description": "x"}).Status(http.StatusOK)
		require.JSONEq(t, `{"type":"object"}`, jsonAt(t, r, "output_schema"))
		r = ada.Do("PATCH", path, map[string]any{"output_schema": nil}).Status(http.StatusOK)
		require.Nil(t, r.Get("output_schema"))
		require.Contains(t, r.JSON, "output_schema")
		require.Nil(t, ada.Do("GET", path, nil).Status(http.StatusOK).Get("output_schema"))
		var stored *string
		require.NoError(t, env.Service.Store().Pool().QueryRow(context.Background(),
			"SELECT output_schema::text FROM mcp_tools WHERE id = $1", id).Scan(&stored))
		require.Nil(t, stored, "SQL NULL, not JSON null")
		r = ada.Do("PATCH", path, map[string]any{"output_schema": map[string]any{"type": "object", "required": []any{"n"}}}).Status(http.StatusOK)
		require.JSONEq(t, `{"type":"object","required":["n"]}`, jsonAt(t, r, "output_schema"))
	})

	t.Run("input_schema", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("PATCH", path, map[string]any{"input_schema": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}}).Status(http.StatusOK)
		require.Equal(t, "integer", r.Get("input_schema.properties.n.type"))
	})

	t.Run("invalid patches change nothing", func(t *testing.T) {
		requirePatchesRefused(t, ada.For(t), path, server, []badPatch{
			{"name with a space", map[string]any{"name": "a b", "description": "changed"}, http.StatusUnprocessableEntity, []string{"name"}},
			{"null name", map[string]any{"name": nil}, http.StatusUnprocessableEntity, []string{"name"}},
			{"input_schema not type object", map[string]any{"input_schema": map[string]any{"type": "string"}, "description": "changed"}, http.StatusUnprocessableEntity, []string{"input_schema"}},
			{"input_schema null", map[string]any{"input_schema": nil}, http.StatusUnprocessableEntity, []string{"input_schema"}},
			{"remote $ref", map[string]any{"input_schema": map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "http://example.com/x.json"}}}}, http.StatusUnprocessableEntity, []string{"input_schema"}},
			{"output_schema invalid", map[string]any{"output_schema": map[string]any{"type": 5}}, http.StatusUnprocessableEntity, []string{"output_schema"}},
			{"bad scenario", map[string]any{"name": "fine_name", "mock_scenarios": []any{scenario("s", op("a", "matches", "*"), map[string]any{})}}, http.StatusUnprocessableEntity, []string{"mock_scenarios[0].condition.value"}},
			{"scenarios null", map[string]any{"mock_scenarios": nil}, http.StatusUnprocessableEntity, []string{"mock_scenarios"}},
			{"unknown field", map[string]any{"enabled": true}, http.StatusUnprocessableEntity, []string{"enabled"}},
		})
	})

	t.Run("unknown or misplaced tool", func(t *testing.T) {
		ada := ada.For(t)
		other := mkServer(t, ada, "Other")
		for _, p := range []string{tools + "/" + missingID, "/api/servers/" + other + "/tools/" + id} {
			ada.Do("GET", p, nil).Problem(http.StatusNotFound)
			ada.Do("PATCH", p, map[string]any{"description": "misplaced"}).Problem(http.StatusNotFound)
			ada.Do("DELETE", p, nil).Problem(http.StatusNotFound)
		}
		ada.Do("GET", tools+"/nope", nil).Problem(http.StatusBadRequest, "tool_id")
		require.NotEqual(t, "misplaced", ada.Do("GET", path, nil).Status(http.StatusOK).Get("description"))
	})

	t.Run("delete", func(t *testing.T) {
		ada := ada.For(t)
		gone := mkChild(t, ada, server, "tools", map[string]any{"name": "gone"})
		ada.Do("DELETE", tools+"/"+gone, nil).Status(http.StatusNoContent)
		ada.Do("GET", tools+"/"+gone, nil).Problem(http.StatusNotFound)
		ada.Do("DELETE", tools+"/"+gone, nil).Problem(http.StatusNotFound)
		require.NotContains(t, names(t, ada.Do("GET", tools, nil).Status(http.StatusOK), "items"), "gone")
		mkChild(t, ada, server, "tools", map[string]any{"name": "gone"}) // the name is free again
	})
}

func TestToolChangesTouchServer(t *testing.T) {
	t.Parallel()
	_, ada, server, tools := designFixture(t, "Acme Labs", "Weather", "tools")
	var id string
	steps := []struct {
		name string
		do   func(t *testing.T, c *apitest.Client)
	}{
		{"create", func(t *testing.T, c *apitest.Client) {
			id = mkChild(t, c, server, "tools", map[string]any{"name": "t"})
		}},
		{"rename", func(t *testing.T, c *apitest.Client) {
			c.Do("PATCH", tools+"/"+id, map[string]any{"name": "u"}).Status(http.StatusOK)
		}},
		{"new scenarios", func(t *testing.T, c *apitest.Client) {
			c.Do("PATCH", tools+"/"+id, map[string]any{"mock_scenarios": []any{scenario("s", nil, map[string]any{})}}).Status(http.StatusOK)
		}},
		{"empty patch", func(t *testing.T, c *apitest.Client) {
			c.Do("PATCH", tools+"/"+id, map[string]any{}).Status(http.StatusOK)
		}},
		{"delete", func(t *testing.T, c *apitest.Client) { c.Do("DELETE", tools+"/"+id, nil).Status(http.StatusNoContent) }},
	}
	last := serverUpdatedAt(t, ada, server)
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			ada := ada.For(t)
			step.do(t, ada)
			now := serverUpdatedAt(t, ada, server)
			require.True(t, now.After(last), "updated_at %s did not move past %s", now, last)
			last = now
		})
	}
	t.Run("refused create does not", func(t *testing.T) {
		ada := ada.For(t)
		mkChild(t, ada, server, "tools", map[string]any{"name": "dup"})
		last = serverUpdatedAt(t, ada, server)
		ada.Do("POST", tools, map[string]any{"name": "dup"}).Problem(http.StatusConflict)
		ada.Do("POST", tools, map[string]any{"name": "x", "input_schema": map[string]any{"type": "string"}}).Problem(http.StatusUnprocessableEntity, "input_schema")
		require.Equal(t, last, serverUpdatedAt(t, ada, server))
	})
}

func TestToolLimits(t *testing.T) {
	t.Parallel()
	env, ada, server, tools := designFixture(t, "Acme Labs", "Big", "tools")

	many := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = scenario(fmt.Sprintf("s%d", i), map[string]any{"i": i}, map[string]any{"i": i})
		}
		return out
	}

	t.Run("scenarios per tool", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", tools, map[string]any{"name": "full", "mock_scenarios": many(200)}).Status(http.StatusCreated)
		require.Equal(t, 200, r.Len("mock_scenarios"))
		require.Equal(t, "s199", r.Get("mock_scenarios.199.name"))
		ada.Do("POST", tools, map[string]any{"name": "over", "mock_scenarios": many(201)}).Problem(http.StatusUnprocessableEntity, "mock_scenarios")
		ada.Do("PATCH", tools+"/"+r.String("id"), map[string]any{"mock_scenarios": many(201)}).Problem(http.StatusUnprocessableEntity, "mock_scenarios")
		require.Equal(t, 200, ada.Do("GET", tools+"/"+r.String("id"), nil).Status(http.StatusOK).Len("mock_scenarios"))
	})

	t.Run("tools per server", func(t *testing.T) {
		ada := ada.For(t)
		var org string
		require.NoError(t, env.Service.Store().Pool().QueryRow(context.Background(),
			"SELECT organization_id::text FROM mcp_servers WHERE id = $1", server).Scan(&org))
		require.Equal(t, ada.OrgID, org)
		fillServer(t, env, ada, "mcp_tools", server, 999-rowCount(t, env, "mcp_tools", "server_id", server))
		require.Equal(t, 999, rowCount(t, env, "mcp_tools", "server_id", server))

		last := mkChild(t, ada, server, "tools", map[string]any{"name": "the_thousandth"})
		before := serverUpdatedAt(t, ada, server)
		p := ada.Do("POST", tools, map[string]any{"name": "one_too_many"}).Problem(http.StatusUnprocessableEntity, "tools")
		require.Contains(t, p.String("errors.0.message"), "1000")
		require.Equal(t, 1000, rowCount(t, env, "mcp_tools", "server_id", server))
		require.Equal(t, before, serverUpdatedAt(t, ada, server))

		// Changing a tool of a full server is still allowed; so is adding
		// one after a deletion, and to another server.
		ada.Do("PATCH", tools+"/"+last, map[string]any{"description": "still editable"}).Status(http.StatusOK)
		require.Equal(t, 1000, ada.Do("GET", tools, nil).Status(http.StatusOK).Len("items"))
		ada.Do("DELETE", tools+"/"+last, nil).Status(http.StatusNoContent)
		mkChild(t, ada, server, "tools", map[string]any{"name": "replacement"})
		ada.Do("POST", tools, map[string]any{"name": "again_too_many"}).Problem(http.StatusUnprocessableEntity, "tools")
		mkChild(t, ada, mkServer(t, ada, "Small"), "tools", map[string]any{"name": "one_too_many"})
	})

	t.Run("concurrent creates stop at the limit", func(t *testing.T) {
		ada := ada.For(t)
		race := mkServer(t, ada, "Race")
		fillServer(t, env, ada, "mcp_tools", race, 995)
		const tries = 10
		codes := make([]int, tries)
		var wg sync.WaitGroup
		for i := range tries {
			wg.Go(func() {
				codes[i] = ada.Do("POST", "/api/servers/"+race+"/tools", map[string]any{"name": fmt.Sprintf("racer_%d", i)}).Code
			})
		}
		wg.Wait()
		count := map[int]int{}
		for _, c := range codes {
			count[c]++
		}
		require.Equal(t, map[int]int{http.StatusCreated: 5, http.StatusUnprocessableEntity: 5}, count)
		require.Equal(t, 1000, rowCount(t, env, "mcp_tools", "server_id", race))
	})
}
