package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/journal"
)

// weatherServer creates an enabled server whose get_weather tool answers
// Paris and warm weather, and nothing else.
func weatherServer(t *testing.T, c *apitest.Client) string {
	t.Helper()
	server := mkServer(t, c, "journaled")
	mkChild(t, c, server, "tools", map[string]any{
		"name": "get_weather", "input_schema": map[string]any{"type": "object"},
		"mock_scenarios": []any{
			map[string]any{"name": "paris", "condition": map[string]any{"field": "city", "operator": "equals", "value": "Paris"},
				"response": map[string]any{"forecast": "sunny"}},
			map[string]any{"name": "warm", "condition": map[string]any{"field": "temp", "operator": "gt", "value": 10},
				"response": map[string]any{"forecast": "warm"}},
		},
	})
	mkChild(t, c, server, "tools", map[string]any{"name": "get_wind", "input_schema": map[string]any{"type": "object"},
		"mock_scenarios": []any{map[string]any{"name": "calm", "response": map[string]any{"wind": 0}}}})
	c.Do("PATCH", "/api/servers/"+server, map[string]any{"enabled": true}).Status(http.StatusOK)
	return server
}

// mcpCall sends one JSON-RPC request to server's endpoint and returns the
// answer.
func mcpCall(t *testing.T, env *apitest.Env, server, method string, params any) *apitest.Response {
	t.Helper()
	c := env.Anonymous(t)
	c.Header.Set("Accept", "application/json")
	body := map[string]any{"jsonrpc": "2.0", "id": 1, "method": method}
	if params != nil {
		body["params"] = params
	}
	return c.Do("POST", "/api/platform/"+server+"/mcp", body).Status(http.StatusOK)
}

func callTool(t *testing.T, env *apitest.Env, server, tool string, args map[string]any) *apitest.Response {
	t.Helper()
	return mcpCall(t, env, server, "tools/call", map[string]any{"name": tool, "arguments": args})
}

// journalPage lists server's journal with query, waiting (the journal is
// written in the background) until it holds want entries.
func journalPage(t *testing.T, c *apitest.Client, server, query string, want int) *apitest.Response {
	t.Helper()
	var r *apitest.Response
	require.Eventually(t, func() bool {
		r = c.Do("GET", "/api/servers/"+server+"/journal"+query, nil).Status(http.StatusOK)
		return r.Len("items") >= want
	}, 10*time.Second, 20*time.Millisecond, "journal%s never held %d entries", query, want)
	require.Equal(t, want, r.Len("items"), "body: %s", r.Raw)
	return r
}

