package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/store"
)

// newServer creates an empty server design of org's and returns its id.
func newServer(t *testing.T, st *store.Store, org uuid.UUID) uuid.UUID {
	t.Helper()
	id := uuid.New()
	require.NoError(t, st.WithTx(context.Background(), store.Scope{OrgID: org}, func(tx *store.Tx) error {
		_, err := tx.CreateServer(context.Background(), design.Server{ID: id, Name: "journal " + id.String()[:8],
			Version: "1.0.0", Type: "mock", ProtocolVersion: "2024-11-05", AuthMode: "none",
			Eras: design.DefaultEras, CacheScope: design.DefaultCacheScope, CreatedBy: "test"})
		return err
	}))
	return id
}

// call is a journal record of server's, received at at.
func call(org, server uuid.UUID, at time.Time, method, tool, outcome string) store.JournalRecord {
	id, err := uuid.NewV7()
	if err != nil {
		panic(err)
	}
	return store.JournalRecord{ID: id, OrgID: org, ServerID: server, ReceivedAt: at, Method: method, Tool: tool,
		Outcome: outcome, Step: -1, Latency: 1500 * time.Microsecond, ClientAddr: "192.0.2.1"}
}

func appendAll(t *testing.T, st *store.Store, records ...store.JournalRecord) {
	t.Helper()
	skipped, err := st.AppendJournal(context.Background(), records)
	require.NoError(t, err)
	require.Zero(t, skipped)
}

// journalOf lists server's journal as org, every page of limit.
func journalOf(t *testing.T, st *store.Store, org, server uuid.UUID, f store.JournalFilter) []store.JournalRecord {
	t.Helper()
	var out []store.JournalRecord
	if f.Limit == 0 {
		f.Limit = 100
	}
	for {
		var page store.JournalPage
		require.NoError(t, st.WithTx(context.Background(), store.Scope{OrgID: org}, func(tx *store.Tx) (err error) {
			page, err = tx.Journal(context.Background(), server, f)
			return err
		}))
		require.LessOrEqual(t, len(page.Records), f.Limit)
		out = append(out, page.Records...)
		if page.Next == nil {
			return out
		}
		f.After = page.Next
	}
}

func ids(records []store.JournalRecord) []uuid.UUID {
	out := make([]uuid.UUID, len(records))
	for i, r := range records {
		out[i] = r.ID
	}
	return out
}

func TestJournalRoundTrip(t *testing.T) {
	t.Parallel()
	st, a, _ := seedTwo(t)
	server := newServer(t, st, a.OrgID)
	at := time.Now().UTC().Truncate(time.Microsecond)
	full := store.JournalRecord{
		ID: uuid.New(), OrgID: a.OrgID, ServerID: server, ReceivedAt: at, Method: "tools/call", Tool: "get_weather",
		Params:  json.RawMessage(`{"name":"get_weather","arguments":{"city":"London"}}`),
		Outcome: "result", Scenario: "fallback", Step: 2,
		Mismatches: []store.JournalMismatch{
			{Scenario: "paris", Field: "city", Operator: "equals", Reason: `city: equals "Paris" but was "London"`},
			{Scenario: "broken", Reason: "the condition is invalid and matches nothing"},
		},
		Response: `{"content":[]}`, ErrorCode: -32603, Latency: 1234 * time.Microsecond,
		ClientAddr: "192.0.2.7", SequenceKey: "client-1", Rounds: askedName(),
	}
	bare := call(a.OrgID, server, at.Add(-time.Second), "ping", "", "result")
	bare.ClientAddr = ""
	appendAll(t, st, full, bare)

	got := journalOf(t, st, a.OrgID, server, store.JournalFilter{})
	require.Len(t, got, 2)
	require.JSONEq(t, string(full.Params), string(got[0].Params))
	got[0].Params = full.Params
	require.JSONEq(t, jsonOf(t, full.Rounds), jsonOf(t, got[0].Rounds))
	got[0].Rounds = full.Rounds
	got[0].ReceivedAt = got[0].ReceivedAt.UTC()
	require.Equal(t, full, got[0])

	require.Nil(t, got[1].Params, "absent params stay absent")
	require.Nil(t, got[1].Rounds, "a call that asked nothing")
	require.Empty(t, got[1].Tool)
	require.Empty(t, got[1].Mismatches)
	require.Equal(t, -1, got[1].Step)
	require.Zero(t, got[1].ErrorCode)
}

