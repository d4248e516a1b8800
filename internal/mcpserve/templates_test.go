package mcpserve_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// templatedDesign has a tool of each answer form using answer templates.
func templatedDesign(t *testing.T) serverDesign {
	input := map[string]any{"type": "object", "properties": map[string]any{
		"name": map[string]any{"type": "string"}, "count": map[string]any{"type": "integer"}, "label": map[string]any{"type": "string"}}}
	output := map[string]any{"type": "object", "properties": map[string]any{
		"greeting": map[string]any{"type": "string"}, "n": map[string]any{"type": "integer"}}, "required": []string{"greeting"}}
	return serverDesign{Server: raw(t, map[string]any{"name": "Templated", "protocol_version": protocol.Latest}), Enabled: true, Tools: []json.RawMessage{
		raw(t, map[string]any{"name": "greet", "input_schema": input, "output_schema": output, "mock_scenarios": []any{
			map[string]any{"name": "mislabelled", "condition": map[string]any{"label": map[string]any{"exists": true}},
				"response": map[string]any{"greeting": "hi", "n": "{{args.label}}"}},
			map[string]any{"name": "hello", "response": map[string]any{"greeting": "Hello, {{args.name}}!", "n": "{{args.count}}"}},
		}}),
		raw(t, map[string]any{"name": "stamp", "input_schema": input, "mock_scenarios": []any{
			map[string]any{"name": "always", "result": map[string]any{"content": []any{
				map[string]any{"type": "text", "text": "call {{seq}} for {{args.name}}, {{pick \"red\" \"blue\"}}, id {{uuid}}, at {{now}}"}}}},
		}}),
		raw(t, map[string]any{"name": "find", "input_schema": input, "mock_scenarios": []any{
			map[string]any{"name": "missing", "error": map[string]any{"code": -32001, "message": "no item named {{args.name}}",
				"data": map[string]any{"name": "{{args.name}}", "count": "{{args.count}}"}}},
		}}),
	}, Resources: []json.RawMessage{
		raw(t, map[string]any{"name": "forecast", "uri": "weather://{city}/today", "content": "{{args.city}}: {{pick \"sun\" \"rain\"}} on {{now}}"}),
	}, Prompts: []json.RawMessage{raw(t, map[string]any{
		"name": "plan", "arguments": []any{map[string]any{"name": "goal", "required": true}},
		"messages": []any{map[string]any{"role": "user", "text": "Plan {{goal}} ({{json args.goal}}), ref {{uuid}}."}},
	})}}
}

// TestAnswerTemplates: a tool's answer renders its templates from the
// call, in each form (a response with typed structuredContent, a result,
// a scripted error), through the official Go SDK client in both eras; a
// rendering the output schema refuses is a tool error naming the field.
func TestAnswerTemplates(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Templates")
	for _, clientVersion := range []string{"", "2025-11-25"} { // "": the modern revision, through server/discover
		t.Run("client="+clientVersion, func(t *testing.T) {
			id := createDesign(t, owner, templatedDesign(t))
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			client := mcp.NewClient(&mcp.Implementation{Name: "templates", Version: "1.0.0"}, nil)
			session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: env.URL + "/api/platform/" + id + "/mcp",
				HTTPClient: http.DefaultClient}, &mcp.ClientSessionOptions{ProtocolVersion: clientVersion})
			require.NoError(t, err)
			t.Cleanup(func() { _ = session.Close() })

			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"name": "Ada", "count": 3}})
			require.NoError(t, err)
			require.False(t, res.IsError)
			require.Equal(t, `{"greeting":"Hello, Ada!","n":3}`, res.Content[0].(*mcp.TextContent).Text)
			structured, _ := json.Marshal(res.StructuredContent)
			require.JSONEq(t, `{"greeting":"Hello, Ada!","n":3}`, string(structured), "a whole-string placeholder is the typed value")

			res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{"label": "seven"}})
			require.NoError(t, err)
			require.True(t, res.IsError)
			require.Contains(t, res.Content[0].(*mcp.TextContent).Text, "output schema refuses: field 'n'")

			stamp := regexp.MustCompile(`^call (\d) for Bo, (red|blue), id [0-9a-f-]{36}, at 20\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ$`)
			for want := range 2 {
				res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "stamp", Arguments: map[string]any{"name": "Bo"}})
				require.NoError(t, err)
				text := res.Content[0].(*mcp.TextContent).Text
				m := stamp.FindStringSubmatch(text)
				require.NotNil(t, m, text)
				require.Equal(t, string(rune('0'+want)), m[1], "{{seq}} counts the tool's calls")
			}

			_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "find", Arguments: map[string]any{"name": "lamp", "count": 2}})
			require.Error(t, err)
			require.Contains(t, err.Error(), "no item named lamp")

			read, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "weather://oslo/today"})
			require.NoError(t, err)
			require.Regexp(t, `^oslo: (sun|rain) on 20\d\d-`, read.Contents[0].Text, "a resource's content renders with its URI's parameters")

			prompt, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "plan", Arguments: map[string]string{"goal": "a trip"}})
			require.NoError(t, err)
			require.Regexp(t, `^Plan a trip \("a trip"\), ref [0-9a-f-]{36}\.$`, prompt.Messages[0].Content.(*mcp.TextContent).Text,
				"a prompt fills its {{argument}} placeholders and renders its templates")
		})
	}
}

