package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// TestImportCommands imports through the REST API of a running service,
// into the organization of the key, as a setup script would.
func TestImportCommands(t *testing.T) {
	env := apitest.New(t, nil)
	c := env.Signup(t, "Import Team")
	key := c.Do("POST", "/api/keys", map[string]any{"name": "ci"}).Status(http.StatusCreated).String("raw_key")
	other := env.Signup(t, "Someone Else")
	t.Setenv(envURL, env.URL)
	t.Setenv(envAPIKey, key)

	t.Run("openapi from a file", func(t *testing.T) {
		out, err := runOut(t, "import", "openapi", "../../internal/oasimport/testdata/petstore-3.0.yaml", "--name", "Pets")
		require.NoError(t, err, out)
		id := strings.Fields(out)[0]
		srv := c.Do("GET", "/api/servers/"+id, nil).Status(http.StatusOK)
		require.Equal(t, "Pets", srv.String("name"))
		require.Equal(t, "openapi", srv.String("type"))
		require.Equal(t, false, srv.Get("enabled"))
		require.Equal(t, "openapi", srv.String("source.kind"))
		tools := c.Do("GET", "/api/servers/"+id+"/tools", nil).Status(http.StatusOK)
		require.Positive(t, tools.Len("items"))
		require.Contains(t, out, "Pets\t")
		require.Contains(t, out, "tools")
		other.Do("GET", "/api/servers/"+id, nil).Status(http.StatusNotFound)
	})
	t.Run("mcp from a served design", func(t *testing.T) {
		orig := c.CreateServer(json.RawMessage(`{"name":"Original"}`), []json.RawMessage{json.RawMessage(`{
			"name": "get_weather", "description": "Weather for a city.",
			"input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
			"mock_scenarios": [{"name": "paris", "condition": {"city": "Paris"}, "response": {"temp": 18}},
				{"name": "any", "response": {"temp": 0}}]}`)}, nil, nil)
		c.EnableServer(orig)
		out, err := runOut(t, "import", "mcp", env.URL+"/api/platform/"+orig+"/mcp", "--name", "Copy",
			"--header", "X-Trace: cli", "--record", `get_weather={"city":"Paris"}`)
		require.NoError(t, err, out)
		cp := strings.Fields(out)[0]
		require.Equal(t, "Copy", c.Do("GET", "/api/servers/"+cp, nil).Status(http.StatusOK).String("name"))
		tools := c.Do("GET", "/api/servers/"+cp+"/tools", nil).Status(http.StatusOK)
		require.Equal(t, "get_weather", tools.String("items.0.name"))
		require.Equal(t, "Paris", tools.String("items.0.mock_scenarios.0.condition.city"), "the recorded call")

		for _, bad := range [][]string{{"--header", "no colon"}, {"--record", "get_weather={"}, {"--record", "=1"}} {
			_, err := runOut(t, append([]string{"import", "mcp", env.URL + "/api/platform/" + orig + "/mcp"}, bad...)...)
			require.Equal(t, exitUsage, exitCode(err), "%v: %v", bad, err)
		}
	})
	t.Run("refusals", func(t *testing.T) {
		out, err := runOut(t, "import", "openapi", "../../internal/oasimport/testdata/not-openapi.json")
		require.ErrorContains(t, err, "document", out)
		require.Equal(t, exitFailed, exitCode(err))

		_, err = runOut(t, "import", "openapi", "../../internal/oasimport/testdata/petstore-3.0.yaml", "--api-key", "mmcp_wrong")
		require.ErrorContains(t, err, "401")
		require.Equal(t, exitFailed, exitCode(err))

		_, err = runOut(t, "import", "openapi", "../../internal/oasimport/testdata/petstore-3.0.yaml", "--org", "acme")
		require.ErrorContains(t, err, "unknown flag: --org")
		require.Equal(t, exitUsage, exitCode(err))

		_, err = runOut(t, "import", "openapi")
		require.Equal(t, exitUsage, exitCode(err))

		t.Setenv(envAPIKey, "")
		_, err = runOut(t, "import", "openapi", "../../internal/oasimport/testdata/petstore-3.0.yaml")
		require.ErrorContains(t, err, "an API key is required")
		require.Equal(t, exitUsage, exitCode(err))
	})
}