// askedName is the rounds of a call that asked for a name in one request
// and got the answer, accepted, in the next: two rounds, the second the
// answers' branch 1.
func askedName() []store.JournalRound {
	q := json.RawMessage(`{"method":"elicitation/create","params":{"message":"Your name?"}}`)
	return []store.JournalRound{
		{Asked: map[string]json.RawMessage{"name": q}, Sent: true, Answers: map[string]json.RawMessage{}, Branch: -1},
		{Asked: map[string]json.RawMessage{"name": q}, Answers: map[string]json.RawMessage{
			"name": json.RawMessage(`{"action":"accept","content":{"name":"Ann"}}`)}, Branch: 1, TimedOut: true},
	}
}

func TestJournalStoresWhatTextCannotHold(t *testing.T) {
	t.Parallel()
	st, a, _ := seedTwo(t)
	server := newServer(t, st, a.OrgID)
	r := call(a.OrgID, server, time.Now(), "tools/call", "bad\x00tool", "no_match")
	r.Response = "nul \x00 and invalid \xff"
	r.Mismatches = []store.JournalMismatch{{Scenario: "s\x00", Field: "f\x00", Operator: "equals", Reason: "r\x00"}}
	r.Params = json.RawMessage("{\"arguments\":{\"q\":\"\xff\"}}")
	appendAll(t, st, r)
	got := journalOf(t, st, a.OrgID, server, store.JournalFilter{})
	require.Len(t, got, 1)
	require.Equal(t, "bad\uFFFDtool", got[0].Tool)
	require.Equal(t, "nul \uFFFD and invalid \uFFFD", got[0].Response)
	require.Equal(t, store.JournalMismatch{Scenario: "s\uFFFD", Field: "f\uFFFD", Operator: "equals", Reason: "r\uFFFD"},
		got[0].Mismatches[0])
	require.JSONEq(t, `{"arguments":{"q":"\uFFFD"}}`, string(got[0].Params))
}

func TestJournalSkipsRecordsOfDeletedServers(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	kept, gone := newServer(t, st, a.OrgID), newServer(t, st, a.OrgID)
	require.NoError(t, st.WithTx(context.Background(), store.Scope{OrgID: a.OrgID}, func(tx *store.Tx) error {
		return tx.DeleteServer(context.Background(), gone)
	}))
	now := time.Now()
	records := []store.JournalRecord{
		call(a.OrgID, kept, now, "ping", "", "result"),
		call(a.OrgID, gone, now, "ping", "", "result"),
		call(b.OrgID, kept, now, "ping", "", "result"), // the server is not B's
		call(a.OrgID, kept, now, "tools/list", "", "result"),
	}
	skipped, err := st.AppendJournal(context.Background(), records)
	require.NoError(t, err)
	require.Equal(t, 2, skipped)
	got := journalOf(t, st, a.OrgID, kept, store.JournalFilter{})
	require.ElementsMatch(t, []uuid.UUID{records[0].ID, records[3].ID}, ids(got))
}