// TestAnswerTemplatesRefusedAtSave: a template that cannot render is
// refused when the tool is saved, naming the string and the offset.
func TestAnswerTemplatesRefusedAtSave(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Bad templates")
	id := owner.Do("POST", "/api/servers", map[string]any{"name": "Bad"}).Status(http.StatusCreated).String("id")
	for _, tc := range []struct {
		scenario map[string]any
		field    string
		message  string
	}{
		{map[string]any{"name": "a", "response": map[string]any{"text": "Hi {{arg.name}}"}},
			"mock_scenarios[0].response.text", `offset 5: unknown name \"arg\" (did you mean args?)`},
		{map[string]any{"name": "a", "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "{{random 5 1}}"}}}},
			"mock_scenarios[0].result.content[0].text", "offset"},
		{map[string]any{"name": "a", "error": map[string]any{"code": -32001, "message": "gone {{args.x"}},
			"mock_scenarios[0].error.message", "offset 5"},
	} {
		body := string(owner.Do("POST", "/api/servers/"+id+"/tools", map[string]any{"name": "t", "input_schema": map[string]any{"type": "object"},
			"mock_scenarios": []any{tc.scenario}}).Status(http.StatusUnprocessableEntity).Raw)
		require.Contains(t, body, tc.field, body)
		require.Contains(t, body, tc.message, body)
	}
	body := string(owner.Do("POST", "/api/servers/"+id+"/prompts", map[string]any{"name": "p",
		"messages": []any{map[string]any{"role": "user", "text": "Roll {{random 6 1}}"}}}).Status(http.StatusUnprocessableEntity).Raw)
	require.Contains(t, body, `"field":"messages[0].text"`, body)
	require.Contains(t, body, "offset", body)
}

// TestStateTemplates: set_state renders its templates (a whole-string
// placeholder sets the typed value; one rendered null deletes its key),
// and a tool whose answer reads {{state...}} reads the live state though
// none of its scenarios has when_state or set_state.
func TestStateTemplates(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "State templates")
	obj := map[string]any{"type": "object"}
	id := createDesign(t, owner, serverDesign{Server: raw(t, map[string]any{"name": "Memory"}), Enabled: true, Tools: []json.RawMessage{
		raw(t, map[string]any{"name": "remember", "input_schema": obj, "mock_scenarios": []any{
			map[string]any{"name": "kept", "set_state": map[string]any{"last": "{{args}}", "count": "{{args.n}}"}, "response": map[string]any{"ok": true}}}}),
		raw(t, map[string]any{"name": "recall", "input_schema": obj, "mock_scenarios": []any{
			map[string]any{"name": "told", "response": map[string]any{"last": "{{state.last}}", "text": "n={{state.count}}"}}}}),
		raw(t, map[string]any{"name": "forget", "input_schema": obj, "mock_scenarios": []any{
			map[string]any{"name": "gone", "set_state": map[string]any{"last": "{{args.nothing}}"}, "response": map[string]any{"ok": true}}}}),
	}})
	for _, e := range bothEras {
		t.Run(e.name, func(t *testing.T) {
			s := e.open(t, env.URL+"/api/platform/"+id+"/mcp")
			s.call("tools/call", map[string]any{"name": "remember", "arguments": map[string]any{"city": "Oslo", "n": 2}}).ok(t)
			require.JSONEq(t, `{"last":{"city":"Oslo","n":2},"count":2}`,
				string(owner.Do("GET", "/api/servers/"+id+"/state", nil).Status(http.StatusOK).Raw))
			got := s.call("tools/call", map[string]any{"name": "recall"}).ok(t)
			require.Contains(t, got, `{\"last\":{\"city\":\"Oslo\",\"n\":2},\"text\":\"n=2\"}`)
			s.call("tools/call", map[string]any{"name": "forget"}).ok(t)
			require.JSONEq(t, `{"count":2}`, string(owner.Do("GET", "/api/servers/"+id+"/state", nil).Status(http.StatusOK).Raw))
		})
	}
}

