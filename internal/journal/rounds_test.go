package journal_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/batch/batchtest"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/store"
)

// recorded hands e to a writer over a memory sink and returns the record
// it stores.
func recorded(t *testing.T, e journal.Entry) store.JournalRecord {
	t.Helper()
	sink := newMemorySink()
	w := journal.New(sink, quiet(), journal.Options{})
	require.True(t, w.Record(e))
	require.NoError(t, batchtest.CloseWithin(w, 5*time.Second))
	got := sink.records()
	require.Len(t, got, 1)
	return got[0]
}

// asking is a tools/call entry with rounds.
func asking(rounds ...journal.Round) journal.Entry {
	e := entry("tools/call")
	e.Tool, e.Rounds = "book", rounds
	return e
}

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// sized is a JSON string value of n bytes.
func sized(n int) json.RawMessage { return raw(`"` + strings.Repeat("x", n-2) + `"`) }

func TestRoundsAsRecorded(t *testing.T) {
	t.Parallel()
	elicit := `{"method": "elicitation/create", "params": {"message": "Your name?"}}`
	cases := []struct {
		name   string
		rounds []journal.Round
		want   string // the record's rounds as JSON
	}{
		{
			name: "kept, compacted",
			rounds: []journal.Round{
				{Asked: map[string]json.RawMessage{"name": raw(elicit)}, Sent: true, Branch: -1},
				{Asked: map[string]json.RawMessage{"name": raw(elicit)},
					Answers: map[string]json.RawMessage{"name": raw(`{ "action": "decline" }`)}, Branch: 2, TimedOut: true},
			},
			want: `[{"asked":{"name":{"method":"elicitation/create","params":{"message":"Your name?"}}},"sent":true,"answers":null,"branch":-1},
				{"asked":{"name":{"method":"elicitation/create","params":{"message":"Your name?"}}},"sent":false,
				 "answers":{"name":{"action":"decline"}},"branch":2,"timed_out":true}]`,
		},
		{
			name: "a value over MaxRoundValue becomes a marker",
			rounds: []journal.Round{{Asked: map[string]json.RawMessage{"q": sized(journal.MaxRoundValue + 1)},
				Answers: map[string]json.RawMessage{"q": sized(journal.MaxRoundValue), "r": raw("")}, Branch: 0}},
			want: fmt.Sprintf(`[{"asked":{"q":"(left out: %d bytes)"},"sent":false,"answers":{"q":%s,"r":null},"branch":0}]`,
				journal.MaxRoundValue+1, sized(journal.MaxRoundValue)),
		},
		{
			name: "what the database cannot store becomes a marker",
			rounds: []journal.Round{{
				Asked: map[string]json.RawMessage{"nul\x00id": raw(`{}`), "bad\xffid": raw(`{}`)},
				Answers: map[string]json.RawMessage{"a": raw(`{"text":"\u0000"}`), "b": raw(`"\ud800"`), "c": raw(`{"x":`),
					"d": raw("\"\xff\""), "e": raw(`"\ud83d\ude00"`)},
				Branch: -1,
			}},
			want: `[{"asked":{"nul\ufffdid":{},"bad\ufffdid":{}},"sent":false,"answers":{"a":"(left out: not storable)",
				"b":"(left out: not storable)","c":"(left out: not storable)","d":"(left out: not storable)","e":"😀"},"branch":-1}]`,
		},
		{name: "none", want: `null`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := recorded(t, asking(tc.rounds...))
			got, err := json.Marshal(r.Rounds)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(got))
		})
	}
}

