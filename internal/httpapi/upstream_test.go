package httpapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// secretValue is an upstream header value no answer may ever contain.
const secretValue = "Bearer sk-upstream-s3cr3t-0123456789"

func TestServerUpstreamStored(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Upstream Co")

	r := ada.Do("POST", "/api/servers", map[string]any{"name": "Proxy",
		"upstream": map[string]any{"url": "https://mcp.example.com/mcp",
			"headers": map[string]any{"Authorization": secretValue, "X-Team": "blue-team-value"}}}).Status(http.StatusCreated)
	id := r.String("id")
	require.Equal(t, "https://mcp.example.com/mcp", r.Get("upstream.url"))
	require.Equal(t, "fallback", r.Get("upstream.mode"), "fallback is the default mode")
	require.Equal(t, []any{"Authorization", "X-Team"}, r.Get("upstream.header_names"))
	require.NotContains(t, string(r.Raw), "sk-upstream")
	require.NotContains(t, string(r.Raw), "blue-team-value")

	// At rest the values are sealed: not in the row in clear.
	var sealed []byte
	require.NoError(t, env.Service.Store().Pool().QueryRow(context.Background(),
		"SELECT upstream_headers FROM mcp_servers WHERE id = $1", id).Scan(&sealed))
	require.NotEmpty(t, sealed)
	require.NotContains(t, string(sealed), "sk-upstream")

	// PATCH: headers omitted keep the stored ones; the mode changes.
	r = ada.Do("PATCH", "/api/servers/"+id, map[string]any{"upstream": map[string]any{"mode": "record"}}).Status(http.StatusOK)
	require.Equal(t, "record", r.Get("upstream.mode"))
	require.Equal(t, []any{"Authorization", "X-Team"}, r.Get("upstream.header_names"))
	var after []byte
	require.NoError(t, env.Service.Store().Pool().QueryRow(context.Background(),
		"SELECT upstream_headers FROM mcp_servers WHERE id = $1", id).Scan(&after))
	require.Equal(t, sealed, after, "omitted headers are kept as stored")

	// Other fields patched alone keep the upstream.
	r = ada.Do("PATCH", "/api/servers/"+id, map[string]any{"description": "x"}).Status(http.StatusOK)
	require.Equal(t, "record", r.Get("upstream.mode"))

	// Headers given replace them all.
	r = ada.Do("PATCH", "/api/servers/"+id, map[string]any{"upstream": map[string]any{"headers": map[string]any{"X-Key": "k"}}}).Status(http.StatusOK)
	require.Equal(t, []any{"X-Key"}, r.Get("upstream.header_names"))

	for _, path := range []string{"/api/servers/" + id, "/api/servers", "/api/servers/" + id + "/export"} {
		body := string(ada.Do("GET", path, nil).Status(http.StatusOK).Raw)
		require.NotContains(t, body, "sk-upstream", path)
	}

	// null removes it.
	r = ada.Do("PATCH", "/api/servers/"+id, map[string]any{"upstream": nil}).Status(http.StatusOK)
	require.Nil(t, r.Get("upstream"))
	require.Contains(t, r.JSON, "upstream")
}

func TestServerUpstreamChecked(t *testing.T) {
	t.Parallel()
	_, ada := apitest.SignedUp(t, "Upstream Checks")
	many := map[string]any{}
	for i := range 21 {
		many["X-H"+string(rune('a'+i))] = "v"
	}
	for name, tc := range map[string]struct {
		upstream map[string]any
		field    string
	}{
		"ftp url":      {map[string]any{"url": "ftp://example.com/mcp"}, "upstream.url"},
		"relative url": {map[string]any{"url": "/mcp"}, "upstream.url"},
		"bad mode":     {map[string]any{"url": "https://example.com/mcp", "mode": "mirror"}, "upstream.mode"},
		"bad name":     {map[string]any{"url": "https://example.com/mcp", "headers": map[string]any{"Bad Name": "v"}}, "upstream.headers"},
		"too many":     {map[string]any{"url": "https://example.com/mcp", "headers": many}, "upstream.headers"},
		"line break":   {map[string]any{"url": "https://example.com/mcp", "headers": map[string]any{"X-A": "a\r\nB: c"}}, "upstream.headers.X-A"},
		"client's own": {map[string]any{"url": "https://example.com/mcp", "headers": map[string]any{"Mcp-Session-Id": "s"}}, "upstream.headers.Mcp-Session-Id"},
		"missing url":  {map[string]any{"mode": "record"}, "upstream.url"},
	} {
		t.Run(name, func(t *testing.T) {
			ada := ada.For(t)
			r := ada.Do("POST", "/api/servers", map[string]any{"name": "Bad", "upstream": tc.upstream})
			require.Contains(t, []int{http.StatusBadRequest, http.StatusUnprocessableEntity}, r.Code, string(r.Raw))
			require.Contains(t, string(r.Raw), tc.field)
			require.NotContains(t, string(r.Raw), "a\r\nB")
		})
	}
	t.Run("patch without url", func(t *testing.T) {
		ada := ada.For(t)
		id := mkServer(t, ada, "No upstream yet")
		ada.Do("PATCH", "/api/servers/"+id, map[string]any{"upstream": map[string]any{"mode": "record"}}).
			Problem(http.StatusUnprocessableEntity, "upstream.url")
	})
}