// TestStateTemplateRefusedAtSave: a set_state template that cannot render
// is refused when saved, naming the key and the offset.
func TestStateTemplateRefusedAtSave(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Bad state templates")
	id := owner.Do("POST", "/api/servers", map[string]any{"name": "Bad"}).Status(http.StatusCreated).String("id")
	body := string(owner.Do("POST", "/api/servers/"+id+"/tools", map[string]any{"name": "t", "input_schema": map[string]any{"type": "object"},
		"mock_scenarios": []any{map[string]any{"name": "a", "set_state": map[string]any{"n": "{{random 1}}"}, "response": map[string]any{}}},
	}).Status(http.StatusUnprocessableEntity).Raw)
	require.Contains(t, body, `"field":"mock_scenarios[0].set_state.n"`, body)
	require.Contains(t, body, "offset", body)
}

// TestSeededTemplates: a design's seed makes its random values repeat run
// after run (the n-th call of a tool draws the same values on two designs
// of one seed), while calls differ from each other; the seed is shown,
// exported and removed by PATCH null.
func TestSeededTemplates(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Seeds")
	design := func(seed any) string {
		server := map[string]any{"name": "Dice"}
		if seed != nil {
			server["seed"] = seed
		}
		return createDesign(t, owner, serverDesign{Server: raw(t, server), Enabled: true, Tools: []json.RawMessage{
			raw(t, map[string]any{"name": "roll", "input_schema": map[string]any{"type": "object"}, "mock_scenarios": []any{
				map[string]any{"name": "any", "response": map[string]any{"n": "{{random 1 1000000000}}", "id": "{{uuid}}", "c": "{{pick \"a\" \"b\" \"c\" \"d\"}}"}}}}),
		}})
	}
	rolls := func(id string, n int) []string {
		s := legacyEra.open(t, env.URL+"/api/platform/"+id+"/mcp")
		var out []string
		for range n {
			out = append(out, s.call("tools/call", map[string]any{"name": "roll"}).ok(t))
		}
		return out
	}
	a, b, other := design(7), design(7), design(8)
	first, again := rolls(a, 3), rolls(b, 3)
	require.Equal(t, first, again, "one seed, the same values call by call")
	require.NotEqual(t, first[0], first[1], "calls draw values of their own")
	require.NotEqual(t, first, rolls(other, 3), "another seed, other values")

	require.Equal(t, float64(7), owner.Do("GET", "/api/servers/"+a, nil).Status(http.StatusOK).Get("seed"))
	require.Contains(t, string(owner.Do("GET", "/api/servers/"+a+"/export", nil).Status(http.StatusOK).Raw), `"seed": 7`)
	require.Nil(t, owner.Do("PATCH", "/api/servers/"+a, map[string]any{"seed": nil}).Status(http.StatusOK).Get("seed"))
}
