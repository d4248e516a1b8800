package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/journal"
)

// confirmQuestion is the question "confirm" as the endpoint sends it.
const confirmQuestion = `{"method":"elicitation/create","params":{"message":"Book it?","requestedSchema":{"type":"object"}}}`

// recordAsking records, as the endpoint would, a tools/call of tool on
// server with args and rounds; each round is given as JSON.
func recordAsking(t *testing.T, env *apitest.Env, c *apitest.Client, server, tool, args string, rounds ...string) {
	t.Helper()
	e := journal.Entry{OrgID: uuid.MustParse(c.OrgID), ServerID: uuid.MustParse(server), ReceivedAt: time.Now(),
		Method: "tools/call", Tool: tool, Params: json.RawMessage(`{"name":"` + tool + `","arguments":` + args + `}`),
		Outcome: journal.OutcomeResult, Step: -1, Answer: []byte(`{"content":[]}`)}
	for _, r := range rounds {
		var round journal.Round
		require.NoError(t, json.Unmarshal([]byte(r), &round))
		e.Rounds = append(e.Rounds, round)
	}
	require.True(t, env.Service.Journal().Record(e))
}

// answered is a round of the question confirm, as a later call brings its
// answer: not sent, answer and branch given.
func answered(answer string, branch int) string {
	return fmt.Sprintf(`{"asked":{"confirm":%s},"sent":false,"answers":{"confirm":%s},"branch":%d}`, confirmQuestion, answer, branch)
}

const (
	accept   = `{"action":"accept","content":{"name":"Ann"}}`
	decline  = `{"action":"decline"}`
	askFirst = `{"asked":{"confirm":` + confirmQuestion + `},"sent":true,"branch":-1}`
)

func TestJournalListsRounds(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Journal Rounds")
	server := mkServer(t, c, "s")
	recordAsking(t, env, c, server, "book", `{"seat":"12A"}`, askFirst)
	recordAsking(t, env, c, server, "book", `{"seat":"12A"}`,
		`{"asked":{"confirm":`+confirmQuestion+`},"sent":false,"answers":{"confirm":`+accept+`},"branch":0,"timed_out":true}`)
	// An answer over the journal's bound for one value.
	long := `{"action":"accept","content":{"note":"` + strings.Repeat("n", journal.MaxRoundValue) + `"}}`
	recordAsking(t, env, c, server, "book", `{}`, answered(long, 0))
	recordAsking(t, env, c, server, "book", `{}`)
	require.NoError(t, env.Service.Journal().Flush(t.Context()))

	r := journalPage(t, c, server, "?tool=book", 4) // newest first
	require.JSONEq(t, `[{"asked":{"confirm":`+confirmQuestion+`},"sent":true,"answers":{},"branch":null,"timed_out":false}]`,
		jsonAt(t, r, "items.3.rounds"), "a call that sent its question")
	require.JSONEq(t, `[{"asked":{"confirm":`+confirmQuestion+`},"sent":false,"answers":{"confirm":`+accept+`},"branch":0,
		"timed_out":true}]`, jsonAt(t, r, "items.2.rounds"), "the call that brought the answer")
	require.Equal(t, fmt.Sprintf("(left out: %d bytes)", len(long)), r.Get("items.1.rounds.0.answers.confirm"),
		"an answer over %d bytes", journal.MaxRoundValue)
	require.JSONEq(t, confirmQuestion, jsonAt(t, r, "items.1.rounds.0.asked.confirm"))
	require.Equal(t, []any{}, r.Get("items.0.rounds"), "a call that asked nothing")
}

