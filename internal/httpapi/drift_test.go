package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// driftWeather creates and enables a design with two tools, a resource, a
// resource template and a prompt; it returns the server's id.
func driftWeather(t *testing.T, c *apitest.Client, name string) string {
	t.Helper()
	id := mkServer(t, c, name)
	mkChild(t, c, id, "tools", map[string]any{"name": "get_forecast", "description": "The forecast for a city.",
		"input_schema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
			"required": []any{"city"}},
		"output_schema":  map[string]any{"type": "object", "properties": map[string]any{"temp": map[string]any{"type": "number"}}},
		"mock_scenarios": []any{map[string]any{"name": "any", "response": map[string]any{"temp": 18}}}})
	mkChild(t, c, id, "tools", map[string]any{"name": "history", "description": "Past weather.",
		"input_schema":   map[string]any{"type": "object"},
		"mock_scenarios": []any{map[string]any{"name": "any", "response": map[string]any{"days": []any{}}}}})
	mkChild(t, c, id, "resources", map[string]any{"name": "guide", "uri": "docs://guide", "mime_type": "text/markdown",
		"description": "How to read forecasts.", "content": "# Guide"})
	mkChild(t, c, id, "resources", map[string]any{"name": "city", "uri": "weather://cities/{city}", "content": "{}"})
	mkChild(t, c, id, "prompts", map[string]any{"name": "plan_trip", "description": "Plans a trip.",
		"arguments": []any{map[string]any{"name": "city", "description": "where", "required": true}},
		"messages":  []any{map[string]any{"role": "user", "text": "Plan a trip to {{city}}."}}})
	c.EnableServer(id)
	return id
}

// driftOf posts a drift check of server against url and returns the answer.
func driftOf(c *apitest.Client, server, url string) *apitest.Response {
	return c.Do("POST", "/api/servers/"+server+"/drift", map[string]any{"url": url}).Status(http.StatusOK)
}

// changesOf is the answer's changes as "kind name field" strings.
func changesOf(t *testing.T, r *apitest.Response) []string {
	t.Helper()
	var out []string
	for i := range r.Len("changes") {
		c := r.Get("changes").([]any)[i].(map[string]any)
		out = append(out, c["kind"].(string)+" "+c["name"].(string)+" "+c["field"].(string))
	}
	return out
}

