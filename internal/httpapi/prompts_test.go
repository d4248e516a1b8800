package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func arg(name string, extra ...any) map[string]any {
	a := map[string]any{"name": name}
	for i := 0; i+1 < len(extra); i += 2 {
		a[extra[i].(string)] = extra[i+1]
	}
	return a
}

func msg(role, text string) map[string]any { return map[string]any{"role": role, "text": text} }

func TestPromptCreate(t *testing.T) {
	t.Parallel()
	env, ada, server, prompts := designFixture(t, "Acme Labs", "Prompts", "prompts")

	t.Run("with arguments and messages", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", prompts, map[string]any{
			"name": "forecast", "description": "Ask for a forecast",
			"arguments": []any{arg("city", "description", "The city", "required", true), arg("days")},
			"messages": []any{
				msg("system", "You are a forecaster."),
				msg("user", "Weather in {{city}} for {{ days }} days?"),
				msg("assistant", "Which units? {not a placeholder}"),
			},
		}).Status(http.StatusCreated)
		require.Equal(t, server, r.Get("server_id"))
		require.Equal(t, "forecast", r.Get("name"))
		require.Equal(t, "Ask for a forecast", r.Get("description"))
		require.JSONEq(t, `[{"name":"city","description":"The city","required":true},{"name":"days","description":"","required":false}]`,
			jsonAt(t, r, "arguments"))
		require.JSONEq(t, `[{"role":"system","text":"You are a forecaster."},{"role":"user","text":"Weather in {{city}} for {{ days }} days?"},`+
			`{"role":"assistant","text":"Which units? {not a placeholder}"}]`, jsonAt(t, r, "messages"))
		requireReadBack(t, ada, prompts+"/"+r.String("id"), r)
		list := ada.Do("GET", prompts, nil).Status(http.StatusOK)
		require.Equal(t, []string{"forecast"}, names(t, list, "items"))
	})

	t.Run("defaults", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", prompts, map[string]any{"name": "bare"}).Status(http.StatusCreated)
		require.Equal(t, 0, r.Len("arguments"))
		require.Equal(t, 0, r.Len("messages"))
		require.Equal(t, "", r.Get("description"))
	})

	t.Run("name unique per server", func(t *testing.T) {
		ada := ada.For(t)
		mkChild(t, ada, server, "prompts", map[string]any{"name": "dup"})
		p := ada.Do("POST", prompts, map[string]any{"name": "dup", "messages": []any{msg("user", "again")}}).Problem(http.StatusConflict)
		require.Contains(t, p.String("detail"), "prompt")
		other := mkServer(t, ada, "Other")
		mkChild(t, ada, other, "prompts", map[string]any{"name": "dup"})
		require.Equal(t, 1, rowCount(t, env, "mcp_prompts", "server_id", other))
	})

	t.Run("1,000 per server", func(t *testing.T) {
		ada := ada.For(t)
		full := mkServer(t, ada, "Full")
		fillServer(t, env, ada, "mcp_prompts", full, 999)
		mkChild(t, ada, full, "prompts", map[string]any{"name": "last"})
		ada.Do("POST", "/api/servers/"+full+"/prompts", map[string]any{"name": "over"}).Problem(http.StatusUnprocessableEntity, "prompts")
		require.Equal(t, 1000, rowCount(t, env, "mcp_prompts", "server_id", full))
	})

	t.Run("invalid", func(t *testing.T) {
		ada := ada.For(t)
		before := rowCount(t, env, "mcp_prompts", "server_id", server)
		requireInvalid(t, ada, "POST", prompts, []invalidBody{
			{"missing name", map[string]any{"messages": []any{}}, []string{"name"}},
			{"duplicate argument names", map[string]any{"name": "p", "arguments": []any{arg("city"), arg("city", "required", true)}}, []string{"arguments[1].name"}},
			{"duplicate after trimming", map[string]any{"name": "p", "arguments": []any{arg("city"), arg("days"), arg(" city ")}}, []string{"arguments[2].name"}},
			{"blank argument name", map[string]any{"name": "p", "arguments": []any{arg("  ")}}, []string{"arguments[0].name"}},
			{"empty argument name", map[string]any{"name": "p", "arguments": []any{arg("")}}, []string{"arguments[0].name"}},
			{"argument without a name", map[string]any{"name": "p", "arguments": []any{map[string]any{"required": true}}}, []string{"arguments[0].name"}},
			{"argument with an unknown field", map[string]any{"name": "p", "arguments": []any{arg("a", "type", "string")}}, []string{"arguments[0].type"}},
			{"required not a boolean", map[string]any{"name": "p", "arguments": []any{arg("a", "required", "yes")}}, []string{"arguments[0].required"}},
			{"undeclared placeholder", map[string]any{"name": "p", "messages": []any{msg("user", "Hi {{name}}")}}, []string{"messages[0].text"}},
			{"placeholder of another case", map[string]any{"name": "p", "arguments": []any{arg("city")}, "messages": []any{msg("user", "{{City}}")}}, []string{"messages[0].text"}},
			{"two undeclared placeholders", map[string]any{"name": "p", "arguments": []any{arg("a")},
				"messages": []any{msg("user", "{{a}}"), msg("user", "{{b}} and {{c}}")}}, []string{"messages[1].text", "messages[1].text"}},
			{"bad role", map[string]any{"name": "p", "messages": []any{msg("tool", "hi")}}, []string{"messages[0].role"}},
			{"role in the wrong case", map[string]any{"name": "p", "messages": []any{msg("user", "ok"), msg("User", "hi")}}, []string{"messages[1].role"}},
			{"message without text or content", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "user"}}}, []string{"messages[0]"}},
			{"message with content not a block", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "user", "text": "t", "content": "c"}}}, []string{"messages[0].content"}},
			{"message with an unknown field", map[string]any{"name": "p", "messages": []any{map[string]any{"role": "user", "text": "t", "image": "i"}}}, []string{"messages[0].image"}},
			{"NUL in text and argument description", map[string]any{"name": "p", "arguments": []any{arg("a", "description", "\x00")},
				"messages": []any{msg("user", "{{a}}\x00")}}, []string{"arguments[0].description", "messages[0].text"}},
			{"several save-time problems at once", map[string]any{"name": "p",
				"arguments": []any{arg("a"), arg("a")},
				"messages":  []any{msg("user", "{{a}} {{b}}"), msg("system", "{{c}}")}},
				[]string{"arguments[1].name", "messages[0].text", "messages[1].text"}},
		})
		require.Equal(t, before, rowCount(t, env, "mcp_prompts", "server_id", server))
	})
}

