package ratelimit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
)

// post sends body to path with headers.
func post(t *testing.T, env *apitest.Env, path string, headers map[string]string, body string) answer {
	t.Helper()
	req := apitest.JSONRequest(t, "POST", env.URL+path, strings.NewReader(body))
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	return send(t, req)
}

// batchOf is a batch of n messages made by msg from their ids, 1 to n.
func batchOf(n int, msg func(id int) string) string {
	msgs := make([]string, n)
	for i := range msgs {
		msgs[i] = msg(i + 1)
	}
	return "[" + strings.Join(msgs, ",") + "]"
}

type reply struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
	} `json:"result"`
	Error *struct {
		Code    int              `json:"code"`
		Message string           `json:"message"`
		Data    map[string]int64 `json:"data"`
	} `json:"error"`
}

// replies reads a batch's answer and splits the results from the
// rate-limit errors, checking that those come last and carry their ids.
func replies(t *testing.T, a answer) (results, limited []reply) {
	t.Helper()
	require.Equal(t, http.StatusOK, a.code, a.body)
	var all []reply
	require.NoError(t, json.Unmarshal([]byte(a.body), &all), a.body)
	for i, r := range all {
		if r.Error != nil && r.Error.Code == -32000 {
			require.Contains(t, r.Error.Message, "Rate limit exceeded")
			require.Positive(t, r.Error.Data["retry_after"])
			require.NotEqual(t, "null", string(r.ID), "the message's own id")
			limited = append(limited, r)
			continue
		}
		require.Empty(t, limited, "reply %d: a message answered after one refused: %s", i, a.body)
		results = append(results, r)
	}
	return results, limited
}

// stores runs f with the counters in memory and in Redis.
func stores(t *testing.T, f func(t *testing.T, withRedis func(*config.Config))) {
	for name, store := range map[string]func(*config.Config){
		"memory": func(*config.Config) {},
		"redis":  func(c *config.Config) { c.RedisURL = redisURL() },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			f(t, store)
		})
	}
}