// TestRoundsWithinMaxRounds: whatever the rounds, what a record keeps is at
// most MaxRounds bytes of JSON; answers are kept before questions, and
// every question id of the rounds a design may hold.
func TestRoundsWithinMaxRounds(t *testing.T) {
	t.Parallel()
	t.Run("a design's most", func(t *testing.T) {
		t.Parallel()
		// 5 rounds of 10 questions, ids of 64 characters, every question
		// and answer just within MaxRoundValue: 200 KiB given.
		var rounds []journal.Round
		for i := range 5 {
			r := journal.Round{Asked: map[string]json.RawMessage{}, Answers: map[string]json.RawMessage{}, Sent: true, Branch: 0}
			for q := range 10 {
				id := fmt.Sprintf("r%dq%d", i, q) + strings.Repeat("_", 60)
				r.Asked[id], r.Answers[id] = sized(journal.MaxRoundValue), sized(journal.MaxRoundValue)
			}
			rounds = append(rounds, r)
		}
		r := recorded(t, asking(rounds...))
		got, err := json.Marshal(r.Rounds)
		require.NoError(t, err)
		require.LessOrEqual(t, len(got), journal.MaxRounds)
		require.Len(t, r.Rounds, 5)
		keptAnswers, keptAsked := 0, 0
		for i, kept := range r.Rounds {
			require.Len(t, kept.Asked, 10, "every question id")
			require.Len(t, kept.Answers, 10, "every answered id")
			for id, v := range kept.Answers {
				require.Contains(t, rounds[i].Answers, id)
				if string(v) == string(rounds[i].Answers[id]) {
					keptAnswers++
				} else {
					require.Equal(t, fmt.Sprintf(`"(left out: %d bytes)"`, journal.MaxRoundValue), string(v))
				}
			}
			for id, v := range kept.Asked {
				if string(v) == string(rounds[i].Asked[id]) {
					keptAsked++
				}
			}
		}
		require.Positive(t, keptAnswers)
		require.Zero(t, keptAsked, "answers first")
		require.Equal(t, string(sized(journal.MaxRoundValue)), string(r.Rounds[0].Answers["r0q0"+strings.Repeat("_", 60)]),
			"the first round's first answer is kept")
	})
	t.Run("more than a design may hold", func(t *testing.T) {
		t.Parallel()
		var rounds []journal.Round
		for i := range 100 {
			r := journal.Round{Asked: map[string]json.RawMessage{}, Sent: true, Branch: -1}
			for q := range 10 {
				r.Asked[fmt.Sprintf("r%dq%d", i, q)+strings.Repeat("\x01", 60)] = raw(`{}`)
			}
			rounds = append(rounds, r)
		}
		r := recorded(t, asking(rounds...))
		got, err := json.Marshal(r.Rounds)
		require.NoError(t, err)
		require.LessOrEqual(t, len(got), journal.MaxRounds)
		require.NotEmpty(t, r.Rounds)
		require.Less(t, len(r.Rounds), 100, "the last rounds are left out")
		for i, kept := range r.Rounds {
			require.Len(t, kept.Asked, 10)
			for id := range rounds[i].Asked {
				require.Contains(t, kept.Asked, id, "the rounds kept are the first ones")
			}
		}
	})
	t.Run("random", func(t *testing.T) {
		t.Parallel()
		rnd := rand.New(rand.NewPCG(1, 2))
		value := func() json.RawMessage {
			switch rnd.IntN(4) {
			case 0:
				return sized(2 + rnd.IntN(3*journal.MaxRoundValue))
			case 1:
				return raw(`{"action":"accept","content":{"name":"` + strings.Repeat("<", rnd.IntN(400)) + `"}}`)
			case 2:
				return raw(`[1, 2,   3]`)
			}
			return raw(`"\u0000"`)
		}
		for range 200 {
			var rounds []journal.Round
			for range rnd.IntN(12) {
				r := journal.Round{Asked: map[string]json.RawMessage{}, Answers: map[string]json.RawMessage{},
					Branch: rnd.IntN(3) - 1, Sent: rnd.IntN(2) == 0}
				for range rnd.IntN(15) {
					id := strings.Repeat("q", 1+rnd.IntN(80)) + fmt.Sprint(rnd.Int())
					r.Asked[id] = value()
					if rnd.IntN(2) == 0 {
						r.Answers[id] = value()
					}
				}
				rounds = append(rounds, r)
			}
			r := recorded(t, asking(rounds...))
			got, err := json.Marshal(r.Rounds)
			require.NoError(t, err)
			require.LessOrEqual(t, len(got), journal.MaxRounds)
		}
	})
}