func TestJournalFiltersAndPages(t *testing.T) {
	t.Parallel()
	st, a, _ := seedTwo(t)
	server, other := newServer(t, st, a.OrgID), newServer(t, st, a.OrgID)
	base := time.Now().Add(-time.Hour).Truncate(time.Microsecond)
	var all []store.JournalRecord
	for i := range 12 {
		method, tool, outcome := "tools/call", "get_weather", "result"
		switch i % 4 {
		case 1:
			tool = "get_wind"
		case 2:
			tool, outcome = "get_wind", "no_match"
		case 3:
			method, tool = "tools/list", ""
		}
		all = append(all, call(a.OrgID, server, base.Add(time.Duration(i)*time.Minute), method, tool, outcome))
	}
	// Two calls in the same microsecond: the id breaks the tie.
	twin := call(a.OrgID, server, all[11].ReceivedAt, "ping", "", "result")
	all = append(all, twin)
	appendAll(t, st, all...)
	appendAll(t, st, call(a.OrgID, other, base, "tools/call", "get_weather", "result"))

	newestFirst := func(keep func(store.JournalRecord) bool) []uuid.UUID {
		var out []store.JournalRecord
		for _, r := range all {
			if keep(r) {
				out = append(out, r)
			}
		}
		// Insertion order is time order, ids (v7) increasing: reverse it.
		res := make([]uuid.UUID, len(out))
		for i, r := range out {
			res[len(out)-1-i] = r.ID
		}
		return res
	}
	since := base.Add(6 * time.Minute)
	cases := []struct {
		name string
		f    store.JournalFilter
		keep func(store.JournalRecord) bool
	}{
		{"everything", store.JournalFilter{}, func(store.JournalRecord) bool { return true }},
		{"method", store.JournalFilter{Method: "tools/list"}, func(r store.JournalRecord) bool { return r.Method == "tools/list" }},
		{"tool", store.JournalFilter{Tool: "get_wind"}, func(r store.JournalRecord) bool { return r.Tool == "get_wind" }},
		{"outcome", store.JournalFilter{Outcome: "no_match"}, func(r store.JournalRecord) bool { return r.Outcome == "no_match" }},
		{"since", store.JournalFilter{Since: &since}, func(r store.JournalRecord) bool { return !r.ReceivedAt.Before(since) }},
		{"tool and outcome", store.JournalFilter{Tool: "get_wind", Outcome: "result"},
			func(r store.JournalRecord) bool { return r.Tool == "get_wind" && r.Outcome == "result" }},
		{"unknown tool", store.JournalFilter{Tool: "nope"}, func(store.JournalRecord) bool { return false }},
	}
	for _, tc := range cases {
		for _, limit := range []int{1, 2, 5, 100} {
			t.Run(fmt.Sprintf("%s/limit %d", tc.name, limit), func(t *testing.T) {
				f := tc.f
				f.Limit = limit
				want := newestFirst(tc.keep)
				require.Equal(t, want, ids(journalOf(t, st, a.OrgID, server, f)))
			})
		}
	}
}

func TestJournalRetention(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	busy, quiet, ofB := newServer(t, st, a.OrgID), newServer(t, st, a.OrgID), newServer(t, st, b.OrgID)
	now := time.Now()
	var busyCalls []store.JournalRecord
	for i := range 6 { // the newest first
		busyCalls = append(busyCalls, call(a.OrgID, busy, now.Add(-time.Duration(i)*time.Minute), "ping", "", "result"))
	}
	old := call(a.OrgID, quiet, now.Add(-3*time.Hour), "ping", "", "result")
	recent := call(a.OrgID, quiet, now.Add(-time.Minute), "ping", "", "result")
	oldB := call(b.OrgID, ofB, now.Add(-3*time.Hour), "ping", "", "result")
	appendAll(t, st, append(busyCalls, old, recent, oldB)...)

	t.Run("by age, for every organization", func(t *testing.T) {
		n, err := st.PruneJournalByAge(context.Background(), now.Add(-2*time.Hour), store.PruneLimits{})
		require.NoError(t, err)
		require.EqualValues(t, 2, n, "the old records of A and B")
		require.Equal(t, []uuid.UUID{recent.ID}, ids(journalOf(t, st, a.OrgID, quiet, store.JournalFilter{})))
		require.Empty(t, journalOf(t, st, b.OrgID, ofB, store.JournalFilter{}))
		require.Len(t, journalOf(t, st, a.OrgID, busy, store.JournalFilter{}), 6)
	})
	t.Run("by count per server", func(t *testing.T) {
		n, err := st.PruneJournalByCount(context.Background(), 4, nil, store.PruneLimits{})
		require.NoError(t, err)
		require.EqualValues(t, 2, n)
		require.Equal(t, ids(busyCalls[:4]), ids(journalOf(t, st, a.OrgID, busy, store.JournalFilter{})), "the newest 4")
		require.Equal(t, []uuid.UUID{recent.ID}, ids(journalOf(t, st, a.OrgID, quiet, store.JournalFilter{})))
	})
	t.Run("keep one", func(t *testing.T) {
		_, err := st.PruneJournalByCount(context.Background(), 1, nil, store.PruneLimits{})
		require.NoError(t, err)
		require.Equal(t, []uuid.UUID{busyCalls[0].ID}, ids(journalOf(t, st, a.OrgID, busy, store.JournalFilter{})))
	})
}