// TestPublicBatchCountsEachMessage: each member of a batch counts against
// the per-server limit; those past it get a rate-limit error each, and
// once nothing is left the whole request gets 429.
func TestPublicBatchCountsEachMessage(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, store func(*config.Config)) {
		env := production(t, 20, 100, func(c *config.Config) { store(c); c.RateWindow = time.Minute })
		owner := env.Signup(t, "Batch Limited Org")
		server := owner.Do("POST", "/api/servers", map[string]any{"name": "limited"}).Status(http.StatusCreated).String("id")
		owner.Do("POST", "/api/servers/"+server+"/tools", map[string]any{"name": "get_forecast",
			"mock_scenarios": []any{map[string]any{"name": "any", "response": map[string]any{"forecast": "sunny"}}}}).
			Status(http.StatusCreated)
		owner.Do("PATCH", "/api/servers/"+server, map[string]any{"enabled": true}).Status(http.StatusOK)
		path := "/api/platform/" + server + "/mcp"
		from := map[string]string{"X-Forwarded-For": "198.51.100.20"}
		calls := batchOf(50, func(id int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_forecast"}}`, id)
		})

		a := post(t, env, path, from, calls)
		results, limited := replies(t, a)
		require.Len(t, results, 20)
		require.Len(t, limited, 30)
		for i, r := range results {
			require.Equal(t, strconv.Itoa(i+1), string(r.ID))
			require.NotNil(t, r.Result)
		}
		for i, r := range limited {
			require.Equal(t, strconv.Itoa(21+i), string(r.ID))
		}
		require.Equal(t, "20", a.hdr.Get("X-RateLimit-Limit"))
		require.Equal(t, "0", a.hdr.Get("X-RateLimit-Remaining"))

		again := post(t, env, path, from, calls)
		require.Equal(t, http.StatusTooManyRequests, again.code)
		require.JSONEq(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"Rate limit exceeded: retry after %[1]s seconds","data":{"retry_after":%[1]s}}}`,
			again.hdr.Get("Retry-After")), again.body)

		// The journal has the 20 calls, and the 30 messages and the one
		// request refused.
		for outcome, want := range map[string]int{"result": 20, "rejected": 31} {
			require.Eventually(t, func() bool {
				r := owner.Do("GET", "/api/servers/"+server+"/journal?limit=100&outcome="+outcome, nil).Status(http.StatusOK)
				return r.Len("items") == want
			}, 10*time.Second, 50*time.Millisecond, "%d journal entries %s", want, outcome)
		}
	})
}

// TestBatchAllowanceInOrder: the first members of a batch take what is left
// of the window, notifications included (they get no answer either way).
func TestBatchAllowanceInOrder(t *testing.T) {
	t.Parallel()
	env := production(t, 20, 100, func(c *config.Config) { c.RateWindow = time.Minute })
	owner := env.Signup(t, "Allowance Org")
	owner.Do("PATCH", "/api/organizations/"+owner.OrgID, map[string]any{"max_public_rate_limit": 3}).Status(http.StatusOK)
	path := "/api/platform/" + enabledServer(t, owner) + "/mcp"
	from := map[string]string{"X-Forwarded-For": "198.51.100.30"}

	require.Equal(t, 2, remaining(t, post(t, env, path, from, `{"jsonrpc":"2.0","id":"single","method":"ping"}`)))
	a := post(t, env, path, from, `[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},`+
		`{"jsonrpc":"2.0","id":3,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`)
	results, limited := replies(t, a)
	require.Len(t, results, 1)
	require.Equal(t, "1", string(results[0].ID))
	require.Len(t, limited, 2, "the notification past the allowance gets no answer: %s", a.body)
	require.Equal(t, "3", string(limited[0].ID))
	require.Equal(t, "5", string(limited[1].ID))
	require.Equal(t, 0, remaining(t, a))

	t.Run("a batch refused whole counts once", func(t *testing.T) {
		other := map[string]string{"X-Forwarded-For": "198.51.100.31"}
		a := post(t, env, path, other, batchOf(101, func(id int) string { return `1` }))
		require.Equal(t, http.StatusOK, a.code)
		require.Contains(t, a.body, `"code":-32600`)
		require.Equal(t, 2, remaining(t, a))
		a = post(t, env, path, map[string]string{"X-Forwarded-For": "198.51.100.31", "Mcp-Protocol-Version": "2025-11-25"},
			batchOf(50, func(id int) string { return `1` }))
		require.Equal(t, http.StatusBadRequest, a.code)
		require.Equal(t, 1, remaining(t, a))
	})
}

// TestPlatformBatchCountsEachMessage: a batch of 300 create_server calls on
// the service endpoint under a limit of 30 creates 30 servers.
func TestPlatformBatchCountsEachMessage(t *testing.T) {
	t.Parallel()
	stores(t, func(t *testing.T, store func(*config.Config)) {
		env := production(t, 100, 30, func(c *config.Config) {
			store(c)
			c.RateWindow = time.Minute
			c.MaxBatchMessages = 300
		})
		owner := env.Signup(t, "Platform Batch Org")
		key := map[string]string{"X-API-Key": owner.Do("POST", "/api/keys", map[string]any{"name": "k"}).
			Status(http.StatusCreated).String("raw_key")}
		creates := batchOf(300, func(id int) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"create_server","arguments":{"name":"s%d"}}}`, id, id)
		})

		a := post(t, env, "/api/platform-mcp/mcp", key, creates)
		results, limited := replies(t, a)
		require.Len(t, results, 30)
		require.Len(t, limited, 270)
		for _, r := range results {
			require.NotNil(t, r.Result, "a result: %s", a.body)
			require.False(t, r.Result.IsError, "created: %s", a.body)
		}
		require.Equal(t, "0", a.hdr.Get("X-RateLimit-Remaining"))
		servers := owner.Do("GET", "/api/servers?limit=200", nil).Status(http.StatusOK)
		require.Equal(t, 30, servers.Len("items"), "servers created")

		again := post(t, env, "/api/platform-mcp/mcp", key, creates)
		require.Equal(t, http.StatusTooManyRequests, again.code)
		require.Contains(t, again.body, `"code":-32000`)
		require.Equal(t, 30, owner.Do("GET", "/api/servers?limit=200", nil).Status(http.StatusOK).Len("items"))
	})
}

// TestTakeN: n messages are counted in one step and admitted while they fit.
func TestTakeN(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string]ratelimit.Options{
		"memory": {Enabled: true},
		"redis":  {Enabled: true, RedisURL: redisURL(), Prefix: "test-taken-" + uuid.NewString()},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			l, err := ratelimit.New(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), opts)
			require.NoError(t, err)
			t.Cleanup(func() { _ = l.Close() })
			ctx := context.Background()
			for i, step := range []struct {
				n, admitted int
				remaining   int64
			}{
				{n: 3, admitted: 3, remaining: 2},
				{n: 4, admitted: 2, remaining: 0},
				{n: 1, admitted: 0, remaining: 0},
				{n: 10, admitted: 0, remaining: 0},
			} {
				d := l.TakeN(ctx, "k", 5, step.n)
				require.True(t, d.Counted)
				require.Equal(t, step.admitted, d.Admitted, "step %d", i)
				require.Equal(t, step.admitted > 0, d.Allowed, "step %d", i)
				require.Equal(t, step.remaining, d.Remaining, "step %d", i)
				require.EqualValues(t, 5, d.Limit)
				require.InDelta(t, time.Now().Add(ratelimit.DefaultWindow).Unix(), d.Reset, 2)
			}
			d := l.Take(ctx, "other", 1)
			require.True(t, d.Allowed)
			require.Equal(t, 1, d.Admitted)
			require.False(t, l.Take(ctx, "other", 1).Allowed)
		})
	}
}