func TestDriftAgainstDesigns(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Drifters")
	weather := driftWeather(t, c, "Weather")
	endpoint := func(id string) string { return env.URL + "/api/platform/" + id + "/mcp" }

	t.Run("a design against its own endpoint does not drift", func(t *testing.T) {
		r := driftOf(c.For(t), weather, endpoint(weather))
		require.Equal(t, false, r.Get("drifted"), "body: %s", r.Raw)
		require.Equal(t, 0, r.Len("changes"))
		require.NotNil(t, r.Get("changes"), "changes is [] rather than null")
	})

	t.Run("a changed input schema, a tool only live, a tool only in the design", func(t *testing.T) {
		c := c.For(t)
		live := driftWeather(t, c, "Weather live")
		tools := c.Do("GET", "/api/servers/"+live+"/tools", nil).Status(http.StatusOK)
		for i := range tools.Len("items") {
			item := tools.Get("items").([]any)[i].(map[string]any)
			switch item["name"] {
			case "get_forecast":
				c.Do("PATCH", "/api/servers/"+live+"/tools/"+item["id"].(string), map[string]any{"input_schema": map[string]any{
					"type": "object", "required": []any{"city", "days"}, "properties": map[string]any{
						"city": map[string]any{"type": "string"}, "days": map[string]any{"type": "integer"}}}}).Status(http.StatusOK)
			case "history":
				c.Do("DELETE", "/api/servers/"+live+"/tools/"+item["id"].(string), nil).Status(http.StatusNoContent)
			}
		}
		mkChild(t, c, live, "tools", map[string]any{"name": "alerts", "input_schema": map[string]any{"type": "object"},
			"mock_scenarios": []any{map[string]any{"name": "any", "response": map[string]any{"alerts": []any{}}}}})

		r := driftOf(c, weather, endpoint(live))
		require.Equal(t, true, r.Get("drifted"))
		require.Equal(t, []string{"tool alerts presence", "tool get_forecast input_schema", "tool history presence"}, changesOf(t, r))
		require.Nil(t, r.Get("changes.0.design"))
		require.Equal(t, "alerts", r.Get("changes.0.live"))
		require.Equal(t, `{"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}`, jsonAt(t, r, "changes.1.design"))
		require.Equal(t, `{"properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city","days"],"type":"object"}`,
			jsonAt(t, r, "changes.1.live"))
		require.Equal(t, "history", r.Get("changes.2.design"))
		require.Nil(t, r.Get("changes.2.live"))

		// The other way round, the sides swap.
		r = driftOf(c, live, endpoint(weather))
		require.Equal(t, []string{"tool alerts presence", "tool get_forecast input_schema", "tool history presence"}, changesOf(t, r))
		require.Equal(t, "alerts", r.Get("changes.0.design"))
	})

	t.Run("resources and prompts", func(t *testing.T) {
		c := c.For(t)
		live := driftWeather(t, c, "Weather resources")
		res := c.Do("GET", "/api/servers/"+live+"/resources", nil).Status(http.StatusOK)
		c.Do("PATCH", "/api/servers/"+live+"/resources/"+res.String("items.0.id"), map[string]any{"mime_type": "text/plain"}).
			Status(http.StatusOK)
		prompts := c.Do("GET", "/api/servers/"+live+"/prompts", nil).Status(http.StatusOK)
		c.Do("DELETE", "/api/servers/"+live+"/prompts/"+prompts.String("items.0.id"), nil).Status(http.StatusNoContent)
		mkChild(t, c, live, "prompts", map[string]any{"name": "plan_trip", "description": "Plans a trip.",
			"arguments": []any{map[string]any{"name": "city", "description": "where", "required": false}},
			"messages":  []any{map[string]any{"role": "user", "text": "Go to {{city}}."}}})

		r := driftOf(c, weather, endpoint(live))
		require.Equal(t, []string{"resource docs://guide mime_type", "prompt plan_trip arguments"}, changesOf(t, r))
		require.Equal(t, "text/markdown", r.Get("changes.0.design"))
		require.Equal(t, "text/plain", r.Get("changes.0.live"))
		require.Equal(t, `[{"description":"where","name":"city","required":false}]`, jsonAt(t, r, "changes.1.live"))
	})

	t.Run("url is required", func(t *testing.T) {
		c.For(t).Do("POST", "/api/servers/"+weather+"/drift", map[string]any{}).Problem(http.StatusUnprocessableEntity, "url")
		c.For(t).Do("POST", "/api/servers/"+weather+"/drift", map[string]any{"url": "ftp://example.com/mcp"}).
			Problem(http.StatusUnprocessableEntity, "url")
	})

	t.Run("a private address is refused", func(t *testing.T) {
		r := c.For(t).Do("POST", "/api/servers/"+weather+"/drift", map[string]any{"url": "http://10.0.0.1/mcp"}).
			Problem(http.StatusUnprocessableEntity, "url")
		require.Contains(t, string(r.Raw), "private addresses are not allowed")
	})

	t.Run("a draft design does not answer", func(t *testing.T) {
		draft := mkServer(t, c.For(t), "Draft")
		c.For(t).Do("POST", "/api/servers/"+weather+"/drift", map[string]any{"url": endpoint(draft)}).
			Problem(http.StatusUnprocessableEntity, "url")
	})

	t.Run("another organization's design is not found", func(t *testing.T) {
		other := env.Signup(t, "Strangers")
		other.Do("POST", "/api/servers/"+weather+"/drift", map[string]any{"url": endpoint(weather)}).Status(http.StatusNotFound)
	})

	t.Run("as a platform MCP tool", func(t *testing.T) {
		raw := c.For(t).Do("POST", "/api/keys", map[string]any{"name": "assistant"}).Status(http.StatusCreated).String("raw_key")
		assistant := env.Anonymous(t)
		assistant.Header.Set("X-API-Key", raw)
		assistant.Header.Set("Accept", "application/json")
		list := assistant.Do("POST", "/api/platform-mcp/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}).
			Status(http.StatusOK)
		require.Contains(t, string(list.Raw), `"check_drift"`)
		r := assistant.Do("POST", "/api/platform-mcp/mcp", map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
			"params": map[string]any{"name": "check_drift", "arguments": map[string]any{"server_id": weather, "url": endpoint(weather)}}}).
			Status(http.StatusOK)
		require.NotEqual(t, true, r.Get("result.isError"), "body: %s", r.Raw)
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.String("result.content.0.text")), &out))
		require.Equal(t, false, out["drifted"], "%v", out)
		require.Equal(t, []any{}, out["changes"])
	})
}