func TestJournalIsolation(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	server := newServer(t, st, a.OrgID)
	r := call(a.OrgID, server, time.Now(), "tools/call", "get_weather", "result")
	r.Params = json.RawMessage(`{"name":"get_weather","arguments":{"city":"Paris"}}`)
	r.Rounds = askedName()
	appendAll(t, st, r)

	asB := store.Scope{OrgID: b.OrgID, UserID: b.UserID}
	require.NoError(t, st.WithTx(ctx, asB, func(tx *store.Tx) error {
		page, err := tx.Journal(ctx, server, store.JournalFilter{Limit: 100})
		require.NoError(t, err)
		require.Empty(t, page.Records, "B lists A's journal")
		calls, err := tx.JournalToolCalls(ctx, server, "get_weather", true)
		require.NoError(t, err)
		require.Empty(t, calls, "B verifies against A's journal")
		n, err := tx.ClearJournal(ctx, server)
		require.NoError(t, err)
		require.Zero(t, n, "B clears A's journal")
		return nil
	}))
	require.Equal(t, []uuid.UUID{r.ID}, ids(journalOf(t, st, a.OrgID, server, store.JournalFilter{})))

	var calls []store.JournalCall
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: a.OrgID}, func(tx *store.Tx) (err error) {
		calls, err = tx.JournalToolCalls(ctx, server, "get_weather", true)
		return err
	}))
	require.Len(t, calls, 1)
	require.JSONEq(t, `{"city":"Paris"}`, string(calls[0].Arguments))
	require.JSONEq(t, jsonOf(t, r.Rounds), jsonOf(t, calls[0].Rounds))
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: a.OrgID}, func(tx *store.Tx) error {
		n, err := tx.ClearJournal(ctx, server)
		require.NoError(t, err)
		require.EqualValues(t, 1, n)
		return nil
	}))
	require.Empty(t, journalOf(t, st, a.OrgID, server, store.JournalFilter{}))
	require.Len(t, journalOf(t, st, b.OrgID, b.ServerID, store.JournalFilter{}), 1, "B's own journal is untouched")
}

func TestJournalToolCalls(t *testing.T) {
	t.Parallel()
	st, a, _ := seedTwo(t)
	server := newServer(t, st, a.OrgID)
	none := call(a.OrgID, server, time.Now(), "tools/call", "t", "result")
	noArgs := call(a.OrgID, server, time.Now(), "tools/call", "t", "result")
	noArgs.Params = json.RawMessage(`{"name":"t"}`)
	asked := call(a.OrgID, server, time.Now(), "tools/call", "t", "result")
	asked.Params = json.RawMessage(`{"name":"t","arguments":{"q":1}}`)
	asked.Rounds = askedName()
	otherMethod := call(a.OrgID, server, time.Now(), "tools/list", "t", "result")
	otherTool := call(a.OrgID, server, time.Now(), "tools/call", "u", "result")
	appendAll(t, st, none, noArgs, asked, otherMethod, otherTool)

	var without, with []store.JournalCall
	require.NoError(t, st.WithTx(context.Background(), store.Scope{OrgID: a.OrgID}, func(tx *store.Tx) (err error) {
		if without, err = tx.JournalToolCalls(context.Background(), server, "t", false); err != nil {
			return err
		}
		with, err = tx.JournalToolCalls(context.Background(), server, "t", true)
		return err
	}))
	// As JSON, so that jsonb's spacing and key order do not count.
	require.JSONEq(t, `[{"Arguments":null,"Rounds":null},{"Arguments":null,"Rounds":null},{"Arguments":{"q":1},"Rounds":null}]`,
		jsonOf(t, byArguments(without)), "arguments only")
	rounds := jsonOf(t, askedName())
	require.JSONEq(t, `[{"Arguments":null,"Rounds":null},{"Arguments":null,"Rounds":null},{"Arguments":{"q":1},"Rounds":`+rounds+`}]`,
		jsonOf(t, byArguments(with)), "with the rounds")
}

// byArguments sorts calls by their arguments' text.
func byArguments(calls []store.JournalCall) []store.JournalCall {
	slices.SortFunc(calls, func(a, b store.JournalCall) int { return strings.Compare(string(a.Arguments), string(b.Arguments)) })
	return calls
}

// jsonOf is v as JSON text.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return string(raw)
}
