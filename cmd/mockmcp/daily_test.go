package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/apitest"
)

// dailyEnv is a running service with one organization holding an
// enabled "Weather" design (get_forecast answers Paris only), two servers
// both named "Twin", and the key of the organization in the environment.
type dailyEnv struct {
	env     *apitest.Env
	c       *apitest.Client
	weather string
	twins   []string
}

func newDailyEnv(t *testing.T) dailyEnv {
	t.Helper()
	env := apitest.New(t, nil)
	c := env.Signup(t, "Daily Loop")
	key := c.Do("POST", "/api/keys", map[string]any{"name": "cli"}).Status(http.StatusCreated).String("raw_key")
	t.Setenv(envURL, env.URL)
	t.Setenv(envAPIKey, key)
	weather := c.CreateServer(json.RawMessage(`{"name":"Weather"}`), []json.RawMessage{json.RawMessage(`{
		"name": "get_forecast", "description": "Forecast for a city.",
		"input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
		"mock_scenarios": [{"name": "paris", "condition": {"city": "Paris"}, "response": {"temp": 18}}]}`)}, nil, nil)
	c.EnableServer(weather)
	twins := []string{
		c.CreateServer(json.RawMessage(`{"name":"Twin"}`), nil, nil, nil),
		c.CreateServer(json.RawMessage(`{"name":"Twin"}`), nil, nil, nil),
	}
	return dailyEnv{env: env, c: c, weather: weather, twins: twins}
}