func TestJournalRecordsMCPCalls(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Journal Org")
	server := weatherServer(t, c)

	before := time.Now().UTC()
	callTool(t, env, server, "get_weather", map[string]any{"city": "London", "temp": 3})
	callTool(t, env, server, "get_weather", map[string]any{"city": "Paris"})
	callTool(t, env, server, "get_wind", map[string]any{})
	mcpCall(t, env, server, "ping", nil)

	all := journalPage(t, c, server, "", 4)
	require.Equal(t, []any{"ping", "tools/call", "tools/call", "tools/call"},
		[]any{all.Get("items.0.method"), all.Get("items.1.method"), all.Get("items.2.method"), all.Get("items.3.method")},
		"newest first")
	require.Nil(t, all.Get("next_cursor"))

	t.Run("why no match names the field and the operator", func(t *testing.T) {
		nm := all.Get("items.3").(map[string]any)
		require.Equal(t, "no_match", nm["outcome"])
		require.Equal(t, "get_weather", nm["tool"])
		require.Nil(t, nm["matched_scenario"])
		require.Equal(t, []any{
			map[string]any{"scenario": "paris", "field": "city", "operator": "equals",
				"reason": `city: equals "Paris" but was "London"`},
			map[string]any{"scenario": "warm", "field": "temp", "operator": "gt", "reason": "temp: gt 10 but was 3"},
		}, nm["mismatches"])
		require.Equal(t, map[string]any{"name": "get_weather", "arguments": map[string]any{"city": "London", "temp": float64(3)}},
			nm["params"])
		require.NotEmpty(t, nm["response"])
	})
	t.Run("a match", func(t *testing.T) {
		m := all.Get("items.2").(map[string]any)
		require.Equal(t, "result", m["outcome"])
		require.Equal(t, "paris", m["matched_scenario"])
		require.Equal(t, []any{}, m["mismatches"])
		require.Contains(t, m["response"], "sunny")
		require.Nil(t, m["error_code"])
		require.Nil(t, m["sequence_step"])
		require.Nil(t, m["sequence_key"])
		require.Equal(t, "127.0.0.1", m["client_address"])
		require.GreaterOrEqual(t, m["latency_ms"], float64(0))
		at := timeAt(t, all, "items.2.received_at")
		require.WithinDuration(t, before, at, time.Minute)
		_, err := uuid.Parse(m["id"].(string))
		require.NoError(t, err)
	})
	t.Run("a method without params", func(t *testing.T) {
		p := all.Get("items.0").(map[string]any)
		require.Nil(t, p["params"])
		require.Nil(t, p["tool"])
		require.Equal(t, "result", p["outcome"])
	})

	t.Run("filters", func(t *testing.T) {
		cases := []struct {
			query string
			want  int
		}{
			{"?method=tools/call", 3},
			{"?method=ping", 1},
			{"?tool=get_weather", 2},
			{"?tool=get_wind&method=tools/call", 1},
			{"?outcome=no_match", 1},
			{"?outcome=no_match&tool=get_wind", 0},
			{"?outcome=result", 3},
			{"?since=" + url.QueryEscape(time.Now().Add(time.Hour).Format(time.RFC3339)), 0},
			{"?since=" + url.QueryEscape(before.Add(-time.Minute).Format(time.RFC3339Nano)), 4},
		}
		for _, tc := range cases {
			t.Run(tc.query, func(t *testing.T) {
				r := c.For(t).Do("GET", "/api/servers/"+server+"/journal"+tc.query, nil).Status(http.StatusOK)
				require.Equal(t, tc.want, r.Len("items"), "body: %s", r.Raw)
			})
		}
	})

	t.Run("pages", func(t *testing.T) {
		var got []any
		query := "?limit=1"
		for range 10 {
			r := c.For(t).Do("GET", "/api/servers/"+server+"/journal"+query, nil).Status(http.StatusOK)
			require.Equal(t, 1, r.Len("items"))
			got = append(got, r.Get("items.0.id"))
			next, ok := r.Get("next_cursor").(string)
			if !ok {
				break
			}
			query = "?limit=1&cursor=" + url.QueryEscape(next)
		}
		want := []any{all.Get("items.0.id"), all.Get("items.1.id"), all.Get("items.2.id"), all.Get("items.3.id")}
		require.Equal(t, want, got)
	})
}

func TestJournalListRefusesBadQueries(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Journal Queries")
	server := mkServer(t, c, "s")
	for _, q := range []string{"?limit=0", "?limit=501", "?limit=x", "?outcome=maybe", "?since=yesterday", "?cursor=%21%21",
		"?cursor=" + strings.Repeat("A", 201)} {
		t.Run(q, func(t *testing.T) {
			c.For(t).Do("GET", "/api/servers/"+server+"/journal"+q, nil).Problem(http.StatusBadRequest)
		})
	}
	c.Do("GET", "/api/servers/"+uuid.NewString()+"/journal", nil).Problem(http.StatusNotFound)
	c.Do("DELETE", "/api/servers/"+uuid.NewString()+"/journal", nil).Problem(http.StatusNotFound)
	c.Do("POST", "/api/servers/"+uuid.NewString()+"/journal/verify", map[string]any{"tool": "t"}).Problem(http.StatusNotFound)
	c.Do("GET", "/api/servers/"+server+"/journal", nil).Status(http.StatusOK)
	env.Anonymous(t).Do("GET", "/api/servers/"+server+"/journal", nil).Problem(http.StatusUnauthorized)
}

