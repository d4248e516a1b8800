package ratelimit_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// requireLimitHeaders checks that a carries the rate-limit headers of a
// counter with limit, remaining as given.
func requireLimitHeaders(t *testing.T, a answer, limit, remaining int, what string) {
	t.Helper()
	require.Equal(t, strconv.Itoa(limit), a.hdr.Get("X-RateLimit-Limit"), "%s: %d %s", what, a.code, a.body)
	require.Equal(t, strconv.Itoa(remaining), a.hdr.Get("X-RateLimit-Remaining"), what)
	reset, err := strconv.ParseInt(a.hdr.Get("X-RateLimit-Reset"), 10, 64)
	require.NoError(t, err, "%s: X-RateLimit-Reset", what)
	require.Positive(t, reset, what)
}

// TestRefusalsCarryLimitHeaders: in production (counters in Redis), the
// per-server endpoint's refusals carry the rate-limit headers too, each
// counted as one message: 401 for a missing key, 413 for a body too
// large, 400 for a batch in a revision without batches, against the
// organization's counter for the address; 404 for an unknown server
// against the address's own counter.
func TestRefusalsCarryLimitHeaders(t *testing.T) {
	t.Parallel()
	env := production(t, 5, 100, func(c *config.Config) {
		c.RedisURL = redisURL()
		c.MaxBodyBytes = 2048
	})
	owner := env.Signup(t, "Refusing Org")
	server := enabledServer(t, owner)
	owner.Do("PATCH", "/api/servers/"+server, map[string]any{"auth_mode": "api_key"}).Status(http.StatusOK)
	// An address of its own: the counter of unknown servers is the
	// address's, kept in Redis across runs of the test.
	ip := fmt.Sprintf("2001:db8:%x:%x::1", rand.Uint32()>>16, rand.Uint32()>>16)
	post := func(path, body string, header ...string) answer {
		req := apitest.JSONRequest(t, "POST", env.URL+path, strings.NewReader(body))
		req.Header.Set("X-Forwarded-For", ip)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		return send(t, req)
	}
	endpoint := "/api/platform/" + server + "/mcp"

	a := post(endpoint, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	require.Equal(t, http.StatusUnauthorized, a.code, a.body)
	requireLimitHeaders(t, a, 5, 4, "401")

	a = post(endpoint, `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"pad":"`+string(bytes.Repeat([]byte("x"), 4096))+`"}}`)
	require.Equal(t, http.StatusRequestEntityTooLarge, a.code, a.body)
	requireLimitHeaders(t, a, 5, 3, "413")

	// Another server of the organization, open: its counter is the same.
	a = post("/api/platform/"+enabledServer(t, owner)+"/mcp", `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, "Mcp-Protocol-Version", "2025-06-18")
	require.Equal(t, http.StatusBadRequest, a.code, a.body)
	requireLimitHeaders(t, a, 5, 2, "400")

	unknown := "/api/platform/00000000-0000-4000-8000-000000000000/mcp"
	a = post(unknown, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	require.Equal(t, http.StatusNotFound, a.code, a.body)
	requireLimitHeaders(t, a, 5, 4, "404, the address's own counter")
	a = post("/api/platform/not-a-uuid/mcp", `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	require.Equal(t, http.StatusNotFound, a.code, a.body)
	requireLimitHeaders(t, a, 5, 3, "404 of a malformed id")

	// Past the limit a refusal stays what it is, and says when to retry.
	for range 3 {
		post(unknown, `{"jsonrpc":"2.0","id":6,"method":"ping"}`)
	}
	a = post(unknown, `{"jsonrpc":"2.0","id":7,"method":"ping"}`)
	require.Equal(t, http.StatusNotFound, a.code, a.body)
	requireLimitHeaders(t, a, 5, 0, "404 past the limit")
	require.NotEmpty(t, a.hdr.Get("Retry-After"))
}

// TestPlatformRefusalsCarryLimitHeaders: with a valid key, the service
// endpoint's refusal of a body too large and a policy route's 404 carry
// the organization's platform headers, each counted as one.
func TestPlatformRefusalsCarryLimitHeaders(t *testing.T) {
	t.Parallel()
	env := production(t, 100, 6, func(c *config.Config) { c.MaxBodyBytes = 2048 })
	owner := env.Signup(t, "Platform Refusals Org")
	raw := owner.Do("POST", "/api/keys", map[string]any{"name": "k"}).Status(http.StatusCreated).String("raw_key")

	req := apitest.JSONRequest(t, "POST", env.URL+"/api/platform-mcp/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"`+strings.Repeat("x", 4096)+`"}}`))
	req.Header.Set("X-API-Key", raw)
	a := send(t, req)
	require.Equal(t, http.StatusRequestEntityTooLarge, a.code, a.body)
	requireLimitHeaders(t, a, 6, 5, "413 of the service endpoint")

	req, err := http.NewRequest("GET", env.URL+"/api/platform/00000000-0000-4000-8000-000000000000/mcp/spec", nil)
	require.NoError(t, err)
	req.Header.Set("X-API-Key", raw)
	a = send(t, req)
	require.Equal(t, http.StatusNotFound, a.code, a.body)
	requireLimitHeaders(t, a, 6, 4, "404 of a policy route")

	// Without a valid key there is no organization: the address's own
	// counter, at MAX_PUBLIC_RATE_LIMIT, shared by both routes.
	req = apitest.JSONRequest(t, "POST", env.URL+"/api/platform-mcp/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("X-API-Key", "mk_not_a_key")
	a = send(t, req)
	require.Equal(t, http.StatusUnauthorized, a.code, a.body)
	requireLimitHeaders(t, a, 100, 99, "401 of the service endpoint")
	req, err = http.NewRequest("GET", env.URL+"/api/platform/00000000-0000-4000-8000-000000000000/mcp/spec", nil)
	require.NoError(t, err)
	a = send(t, req)
	require.Equal(t, http.StatusUnauthorized, a.code, a.body)
	requireLimitHeaders(t, a, 100, 98, "401 of a policy route")
}
