package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// impDocument reads one of the OpenAPI documents kept with the importer.
func impDocument(t *testing.T, name string) string {
	t.Helper()
	raw, err := os.ReadFile("../oasimport/testdata/" + name)
	require.NoError(t, err)
	return string(raw)
}

// impCallTool calls a tool of an enabled server through the official MCP
// Go SDK client and returns the JSON of its single text item.
func impCallTool(t *testing.T, env *apitest.Env, server, tool string, args map[string]any) string {
	t.Helper()
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "import-test", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: env.URL + "/api/platform/" + server + "/mcp"}, nil)
	require.NoError(t, err)
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	require.False(t, res.IsError)
	require.Len(t, res.Content, 1)
	text, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok)
	return text.Text
}

// TestImportOpenAPIDocuments imports the kept public documents through the
// route, inline as YAML text, as JSON objects and by URL, and serves one.
func TestImportOpenAPIDocuments(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.AllowPrivateTargets = true }})
	c := env.Signup(t, "Importers")

	for _, doc := range []string{"petstore-3.0.yaml", "todo-3.1.json", "swagger-2.0.json"} {
		t.Run(doc, func(t *testing.T) {
			c := c.For(t)
			r := c.Do("POST", "/api/servers/import/openapi", map[string]any{"document": impDocument(t, doc)}).
				Status(http.StatusCreated)
			require.Equal(t, "openapi", r.String("server.type"))
			require.Equal(t, false, r.Get("server.enabled"))
			require.Equal(t, "openapi", r.String("server.source.kind"))
			require.Len(t, r.String("server.source.sha256"), 64)
			require.NotEmpty(t, r.String("server.source.imported_at"))
			n, ok := r.Get("tools").(float64)
			require.True(t, ok)
			require.GreaterOrEqual(t, n, float64(3))
			tools := c.Do("GET", "/api/servers/"+r.String("server.id")+"/tools", nil).Status(http.StatusOK)
			require.Equal(t, int(n), tools.Len("items"))
			for i := 0; i < tools.Len("items"); i++ {
				require.NotContains(t, jsonAt(t, tools, "items."+strconv.Itoa(i)+".input_schema"), "$ref")
				require.NotZero(t, tools.Len("items."+strconv.Itoa(i)+".mock_scenarios"), "every tool has a scenario")
			}
		})
	}

	t.Run("a JSON object, served and called through the MCP Go SDK", func(t *testing.T) {
		c := c.For(t)
		var doc any
		require.NoError(t, json.Unmarshal([]byte(impDocument(t, "todo-3.1.json")), &doc))
		r := c.Do("POST", "/api/servers/import/openapi", map[string]any{"document": doc, "name": "Pets 3.1"}).
			Status(http.StatusCreated)
		require.Equal(t, "Pets 3.1", r.String("server.name"))
		id := r.String("server.id")
		tools := c.Do("GET", "/api/servers/"+id+"/tools", nil).Status(http.StatusOK)
		c.Do("PATCH", "/api/servers/"+id, map[string]any{"enabled": true}).Status(http.StatusOK)
		// A tool without required input answers its fallback scenario.
		for i := 0; i < tools.Len("items"); i++ {
			schema, _ := tools.Get("items." + strconv.Itoa(i) + ".input_schema").(map[string]any)
			if req, _ := schema["required"].([]any); len(req) > 0 {
				continue
			}
			name := tools.String("items." + strconv.Itoa(i) + ".name")
			last := tools.Len("items."+strconv.Itoa(i)+".mock_scenarios") - 1
			want := jsonAt(t, tools, "items."+strconv.Itoa(i)+".mock_scenarios."+strconv.Itoa(last)+".response")
			require.JSONEq(t, want, impCallTool(t, env, id, name, map[string]any{}))
			return
		}
		t.Fatal("no tool without required input in todo-3.1.json")
	})

	t.Run("by URL", func(t *testing.T) {
		c := c.For(t)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/yaml")
			_, _ = w.Write([]byte(impDocument(t, "petstore-3.0.yaml")))
		}))
		defer srv.Close()
		r := c.Do("POST", "/api/servers/import/openapi", map[string]any{"url": srv.URL + "/openapi.yaml"}).
			Status(http.StatusCreated)
		require.Equal(t, srv.URL+"/openapi.yaml", r.String("server.source.url"))
	})
}