// call sends one tools/call of get_forecast for city to the design's
// endpoint.
func (d dailyEnv) call(t *testing.T, city string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"` + city + `"}}}`
	status, raw := apitest.PostJSONRPC(t, d.env.URL+"/api/platform/"+d.weather+"/mcp", strings.NewReader(body))
	require.Equal(t, http.StatusOK, status, "%s", raw)
}

// TestServersList lists the organization's servers as a table and as
// JSON, following the API's pages.
func TestServersList(t *testing.T) {
	d := newDailyEnv(t)
	defer func(n int) { serverPageSize = n }(serverPageSize)
	serverPageSize = 2 // three servers: two pages

	out, err := runOut(t, "servers", "list")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4, out)
	require.Regexp(t, `^NAME\s+ID\s+ENABLED\s+ENDPOINT$`, lines[0])
	require.Contains(t, out, "Weather  "+d.weather+"  yes      "+d.env.URL+"/api/platform/"+d.weather+"/mcp")
	for _, id := range d.twins {
		require.Regexp(t, `(?m)^Twin\s+`+id+`\s+no\s+http://`, out)
	}

	out, err = runOut(t, "servers", "list", "--json")
	require.NoError(t, err)
	var servers []struct {
		ID          string `json:"id"`
		Name        string `json:"name"`
		Enabled     bool   `json:"enabled"`
		EndpointURL string `json:"endpoint_url"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &servers), out)
	require.Len(t, servers, 3)
	ids := []string{servers[0].ID, servers[1].ID, servers[2].ID}
	require.ElementsMatch(t, append([]string{d.weather}, d.twins...), ids)

	_, err = runOut(t, "servers")
	require.Equal(t, exitUsage, exitCode(err), "%v", err)
	_, err = runOut(t, "servers", "list", "--url", "http://127.0.0.1:1")
	require.Equal(t, exitUnreachable, exitCode(err), "%v", err)
}

// TestServerByName: every command taking a server takes its name too; an
// unknown or ambiguous name is exit status 1 saying what to do.
func TestServerByName(t *testing.T) {
	d := newDailyEnv(t)
	endpoint := d.env.URL + "/api/platform/" + d.weather + "/mcp"
	for _, args := range [][]string{
		{"export", "%s"},
		{"journal", "%s"},
		{"verify", "%s", "--tool", "get_forecast", "--times", "0"},
		{"drift", "%s", "--url", endpoint},
	} {
		t.Run(args[0], func(t *testing.T) {
			with := func(server string) []string {
				a := append([]string(nil), args...)
				a[1] = server
				return a
			}
			byName, err := runOut(t, with("Weather")...)
			require.NoError(t, err, byName)
			byID, err := runOut(t, with(d.weather)...)
			require.NoError(t, err, byID)
			require.Equal(t, byID, byName)

			_, err = runOut(t, with("Shop")...)
			require.EqualError(t, err, `no server named "Shop" (see `+"`mockmcp servers list`"+`)`)
			require.Equal(t, exitFailed, exitCode(err))

			_, err = runOut(t, with("Twin")...)
			require.ErrorContains(t, err, `2 servers are named "Twin": give the id of the one you mean`)
			require.ErrorContains(t, err, d.twins[0])
			require.ErrorContains(t, err, d.twins[1])
			require.Equal(t, exitFailed, exitCode(err))

			// An id is taken as an id, unlooked-up: the service says it is unknown.
			_, err = runOut(t, with(uuid.NewString())...)
			require.ErrorContains(t, err, "404")
			require.Equal(t, exitFailed, exitCode(err))
		})
	}
}

// TestJournalCommand prints the journal readably, filtered, and as JSON.
func TestJournalCommand(t *testing.T) {
	d := newDailyEnv(t)
	out, err := runOut(t, "journal", "Weather")
	require.NoError(t, err)
	require.Equal(t, "no calls recorded\n", out)

	d.call(t, "Paris")
	d.call(t, "London")
	// verify writes the records still queued.
	_, err = runOut(t, "verify", "Weather", "--tool", "get_forecast", "--times", "2")
	require.NoError(t, err)

	out, err = runOut(t, "journal", "Weather")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	require.Regexp(t, `^TIME\s+METHOD\s+TOOL\s+OUTCOME\s+LATENCY\s+DETAIL$`, lines[0])
	stamp := `\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`
	// Newest first.
	require.Regexp(t, `^`+stamp+`\s+tools/call\s+get_forecast\s+no_match\s+[\d.]+ ms\s+paris: city: .*London`, lines[1])
	require.Regexp(t, `^`+stamp+`\s+tools/call\s+get_forecast\s+result\s+[\d.]+ ms\s+scenario "paris"$`, lines[2])

	for _, tc := range []struct {
		args []string
		want int
	}{
		{[]string{"--outcome", "no_match"}, 1},
		{[]string{"--outcome", "result", "--tool", "get_forecast"}, 1},
		{[]string{"--tool", "other"}, 0},
		{[]string{"--method", "tools/call", "--since", "1h"}, 2},
		{[]string{"--since", "2999-01-01T00:00:00Z"}, 0},
		{[]string{"--limit", "1"}, 1},
	} {
		out, err := runOut(t, append([]string{"journal", "Weather", "--json"}, tc.args...)...)
		require.NoError(t, err, "%v", tc.args)
		var entries []map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &entries), out)
		require.Len(t, entries, tc.want, "%v: %s", tc.args, out)
		for _, e := range entries {
			require.Equal(t, "get_forecast", e["tool"])
			require.Contains(t, e, "params", "the record as the API answers it")
		}
	}

	for _, args := range [][]string{
		{"--outcome", "maybe"},
		{"--since", "yesterday"},
		{"--since", "-5m"},
		{"--limit", "-1"},
		{},
	} {
		a := append([]string{"journal"}, args...)
		if len(args) > 0 {
			a = append([]string{"journal", "Weather"}, args...)
		}
		_, err := runOut(t, a...)
		require.Equal(t, exitUsage, exitCode(err), "%v: %v", a, err)
	}
	_, err = runOut(t, "journal", "Weather", "--since", "yesterday")
	require.ErrorContains(t, err, `--since "yesterday": want a duration`)
}

// TestVerifyCommand: the verdict is the exit status, for CI scripts.
func TestVerifyCommand(t *testing.T) {
	d := newDailyEnv(t)
	d.call(t, "Paris")
	d.call(t, "Paris")
	d.call(t, "London")

	for _, tc := range []struct {
		name string
		args []string
		want int
		out  string
	}{
		{"called", []string{"--tool", "get_forecast"}, exitOK, `tool "get_forecast" was called 3 times, as expected (at least 1)`},
		{"matching arguments, exactly", []string{"--tool", "get_forecast", "--args", `{"city": "Paris"}`, "--times", "2"}, exitOK, "as expected (exactly 2)"},
		{"an operator condition", []string{"--tool", "get_forecast", "--args", `{"field": "city", "operator": "starts_with", "value": "Lon"}`}, exitOK, "as expected"},
		{"never, as wanted", []string{"--tool", "get_alerts", "--times", "0"}, exitOK, "as expected (exactly 0)"},
		{"too few", []string{"--tool", "get_forecast", "--args", `{"city": "Paris"}`, "--times", "3"}, exitFailed, "expected exactly 3"},
		{"never called", []string{"--tool", "get_alerts"}, exitFailed, "expected at least 1"},
		{"bad JSON", []string{"--tool", "get_forecast", "--args", `{city: Paris}`}, exitUsage, ""},
		{"not an object", []string{"--tool", "get_forecast", "--args", `["Paris"]`}, exitUsage, ""},
		{"no tool", []string{}, exitUsage, ""},
		{"negative times", []string{"--tool", "get_forecast", "--times", "-1"}, exitUsage, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, _, err := runOutErr(t, append([]string{"verify", "Weather"}, tc.args...)...)
			require.Equal(t, tc.want, exitCode(err), "%v", err)
			require.Contains(t, out, tc.out)
		})
	}

	_, err := runOut(t, "verify", "Weather", "--tool", "get_forecast", "--args", "{city: Paris}")
	require.ErrorContains(t, err, "--args: want a JSON object")
	_, err = runOut(t, "verify", "Weather", "--tool", "get_forecast", "--times", "9")
	require.EqualError(t, err, `not verified: tool "get_forecast": expected exactly 9, recorded 3`)
	_, err = runOut(t, "verify", "Weather", "--tool", "get_forecast", "--url", "http://127.0.0.1:1")
	require.Equal(t, exitUnreachable, exitCode(err), "%v", err)
}

// TestVerifyIncomplete: a count the service says may miss calls is
// reported with a warning, whatever the verdict.
func TestVerifyIncomplete(t *testing.T) {
	id := uuid.NewString()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/api/servers/"+id+"/journal/verify" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"verified": true, "count": 4, "expected": "at least 1", "complete": false,
			"message": "tool \"get_forecast\" called 4 times, as expected (at least 1) (incomplete: …)"}`))
	}))
	defer srv.Close()
	out, errOut, err := runOutErr(t, "verify", id, "--tool", "get_forecast", "--url", srv.URL, "--api-key", "mmcp_test")
	require.NoError(t, err)
	require.Contains(t, out, "called 4 times")
	require.Regexp(t, regexp.MustCompile(`^warning: the journal is incomplete: .*may miss calls\n$`), errOut)
}