// TestJournalEntryFields records an entry the way the endpoint hands one
// over, with every field set, and reads it back through the API.
func TestJournalEntryFields(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Journal Fields")
	server := mkServer(t, c, "s")
	at := time.Date(2025, 6, 1, 12, 0, 0, 123456000, time.UTC)
	w := env.Service.Journal()
	require.True(t, w.Record(journal.Entry{
		OrgID: uuid.MustParse(c.OrgID), ServerID: uuid.MustParse(server), ReceivedAt: at, Latency: 2500 * time.Microsecond,
		ClientAddr: "203.0.113.9", SequenceKey: "alice", Method: "tools/call",
		Params: json.RawMessage(`{"name":"next","arguments":{}}`), Tool: "next", Outcome: journal.OutcomeError,
		Scenario: "steps", Step: 2, Answer: []byte(`{"code":-32000,"message":"step 3 fails"}`), ErrorCode: -32000,
		StateChange: &journal.StateChange{Set: json.RawMessage(`{"item":{"id":"1"}}`), Deleted: []string{"old"}, Version: 3},
	}))
	r := journalPage(t, c, server, "", 1)
	require.JSONEq(t, `{
		"id": "`+r.String("items.0.id")+`", "received_at": "2025-06-01T12:00:00.123456Z", "method": "tools/call",
		"tool": "next", "params": {"name":"next","arguments":{}}, "outcome": "error", "matched_scenario": "steps",
		"sequence_step": 2, "mismatches": [], "response": "{\"code\":-32000,\"message\":\"step 3 fails\"}",
		"error_code": -32000, "latency_ms": 2.5, "client_address": "203.0.113.9", "sequence_key": "alice",
		"rounds": [], "upstream": null, "state_change": {"set": {"item": {"id": "1"}}, "deleted": ["old"], "version": 3}
	}`, jsonAt(t, r, "items.0"))
}

// TestJournalProxiedEntry: a proxied call keeps the upstream's latency and
// whole answer, cut at journal.MaxUpstreamAnswer bytes.
func TestJournalProxiedEntry(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Journal Proxied")
	server := mkServer(t, c, "s")
	w := env.Service.Journal()
	small := `{"content":[{"type":"text","text":"from upstream"}]}`
	big := `{"content":[{"type":"text","text":"` + strings.Repeat("x", journal.MaxUpstreamAnswer) + `"}]}`
	for i, answer := range []string{small, big} {
		require.True(t, w.Record(journal.Entry{
			OrgID: uuid.MustParse(c.OrgID), ServerID: uuid.MustParse(server), Method: "tools/call", Tool: "t",
			ReceivedAt: time.Date(2025, 6, 1, 12, 0, i, 0, time.UTC), Step: -1,
			Outcome: journal.OutcomeProxied, Answer: []byte(answer),
			Upstream: &journal.Upstream{Latency: 4 * time.Millisecond, Answer: []byte(answer)},
		}))
	}
	r := journalPage(t, c, server, "?outcome=proxied", 2)
	require.Equal(t, "proxied", r.Get("items.0.outcome"))
	require.Equal(t, true, r.Get("items.0.upstream.truncated"))
	cut := r.String("items.0.upstream.answer")
	require.Len(t, cut, journal.MaxUpstreamAnswer)
	require.True(t, strings.HasPrefix(big, cut))
	require.Less(t, len(r.String("items.0.response")), 1000, "response stays a summary")
	require.JSONEq(t, `{"latency_ms": 4, "truncated": false, "answer": `+small+`}`, jsonAt(t, r, "items.1.upstream"))
}

func TestJournalClear(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Journal Clear")
	server, other := weatherServer(t, c), weatherServer(t, c)
	for range 3 {
		mcpCall(t, env, server, "ping", nil)
	}
	mcpCall(t, env, other, "ping", nil)
	journalPage(t, c, server, "", 3)
	journalPage(t, c, other, "", 1)

	c.Do("DELETE", "/api/servers/"+server+"/journal", nil).Status(http.StatusNoContent)
	journalPage(t, c, server, "", 0)
	journalPage(t, c, other, "", 1)

	// Calls still queued when the journal is cleared go with it.
	mcpCall(t, env, server, "ping", nil)
	c.Do("DELETE", "/api/servers/"+server+"/journal", nil).Status(http.StatusNoContent)
	require.NoError(t, env.Service.Journal().Flush(context.Background()))
	journalPage(t, c, server, "", 0)

	t.Run("another organization", func(t *testing.T) {
		b := env.Signup(t, "Journal Intruder")
		b.Do("DELETE", "/api/servers/"+other+"/journal", nil).Problem(http.StatusNotFound)
		b.Do("GET", "/api/servers/"+other+"/journal", nil).Problem(http.StatusNotFound)
		b.Do("POST", "/api/servers/"+other+"/journal/verify", map[string]any{"tool": "get_weather"}).
			Problem(http.StatusNotFound)
		journalPage(t, c, other, "", 1)
	})
}