// TestImportOpenAPIRefusals: bad documents and unsafe or unreachable URLs
// are 422s naming the field, never 500s.
func TestImportOpenAPIRefusals(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil) // private targets refused
	c := env.Signup(t, "Refusals")
	var hits atomic.Int32
	local := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		_, _ = w.Write([]byte(`{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{}}`))
	}))
	defer local.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	cases := []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"neither JSON nor YAML", map[string]any{"document": "{{{ not: [json"}, "document"},
		{"not OpenAPI", map[string]any{"document": map[string]any{"hello": "world"}}, "document"},
		{"an unknown version", map[string]any{"document": map[string]any{"swagger": "1.2", "apis": []any{}}}, "document"},
		{"no document", map[string]any{}, "document"},
		{"both", map[string]any{"document": "openapi: 3.0.0", "url": "https://example.com/x"}, "url"},
		{"a private address", map[string]any{"url": local.URL + "/openapi.json"}, "url"},
		{"the metadata address", map[string]any{"url": "http://169.254.169.254/latest/meta-data"}, "url"},
		{"not a URL", map[string]any{"url": "ftp://example.com/x.yaml"}, "url"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c.For(t).Do("POST", "/api/servers/import/openapi", tc.body).Problem(http.StatusUnprocessableEntity, tc.field)
		})
	}
	require.Zero(t, hits.Load(), "the private target was never reached")

	t.Run("an unreachable URL", func(t *testing.T) {
		env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.AllowPrivateTargets = true }})
		env.Signup(t, "Unreachable").Do("POST", "/api/servers/import/openapi", map[string]any{"url": closedURL + "/x"}).
			Problem(http.StatusUnprocessableEntity, "url")
	})
	t.Run("an oversize inline document", func(t *testing.T) {
		big := "openapi: 3.0.0\n# " + strings.Repeat("x", 2<<20)
		c.For(t).Do("POST", "/api/servers/import/openapi", map[string]any{"document": big}).Problem(http.StatusRequestEntityTooLarge)
	})
	t.Run("an oversize fetched document", func(t *testing.T) {
		env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.AllowPrivateTargets = true }})
		huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte("openapi: 3.0.0\n# "))
			_, _ = w.Write([]byte(strings.Repeat("x", 6<<20)))
		}))
		defer huge.Close()
		r := env.Signup(t, "Huge").Do("POST", "/api/servers/import/openapi", map[string]any{"url": huge.URL}).
			Problem(http.StatusUnprocessableEntity, "url")
		require.Contains(t, string(r.Raw), "larger than 5 MiB")
	})
}

// TestImportMCPFromOwnServer snapshots one of the service's own enabled
// servers (reached in process, so no private-address exception is needed)
// and compares the copy with the original.
func TestImportMCPFromOwnServer(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Copycats")
	orig := mkServer(t, c, "Original")
	mkChild(t, c, orig, "tools", map[string]any{"name": "get_weather", "description": "Weather for a city.",
		"input_schema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
			"required": []any{"city"}},
		"mock_scenarios": []any{
			map[string]any{"name": "paris", "condition": map[string]any{"city": "Paris"}, "response": map[string]any{"temp": 18}},
			map[string]any{"name": "any", "response": map[string]any{"temp": 0}},
		}})
	mkChild(t, c, orig, "resources", map[string]any{"name": "guide", "uri": "docs://guide", "content": "Read me."})
	mkChild(t, c, orig, "prompts", map[string]any{"name": "greet", "description": "Greets.",
		"arguments": []any{map[string]any{"name": "who", "description": "whom", "required": true}},
		"messages":  []any{map[string]any{"role": "user", "text": "Hello {{who}}!"}}})
	c.Do("PATCH", "/api/servers/"+orig, map[string]any{"enabled": true}).Status(http.StatusOK)

	r := c.Do("POST", "/api/servers/import/mcp", map[string]any{
		"url":          env.URL + "/api/platform/" + orig + "/mcp",
		"record_calls": []any{map[string]any{"tool": "get_weather", "arguments": map[string]any{"city": "Paris"}}},
	}).Status(http.StatusCreated)
	require.Equal(t, "mock", r.String("server.type"))
	require.Equal(t, "Original", r.String("server.name"))
	require.Equal(t, "mcp", r.String("server.source.kind"))
	require.Equal(t, float64(1), r.Get("tools"))
	require.Equal(t, float64(1), r.Get("resources"))
	require.Equal(t, float64(1), r.Get("prompts"))
	cp := r.String("server.id")

	tools := c.Do("GET", "/api/servers/"+cp+"/tools", nil).Status(http.StatusOK)
	require.Equal(t, "get_weather", tools.String("items.0.name"))
	require.JSONEq(t, `{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`,
		jsonAt(t, tools, "items.0.input_schema"))
	require.JSONEq(t, `{"city":"Paris"}`, jsonAt(t, tools, "items.0.mock_scenarios.0.condition"))
	require.JSONEq(t, `{"temp":18}`, jsonAt(t, tools, "items.0.mock_scenarios.0.response"))
	res := c.Do("GET", "/api/servers/"+cp+"/resources", nil).Status(http.StatusOK)
	require.Equal(t, "docs://guide", res.String("items.0.uri"))
	require.Equal(t, "Read me.", res.Get("items.0.content"))
	prompts := c.Do("GET", "/api/servers/"+cp+"/prompts", nil).Status(http.StatusOK)
	require.Equal(t, "greet", prompts.String("items.0.name"))
	require.Equal(t, "Hello {{who}}!", prompts.String("items.0.messages.0.text"))

	// The copy, enabled, answers the recorded call like the original.
	c.Do("PATCH", "/api/servers/"+cp, map[string]any{"enabled": true}).Status(http.StatusOK)
	require.JSONEq(t, `{"temp":18}`, impCallTool(t, env, cp, "get_weather", map[string]any{"city": "Paris"}))

	t.Run("a draft server does not answer", func(t *testing.T) {
		draft := mkServer(t, c.For(t), "Draft")
		c.For(t).Do("POST", "/api/servers/import/mcp", map[string]any{"url": env.URL + "/api/platform/" + draft + "/mcp"}).
			Problem(http.StatusUnprocessableEntity, "url")
	})
	t.Run("a private address", func(t *testing.T) {
		c.For(t).Do("POST", "/api/servers/import/mcp", map[string]any{"url": "http://10.0.0.1/mcp"}).
			Problem(http.StatusUnprocessableEntity, "url")
	})
}

