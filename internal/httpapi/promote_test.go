package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/credential"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// recordingUpstream creates an enabled design, the upstream of the promote
// tests: get_weather answers Paris with a result carrying structured
// content (with a credential-named member), Atlantis with isError, Mars
// with a JSON-RPC error; it also has a resource and a prompt.
func recordingUpstream(t *testing.T, c *apitest.Client) string {
	t.Helper()
	id := c.Do("POST", "/api/servers", map[string]any{"name": "real", "protocol_version": protocol.Latest}).
		Status(http.StatusCreated).String("id")
	mkChild(t, c, id, "tools", map[string]any{"name": "get_weather", "input_schema": map[string]any{"type": "object"},
		"mock_scenarios": []any{
			map[string]any{"name": "paris", "condition": map[string]any{"city": "Paris"}, "result": map[string]any{
				"content": []any{
					map[string]any{"type": "text", "text": "upstream sun"},
					map[string]any{"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
				},
				"structuredContent": map[string]any{"forecast": "sun", "session_token": "tok-upstream-1"}}},
			map[string]any{"name": "atlantis", "condition": map[string]any{"city": "Atlantis"}, "result": map[string]any{
				"content": []any{map[string]any{"type": "text", "text": "no such city"}}, "isError": true}},
			map[string]any{"name": "mars", "condition": map[string]any{"city": "Mars"},
				"error": map[string]any{"code": -32602, "message": "Mars is out of range"}},
			map[string]any{"name": "any", "response": map[string]any{"forecast": "upstream rain"}},
		}})
	mkChild(t, c, id, "tools", map[string]any{"name": "get_tide", "input_schema": map[string]any{"type": "object"},
		"mock_scenarios": []any{map[string]any{"name": "any", "response": map[string]any{"tide": "high"}}}})
	mkChild(t, c, id, "resources", map[string]any{"name": "readme", "uri": "docs://readme", "content": "upstream text"})
	mkChild(t, c, id, "prompts", map[string]any{"name": "greet", "messages": []any{
		map[string]any{"role": "user", "text": "hello from upstream"}}})
	return c.EnableServer(id).String("endpoint_url")
}

// recordingServer creates an enabled design recording everything through
// the upstream at endpoint; its get_weather has one fallback scenario.
func recordingServer(t *testing.T, c *apitest.Client, endpoint string) string {
	t.Helper()
	id := c.Do("POST", "/api/servers", map[string]any{"name": "recorder", "protocol_version": protocol.Latest,
		"upstream": map[string]any{"url": endpoint, "mode": "record"}}).Status(http.StatusCreated).String("id")
	mkChild(t, c, id, "tools", map[string]any{"name": "get_weather", "input_schema": map[string]any{"type": "object"},
		"mock_scenarios": []any{map[string]any{"name": "fallback", "response": map[string]any{"forecast": "local default"}}}})
	c.EnableServer(id)
	return id
}

// callLatest is callTool by a client of the latest legacy revision, which
// has structuredContent.
func callLatest(t *testing.T, env *apitest.Env, server, tool string, args map[string]any) *apitest.Response {
	t.Helper()
	c := env.Anonymous(t)
	c.Header.Set("Accept", "application/json")
	c.Header.Set("MCP-Protocol-Version", protocol.Latest)
	return c.Do("POST", "/api/platform/"+server+"/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}}).Status(http.StatusOK)
}

func promoted(r *apitest.Response) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, it := range r.Get("promoted").([]any) {
		m := it.(map[string]any)
		out[m["journal_id"].(string)] = m
	}
	return out
}

// journalIDs maps "tool:arguments.city" of each proxied tools/call to its
// journal id, newest first.
func journalIDs(t *testing.T, c *apitest.Client, server string, want int) map[string][]string {
	t.Helper()
	page := journalPage(t, c, server, "?outcome=proxied", want)
	out := map[string][]string{}
	for _, it := range page.Get("items").([]any) {
		m := it.(map[string]any)
		key := m["method"].(string)
		if tool, _ := m["tool"].(string); tool != "" {
			key = tool
		}
		if p, ok := m["params"].(map[string]any); ok {
			if a, ok := p["arguments"].(map[string]any); ok {
				if city, ok := a["city"].(string); ok {
					key += ":" + city
				}
			}
		}
		out[key] = append(out[key], m["id"].(string))
	}
	return out
}

func TestPromoteRecordings(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Promote Org")
	server := recordingServer(t, c, recordingUpstream(t, c))

	paris := map[string]any{"city": "Paris", "api_key": "sk-client-secret", "options": map[string]any{"units": "metric"}}
	first := callLatest(t, env, server, "get_weather", paris)
	require.Equal(t, "sun", first.Get("result.structuredContent.forecast"), "body: %s", first.Raw)
	callLatest(t, env, server, "get_weather", paris) // a duplicate, merged
	require.Equal(t, true, callTool(t, env, server, "get_weather", map[string]any{"city": "Atlantis"}).Get("result.isError"))
	require.Equal(t, -32602.0, callTool(t, env, server, "get_weather", map[string]any{"city": "Mars"}).Get("error.code"))
	callTool(t, env, server, "get_tide", map[string]any{"day": 3})
	require.Equal(t, "upstream text", mcpCall(t, env, server, "resources/read", map[string]any{"uri": "docs://readme"}).Get("result.contents.0.text"))
	mcpCall(t, env, server, "prompts/get", map[string]any{"name": "greet"})
	ids := journalIDs(t, c, server, 7)

	// A dry run answers the plan and changes nothing.
	tools := c.Do("GET", "/api/servers/"+server+"/tools", nil).Status(http.StatusOK).Raw
	dry := c.Do("POST", "/api/servers/"+server+"/recordings/promote", map[string]any{"dry_run": true}).Status(http.StatusOK)
	require.Equal(t, true, dry.Get("dry_run"))
	require.Len(t, dry.Get("promoted"), 7, "body: %s", dry.Raw)
	require.Equal(t, []any{"get_tide"}, dry.Get("tools_created"))
	require.JSONEq(t, string(tools), string(c.Do("GET", "/api/servers/"+server+"/tools", nil).Status(http.StatusOK).Raw))
	require.Equal(t, 0, c.Do("GET", "/api/servers/"+server+"/resources", nil).Status(http.StatusOK).Len("items"))

	// For real: the same plan, written.
	r := c.Do("POST", "/api/servers/"+server+"/recordings/promote", nil).Status(http.StatusOK)
	require.Equal(t, false, r.Get("dry_run"))
	items := promoted(r)
	require.Len(t, items, 7, "body: %s", r.Raw)
	newest, older := items[ids["get_weather:Paris"][0]], items[ids["get_weather:Paris"][1]]
	require.Equal(t, "created", newest["action"])
	require.Equal(t, "merged", older["action"])
	require.Equal(t, newest["scenario"], older["scenario"])
	require.Contains(t, newest["reason"], "arguments.api_key")
	require.Contains(t, newest["reason"], "structuredContent.session_token", "journal: %s", c.Do("GET", "/api/servers/"+server+"/journal?outcome=proxied&tool=get_weather", nil).Raw)
	require.True(t, strings.HasPrefix(newest["scenario"].(string), "recorded "), newest["scenario"])
	require.Equal(t, "created", items[ids["get_tide"][0]]["action"])
	require.Equal(t, "created", items[ids["resources/read"][0]]["action"])
	require.Equal(t, "created", items[ids["prompts/get"][0]]["action"])

	tool := c.Do("GET", "/api/servers/"+server+"/tools", nil).Status(http.StatusOK)
	var weather map[string]any
	for _, it := range tool.Get("items").([]any) {
		if m := it.(map[string]any); m["name"] == "get_weather" {
			weather = m
		}
	}
	scenarios := weather["mock_scenarios"].([]any)
	require.Len(t, scenarios, 4, "three promoted and the fallback")
	require.Equal(t, "fallback", scenarios[3].(map[string]any)["name"], "new scenarios go before the fallback")
	raw := string(tool.Raw)
	require.NotContains(t, raw, "sk-client-secret", "a credential-named argument is redacted")
	require.NotContains(t, raw, "tok-upstream-1", "a credential-named structured value is redacted")
	for _, s := range scenarios[:3] {
		m := s.(map[string]any)
		if m["condition"].(map[string]any)["city"] == "Paris" {
			require.Equal(t, "****", m["condition"].(map[string]any)["api_key"])
			require.Equal(t, map[string]any{"units": "metric"}, m["condition"].(map[string]any)["options"])
		}
	}

	// Promoting again changes nothing: every scenario is already there.
	again := promoted(c.Do("POST", "/api/servers/"+server+"/recordings/promote",
		map[string]any{"tool": "get_weather"}).Status(http.StatusOK))
	require.Len(t, again, 4)
	for _, it := range again {
		require.NotEqual(t, "created", it["action"], "%v", it)
	}
	require.Equal(t, "skipped", again[ids["get_weather:Atlantis"][0]]["action"])

	// Without the upstream the promoted scenarios answer locally.
	c.Do("PATCH", "/api/servers/"+server, map[string]any{"upstream": nil}).Status(http.StatusOK)
	apitest.Eventually(t, "upstream removed", func() bool {
		r := callTool(t, env, server, "get_weather", map[string]any{"city": "Lima"})
		return strings.Contains(r.String("result.content.0.text"), "local default")
	})
	r = callTool(t, env, server, "get_weather", map[string]any{"city": "Atlantis"})
	require.Equal(t, true, r.Get("result.isError"), "body: %s", r.Raw)
	require.Equal(t, "no such city", r.Get("result.content.0.text"))
	r = callTool(t, env, server, "get_weather", map[string]any{"city": "Mars"})
	require.Equal(t, -32602.0, r.Get("error.code"), "body: %s", r.Raw)
	require.Equal(t, "Mars is out of range", r.Get("error.message"))
	r = callLatest(t, env, server, "get_weather", map[string]any{"city": "Paris", "api_key": "****", "options": map[string]any{"units": "metric"}})
	require.Equal(t, "upstream sun", r.Get("result.content.0.text"), "body: %s", r.Raw)
	require.Equal(t, "image", r.Get("result.content.1.type"))
	require.Equal(t, "sun", r.Get("result.structuredContent.forecast"))
	r = callTool(t, env, server, "get_tide", map[string]any{"day": 3})
	require.Contains(t, r.String("result.content.0.text"), "high", "body: %s", r.Raw)
	r = mcpCall(t, env, server, "resources/read", map[string]any{"uri": "docs://readme"})
	require.Equal(t, "upstream text", r.Get("result.contents.0.text"), "body: %s", r.Raw)
	r = mcpCall(t, env, server, "prompts/get", map[string]any{"name": "greet"})
	require.Equal(t, "hello from upstream", r.Get("result.messages.0.content.text"), "body: %s", r.Raw)
}

func TestPromoteRecordingsFilters(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Promote Filters")
	server := recordingServer(t, c, recordingUpstream(t, c))
	callTool(t, env, server, "get_weather", map[string]any{"city": "Paris"})
	callTool(t, env, server, "get_weather", map[string]any{"city": "Rome"})
	callTool(t, env, server, "get_tide", map[string]any{})
	ids := journalIDs(t, c, server, 3)
	path := "/api/servers/" + server + "/recordings/promote"

	r := c.Do("POST", path, map[string]any{"dry_run": true, "tool": "get_tide"}).Status(http.StatusOK)
	require.Len(t, r.Get("promoted"), 1)
	require.Equal(t, "get_tide", r.Get("promoted.0.name"))

	r = c.Do("POST", path, map[string]any{"journal_ids": []string{ids["get_weather:Rome"][0]}}).Status(http.StatusOK)
	require.Len(t, r.Get("promoted"), 1, "body: %s", r.Raw)
	require.Equal(t, ids["get_weather:Rome"][0], r.Get("promoted.0.journal_id"))
	require.Equal(t, "recorded city=Rome", r.Get("promoted.0.scenario"))
	require.Equal(t, []any{}, r.Get("tools_created"))

	r = c.Do("POST", path, map[string]any{"dry_run": true, "until": "2000-01-01T00:00:00Z"}).Status(http.StatusOK)
	require.Len(t, r.Get("promoted"), 0)
	r = c.Do("POST", path, map[string]any{"dry_run": true, "since": "2999-01-01T00:00:00Z"}).Status(http.StatusOK)
	require.Len(t, r.Get("promoted"), 0)

	// A scenario of the same condition with another answer gets the
	// recorded one.
	tool := c.Do("GET", "/api/servers/"+server+"/tools", nil).Status(http.StatusOK)
	toolID := tool.String("items.0.id")
	scenarios := tool.Get("items.0.mock_scenarios").([]any)
	require.Equal(t, "recorded city=Rome", scenarios[0].(map[string]any)["name"])
	scenarios[0] = map[string]any{"name": "recorded city=Rome", "condition": map[string]any{"city": "Rome"},
		"response": map[string]any{"forecast": "edited"}}
	c.Do("PATCH", "/api/servers/"+server+"/tools/"+toolID, map[string]any{"mock_scenarios": scenarios}).Status(http.StatusOK)
	r = c.Do("POST", path, map[string]any{"journal_ids": []string{ids["get_weather:Rome"][0]}}).Status(http.StatusOK)
	require.Equal(t, "merged", r.Get("promoted.0.action"), "body: %s", r.Raw)
	require.Contains(t, r.String("promoted.0.reason"), "replaced the answer of scenario recorded city=Rome")
	tool = c.Do("GET", "/api/servers/"+server+"/tools/"+toolID, nil).Status(http.StatusOK)
	require.Len(t, tool.Get("mock_scenarios"), 2)
	require.Nil(t, tool.Get("mock_scenarios.0.response"))
	require.Contains(t, string(tool.Raw), "upstream rain")

	c.Do("POST", path, map[string]any{"tool": ""}).Status(http.StatusUnprocessableEntity)

	// Another organization's server is not found.
	_, other := apitest.SignedUp(t, "Promote Other")
	other.Do("POST", path, map[string]any{"dry_run": true}).Status(http.StatusNotFound)
}

func TestPromoteRecordingsLimit(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Promote Limit")
	endpoint := recordingUpstream(t, c)
	id := c.Do("POST", "/api/servers", map[string]any{"name": "full",
		"upstream": map[string]any{"url": endpoint, "mode": "record"}}).Status(http.StatusCreated).String("id")
	scenarios := make([]any, design.MaxScenarios)
	for i := range scenarios {
		scenarios[i] = map[string]any{"name": fmt.Sprintf("s%d", i), "condition": map[string]any{"n": i},
			"response": map[string]any{"n": i}}
	}
	mkChild(t, c, id, "tools", map[string]any{"name": "get_weather", "input_schema": map[string]any{"type": "object"},
		"mock_scenarios": scenarios})
	c.EnableServer(id)
	callTool(t, env, id, "get_weather", map[string]any{"city": "Paris"})
	journalPage(t, c, id, "?outcome=proxied", 1)
	r := c.Do("POST", "/api/servers/"+id+"/recordings/promote", map[string]any{"dry_run": true}).Status(http.StatusUnprocessableEntity)
	require.Contains(t, string(r.Raw), "get_weather", "the refusal names the tool")
	require.Contains(t, string(r.Raw), `"tool"`)
}

func TestPromoteRecordingsCheckedAgainstTheTool(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Promote Checked")
	endpoint := recordingUpstream(t, c)
	id := c.Do("POST", "/api/servers", map[string]any{"name": "typed", "protocol_version": protocol.Latest,
		"upstream": map[string]any{"url": endpoint, "mode": "record"}}).Status(http.StatusCreated).String("id")
	mkChild(t, c, id, "tools", map[string]any{"name": "get_weather", "input_schema": map[string]any{"type": "object"},
		"output_schema": map[string]any{"type": "object", "required": []any{"temp_c"}}})
	c.EnableServer(id)
	callLatest(t, env, id, "get_weather", map[string]any{"city": "Paris"})
	journalPage(t, c, id, "?outcome=proxied", 1)
	r := c.Do("POST", "/api/servers/"+id+"/recordings/promote", nil)
	t.Logf("answer: %s", r.Raw)
	r.Status(http.StatusUnprocessableEntity)
	require.Contains(t, string(r.Raw), `"field":"tool"`)
	require.Contains(t, string(r.Raw), `get_weather`)
	require.Equal(t, 0, len(c.Do("GET", "/api/servers/"+id+"/tools", nil).Status(http.StatusOK).Get("items.0.mock_scenarios").([]any)))
}

// TestPromoteRedactsEveryCredentialName: promote redacts the arguments
// named as credentials by the one list stored runs mask with (pass, pin,
// otp and the other short names among them) and keeps the near misses
// (keyboard, author, max_tokens).
func TestPromoteRedactsEveryCredentialName(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Promote Names")
	server := recordingServer(t, c, recordingUpstream(t, c))
	args := map[string]any{}
	for _, name := range append(append([]string{}, credential.Names...), credential.NearMisses...) {
		if name != "" && !strings.Contains(name, ".") { // a dot addresses a nested argument
			args[name] = "value-of-" + name
		}
	}
	callTool(t, env, server, "get_tide", args)
	journalPage(t, c, server, "?outcome=proxied", 1)
	r := c.Do("POST", "/api/servers/"+server+"/recordings/promote", map[string]any{"tool": "get_tide"}).Status(http.StatusOK)
	require.Equal(t, "created", r.Get("promoted.0.action"), "body: %s", r.Raw)

	var cond map[string]any
	for _, it := range c.Do("GET", "/api/servers/"+server+"/tools", nil).Status(http.StatusOK).Get("items").([]any) {
		if m := it.(map[string]any); m["name"] == "get_tide" {
			cond = m["mock_scenarios"].([]any)[0].(map[string]any)["condition"].(map[string]any)
		}
	}
	require.Len(t, cond, len(args))
	for name := range args {
		if credential.Is(name) {
			require.Equal(t, "****", cond[name], "%s is redacted", name)
		} else {
			require.Equal(t, "value-of-"+name, cond[name], "%s is kept", name)
		}
	}
	for _, name := range []string{"pass", "pin", "otp", "pwd", "ssn", "cvv", "secret", "token", "auth", "key", "session"} {
		require.Equal(t, "****", cond[name], name)
	}
	for _, name := range []string{"keyboard", "monkey", "author", "max_tokens"} {
		require.Equal(t, "value-of-"+name, cond[name], name)
	}
}
