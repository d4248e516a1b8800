package httpapi_test

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// The settings for MCP protocol revision 2026-07-28: a server's eras and
// caching hints, a tool's required client capabilities.

func TestServerProtocolSettings(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Acme Labs")

	t.Run("defaults", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", "/api/servers", map[string]any{"name": "Weather"}).Status(http.StatusCreated)
		got := ada.Do("GET", "/api/servers/"+r.String("id"), nil).Status(http.StatusOK)
		for _, resp := range []*apitest.Response{r, got} {
			require.Equal(t, "modern_and_legacy", resp.Get("eras"))
			require.Equal(t, float64(60000), resp.Get("cache_ttl_ms"))
			require.Equal(t, "private", resp.Get("cache_scope"))
			require.Equal(t, "2024-11-05", resp.Get("protocol_version"), "initialize's version is its own setting")
		}
	})

	t.Run("create, patch and duplicate", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", "/api/servers", map[string]any{
			"name": "Legacy", "eras": "legacy_only", "cache_ttl_ms": 0, "cache_scope": "public",
		}).Status(http.StatusCreated)
		id := r.String("id")
		path := "/api/servers/" + id
		requireSettings(t, ada, path, "legacy_only", 0, "public")

		r = ada.Do("PATCH", path, map[string]any{"eras": "modern_only"}).Status(http.StatusOK)
		require.Equal(t, "modern_only", r.Get("eras"))
		requireSettings(t, ada, path, "modern_only", 0, "public")

		ada.Do("PATCH", path, map[string]any{"cache_ttl_ms": 86400000}).Status(http.StatusOK)
		requireSettings(t, ada, path, "modern_only", 86400000, "public")

		ada.Do("PATCH", path, map[string]any{"cache_scope": "private", "description": "x"}).Status(http.StatusOK)
		requireSettings(t, ada, path, "modern_only", 86400000, "private")

		ada.Do("PATCH", path, map[string]any{"description": "absent settings are kept"}).Status(http.StatusOK)
		requireSettings(t, ada, path, "modern_only", 86400000, "private")

		cp := ada.Do("POST", path+"/duplicate", nil).Status(http.StatusCreated)
		requireSettings(t, ada, "/api/servers/"+cp.String("id"), "modern_only", 86400000, "private")
	})

	t.Run("invalid create", func(t *testing.T) {
		requireInvalid(t, ada, "POST", "/api/servers", []invalidBody{
			{"unknown eras", map[string]any{"name": "x", "eras": "x"}, []string{"eras"}},
			{"empty eras", map[string]any{"name": "x", "eras": ""}, []string{"eras"}},
			{"negative cache_ttl_ms", map[string]any{"name": "x", "cache_ttl_ms": -1}, []string{"cache_ttl_ms"}},
			{"cache_ttl_ms over a day", map[string]any{"name": "x", "cache_ttl_ms": 86400001}, []string{"cache_ttl_ms"}},
			{"fractional cache_ttl_ms", map[string]any{"name": "x", "cache_ttl_ms": 1.5}, []string{"cache_ttl_ms"}},
			{"cache_ttl_ms a string", map[string]any{"name": "x", "cache_ttl_ms": "60000"}, []string{"cache_ttl_ms"}},
			{"unknown cache_scope", map[string]any{"name": "x", "cache_scope": "shared"}, []string{"cache_scope"}},
			{"all three", map[string]any{"name": "x", "eras": "both", "cache_ttl_ms": -1, "cache_scope": "none"},
				[]string{"eras", "cache_ttl_ms", "cache_scope"}},
		})
	})

	t.Run("invalid patches change nothing", func(t *testing.T) {
		id := mkServer(t, ada.For(t), "Patched")
		requirePatchesRefused(t, ada.For(t), "/api/servers/"+id, id, []badPatch{
			{"unknown eras", map[string]any{"eras": "x"}, http.StatusUnprocessableEntity, []string{"eras"}},
			{"null eras", map[string]any{"eras": nil}, http.StatusUnprocessableEntity, []string{"eras"}},
			{"negative cache_ttl_ms", map[string]any{"cache_ttl_ms": -1}, http.StatusUnprocessableEntity, []string{"cache_ttl_ms"}},
			{"cache_ttl_ms over a day", map[string]any{"cache_ttl_ms": 86400001}, http.StatusUnprocessableEntity, []string{"cache_ttl_ms"}},
			{"null cache_ttl_ms", map[string]any{"cache_ttl_ms": nil}, http.StatusUnprocessableEntity, []string{"cache_ttl_ms"}},
			{"unknown cache_scope", map[string]any{"cache_scope": "PUBLIC"}, http.StatusUnprocessableEntity, []string{"cache_scope"}},
		})
	})

	t.Run("the database refuses what the checks refuse", func(t *testing.T) {
		id := mkServer(t, ada.For(t), "Guarded")
		for _, set := range []string{"eras = 'x'", "cache_ttl_ms = -1", "cache_ttl_ms = 86400001", "cache_scope = 'x'"} {
			_, err := env.Service.Store().Pool().Exec(context.Background(), "UPDATE mcp_servers SET "+set+" WHERE id = $1", id)
			require.ErrorContains(t, err, "check constraint", set)
		}
	})
}

// requireSettings requires the protocol settings of the server at path.
func requireSettings(t *testing.T, c *apitest.Client, path, eras string, ttl float64, scope string) {
	t.Helper()
	r := c.Do("GET", path, nil).Status(http.StatusOK)
	require.Equal(t, eras, r.Get("eras"))
	require.Equal(t, ttl, r.Get("cache_ttl_ms"))
	require.Equal(t, scope, r.Get("cache_scope"))
}

