package httpapi_test

import (
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// goWords are what no answer may hold of a Go decoder's error.
var goWords = regexp.MustCompile(`Go struct|Go value|cannot unmarshal|interface \{\}|map\[string\]|\[\]string|json\.RawMessage`)

// TestWrongTypesNameTheField: bodies whose values have the wrong JSON type,
// at the top and deep in free-form members, are refused naming the field in
// JSON's words, never Go's.
func TestWrongTypesNameTheField(t *testing.T) {
	t.Parallel()
	_, c := apitest.SignedUp(t, "Wrong Types")
	server := mkServer(t, c, "typed")
	for _, tc := range []struct {
		name, method, path string
		body               any
	}{
		{"server name", "POST", "/api/servers", map[string]any{"name": 1}},
		{"server upstream", "POST", "/api/servers", map[string]any{"name": "x", "upstream": "http://x"}},
		{"tool schema", "POST", "/api/servers/" + server + "/tools", map[string]any{"name": "t", "input_schema": []any{1}}},
		{"scenario condition", "POST", "/api/servers/" + server + "/tools", map[string]any{"name": "t",
			"input_schema": map[string]any{"type": "object"}, "mock_scenarios": []any{map[string]any{"name": "s", "condition": []any{1}}}}},
		{"scenario when", "POST", "/api/servers/" + server + "/tools", map[string]any{"name": "t",
			"input_schema": map[string]any{"type": "object"}, "mock_scenarios": []any{map[string]any{"name": "s", "when": []any{1, "x"}}}}},
		{"prompt arguments", "POST", "/api/servers/" + server + "/prompts", map[string]any{"name": "p", "arguments": map[string]any{}}},
		{"apply", "POST", "/api/servers/apply", map[string]any{"name": "d", "tools": map[string]any{"a": 1}}},
		{"apply nested", "POST", "/api/servers/apply", map[string]any{"name": "d", "tools": []any{map[string]any{"name": 3}}}},
		{"test case", "POST", "/api/tests", map[string]any{"name": "n", "base_url": "http://example.com", "scopes": "x"}},
		{"test input", "POST", "/api/tests", map[string]any{"name": "n", "base_url": "http://example.com",
			"scopes": []any{map[string]any{"method": "GET", "path": "/"}}, "input": map[string]any{"headers": []any{1}}}},
		{"agent card", "POST", "/api/agent-cards", map[string]any{"name": "a", "skills": "x"}},
		{"key", "POST", "/api/keys", map[string]any{"name": []any{}}},
		{"import", "POST", "/api/servers/import/openapi", map[string]any{"document": 1}},
		{"apply enabled", "POST", "/api/servers/apply", map[string]any{"name": "d", "enabled": "yes", "version": 1}},
		{"apply id", "POST", "/api/servers/apply", map[string]any{"id": 5, "name": "d"}},
		{"apply upstream", "POST", "/api/servers/apply", map[string]any{"name": "d", "upstream": map[string]any{"url": 1, "headers": []any{}}}},
		{"apply resource", "POST", "/api/servers/apply", map[string]any{"name": "d", "resources": []any{map[string]any{"name": "r", "uri": 1}}}},
		{"apply prompt", "POST", "/api/servers/apply", map[string]any{"name": "d", "prompts": []any{map[string]any{"name": "p", "messages": "x"}}}},
		{"apply scenario", "POST", "/api/servers/apply", map[string]any{"name": "d", "tools": []any{map[string]any{"name": "t",
			"input_schema": map[string]any{"type": "object"}, "mock_scenarios": []any{map[string]any{"name": "s", "sequence": "x", "error": 1}}}}}},
		{"mcp import calls", "POST", "/api/servers/import/mcp", map[string]any{"url": "http://example.com", "record_calls": []any{map[string]any{"tool": "t", "arguments": "x"}}}},
		{"session", "POST", "/api/sessions", map[string]any{"name": "s", "base_url": 1}},
		{"verify", "POST", "/api/servers/" + server + "/journal/verify", map[string]any{"tool": "t", "times": "x"}},
		{"promote", "POST", "/api/servers/" + server + "/journal/promote", map[string]any{"journal_ids": "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Do(tc.method, tc.path, tc.body)
			require.GreaterOrEqual(t, r.Code, 400, "body: %s", r.Raw)
			require.Less(t, r.Code, 500, "body: %s", r.Raw)
			require.NotRegexp(t, goWords, string(r.Raw))
		})
	}
}