// TestJournalDetail says in a few words what decided each kind of answer.
func TestJournalDetail(t *testing.T) {
	for _, tc := range []struct {
		name, entry, want string
	}{
		{"a sequence step", `{"outcome": "result", "matched_scenario": "retry", "sequence_step": 1}`, `scenario "retry", step 1`},
		{"a JSON-RPC error", `{"outcome": "error", "matched_scenario": null, "error_code": -32602}`, "error -32602"},
		{"no match", `{"outcome": "no_match", "mismatches": [{"scenario": "paris", "reason": "city: equals \"Paris\" but was \"Rome\""},
			{"scenario": "warm", "reason": "temp: missing (gt 10)"}]}`, `paris: city: equals "Paris" but was "Rome", (+1 more)`},
		{"the fallback after a miss", `{"outcome": "result", "matched_scenario": "fallback",
			"mismatches": [{"scenario": "paris", "reason": "city: equals \"Paris\" but was \"Rome\""}]}`,
			`scenario "fallback", paris: city: equals "Paris" but was "Rome"`},
		{"proxied", `{"outcome": "proxied", "upstream": {"latency_ms": 12.34, "answer": {}, "truncated": false}}`, "upstream 12.3 ms"},
		{"proxied after every scenario missed", `{"outcome": "proxied", "upstream": {"latency_ms": 1, "answer": {}, "truncated": false},
			"mismatches": [{"scenario": "paris", "reason": "city: missing (equals \"Paris\")"}, {"scenario": "warm", "reason": "temp: missing (gt 10)"}]}`,
			`upstream 1.0 ms, paris: city: missing (equals "Paris"), (+1 more)`},
		{"a method's result", `{"outcome": "result", "matched_scenario": null, "upstream": null}`, "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e api.JournalEntry
			require.NoError(t, json.Unmarshal([]byte(tc.entry), &e))
			require.Equal(t, tc.want, journalDetail(e))
		})
	}
}