// A retried insert keeps the rounds the first attempt had.
func TestRetryKeepsTheRounds(t *testing.T) {
	t.Parallel()
	sink, w := failingFirst(t, 2, 1)
	var rounds []journal.Round
	for i := range 3 {
		r := journal.Round{Asked: map[string]json.RawMessage{}, Answers: map[string]json.RawMessage{}, Branch: -1}
		for q := range 10 {
			id := fmt.Sprintf("q%d_%d", i, q)
			r.Asked[id], r.Answers[id] = sized(1000+q), sized(1500+q)
		}
		rounds = append(rounds, r)
	}
	require.True(t, w.Record(asking(rounds...)))
	require.Eventually(t, func() bool { return w.Stats().Written == 1 }, 5*time.Second, time.Millisecond)
	sink.mu.Lock()
	attempts := sink.attempts
	sink.mu.Unlock()
	require.Len(t, attempts, 3)
	first, err := json.Marshal(attempts[0][0].Rounds)
	require.NoError(t, err)
	require.Contains(t, string(first), "left out", "the bound applies")
	for _, a := range attempts[1:] {
		again, err := json.Marshal(a[0].Rounds)
		require.NoError(t, err)
		require.Equal(t, string(first), string(again))
	}
}

// TestRoundsReachTheDatabase: rounds holding what jsonb refuses, and more
// than MaxRounds, are written (not skipped) and listed back.
func TestRoundsReachTheDatabase(t *testing.T) {
	t.Parallel()
	st, w, org, server := storeWriter(t)
	ctx := context.Background()
	big := journal.Round{Asked: map[string]json.RawMessage{}, Answers: map[string]json.RawMessage{}, Sent: true, Branch: 0}
	for q := range 10 {
		id := fmt.Sprintf("q%d", q)
		big.Asked[id], big.Answers[id] = sized(2000), sized(2000)
	}
	e := asking(
		journal.Round{Asked: map[string]json.RawMessage{"nul\x00": raw(`{"method":"roots/list"}`)},
			Answers: map[string]json.RawMessage{"nul\x00": raw(`{"roots":[{"uri":"file:///\u0000"}]}`)}, Sent: true, Branch: -1},
		big)
	e.OrgID, e.ServerID = org, server
	require.True(t, w.Record(e))
	require.NoError(t, w.Flush(ctx))
	require.Equal(t, journal.Stats{Queued: 1, Written: 1}, w.Stats())

	var page store.JournalPage
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) (err error) {
		page, err = tx.Journal(ctx, server, store.JournalFilter{Limit: 1})
		return err
	}))
	require.Len(t, page.Records, 1)
	rounds := page.Records[0].Rounds
	require.Len(t, rounds, 2)
	require.JSONEq(t, `{"method":"roots/list"}`, string(rounds[0].Asked["nul\uFFFD"]))
	require.Equal(t, `"(left out: not storable)"`, string(rounds[0].Answers["nul\uFFFD"]))
	require.Len(t, rounds[1].Asked, 10)
	require.Len(t, rounds[1].Answers, 10)
	require.Equal(t, string(sized(2000)), string(rounds[1].Answers["q0"]))
	require.Equal(t, `"(left out: 2000 bytes)"`, string(rounds[1].Asked["q9"]))
	var stored int
	require.NoError(t, st.Pool().QueryRow(ctx, `SELECT octet_length(rounds::text) FROM mcp_journal WHERE server_id = $1`,
		server).Scan(&stored))
	require.LessOrEqual(t, stored, journal.MaxRounds+1024, "jsonb's text adds a space after each separator")
}
