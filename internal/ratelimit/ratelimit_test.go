package ratelimit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
	"github.com/mockmcp/mockmcp/internal/service"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// window is the rate-limit window of these tests: long enough for a burst
// of requests to fall into one window, short enough to wait for a reset.
const window = 2 * time.Second

// redisURL is the Redis the shared-counter tests use.
func redisURL() string {
	if v := os.Getenv("TEST_REDIS_URL"); v != "" {
		return v
	}
	return "redis://127.0.0.1:6379/0"
}

// production boots an instance in production mode with small limits.
func production(t *testing.T, public, platform int, more func(*config.Config)) *apitest.Env {
	t.Helper()
	return apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		c.Env = "production"
		c.MaxPublicRateLimit, c.PlatformRateLimit = public, platform
		c.RateWindow = window
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		if more != nil {
			more(c)
		}
	}})
}

// enabledServer creates and enables a server of c's organization.
func enabledServer(t *testing.T, c *apitest.Client) string {
	t.Helper()
	id := c.Do("POST", "/api/servers", map[string]any{"name": "limited"}).Status(http.StatusCreated).String("id")
	c.Do("PATCH", "/api/servers/"+id, map[string]any{"enabled": true}).Status(http.StatusOK)
	return id
}

type answer struct {
	code int
	hdr  http.Header
	body string
}

