package a2aserve_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// BenchmarkSendMessageVsToolsCall measures a scripted SendMessage and a
// tools/call of an MCP design the same way: each request through the
// whole service's handler (routing, metrics, the exchange's rate limit or
// the platform's, the card or design look-up, matching, answering), into
// a recorder. Both answer with the third of their scripted choices.
func BenchmarkSendMessageVsToolsCall(b *testing.B) {
	env := apitest.New(b, nil)
	c := env.Signup(b, "Bench Org")
	slug := c.Do(http.MethodGet, "/api/organizations/"+c.OrgID, nil).Status(http.StatusOK).String("slug")

	server := c.Do(http.MethodPost, "/api/servers", map[string]any{"name": "Weather", "version": "1.0.0"}).Status(http.StatusCreated).String("id")
	c.Do(http.MethodPost, "/api/servers/"+server+"/tools", map[string]any{
		"name": "get_forecast", "description": "Returns the forecast for a city.",
		"input_schema": map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}},
		"mock_scenarios": []any{
			map[string]any{"name": "atlantis", "condition": map[string]any{"city": "Atlantis"}, "response": map[string]any{"error": "under water"}},
			map[string]any{"name": "paris", "condition": map[string]any{"field": "city", "operator": "equals", "value": "Paris"}, "response": map[string]any{"forecast": "rain"}},
			map[string]any{"name": "oslo", "condition": map[string]any{"city": "Oslo"}, "response": map[string]any{"city": "{{args.city}}", "forecast": "light snow"}},
		},
	}).Status(http.StatusCreated)
	c.Do(http.MethodPatch, "/api/servers/"+server, map[string]any{"enabled": true}).Status(http.StatusOK)

	card := c.Do(http.MethodPost, "/api/agent-cards", map[string]any{
		"name": "weather-agent", "version": "1.0.0", "description": cardDesc("Forecasts."),
		"skills":     []any{map[string]any{"name": "get_forecast", "description": cardDesc("Forecasts for a city.")}},
		"invocation": map[string]any{"protocol": "mcp", "endpoint": "https://agents.example.com/mcp"},
		"replies": []any{
			map[string]any{"name": "atlantis", "condition": map[string]any{"text": "Atlantis"}, "text": "Under water."},
			map[string]any{"name": "paris", "condition": map[string]any{"field": "text", "operator": "contains", "value": "Paris"}, "text": "Rain."},
			map[string]any{"name": "oslo", "condition": map[string]any{"data.city": "Oslo"}, "text": "Light snow in {{args.data.city}}."},
		},
	}).Status(http.StatusCreated).String("id")
	c.Do(http.MethodPost, "/api/agent-cards/"+card+"/publish", nil).Status(http.StatusOK)

	h := env.Service.Handler()
	run := func(b *testing.B, path, body, want string, header ...string) {
		b.Helper()
		serve := func() *httptest.ResponseRecorder {
			req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
			req.RemoteAddr = "192.0.2.1:1234"
			req.Header.Set("Content-Type", "application/json")
			for i := 0; i+1 < len(header); i += 2 {
				req.Header.Set(header[i], header[i+1])
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			return w
		}
		if w := serve(); w.Code != http.StatusOK || !bytes.Contains(w.Body.Bytes(), []byte(want)) {
			b.Fatalf("warm-up: %d %s", w.Code, w.Body)
		}
		b.ReportAllocs()
		for b.Loop() {
			serve()
		}
	}
	b.Run("tools/call", func(b *testing.B) {
		run(b, "/api/platform/"+server+"/mcp",
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Oslo"}}}`,
			"light snow", "Accept", "application/json")
	})
	b.Run("SendMessage", func(b *testing.B) {
		run(b, "/api/exchange/agent-cards/"+slug+"/weather-agent/a2a",
			`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","contextId":"c","role":"ROLE_USER","parts":[{"text":"Forecast please"},{"data":{"city":"Oslo"}}]}}}`,
			"Light snow in Oslo", "A2A-Version", "1.0")
	})
}