// TestApplyAgentCardDocuments: apply takes agent card documents (kind
// A2AAgent) beside design documents, to the agent cards' route: a dry run
// changes nothing, a published card prints its agent endpoint, which
// answers, and a fault is named by its path in the document.
func TestApplyAgentCardDocuments(t *testing.T) {
	d := newDailyEnv(t)
	dir := t.TempDir()
	agent := `apiVersion: mockmcp/v1
kind: A2AAgent
name: cli-planner
version: 1.0.0
description: Plans trips for agents under test, from the command line. It is a mock agent for tests and answers every message with a fixed text, whatever the message says, so that a client can be checked end to end.
published: true
skills:
  - name: plan_trip
    description: Plans a trip to a city, with dates, a budget and a list of places to see.
invocation: {protocol: mcp, endpoint: "https://agents.example.com/mcp"}
replies:
  - name: hello
    text: Where to?
`
	file := filepath.Join(dir, "planner.yaml")
	require.NoError(t, os.WriteFile(file, []byte(agent), 0o644))
	design := filepath.Join(dir, "weather.yaml")
	require.NoError(t, os.WriteFile(design, []byte("apiVersion: mockmcp/v1\nkind: MCPServer\nname: CLI Weather\nversion: 1.0.0\n"), 0o644))

	out, stderr, err := runOutErr(t, "apply", "-f", dir, "--dry-run")
	require.NoError(t, err, stderr)
	require.Contains(t, out, file+`: agent card "cli-planner" created, published (dry run: nothing changed)`)
	require.Contains(t, out, design+`: server "CLI Weather" created (dry run: nothing changed)`)
	require.NotContains(t, string(d.c.Do("GET", "/api/agent-cards", nil).Status(http.StatusOK).Raw), "cli-planner")

	out, stderr, err = runOutErr(t, "apply", "-f", file)
	require.NoError(t, err, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	require.Regexp(t, `^`+regexp.QuoteMeta(file)+`: agent card "cli-planner" created, published \(id [0-9a-f-]{36}\)$`, lines[0])
	endpoint, ok := strings.CutPrefix(lines[1], "  agent: ")
	require.True(t, ok, lines[1])
	require.True(t, strings.HasPrefix(endpoint, d.env.URL+"/api/exchange/agent-cards/"), endpoint)
	status, raw := apitest.PostJSONRPC(t, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"message/send",`+
		`"params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"hi"}]}}}`))
	require.Equal(t, http.StatusOK, status, "%s", raw)
	require.Contains(t, string(raw), "Where to?")

	out, _, err = runOutErr(t, "apply", "-f", file)
	require.NoError(t, err)
	require.Contains(t, out, `agent card "cli-planner" unchanged, published`)

	broken := filepath.Join(t.TempDir(), "broken.yaml")
	require.NoError(t, os.WriteFile(broken, []byte(strings.Replace(agent, "text: Where to?", "text: '{{nope}}'", 1)), 0o644))
	_, stderr, err = runOutErr(t, "apply", "-f", broken)
	require.Error(t, err)
	require.Contains(t, stderr, broken+": replies[0].text: ")
}