// mcpCall sends a ping to a design's endpoint from the client address ip
// (through X-Forwarded-For, believed from loopback in these tests).
func mcpCall(t *testing.T, base, server, ip string) answer {
	t.Helper()
	req := apitest.JSONRequest(t, "POST", base+"/api/platform/"+server+"/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":"req-7","method":"ping"}`))
	if ip != "" {
		req.Header.Set("X-Forwarded-For", ip)
	}
	return send(t, req)
}

func send(t *testing.T, req *http.Request) answer {
	t.Helper()
	resp, b := apitest.Send(t, req)
	return answer{resp.StatusCode, resp.Header, string(b)}
}

func remaining(t *testing.T, a answer) int {
	t.Helper()
	n, err := strconv.Atoi(a.hdr.Get("X-RateLimit-Remaining"))
	require.NoError(t, err, "X-RateLimit-Remaining %q", a.hdr.Get("X-RateLimit-Remaining"))
	return n
}

// requireBurst sends limit requests that must pass, counting down, and one
// that must be refused; it returns the refusal.
func requireBurst(t *testing.T, limit int, call func() answer) answer {
	t.Helper()
	for i := 1; i <= limit; i++ {
		a := call()
		require.Equal(t, http.StatusOK, a.code, "request %d of %d: %s", i, limit, a.body)
		require.Equal(t, strconv.Itoa(limit), a.hdr.Get("X-RateLimit-Limit"))
		require.Equal(t, limit-i, remaining(t, a), "request %d", i)
		reset, err := strconv.ParseInt(a.hdr.Get("X-RateLimit-Reset"), 10, 64)
		require.NoError(t, err)
		require.InDelta(t, time.Now().Add(window).Unix(), reset, 2)
	}
	a := call()
	require.Equal(t, http.StatusTooManyRequests, a.code, "request %d: %s", limit+1, a.body)
	require.Equal(t, "0", a.hdr.Get("X-RateLimit-Remaining"))
	retry, err := strconv.Atoi(a.hdr.Get("Retry-After"))
	require.NoError(t, err)
	require.GreaterOrEqual(t, retry, 1)
	return a
}

func TestPublicEndpointLimit(t *testing.T) {
	t.Parallel()
	env := production(t, 5, 100, nil)
	owner := env.Signup(t, "Limited Org")
	server := enabledServer(t, owner)

	refused := requireBurst(t, 5, func() answer { return mcpCall(t, env.URL, server, "198.51.100.1") })
	require.Equal(t, "application/json", refused.hdr.Get("Content-Type"))
	var body struct {
		ID    string `json:"id"`
		Error struct {
			Code    int            `json:"code"`
			Message string         `json:"message"`
			Data    map[string]int `json:"data"`
		} `json:"error"`
	}
	require.NoError(t, json.Unmarshal([]byte(refused.body), &body), refused.body)
	require.Equal(t, "req-7", body.ID, "the request's id")
	require.Equal(t, -32000, body.Error.Code)
	require.Contains(t, body.Error.Message, "Rate limit exceeded")
	require.Positive(t, body.Error.Data["retry_after"])

	t.Run("other addresses have their own count", func(t *testing.T) {
		a := mcpCall(t, env.URL, server, "198.51.100.2")
		require.Equal(t, http.StatusOK, a.code)
		require.Equal(t, 4, remaining(t, a))
	})
	t.Run("other organizations have their own count", func(t *testing.T) {
		other := enabledServer(t, env.Signup(t, "Other Limited Org"))
		a := mcpCall(t, env.URL, other, "198.51.100.1")
		require.Equal(t, http.StatusOK, a.code)
		require.Equal(t, 4, remaining(t, a))
	})
	t.Run("another server of the same organization shares the count", func(t *testing.T) {
		second := enabledServer(t, owner)
		require.Equal(t, http.StatusTooManyRequests, mcpCall(t, env.URL, second, "198.51.100.1").code)
	})
	t.Run("the window resets", func(t *testing.T) {
		reset, err := strconv.ParseInt(refused.hdr.Get("X-RateLimit-Reset"), 10, 64)
		require.NoError(t, err)
		time.Sleep(time.Until(time.Unix(reset, 0)) + 100*time.Millisecond)
		require.Eventually(t, func() bool { return mcpCall(t, env.URL, server, "198.51.100.1").code == http.StatusOK },
			window+time.Second, 50*time.Millisecond)
	})
}

func TestOrganizationOverride(t *testing.T) {
	t.Parallel()
	env := production(t, 5, 100, nil)
	for _, tc := range []struct {
		name           string
		override, want int
	}{
		{"below the ceiling", 3, 3},
		{"above the ceiling", 10, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			owner := env.Signup(t, "Override "+tc.name)
			owner.Do("PATCH", "/api/organizations/"+owner.OrgID, map[string]any{"max_public_rate_limit": tc.override}).
				Status(http.StatusOK)
			server := enabledServer(t, owner)
			requireBurst(t, tc.want, func() answer { return mcpCall(t, env.URL, server, "203.0.113.9") })
		})
	}
}

// TestOverrideReachesEveryInstance: a changed override applies on another
// instance, whose cached design carries the old one, within a second.
func TestOverrideReachesEveryInstance(t *testing.T) {
	t.Parallel()
	one := production(t, 50, 100, nil)
	two := production(t, 50, 100, func(c *config.Config) { c.DatabaseURL = one.Config.DatabaseURL })
	owner := one.Signup(t, "Changing Org")
	server := enabledServer(t, owner)
	require.Equal(t, "50", mcpCall(t, two.URL, server, "192.0.2.1").hdr.Get("X-RateLimit-Limit"))

	owner.Do("PATCH", "/api/organizations/"+owner.OrgID, map[string]any{"max_public_rate_limit": 7}).Status(http.StatusOK)
	changed := time.Now()
	for mcpCall(t, two.URL, server, "192.0.2.2").hdr.Get("X-RateLimit-Limit") != "7" {
		require.Less(t, time.Since(changed), time.Second, "the second instance still applies the old limit")
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("override seen by the second instance after %v", time.Since(changed))
}

func TestSpoofedForwardedForIsIgnored(t *testing.T) {
	t.Parallel()
	env := production(t, 3, 100, func(c *config.Config) { c.TrustedProxies = nil })
	server := enabledServer(t, env.Signup(t, "Spoofed Org"))
	i := 0
	requireBurst(t, 3, func() answer {
		i++
		return mcpCall(t, env.URL, server, fmt.Sprintf("198.51.100.%d", i)) // a new address each time: ignored
	})
}

func TestPlatformLimit(t *testing.T) {
	t.Parallel()
	env := production(t, 100, 4, nil)
	owner := env.Signup(t, "Platform Org")
	server := enabledServer(t, owner)
	raw := owner.Do("POST", "/api/keys", map[string]any{"name": "k"}).Status(http.StatusCreated).String("raw_key")
	platform := func() answer {
		req := apitest.JSONRequest(t, "POST", env.URL+"/api/platform-mcp/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":3,"method":"ping"}`))
		req.Header.Set("X-API-Key", raw)
		return send(t, req)
	}
	policy := func() answer {
		req, err := http.NewRequest("GET", env.URL+"/api/platform/"+server+"/mcp/spec", nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", raw)
		return send(t, req)
	}
	// One count per organization across the service endpoint and the
	// policy routes.
	n := 0
	refused := requireBurst(t, 4, func() answer {
		n++
		if n%2 == 0 {
			return policy()
		}
		return platform()
	})
	require.Contains(t, refused.body, `"id":3`, "a JSON-RPC error on the service endpoint: %s", refused.body)
	p := policy()
	require.Equal(t, http.StatusTooManyRequests, p.code)
	require.Equal(t, "application/problem+json", p.hdr.Get("Content-Type"), "a problem on the REST routes")
	require.NotEmpty(t, p.hdr.Get("Retry-After"))
	require.Contains(t, p.body, `"status":429`)

	t.Run("REST CRUD is not limited", func(t *testing.T) {
		req, err := http.NewRequest("GET", env.URL+"/api/servers", nil)
		require.NoError(t, err)
		req.Header.Set("X-API-Key", raw)
		a := send(t, req)
		require.Equal(t, http.StatusOK, a.code)
		require.Empty(t, a.hdr.Get("X-RateLimit-Limit"))
	})
	t.Run("the per-server endpoint counts separately", func(t *testing.T) {
		require.Equal(t, http.StatusOK, mcpCall(t, env.URL, server, "192.0.2.50").code)
	})
}

