package service_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/service"
)

// withMetrics boots the service with its metrics on a free port, with
// more changes to the configuration.
func withMetrics(t *testing.T, more func(*config.Config)) *apitest.Env {
	t.Helper()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		c.MetricsAddr = "127.0.0.1:0"
		if more != nil {
			more(c)
		}
	}})
	require.NotEmpty(t, env.Service.MetricsAddr())
	return env
}

// scrape reads the metrics of env as series (name and labels, as written)
// to value.
func scrape(t *testing.T, env *apitest.Env) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + env.Service.MetricsAddr() + "/metrics")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	series := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		require.NoError(t, err, line)
		series[line[:i]] = v
	}
	require.NoError(t, sc.Err())
	return series
}

// weatherServer creates and enables a server with one tool that answers
// any arguments, and returns its endpoint.
func weatherServer(t *testing.T, env *apitest.Env, c *apitest.Client) string {
	t.Helper()
	id := c.CreateServer(json.RawMessage(`{"name":"Weather","version":"1.0.0"}`), []json.RawMessage{json.RawMessage(
		`{"name":"get_forecast","description":"The forecast.","input_schema":{"type":"object"},` +
			`"mock_scenarios":[{"name":"any","condition":{},"response":{"forecast":"sunny"}}]}`)}, nil, nil)
	c.EnableServer(id)
	return env.URL + "/api/platform/" + id + "/mcp"
}

func rpc(t *testing.T, url, body string) (int, string) {
	t.Helper()
	code, b := apitest.PostJSONRPC(t, url, strings.NewReader(body))
	return code, string(b)
}

