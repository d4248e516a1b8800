package platformmcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/platformmcp"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// designPrefixes are the REST paths of design objects: every operation
// under them creates, reads, updates or deletes one, and must be a tool.
var designPrefixes = []string{"/api/servers", "/api/agent-cards", "/api/tests", "/api/suites", "/api/sessions"}

func TestEveryDesignOperationIsATool(t *testing.T) {
	spec, err := api.GetSpec()
	require.NoError(t, err)
	n := 0
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			for _, prefix := range designPrefixes {
				if path == prefix || strings.HasPrefix(path, prefix+"/") {
					n++
					require.Containsf(t, op.Extensions, "x-mcp-tool", "%s %s (%s) works on design objects but has no x-mcp-tool",
						method, path, op.OperationID)
				}
			}
		}
	}
	require.Positive(t, n)
}

func TestToolsFromTheDocument(t *testing.T) {
	spec, err := api.GetSpec()
	require.NoError(t, err)
	tools, err := platformmcp.Build(spec)
	require.NoError(t, err)

	marked := 0
	for _, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			if _, ok := op.Extensions["x-mcp-tool"]; ok {
				marked++
			}
		}
	}
	require.Len(t, tools, marked, "one tool per marked operation")

	for _, tl := range tools {
		t.Run(tl.Name, func(t *testing.T) {
			_, err := schema.Compile(tl.InputSchema, schema.RequireObject)
			require.NoError(t, err, "inputSchema: %s", tl.InputSchema)
			require.NotContains(t, string(tl.InputSchema), "$ref", "self-contained")
			require.NotContains(t, string(tl.InputSchema), "nullable", "JSON Schema, not OpenAPI")
			require.NotContains(t, string(tl.InputSchema), "x-go-type")
			var s struct {
				Properties map[string]any `json:"properties"`
				Required   []string       `json:"required"`
			}
			require.NoError(t, json.Unmarshal(tl.InputSchema, &s))
			for _, p := range tl.PathParams {
				require.Contains(t, s.Required, p, "path parameters are required")
				require.Contains(t, s.Properties, p)
			}
			require.Greater(t, len(tl.Description), 60, "a description a model can act on: %q", tl.Description)
		})
	}

	byName := map[string]platformmcp.Tool{}
	for _, tl := range tools {
		byName[tl.Name] = tl
	}
	ct := byName["create_tool"]
	require.Equal(t, "POST", ct.Method)
	require.Equal(t, []string{"server_id"}, ct.PathParams)
	var s map[string]any
	require.NoError(t, json.Unmarshal(ct.InputSchema, &s))
	require.ElementsMatch(t, []any{"server_id", "name"}, s["required"])
	require.Equal(t, false, s["additionalProperties"])
	props := s["properties"].(map[string]any)
	require.Contains(t, props, "mock_scenarios")
	require.Equal(t, "object", props["input_schema"].(map[string]any)["type"], "the $ref to JSONSchema is inlined")
	us := byName["update_server"]
	require.NoError(t, json.Unmarshal(us.InputSchema, &s))
	require.Equal(t, []any{"string", "null"}, s["properties"].(map[string]any)["provider_url"].(map[string]any)["type"],
		"nullable becomes a type union")
	require.ElementsMatch(t, []string{"limit", "cursor"}, byName["list_servers"].QueryParams)
	require.True(t, byName["list_servers"].ReadOnly)
	require.True(t, byName["delete_server"].Destructive)
}

// keyTransport adds an API key to every request of the SDK client.
type keyTransport struct {
	header, value string
}

func (k keyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(k.header, k.value)
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, ctx context.Context, endpoint string, rt http.RoundTripper) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "assistant", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: rt}}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = session.Close() })
	return session
}

func callJSON(t *testing.T, ctx context.Context, s *mcp.ClientSession, name string, args map[string]any) map[string]any {
	t.Helper()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	text := res.Content[0].(*mcp.TextContent).Text
	require.False(t, res.IsError, "%s: %s", name, text)
	var out map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &out), text)
	return out
}

// signupWithKey starts the service, signs up an organization named org and
// creates a full API key named keyName; it returns the key in the clear.
func signupWithKey(t *testing.T, org, keyName string) (*apitest.Env, *apitest.Client, string) {
	t.Helper()
	env, owner := apitest.SignedUp(t, org)
	return env, owner, newKey(owner, map[string]any{"name": keyName})
}

// newKey creates the API key body describes and returns it in the clear.
func newKey(owner *apitest.Client, body map[string]any) string {
	return owner.Do("POST", "/api/keys", body).Status(http.StatusCreated).String("raw_key")
}