func TestPromptUpdateDelete(t *testing.T) {
	t.Parallel()
	env, ada, server, prompts := designFixture(t, "Acme Labs", "Prompts", "prompts")
	id := mkChild(t, ada, server, "prompts", map[string]any{
		"name": "greet", "description": "Greeting",
		"arguments": []any{arg("who", "required", true)},
		"messages":  []any{msg("user", "Hello {{who}}")},
	})
	mkChild(t, ada, server, "prompts", map[string]any{"name": "taken"})
	path := prompts + "/" + id

	t.Run("replace messages", func(t *testing.T) {
		ada := ada.For(t)
		touched := serverUpdatedAt(t, ada, server)
		r := ada.Do("PATCH", path, map[string]any{"messages": []any{msg("system", "Be brief."), msg("user", "Hi {{who}}!")}}).Status(http.StatusOK)
		require.JSONEq(t, `[{"role":"system","text":"Be brief."},{"role":"user","text":"Hi {{who}}!"}]`, jsonAt(t, r, "messages"))
		require.JSONEq(t, `[{"name":"who","description":"","required":true}]`, jsonAt(t, r, "arguments"), "absent arguments are kept")
		require.Equal(t, "greet", r.Get("name"))
		require.Equal(t, "Greeting", r.Get("description"))
		require.True(t, serverUpdatedAt(t, ada, server).After(touched))
		requireReadBack(t, ada, path, r)

		r = ada.Do("PATCH", path, map[string]any{"messages": []any{}}).Status(http.StatusOK)
		require.Equal(t, 0, r.Len("messages"))
	})

	t.Run("arguments and messages together", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("PATCH", path, map[string]any{
			"name": "welcome", "arguments": []any{arg("name"), arg("place")},
			"messages": []any{msg("assistant", "Welcome {{name}} to {{place}}")},
		}).Status(http.StatusOK)
		require.Equal(t, "welcome", r.Get("name"))
		require.Equal(t, []string{"name", "place"}, names(t, r, "arguments"))
		require.Equal(t, "Welcome {{name}} to {{place}}", r.Get("messages.0.text"))
	})

	t.Run("invalid patches change nothing", func(t *testing.T) {
		requirePatchesRefused(t, ada.For(t), path, server, []badPatch{
			{"removing an argument a message uses", map[string]any{"arguments": []any{arg("name")}}, http.StatusUnprocessableEntity, []string{"messages[0].text"}},
			{"message naming no argument", map[string]any{"messages": []any{msg("user", "{{nobody}}")}}, http.StatusUnprocessableEntity, []string{"messages[0].text"}},
			{"duplicate arguments", map[string]any{"arguments": []any{arg("name"), arg("place"), arg("name")}}, http.StatusUnprocessableEntity, []string{"arguments[2].name"}},
			{"bad role", map[string]any{"messages": []any{msg("bot", "x")}}, http.StatusUnprocessableEntity, []string{"messages[0].role"}},
			{"name of another prompt", map[string]any{"name": "taken"}, http.StatusConflict, nil},
			{"empty name", map[string]any{"name": ""}, http.StatusUnprocessableEntity, []string{"name"}},
			{"messages null", map[string]any{"messages": nil}, http.StatusUnprocessableEntity, []string{"messages"}},
		})
	})

	t.Run("delete", func(t *testing.T) {
		ada := ada.For(t)
		requireDeletedFromServer(t, ada, path, server)
		ada.Do("DELETE", path, nil).Problem(http.StatusNotFound)
		require.Equal(t, []string{"taken"}, names(t, ada.Do("GET", prompts, nil).Status(http.StatusOK), "items"))
		require.Equal(t, 0, rowCount(t, env, "mcp_prompts", "id", id))
		mkChild(t, ada, server, "prompts", map[string]any{"name": "greet"}) // the name is free again
	})
}