func TestDevelopmentIsUnlimited(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		c.MaxPublicRateLimit, c.PlatformRateLimit = 2, 2
	}})
	owner := env.Signup(t, "Dev Org")
	server := enabledServer(t, owner)
	for i := range 10 {
		a := mcpCall(t, env.URL, server, "")
		require.Equal(t, http.StatusOK, a.code, "request %d", i+1)
		for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "Retry-After"} {
			require.Empty(t, a.hdr.Get(h), h)
		}
	}
}

// TestRedisSharesOneLimit: two instances with counters in Redis refuse the
// sixth request of a limit of five, wherever it lands.
func TestRedisSharesOneLimit(t *testing.T) {
	t.Parallel()
	withRedis := func(c *config.Config) { c.RedisURL = redisURL() }
	one := production(t, 5, 100, withRedis)
	two := production(t, 5, 100, func(c *config.Config) { withRedis(c); c.DatabaseURL = one.Config.DatabaseURL })
	server := enabledServer(t, one.Signup(t, "Shared Org"))
	i := 0
	requireBurst(t, 5, func() answer {
		i++
		if i%2 == 0 {
			return mcpCall(t, two.URL, server, "198.51.100.77")
		}
		return mcpCall(t, one.URL, server, "198.51.100.77")
	})
	require.Equal(t, http.StatusTooManyRequests, mcpCall(t, two.URL, server, "198.51.100.77").code)
}

func TestUnreachableRedisStopsStartUp(t *testing.T) {
	t.Parallel()
	cfg, err := config.Parse(func(string) string { return "" })
	require.NoError(t, err)
	cfg.DatabaseURL = testdb.New(t)
	cfg.Env = "production"
	cfg.RedisURL = "redis://127.0.0.1:1/0"
	_, err = service.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.ErrorContains(t, err, "connect to Redis at REDIS_URL (127.0.0.1:1)")

	cfg.RedisURL = "http://not-redis"
	_, err = service.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.ErrorContains(t, err, "REDIS_URL")
}

// TestRedisOutageFailsOpen: with Redis gone, requests are served without
// limit headers, and the failures are counted.
func TestRedisOutageFailsOpen(t *testing.T) {
	t.Parallel()
	px, url := testdb.NewProxy(t, redisURL())
	env := production(t, 3, 100, func(c *config.Config) { c.RedisURL = url })
	server := enabledServer(t, env.Signup(t, "Outage Org"))
	a := mcpCall(t, env.URL, server, "198.51.100.99")
	require.Equal(t, http.StatusOK, a.code)
	require.Equal(t, "3", a.hdr.Get("X-RateLimit-Limit"))

	px.Cut()
	start := time.Now()
	for i := range 6 {
		a := mcpCall(t, env.URL, server, "198.51.100.99")
		require.Equal(t, http.StatusOK, a.code, "request %d with Redis gone: %s", i, a.body)
		require.Empty(t, a.hdr.Get("X-RateLimit-Limit"))
	}
	require.Less(t, time.Since(start), 2*time.Second, "an outage does not make every request wait")
	require.GreaterOrEqual(t, env.Service.RateLimit().Failures(), int64(6))
}

func TestPublicLimit(t *testing.T) {
	three, ten := int32(3), int32(10)
	require.Equal(t, 100, ratelimit.PublicLimit(nil, 100))
	require.Equal(t, 3, ratelimit.PublicLimit(&three, 100))
	require.Equal(t, 5, ratelimit.PublicLimit(&ten, 5))
}

// TestSetHeaders: the three counts, at their extremes, each in its header,
// in two allocations (one string, one array) whatever their sizes.
func TestSetHeaders(t *testing.T) {
	for _, d := range []ratelimit.Decision{
		{Allowed: true, Counted: true, Limit: 100, Remaining: 7, Reset: 1764300000},
		{Allowed: true, Counted: true, Limit: math.MaxInt64, Remaining: math.MaxInt64, Reset: math.MaxInt64},
		{Allowed: true, Counted: true, Limit: 0, Remaining: 0, Reset: math.MinInt64},
	} {
		h := http.Header{}
		d.SetHeaders(h)
		require.Equal(t, strconv.FormatInt(d.Limit, 10), h.Get("X-RateLimit-Limit"))
		require.Equal(t, strconv.FormatInt(d.Remaining, 10), h.Get("X-RateLimit-Remaining"))
		require.Equal(t, strconv.FormatInt(d.Reset, 10), h.Get("X-RateLimit-Reset"))
		require.Empty(t, h.Get("Retry-After"))
		h["X-Ratelimit-Limit"] = append(h["X-Ratelimit-Limit"], "x") // its own array: no neighbour overwritten
		require.Equal(t, strconv.FormatInt(d.Remaining, 10), h.Get("X-RateLimit-Remaining"))
	}
	h := http.Header{}
	d := ratelimit.Decision{Allowed: true, Counted: true, Limit: 1000, Remaining: 999, Reset: 1764300000}
	require.LessOrEqual(t, testing.AllocsPerRun(100, func() { d.SetHeaders(h) }), 2.0)
	ratelimit.Decision{}.SetHeaders(h) // not counted: nothing changes
	require.Equal(t, "999", h.Get("X-RateLimit-Remaining"))
}
