package main

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// driftDesign creates and enables a design with one get_forecast tool
// whose input schema is schema, and extra as a second tool when not empty.
func driftDesign(t *testing.T, c *apitest.Client, name, schema, extra string) string {
	t.Helper()
	tools := []json.RawMessage{json.RawMessage(`{"name": "get_forecast", "description": "The forecast.",
		"input_schema": ` + schema + `, "mock_scenarios": [{"name": "any", "response": {"temp": 18}}]}`)}
	if extra != "" {
		tools = append(tools, json.RawMessage(`{"name": "`+extra+`", "input_schema": {"type": "object"},
			"mock_scenarios": [{"name": "any", "response": {}}]}`))
	}
	id := c.CreateServer(json.RawMessage(`{"name":"`+name+`"}`), tools, nil, nil)
	c.EnableServer(id)
	return id
}

// TestDriftCommand checks designs against live servers through the REST
// API of a running service, as a CI job would.
func TestDriftCommand(t *testing.T) {
	env := apitest.New(t, nil) // private targets refused
	c := env.Signup(t, "Drift Team")
	key := c.Do("POST", "/api/keys", map[string]any{"name": "ci"}).Status(http.StatusCreated).String("raw_key")
	city := `{"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}`
	weather := driftDesign(t, c, "Weather", city, "history")
	live := driftDesign(t, c, "Weather live", `{"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}}`, "alerts")
	endpoint := func(id string) string { return env.URL + "/api/platform/" + id + "/mcp" }
	t.Setenv(envURL, env.URL)
	t.Setenv(envAPIKey, key)

	t.Run("no drift", func(t *testing.T) {
		out, err := runOut(t, "drift", weather, "--url", endpoint(weather), "--header", "X-Trace: ci")
		require.NoError(t, err, out)
		require.Equal(t, exitOK, exitCode(err))
		require.Equal(t, "no drift\n", out)
	})
	t.Run("drift", func(t *testing.T) {
		out, err := runOut(t, "drift", weather, "--url", endpoint(live))
		require.EqualError(t, err, "drift: 3 changes")
		require.Equal(t, exitFailed, exitCode(err))
		require.Equal(t, `tool alerts: only live
tool get_forecast: input_schema differs: design {"properties":{"city":{"type":"string"}},"required":["city"],"type":"object"}, live {"properties":{"city":{"type":"string"},"days":{"type":"integer"}},"type":"object"}
tool history: only in the design
`, out)
	})
	t.Run("the service named by --service-url", func(t *testing.T) {
		t.Setenv(envURL, "http://"+freeAddr(t))
		out, err := runOut(t, "drift", weather, "--url", endpoint(weather), "--service-url", env.URL)
		require.NoError(t, err, out)
		require.Equal(t, "no drift\n", out)
	})
	t.Run("a live server refused or not answering exits 3", func(t *testing.T) {
		for _, url := range []string{"http://10.0.0.1/mcp", endpoint("0b7f9ad4-5f2a-4a8e-9a57-3f0c9a7c1e11")} {
			_, err := runOut(t, "drift", weather, "--url", url)
			require.ErrorContains(t, err, "url: ")
			require.Equal(t, exitUnreachable, exitCode(err), "%s: %v", url, err)
		}
	})
	t.Run("an unreachable service exits 3", func(t *testing.T) {
		_, err := runOut(t, "drift", weather, "--url", endpoint(weather), "--service-url", "http://"+freeAddr(t))
		require.Equal(t, exitUnreachable, exitCode(err), "%v", err)
	})
	t.Run("an unknown server exits 1", func(t *testing.T) {
		_, err := runOut(t, "drift", "0b7f9ad4-5f2a-4a8e-9a57-3f0c9a7c1e11", "--url", endpoint(weather))
		require.ErrorContains(t, err, "404")
		require.Equal(t, exitFailed, exitCode(err))
		_, err = runOut(t, "drift", "not-a-uuid", "--url", endpoint(weather))
		require.ErrorContains(t, err, `no server named "not-a-uuid"`)
		require.Equal(t, exitFailed, exitCode(err))
	})
	t.Run("usage errors exit 2", func(t *testing.T) {
		for _, args := range [][]string{
			{"drift", weather},
			{"drift", weather, "--url", "ftp://example.com/mcp"},
			{"drift", weather, "--url", endpoint(weather), "--header", "no colon"},
			{"drift", "--url", endpoint(weather)},
		} {
			_, err := runOut(t, args...)
			require.Equal(t, exitUsage, exitCode(err), "%v: %v", args, err)
		}
	})
	t.Run("the built binary's exit status", func(t *testing.T) {
		bin := buildBinary(t, "drift-test")
		vars := []string{envURL + "=" + env.URL, envAPIKey + "=" + key}
		r := runBinary(t, bin, vars, "drift", weather, "--url", endpoint(weather))
		require.Equal(t, exitOK, r.code, r.stderr)
		require.Equal(t, "no drift\n", r.stdout)
		r = runBinary(t, bin, vars, "drift", weather, "--url", endpoint(live))
		require.Equal(t, exitFailed, r.code, r.stderr)
		require.Contains(t, r.stdout, "tool get_forecast: input_schema differs")
		require.Contains(t, r.stderr, "drift: 3 changes")
	})
}