func TestJournalVerifyAskedAndAnswers(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Journal Verify Rounds")
	server := mkServer(t, c, "s")
	seatPref := `{"asked":{"seat_pref":{"method":"elicitation/create","params":{"message":"Window?"}}},"sent":%t,%s"branch":%d}`
	sse := `{"asked":{"confirm":` + confirmQuestion + `},"sent":true,"answers":{"confirm":` +
		`{"action":"accept","content":{"name":"Bob"}}},"branch":0}`
	calls := []struct {
		args   string
		rounds []string
	}{
		{`{"seat":"12A"}`, []string{askFirst}},                                                 // 0: asked, no answer yet
		{`{"seat":"12A"}`, []string{answered(accept, 0)}},                                      // 1: accepted
		{`{"seat":"12A"}`, []string{answered(decline, 1)}},                                     // 2: declined
		{`{"seat":"14C"}`, []string{sse}},                                                      // 3: asked and answered in one call (the SSE reply)
		{`{"seat":"14C"}`, []string{answered(accept, 0), fmt.Sprintf(seatPref, true, "", -1)}}, // 4: accepted, then asked more
		{`{"seat":"1A"}`, nil},                                                                 // 5: never asked
		{`{"seat":"12A"}`, []string{answered(decline, 0), // 6: declined, then answered another question
			fmt.Sprintf(seatPref, false, `"answers":{"seat_pref":{"action":"accept","content":{"seat":"window"}}},`, 0)}},
	}
	for _, call := range calls {
		recordAsking(t, env, c, server, "book", call.args, call.rounds...)
	}
	recordAsking(t, env, c, server, "other", `{"seat":"12A"}`, answered(accept, 0), askFirst)
	// No waiting: verification writes what is queued before counting.

	cases := []struct {
		name  string
		body  map[string]any
		count int
	}{
		{"every call", map[string]any{}, 7},
		{"asked", map[string]any{"asked": "confirm"}, 2},                    // 0, 3
		{"asked in a later round", map[string]any{"asked": "seat_pref"}, 1}, // 4; 6 did not send it
		{"asked nothing of the kind", map[string]any{"asked": "nobody"}, 0},
		{"accepted", map[string]any{"answers": map[string]any{"confirm.action": "accept"}}, 3},  // 1, 3, 4
		{"declined", map[string]any{"answers": map[string]any{"confirm.action": "decline"}}, 1}, // 2; 6's last answers are seat_pref's
		{"any answers", map[string]any{"answers": map[string]any{}}, 5},                         // 1, 2, 3, 4, 6
		{"operator", map[string]any{"answers": map[string]any{"field": "confirm.content.name", "operator": "equals", "value": "Ann"}}, 2},
		{"the last answers", map[string]any{"answers": map[string]any{"seat_pref.content.seat": "window"}}, 1},
		{"asked and answered", map[string]any{"asked": "confirm", "answers": map[string]any{"confirm.action": "accept"}}, 1}, // 3
		{"answered, then asked", map[string]any{"asked": "seat_pref", "answers": map[string]any{"confirm.action": "accept"}}, 1},
		{"arguments and answers", map[string]any{"arguments": map[string]any{"seat": "12A"},
			"answers": map[string]any{"confirm.action": "accept"}}, 1}, // 1
		{"arguments and asked", map[string]any{"arguments": map[string]any{"seat": "14C"}, "asked": "confirm"}, 1}, // 3
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.body["tool"] = "book"
			r := c.For(t).Do("POST", "/api/servers/"+server+"/journal/verify", tc.body).Status(http.StatusOK)
			require.Equal(t, float64(tc.count), r.Get("count"), "body: %s", r.Raw)
		})
	}

	t.Run("the message says what was checked", func(t *testing.T) {
		r := c.For(t).Do("POST", "/api/servers/"+server+"/journal/verify", map[string]any{"tool": "book",
			"arguments": map[string]any{"seat": "14C"}, "asked": "confirm", "answers": map[string]any{"confirm.action": "accept"},
			"times": 1}).Status(http.StatusOK)
		require.Equal(t, `tool "book" was called once with matching arguments, asking "confirm", with matching answers, `+
			`as expected (exactly 1)`, r.Get("message"))
		r = c.For(t).Do("POST", "/api/servers/"+server+"/journal/verify", map[string]any{"tool": "book",
			"answers": map[string]any{"confirm.action": "cancel"}}).Status(http.StatusOK)
		require.Equal(t, `tool "book" was never called with matching answers; expected at least 1`, r.Get("message"))
	})

	t.Run("bad answers or asked name the member", func(t *testing.T) {
		bad := []struct {
			body   map[string]any
			fields []string
		}{
			{map[string]any{"answers": map[string]any{"field": "confirm.action", "operator": "bogus", "value": 1}},
				[]string{"answers.operator"}},
			{map[string]any{"answers": map[string]any{"a..b": 1}}, []string{`answers["a..b"]`}},
			{map[string]any{"answers": map[string]any{"field": "x", "operator": "gt", "value": "y"},
				"arguments": map[string]any{"field": "", "operator": "equals", "value": 1}},
				[]string{"answers.value", "arguments.field"}},
			{map[string]any{"asked": ""}, []string{"asked"}},
			{map[string]any{"asked": "not an id"}, []string{"asked"}},
			{map[string]any{"asked": strings.Repeat("q", 65)}, []string{"asked"}},
		}
		for _, tc := range bad {
			tc.body["tool"] = "book"
			c.For(t).Do("POST", "/api/servers/"+server+"/journal/verify", tc.body).
				Problem(http.StatusUnprocessableEntity, tc.fields...)
		}
	})

	t.Run("another organization", func(t *testing.T) {
		b := env.Signup(t, "Journal Rounds Intruder")
		b.Do("POST", "/api/servers/"+server+"/journal/verify", map[string]any{"tool": "book", "asked": "confirm",
			"answers": map[string]any{"confirm.action": "accept"}}).Problem(http.StatusNotFound)
		b.Do("GET", "/api/servers/"+server+"/journal", nil).Problem(http.StatusNotFound)
	})
}