func TestToolRequiredClientCapabilities(t *testing.T) {
	t.Parallel()
	env, ada, server, tools := designFixture(t, "Acme Labs", "Weather", "tools")

	t.Run("default none", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", tools, map[string]any{"name": "plain"}).Status(http.StatusCreated)
		require.Equal(t, []any{}, r.Get("required_client_capabilities"))
		got := ada.Do("GET", tools+"/"+r.String("id"), nil).Status(http.StatusOK)
		require.Equal(t, []any{}, got.Get("required_client_capabilities"))
	})

	t.Run("create, patch and duplicate", func(t *testing.T) {
		ada := ada.For(t)
		id := mkChild(t, ada, server, "tools", map[string]any{
			"name": "ask", "required_client_capabilities": []string{"elicitation", "sampling"},
		})
		path := tools + "/" + id
		require.Equal(t, []any{"elicitation", "sampling"}, ada.Do("GET", path, nil).Status(http.StatusOK).Get("required_client_capabilities"))

		r := ada.Do("PATCH", path, map[string]any{"description": "kept"}).Status(http.StatusOK)
		require.Equal(t, []any{"elicitation", "sampling"}, r.Get("required_client_capabilities"), "absent is kept")

		r = ada.Do("PATCH", path, map[string]any{"required_client_capabilities": []string{"roots", "sampling", "elicitation"}}).
			Status(http.StatusOK)
		require.Equal(t, []any{"roots", "sampling", "elicitation"}, r.Get("required_client_capabilities"), "in the order given")

		cp := ada.Do("POST", "/api/servers/"+server+"/duplicate", nil).Status(http.StatusCreated)
		copied := ada.Do("GET", "/api/servers/"+cp.String("id")+"/tools", nil).Status(http.StatusOK)
		byName := map[string]any{}
		for i, name := range names(t, copied, "items") {
			byName[name] = copied.Get("items." + strconv.Itoa(i) + ".required_client_capabilities")
		}
		require.Equal(t, []any{"roots", "sampling", "elicitation"}, byName["ask"])
		require.Equal(t, []any{}, byName["plain"])

		r = ada.Do("PATCH", path, map[string]any{"required_client_capabilities": []string{}}).Status(http.StatusOK)
		require.Equal(t, []any{}, r.Get("required_client_capabilities"), "[] removes them")
	})

	bad := []struct {
		name string
		caps any
	}{
		{"unknown", []string{"x"}},
		{"a server capability", []string{"roots", "tools"}},
		{"twice", []string{"roots", "roots"}},
		{"four", []string{"roots", "sampling", "elicitation", "roots"}},
		{"not a list", "roots"},
		{"null", nil},
	}
	t.Run("invalid create", func(t *testing.T) {
		for _, tc := range bad {
			t.Run(tc.name, func(t *testing.T) {
				r := ada.For(t).Do("POST", tools, map[string]any{"name": "bad", "required_client_capabilities": tc.caps}).
					Problem(http.StatusUnprocessableEntity)
				requireFieldsUnder(t, r, "required_client_capabilities")
			})
		}
	})

	t.Run("invalid patches change nothing", func(t *testing.T) {
		id := mkChild(t, ada.For(t), server, "tools", map[string]any{"name": "guarded", "required_client_capabilities": []string{"roots"}})
		path := tools + "/" + id
		before := ada.Do("GET", path, nil).Status(http.StatusOK)
		for _, tc := range bad {
			t.Run(tc.name, func(t *testing.T) {
				r := ada.For(t).Do("PATCH", path, map[string]any{"required_client_capabilities": tc.caps}).
					Problem(http.StatusUnprocessableEntity)
				requireFieldsUnder(t, r, "required_client_capabilities")
			})
		}
		require.JSONEq(t, string(before.Raw), string(ada.Do("GET", path, nil).Status(http.StatusOK).Raw))
	})

	t.Run("the database refuses what the checks refuse", func(t *testing.T) {
		id := mkChild(t, ada.For(t), server, "tools", map[string]any{"name": "raw"})
		for _, set := range []string{"'{x}'", "'{roots,sampling,elicitation,roots}'", "NULL"} {
			_, err := env.Service.Store().Pool().Exec(context.Background(),
				"UPDATE mcp_tools SET required_client_capabilities = "+set+" WHERE id = $1", id)
			require.Error(t, err, set)
		}
	})
}

// requireFieldsUnder requires a problem whose every field is field or an
// element of it.
func requireFieldsUnder(t *testing.T, r *apitest.Response, field string) {
	t.Helper()
	fields := r.FieldErrors()
	require.NotEmpty(t, fields, "body: %s", r.Raw)
	for _, f := range fields {
		require.Regexp(t, `^`+field+`(\[\d+\])?$`, f, "body: %s", r.Raw)
	}
}

func TestImportedDesignsGetProtocolDefaults(t *testing.T) {
	t.Parallel()
	_, c := apitest.SignedUp(t, "Importers")
	r := c.Do("POST", "/api/servers/import/openapi", map[string]any{"document": impDocument(t, "todo-3.1.json")}).
		Status(http.StatusCreated)
	requireSettings(t, c, "/api/servers/"+r.String("server.id"), "modern_and_legacy", 60000, "private")
	tools := c.Do("GET", "/api/servers/"+r.String("server.id")+"/tools", nil).Status(http.StatusOK)
	require.NotZero(t, tools.Len("items"))
	for i := range tools.Len("items") {
		require.Equal(t, []any{}, tools.Get("items."+strconv.Itoa(i)+".required_client_capabilities"))
	}
}