func TestMetrics(t *testing.T) {
	t.Parallel()
	env := withMetrics(t, nil)
	c := env.Signup(t, "Metrics Org")
	endpoint := weatherServer(t, env, c)

	const calls = 3
	for range calls {
		code, body := rpc(t, endpoint, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast","arguments":{}}}`)
		require.Equal(t, http.StatusOK, code, body)
		require.Contains(t, body, "sunny")
	}
	_, body := rpc(t, endpoint, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{}}}`)
	require.Contains(t, body, "-32602", "the name is missing")
	_, body = rpc(t, endpoint, `{"jsonrpc":"2.0","id":3,"method":"a/method/`+t.Name()+`"}`)
	require.Contains(t, body, "-32601")
	code, _ := rpc(t, endpoint, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, code)

	key := c.Do("POST", "/api/keys", map[string]any{"name": "metrics"}).Status(http.StatusCreated).String("raw_key")
	req := apitest.JSONRequest(t, http.MethodPost, env.URL+"/api/platform-mcp/mcp",
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, _ := apitest.Send(t, req)
	require.Equal(t, http.StatusOK, resp.StatusCode)

	// Not on the public listener.
	resp, _ = apitest.Send(t, apitest.JSONRequest(t, http.MethodGet, env.URL+"/metrics", nil))
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	apitest.Eventually(t, "the journal written", func() bool {
		return env.Service.Journal().Stats().Written >= calls
	})
	m := scrape(t, env)
	const route = `route="/api/platform/{server_id}/mcp"`
	for series, want := range map[string]float64{
		`mockmcp_mcp_messages_total{endpoint="server",method="tools/call",outcome="result"}`:                      calls,
		`mockmcp_mcp_messages_total{endpoint="server",method="tools/call",outcome="error:-32602"}`:                1,
		`mockmcp_mcp_messages_total{endpoint="server",method="other",outcome="error:-32601"}`:                     1,
		`mockmcp_mcp_messages_total{endpoint="server",method="notifications/initialized",outcome="notification"}`: 1,
		`mockmcp_mcp_messages_total{endpoint="server",method="tools/list",outcome="result"}`:                      0,
		`mockmcp_mcp_messages_total{endpoint="platform",method="tools/list",outcome="result"}`:                    1,
		`mockmcp_http_requests_total{code="200",method="POST",` + route + `}`:                                     calls + 2,
		`mockmcp_http_requests_total{code="202",method="POST",` + route + `}`:                                     1,
		`mockmcp_http_request_duration_seconds_count{code="200",method="POST",` + route + `}`:                     calls + 2,
		`mockmcp_http_request_duration_seconds_bucket{code="200",method="POST",` + route + `,le="+Inf"}`:          calls + 2,
		`mockmcp_http_requests_total{code="200",method="POST",route="/api/platform-mcp/mcp"}`:                     1,
		`mockmcp_http_requests_total{code="201",method="POST",route="/api/servers"}`:                              1,
		`mockmcp_http_requests_total{code="200",method="PATCH",route="/api/servers/:server_id"}`:                  1,
		`mockmcp_http_requests_total{code="404",method="GET",route="unmatched"}`:                                  1,
		`mockmcp_design_cache_entries`:                                         1,
		`mockmcp_queue_depth{queue="journal"}`:                                 0,
		`mockmcp_queue_dropped_total{queue="journal"}`:                         0,
		`mockmcp_queue_dropped_total{queue="audit"}`:                           0,
		`mockmcp_outbound_requests_total{kind="test_run",outcome="forbidden"}`: 0,
		`mockmcp_db_pool_max_connections`:                                      float64(env.Service.Store().Pool().Config().MaxConns),
	} {
		got, ok := m[series]
		if want == 0 && !ok && strings.Contains(series, "mcp_messages") {
			t.Errorf("%s missing: every known method's counters exist from the start", series)
			continue
		}
		require.Truef(t, ok, "%s missing", series)
		require.Equalf(t, want, got, "%s", series)
	}
	for _, series := range []string{`mockmcp_design_cache_hits_total`, `mockmcp_design_cache_misses_total`,
		`mockmcp_design_cache_loads_total`, `mockmcp_design_cache_bytes`, `mockmcp_design_cache_warmed_tools_total`, `mockmcp_db_pool_acquires_total`,
		`mockmcp_db_pool_total_connections`, `go_goroutines`, `process_resident_memory_bytes`} {
		require.Positivef(t, m[series], "%s", series)
	}
	require.GreaterOrEqual(t, m[`mockmcp_queue_written_total{queue="journal"}`], float64(calls))
	require.GreaterOrEqual(t, m[`mockmcp_design_cache_hits_total`], float64(calls), "warm calls hit the cache")
	for series := range m {
		require.NotContains(t, series, t.Name(), "an unknown method's name is never a label")
		require.NotContains(t, series, "get_forecast", "tool names are never labels")
	}
}

// TestMetricsCountRateLimits: in production, messages past a limit are
// counted by limiter and as refused MCP messages.
func TestMetricsCountRateLimits(t *testing.T) {
	t.Parallel()
	env := withMetrics(t, func(c *config.Config) {
		c.Env = "production"
		c.MaxPublicRateLimit = 2
	})
	c := env.Signup(t, "Limited Org")
	endpoint := weatherServer(t, env, c)
	for i := range 3 {
		code, _ := rpc(t, endpoint, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		require.Equal(t, []int{200, 200, 429}[i], code)
	}
	m := scrape(t, env)
	require.Equal(t, 2.0, m[`mockmcp_rate_limit_admitted_total{limiter="public"}`])
	require.Equal(t, 1.0, m[`mockmcp_rate_limit_refused_total{limiter="public"}`])
	require.Equal(t, 2.0, m[`mockmcp_mcp_messages_total{endpoint="server",method="ping",outcome="result"}`])
	require.Equal(t, 1.0, m[`mockmcp_mcp_messages_total{endpoint="server",method="other",outcome="rate_limited"}`])
	require.Equal(t, 1.0, m[`mockmcp_http_requests_total{code="429",method="POST",route="/api/platform/{server_id}/mcp"}`])
	calls, ok := m[`mockmcp_rate_limit_redis_calls_total`]
	require.True(t, ok, "the limiter's Redis calls are a series")
	require.Zero(t, calls, "counters in memory call no Redis")
}

// TestMetricsCountTheLimitersRedisCalls: with counters in Redis the
// limiter's leases are counted, fewer than the messages they admit.
func TestMetricsCountTheLimitersRedisCalls(t *testing.T) {
	t.Parallel()
	env := withMetrics(t, func(c *config.Config) {
		c.Env = "production"
		c.MaxPublicRateLimit = 1000
		c.RedisURL = redisTestURL()
	})
	c := env.Signup(t, "Leasing Org")
	endpoint := weatherServer(t, env, c)
	const calls = 60
	for range calls {
		code, _ := rpc(t, endpoint, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		require.Equal(t, http.StatusOK, code)
	}
	m := scrape(t, env)
	require.Equal(t, float64(calls), m[`mockmcp_rate_limit_admitted_total{limiter="public"}`])
	trips := m[`mockmcp_rate_limit_redis_calls_total`]
	require.Positive(t, trips)
	require.Less(t, trips, float64(calls), "leases, not a round trip per message")
}

// TestNoMetricsListener: METRICS_ADDR empty serves no metrics anywhere.
func TestNoMetricsListener(t *testing.T) {
	env := apitest.New(t, nil)
	require.Empty(t, env.Service.MetricsAddr())
	resp, err := http.Get(env.URL + "/metrics")
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// TestMetricsAddrTaken: an address that cannot be bound stops the start-up,
// naming METRICS_ADDR.
func TestMetricsAddrTaken(t *testing.T) {
	first := withMetrics(t, nil)
	cfg := first.Config
	cfg.MetricsAddr = first.Service.MetricsAddr()
	svc, err := service.New(context.Background(), cfg, discard())
	if err == nil {
		_ = svc.Close()
	}
	require.ErrorContains(t, err, "METRICS_ADDR")
}

func TestPprofOnTheMetricsListenerOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	for _, on := range []bool{false, true} {
		env := withMetrics(t, func(c *config.Config) { c.Pprof = on })
		resp, err := http.Get("http://" + env.Service.MetricsAddr() + "/debug/pprof/goroutine?debug=1")
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if on {
			require.Equal(t, http.StatusOK, resp.StatusCode)
			require.Contains(t, string(body), "goroutine profile")
		} else {
			require.Equal(t, http.StatusNotFound, resp.StatusCode)
		}
		resp, _ = apitest.Send(t, apitest.JSONRequest(t, http.MethodGet, env.URL+"/debug/pprof/", nil))
		require.Equal(t, http.StatusNotFound, resp.StatusCode, "never on the public listener")
	}
}

// redisTestURL is the Redis of the tests (TEST_REDIS_URL, else the local
// one).
func redisTestURL() string {
	if v := os.Getenv("TEST_REDIS_URL"); v != "" {
		return v
	}
	return "redis://127.0.0.1:6379/0"
}