// TestAssistantDesignsAMock is the whole loop an assistant runs: with a
// full key, it lists the platform tools, creates a server, adds a tool with
// a scenario, enables the server, and calls the tool on the server's own
// endpoint, getting the scenario's response.
func TestAssistantDesignsAMock(t *testing.T) {
	env, owner, raw := signupWithKey(t, "Assistant Org", "assistant")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	for _, header := range []string{"Authorization", "X-API-Key"} {
		t.Run(header, func(t *testing.T) {
			value := raw
			if header == "Authorization" {
				value = "Bearer " + raw
			}
			platform := connect(t, ctx, env.URL+platformmcp.Path, keyTransport{header, value})
			init := platform.InitializeResult()
			require.Equal(t, "mockmcp", init.ServerInfo.Name)
			require.NotEmpty(t, init.ServerInfo.Version)
			require.NotNil(t, init.Capabilities.Tools)

			list, err := platform.ListTools(ctx, nil)
			require.NoError(t, err)
			names := map[string]bool{}
			for _, tl := range list.Tools {
				names[tl.Name] = true
			}
			for _, want := range []string{"create_server", "get_server", "list_servers", "update_server", "delete_server",
				"duplicate_server", "create_tool", "update_tool", "create_resource", "create_prompt"} {
				require.True(t, names[want], "tool %s is listed", want)
			}

			server := callJSON(t, ctx, platform, "create_server", map[string]any{"name": "Weather via MCP"})
			id := server["id"].(string)
			require.Equal(t, false, server["enabled"])
			require.True(t, strings.HasPrefix(server["created_by"].(string), "key:"))
			callJSON(t, ctx, platform, "create_tool", map[string]any{
				"server_id": id, "name": "get_forecast", "description": "Forecast for a city.",
				"input_schema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
					"required": []string{"city"}},
				"mock_scenarios": []any{
					map[string]any{"name": "atlantis", "condition": map[string]any{"city": "Atlantis"},
						"response": map[string]any{"error": "city under water"}},
					map[string]any{"name": "default", "response": map[string]any{"forecast": "sunny"}},
				},
			})
			enabled := callJSON(t, ctx, platform, "update_server", map[string]any{"server_id": id, "enabled": true})
			require.Equal(t, true, enabled["enabled"])
			got := callJSON(t, ctx, platform, "get_server", map[string]any{"server_id": id})
			require.Equal(t, id, got["id"])

			// The design, served at its own endpoint.
			served := connect(t, ctx, enabled["endpoint_url"].(string), http.DefaultTransport)
			require.Equal(t, "Weather via MCP", served.InitializeResult().ServerInfo.Name)
			res, err := served.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: map[string]any{"city": "Atlantis"}})
			require.NoError(t, err)
			require.False(t, res.IsError)
			require.JSONEq(t, `{"error":"city under water"}`, res.Content[0].(*mcp.TextContent).Text)

			// REST sees what MCP made: one contract.
			rest := owner.Do("GET", "/api/servers/"+id+"/tools", nil).Status(http.StatusOK)
			require.Equal(t, "get_forecast", rest.String("items.0.name"))

			deleted := callJSON(t, ctx, platform, "delete_server", map[string]any{"server_id": id})
			require.Equal(t, float64(204), deleted["status"])
			owner.Do("GET", "/api/servers/"+id, nil).Problem(http.StatusNotFound)
		})
	}
}

// TestToolsRefuseMissingInput: every tool with required input, called with
// none, answers isError with a problem naming a missing field.
func TestToolsRefuseMissingInput(t *testing.T) {
	env, _, raw := signupWithKey(t, "Strict Org", "k")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	platform := connect(t, ctx, env.URL+platformmcp.Path, keyTransport{"X-API-Key", raw})
	list, err := platform.ListTools(ctx, nil)
	require.NoError(t, err)

	checked := 0
	for _, tl := range list.Tools {
		var s struct {
			Required []string `json:"required"`
		}
		b, err := json.Marshal(tl.InputSchema)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, &s))
		if len(s.Required) == 0 {
			continue
		}
		checked++
		t.Run(tl.Name, func(t *testing.T) {
			res, err := platform.CallTool(ctx, &mcp.CallToolParams{Name: tl.Name, Arguments: map[string]any{}})
			require.NoError(t, err)
			status, fields, text := toolProblem(t, res)
			require.Equal(t, http.StatusUnprocessableEntity, status, text)
			require.Contains(t, fields, s.Required[0], text)
		})
	}
	require.Positive(t, checked)

	t.Run("unknown tool", func(t *testing.T) {
		_, err := platform.CallTool(ctx, &mcp.CallToolParams{Name: "drop_database"})
		require.ErrorContains(t, err, "Tool not found: drop_database")
	})
	t.Run("an argument a tool without a body does not take", func(t *testing.T) {
		res, err := platform.CallTool(ctx, &mcp.CallToolParams{Name: "get_server",
			Arguments: map[string]any{"server_id": "00000000-0000-4000-8000-000000000000", "verbose": true}})
		require.NoError(t, err)
		require.True(t, res.IsError)
		require.Contains(t, res.Content[0].(*mcp.TextContent).Text, `"field":"verbose"`)
	})
	t.Run("another organization's server is not found", func(t *testing.T) {
		other := env.Signup(t, "Other Org")
		id := other.Do("POST", "/api/servers", map[string]any{"name": "theirs"}).Status(http.StatusCreated).String("id")
		res, err := platform.CallTool(ctx, &mcp.CallToolParams{Name: "get_server", Arguments: map[string]any{"server_id": id}})
		require.NoError(t, err)
		require.True(t, res.IsError)
		require.Contains(t, res.Content[0].(*mcp.TextContent).Text, `"status":404`)
		require.NotContains(t, res.Content[0].(*mcp.TextContent).Text, "theirs")
	})
}