func TestJournalVerify(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Journal Verify")
	server := weatherServer(t, c)
	for _, args := range []map[string]any{
		{"city": "Paris", "units": "metric"}, {"city": "Paris"}, {"city": "London", "temp": 12}, {},
	} {
		callTool(t, env, server, "get_weather", args)
	}
	callTool(t, env, server, "get_wind", map[string]any{"city": "Paris"})
	mcpCall(t, env, server, "tools/list", map[string]any{})
	// No waiting: verification writes what is queued before counting.

	cases := []struct {
		name     string
		body     map[string]any
		count    int
		verified bool
		expected string
		message  string
	}{
		{"any arguments", map[string]any{"tool": "get_weather"}, 4, true, "at least 1",
			`tool "get_weather" was called 4 times, as expected (at least 1)`},
		{"plain condition", map[string]any{"tool": "get_weather", "arguments": map[string]any{"city": "Paris"}}, 2, true,
			"at least 1", `tool "get_weather" was called twice with matching arguments, as expected (at least 1)`},
		{"exact times", map[string]any{"tool": "get_weather", "arguments": map[string]any{"city": "Paris"}, "times": 2}, 2, true,
			"exactly 2", `tool "get_weather" was called twice with matching arguments, as expected (exactly 2)`},
		{"wrong times", map[string]any{"tool": "get_weather", "arguments": map[string]any{"city": "Paris"}, "times": 1}, 2, false,
			"exactly 1", `tool "get_weather" was called twice with matching arguments; expected exactly 1`},
		{"two pairs", map[string]any{"tool": "get_weather", "arguments": map[string]any{"city": "Paris", "units": "metric"}},
			1, true, "at least 1", `tool "get_weather" was called once with matching arguments, as expected (at least 1)`},
		{"operator", map[string]any{"tool": "get_weather",
			"arguments": map[string]any{"field": "temp", "operator": "gte", "value": 12}}, 1, true, "at least 1", ""},
		{"empty condition", map[string]any{"tool": "get_weather", "arguments": map[string]any{}}, 4, true, "at least 1", ""},
		{"no match", map[string]any{"tool": "get_weather", "arguments": map[string]any{"city": "Rome"}}, 0, false, "at least 1",
			`tool "get_weather" was never called with matching arguments; expected at least 1`},
		{"never, as expected", map[string]any{"tool": "get_rain", "times": 0}, 0, true, "exactly 0", ""},
		{"other tool", map[string]any{"tool": "get_wind", "arguments": map[string]any{"city": "Paris"}, "times": 1}, 1, true,
			"exactly 1", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.For(t).Do("POST", "/api/servers/"+server+"/journal/verify", tc.body).Status(http.StatusOK)
			require.Equal(t, float64(tc.count), r.Get("count"), "body: %s", r.Raw)
			require.Equal(t, tc.verified, r.Get("verified"))
			require.Equal(t, tc.expected, r.Get("expected"))
			if tc.message != "" {
				require.Equal(t, tc.message, r.Get("message"))
			}
		})
	}

	t.Run("bad conditions name the argument", func(t *testing.T) {
		bad := []struct {
			arguments any
			field     string
		}{
			{map[string]any{"field": "city", "operator": "bogus", "value": 1}, "arguments.operator"},
			{map[string]any{"field": "temp", "operator": "gt", "value": "warm"}, "arguments.value"},
			{map[string]any{"field": "", "operator": "equals", "value": 1}, "arguments.field"},
			{map[string]any{"a..b": 1}, `arguments["a..b"]`},
		}
		for _, tc := range bad {
			r := c.For(t).Do("POST", "/api/servers/"+server+"/journal/verify",
				map[string]any{"tool": "get_weather", "arguments": tc.arguments})
			r.Problem(http.StatusUnprocessableEntity, tc.field)
		}
		c.For(t).Do("POST", "/api/servers/"+server+"/journal/verify", map[string]any{"arguments": map[string]any{}}).
			Problem(http.StatusUnprocessableEntity, "tool")
		c.For(t).Do("POST", "/api/servers/"+server+"/journal/verify", map[string]any{"tool": "t", "times": -1}).
			Problem(http.StatusUnprocessableEntity, "times")
	})
}