// TestImportMCPFromSDKServer snapshots a small server built with the
// official MCP Go SDK.
func TestImportMCPFromSDKServer(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.AllowPrivateTargets = true }})
	c := env.Signup(t, "SDK fans")

	type in struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	type out struct {
		Sum float64 `json:"sum"`
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "calculator", Version: "2.1.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, v in) (*mcp.CallToolResult, out, error) {
			return nil, out{Sum: v.A + v.B}, nil
		})
	server.AddResource(&mcp.Resource{Name: "readme", URI: "file:///readme.txt", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "Sums things."}}}, nil
		})
	server.AddPrompt(&mcp.Prompt{Name: "explain", Description: "Explains a sum.",
		Arguments: []*mcp.PromptArgument{{Name: "expr", Description: "the sum", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user",
				Content: &mcp.TextContent{Text: "Explain " + req.Params.Arguments["expr"]}}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer srv.Close()

	r := c.Do("POST", "/api/servers/import/mcp", map[string]any{"url": srv.URL,
		"record_calls": []any{map[string]any{"tool": "add", "arguments": map[string]any{"a": 2, "b": 3}}}}).
		Status(http.StatusCreated)
	require.Equal(t, "calculator", r.String("server.name"))
	require.Equal(t, "2.1.0", r.String("server.version"))
	cp := r.String("server.id")
	tools := c.Do("GET", "/api/servers/"+cp+"/tools", nil).Status(http.StatusOK)
	require.Equal(t, "add", tools.String("items.0.name"))
	require.Equal(t, "Adds two numbers.", tools.String("items.0.description"))
	require.NotNil(t, tools.Get("items.0.output_schema"), "the output schema is kept")
	require.JSONEq(t, `{"sum":5}`, jsonAt(t, tools, "items.0.mock_scenarios.0.response"))
	res := c.Do("GET", "/api/servers/"+cp+"/resources", nil).Status(http.StatusOK)
	require.Equal(t, "Sums things.", res.Get("items.0.content"))
	prompts := c.Do("GET", "/api/servers/"+cp+"/prompts", nil).Status(http.StatusOK)
	require.Equal(t, "Explain {{expr}}", prompts.String("items.0.messages.0.text"))

	c.Do("PATCH", "/api/servers/"+cp, map[string]any{"enabled": true}).Status(http.StatusOK)
	require.JSONEq(t, `{"sum":5}`, impCallTool(t, env, cp, "add", map[string]any{"a": 2, "b": 3}))
}