// TestDriftAgainstSDKServer compares a design with a server built with the
// official MCP Go SDK: the design imported from it does not drift, and
// one edited afterwards does.
func TestDriftAgainstSDKServer(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.AllowPrivateTargets = true }})
	c := env.Signup(t, "SDK drift")

	type in struct {
		City string `json:"city" jsonschema:"the city"`
	}
	type out struct {
		Temp float64 `json:"temp"`
	}
	var calls, reads, gets int
	server := mcp.NewServer(&mcp.Implementation{Name: "weather", Version: "3.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "get_forecast", Description: "The forecast."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ in) (*mcp.CallToolResult, out, error) {
			calls++
			return nil, out{Temp: 21}, nil
		})
	server.AddResource(&mcp.Resource{Name: "guide", URI: "file:///guide.md", MIMEType: "text/markdown"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			reads++
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "# Guide"}}}, nil
		})
	server.AddPrompt(&mcp.Prompt{Name: "plan_trip", Description: "Plans a trip.",
		Arguments: []*mcp.PromptArgument{{Name: "city", Description: "where", Required: true}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			gets++
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Go."}}}}, nil
		})
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	var requireTeam atomic.Bool // once set, the live server wants the X-Team header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requireTeam.Load() && r.Header.Get("X-Team") != "blue" {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		sdk.ServeHTTP(w, r)
	}))
	defer srv.Close()

	id := c.Do("POST", "/api/servers/import/mcp", map[string]any{"url": srv.URL}).Status(http.StatusCreated).String("server.id")
	calls, reads, gets = 0, 0, 0

	r := driftOf(c, id, srv.URL)
	require.Equal(t, false, r.Get("drifted"), "body: %s", r.Raw)
	require.Zero(t, calls+reads+gets, "drift lists, and calls, reads or fetches nothing")

	tools := c.Do("GET", "/api/servers/"+id+"/tools", nil).Status(http.StatusOK)
	c.Do("PATCH", "/api/servers/"+id+"/tools/"+tools.String("items.0.id"), map[string]any{"description": "Old forecast.",
		"output_schema": nil}).Status(http.StatusOK)
	res := c.Do("GET", "/api/servers/"+id+"/resources", nil).Status(http.StatusOK)
	c.Do("DELETE", "/api/servers/"+id+"/resources/"+res.String("items.0.id"), nil).Status(http.StatusNoContent)

	r = driftOf(c, id, srv.URL)
	require.Equal(t, true, r.Get("drifted"))
	require.Equal(t, []string{"tool get_forecast description", "tool get_forecast output_schema", "resource file:///guide.md presence"},
		changesOf(t, r))
	require.Equal(t, "Old forecast.", r.Get("changes.0.design"))
	require.Equal(t, "The forecast.", r.Get("changes.0.live"))
	require.Nil(t, r.Get("changes.1.design"))
	require.Contains(t, jsonAt(t, r, "changes.1.live"), `"temp"`)

	// Without a url, the design's upstream is the live server, reached
	// with its stored headers.
	requireTeam.Store(true)
	c.Do("POST", "/api/servers/"+id+"/drift", map[string]any{}).Status(http.StatusUnprocessableEntity)
	c.Do("PATCH", "/api/servers/"+id, map[string]any{"upstream": map[string]any{"url": srv.URL,
		"headers": map[string]any{"X-Team": "blue"}}}).Status(http.StatusOK)
	r = c.Do("POST", "/api/servers/"+id+"/drift", map[string]any{}).Status(http.StatusOK)
	require.Equal(t, []string{"tool get_forecast description", "tool get_forecast output_schema", "resource file:///guide.md presence"},
		changesOf(t, r))
}