// toolProblem reads the problem document of a tool error: its status and
// the fields it names, and the text it came in.
func toolProblem(t *testing.T, res *mcp.CallToolResult) (status int, fields []string, text string) {
	t.Helper()
	require.True(t, res.IsError)
	var p struct {
		Status int `json:"status"`
		Errors []struct {
			Field string `json:"field"`
		} `json:"errors"`
	}
	text = res.Content[0].(*mcp.TextContent).Text
	require.NoError(t, json.Unmarshal([]byte(text), &p), text)
	for _, e := range p.Errors {
		fields = append(fields, e.Field)
	}
	return p.Status, fields, text
}

// post sends one JSON-RPC message to the service endpoint.
func post(t *testing.T, env *apitest.Env, headers map[string]string, body string) (int, string) {
	t.Helper()
	req := apitest.JSONRequest(t, "POST", env.URL+platformmcp.Path, strings.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, b := apitest.Send(t, req)
	return resp.StatusCode, string(b)
}

func TestServiceEndpointScope(t *testing.T) {
	env, owner := apitest.SignedUp(t, "Scoped Org")
	server := owner.Do("POST", "/api/servers", map[string]any{"name": "s"}).Status(http.StatusCreated).String("id")
	full := newKey(owner, map[string]any{"name": "full"})
	policy := newKey(owner, map[string]any{"name": "p", "bound_server_id": server})
	revoked := owner.Do("POST", "/api/keys", map[string]any{"name": "r"}).Status(http.StatusCreated)
	owner.Do("DELETE", "/api/keys/"+revoked.String("key.id"), nil).Status(http.StatusNoContent)
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

	for _, header := range []string{"X-API-Key", "Authorization"} {
		with := func(raw string) map[string]string {
			if header == "Authorization" {
				return map[string]string{header: "Bearer " + raw}
			}
			return map[string]string{header: raw}
		}
		code, body := post(t, env, with(full), list)
		require.Equal(t, http.StatusOK, code, body)
		require.Contains(t, body, `"create_server"`)

		code, body = post(t, env, with(policy), list)
		require.Equal(t, http.StatusForbidden, code)
		require.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"Policy-scoped keys cannot access the data plane"}}`, body)

		for _, raw := range []string{revoked.String("raw_key"), "mmcp_" + strings.Repeat("Q", 43), "junk"} {
			code, body = post(t, env, with(raw), list)
			require.Equal(t, http.StatusUnauthorized, code, body)
			require.Contains(t, body, `"code":-32001`)
		}
	}
	code, body := post(t, env, nil, list)
	require.Equal(t, http.StatusUnauthorized, code)
	require.Contains(t, body, `"code":-32001`)

	t.Run("a session is not a key", func(t *testing.T) {
		r := owner.Do("POST", platformmcp.Path, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
		require.Equal(t, http.StatusUnauthorized, r.Code)
	})
	t.Run("structuredContent from 2025-06-18", func(t *testing.T) {
		call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_server","arguments":{"server_id":"` + server + `"}}}`
		_, old := post(t, env, map[string]string{"X-API-Key": full}, call)
		require.NotContains(t, old, "structuredContent")
		_, current := post(t, env, map[string]string{"X-API-Key": full, "Mcp-Protocol-Version": "2025-06-18"}, call)
		var resp struct {
			Result struct {
				StructuredContent map[string]any `json:"structuredContent"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(current), &resp), current)
		require.Equal(t, server, resp.Result.StructuredContent["id"])
	})
	t.Run("malformed tools/call params", func(t *testing.T) {
		for params, code := range map[string]string{
			`{"name":"get_server","arguments":"x"}`: "-32602", `{"arguments":{}}`: "-32602", `{"name":7}`: "-32602",
			`[1]`: "-32600",
		} {
			status, body := post(t, env, map[string]string{"X-API-Key": full},
				`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":`+params+`}`)
			require.Equal(t, http.StatusOK, status)
			require.Contains(t, body, `"code":`+code, "params %s: %s", params, body)
		}
	})
	t.Run("initialize negotiates the version", func(t *testing.T) {
		for asked, want := range map[string]string{"2025-06-18": "2025-06-18", "1999-01-01": "2024-11-05"} {
			_, body := post(t, env, map[string]string{"X-API-Key": full},
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+asked+`","clientInfo":{"name":"c","version":"1"},"capabilities":{}}}`)
			require.Contains(t, body, `"protocolVersion":"`+want+`"`)
		}
	})
}