// TestJournalAsPlatformTools: the journal routes are platform MCP tools.
func TestJournalAsPlatformTools(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Journal Platform")
	server := weatherServer(t, c)
	callTool(t, env, server, "get_weather", map[string]any{"city": "Oslo"})
	raw := c.Do("POST", "/api/keys", map[string]any{"name": "assistant"}).Status(http.StatusCreated).String("raw_key")
	assistant := env.Anonymous(t)
	assistant.Header.Set("X-API-Key", raw)
	assistant.Header.Set("Accept", "application/json")
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		r := assistant.Do("POST", "/api/platform-mcp/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
			"params": map[string]any{"name": name, "arguments": args}}).Status(http.StatusOK)
		require.NotEqual(t, true, r.Get("result.isError"), "body: %s", r.Raw)
		var out map[string]any
		require.NoError(t, json.Unmarshal([]byte(r.String("result.content.0.text")), &out))
		return out
	}
	v := call("verify_journal", map[string]any{"server_id": server, "tool": "get_weather", "times": 1})
	require.Equal(t, true, v["verified"], "%v", v)
	v = call("verify_journal", map[string]any{"server_id": server, "tool": "get_weather", "asked": "city",
		"answers": map[string]any{"city.action": "accept"}, "times": 0})
	require.Equal(t, true, v["verified"], "%v", v)
	require.Contains(t, v["message"], `asking "city", with matching answers`)
	page := call("list_journal", map[string]any{"server_id": server, "outcome": "no_match"})
	items := page["items"].([]any)
	require.Len(t, items, 1)
	require.Equal(t, `city: equals "Paris" but was "Oslo"`, items[0].(map[string]any)["mismatches"].([]any)[0].(map[string]any)["reason"])
	call("clear_journal", map[string]any{"server_id": server})
	require.Equal(t, float64(0), call("verify_journal", map[string]any{"server_id": server, "tool": "get_weather"})["count"])
}

func TestJournalDisabled(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.JournalEnabled = false }})
	require.Nil(t, env.Service.Journal())
	c := env.Signup(t, "Journal Off")
	server := weatherServer(t, c)
	callTool(t, env, server, "get_weather", map[string]any{"city": "Paris"})
	r := c.Do("POST", "/api/servers/"+server+"/journal/verify", map[string]any{"tool": "get_weather"}).Status(http.StatusOK)
	require.Equal(t, float64(0), r.Get("count"))
	require.Contains(t, r.String("message"), "JOURNAL_ENABLED=false")
	require.Equal(t, false, r.Get("complete"), "a disabled journal misses every call")
	require.Equal(t, 0, c.Do("GET", "/api/servers/"+server+"/journal", nil).Status(http.StatusOK).Len("items"))
	c.Do("DELETE", "/api/servers/"+server+"/journal", nil).Status(http.StatusNoContent)
}

// TestJournalRetentionThroughTheService: the service prunes beyond
// JOURNAL_MAX_PER_SERVER on its own.
func TestJournalRetentionThroughTheService(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		c.JournalMaxPerServer = 3
		c.JournalPruneInterval = 20 * time.Millisecond
	}})
	c := env.Signup(t, "Journal Retention")
	server := weatherServer(t, c)
	for i := range 6 {
		callTool(t, env, server, "get_weather", map[string]any{"city": "c" + strconv.Itoa(i)})
	}
	var r *apitest.Response
	require.Eventually(t, func() bool {
		require.NoError(t, env.Service.Journal().Flush(context.Background()))
		r = c.Do("GET", "/api/servers/"+server+"/journal", nil).Status(http.StatusOK)
		return r.Len("items") == 3
	}, 10*time.Second, 20*time.Millisecond)
	require.Equal(t, map[string]any{"city": "c5"}, r.Get("items.0.params.arguments"), "the newest are kept")
}

// TestJournalExplainsBeforeTheFallback: a call the fallback (a scenario
// without a condition) answered lists why each scenario before it did not
// match, as a call no scenario matched does.
func TestJournalExplainsBeforeTheFallback(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Journal Fallback")
	server := mkServer(t, c, "Fallback")
	mkChild(t, c, server, "tools", map[string]any{"name": "get_weather", "mock_scenarios": []any{
		map[string]any{"name": "paris", "condition": map[string]any{"city": "Paris"}, "response": map[string]any{"forecast": "sunny"}},
		map[string]any{"name": "fallback", "response": map[string]any{"forecast": "rain"}},
	}})
	c.Do("PATCH", "/api/servers/"+server, map[string]any{"enabled": true}).Status(http.StatusOK)
	callTool(t, env, server, "get_weather", map[string]any{"city": "Oslo"})

	r := journalPage(t, c, server, "", 1)
	require.Equal(t, "fallback", r.Get("items.0.matched_scenario"))
	require.Equal(t, []any{map[string]any{"scenario": "paris", "field": "city", "operator": "equals",
		"reason": `city: equals "Paris" but was "Oslo"`}}, r.Get("items.0.mismatches"))
}
