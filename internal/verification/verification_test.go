package verification

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/journal"
)

func ptr[T any](v T) *T { return &v }

func call(args string, rounds ...journal.Round) Call {
	return Call{Arguments: json.RawMessage(args), Rounds: rounds}
}

// recorded are the calls of get_weather the cases count.
var recorded = []Call{
	call(`{"city":"Paris","units":"metric"}`),
	call(`{"city":"Paris"}`),
	call(`{"city":"London","temp":12}`),
	call(`{}`),
	call(`[1]`), // not an object: only conditions anything meets match it
	call(`{"city":"Paris"}`, journal.Round{Asked: map[string]json.RawMessage{"q1": json.RawMessage(`{}`)}, Sent: true},
		journal.Round{Answers: map[string]json.RawMessage{"q1": json.RawMessage(`{"action":"accept"}`)}}),
	call(`{"city":"Rome"}`, journal.Round{Asked: map[string]json.RawMessage{"q1": json.RawMessage(`{}`)}, Sent: false},
		journal.Round{Answers: map[string]json.RawMessage{"q1": json.RawMessage(`{"action":"decline"}`)}}),
}

func TestCount(t *testing.T) {
	cases := []struct {
		name  string
		e     Expectation
		count int
	}{
		{"any arguments", Expectation{}, 7},
		{"a plain condition", Expectation{Arguments: json.RawMessage(`{"city":"Paris"}`)}, 3},
		{"two pairs", Expectation{Arguments: json.RawMessage(`{"city":"Paris","units":"metric"}`)}, 1},
		{"an operator", Expectation{Arguments: json.RawMessage(`{"field":"temp","operator":"gte","value":12}`)}, 1},
		{"an empty condition", Expectation{Arguments: json.RawMessage(`{}`)}, 7},
		{"no match", Expectation{Arguments: json.RawMessage(`{"city":"Madrid"}`)}, 0},
		{"asked, and sent", Expectation{Asked: ptr("q1")}, 1},
		{"asked nothing", Expectation{Asked: ptr("")}, 7},
		{"answers", Expectation{Answers: json.RawMessage(`{"q1":{"action":"decline"}}`)}, 1},
		{"asked and answered", Expectation{Asked: ptr("q1"), Answers: json.RawMessage(`{"q1":{"action":"decline"}}`)}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Compile(c.e)
			require.NoError(t, err)
			got, err := v.Count(recorded)
			require.NoError(t, err)
			require.Equal(t, c.count, got)
		})
	}
}

func TestWithRounds(t *testing.T) {
	for _, c := range []struct {
		e    Expectation
		want bool
	}{
		{Expectation{}, false},
		{Expectation{Arguments: json.RawMessage(`{}`)}, false},
		{Expectation{Asked: ptr("")}, false},
		{Expectation{Asked: ptr("q")}, true},
		{Expectation{Answers: json.RawMessage(`{}`)}, true},
	} {
		v, err := Compile(c.e)
		require.NoError(t, err)
		require.Equal(t, c.want, v.WithRounds(), "%+v", c.e)
	}
}

func TestCompileNamesTheMember(t *testing.T) {
	_, err := Compile(Expectation{Arguments: json.RawMessage(`{"field":"city","operator":"bogus","value":1}`),
		Answers: json.RawMessage(`{"a..b":1}`)})
	f, ok := failure.As(err)
	require.True(t, ok, "%v", err)
	var names []string
	for _, fe := range f.Fields {
		names = append(names, fe.Field)
	}
	require.Equal(t, []string{"arguments.operator", `answers["a..b"]`}, names)
}

func TestCountWithinOneBudget(t *testing.T) {
	note := `{"note":"` + strings.Repeat("ab", 10000) + `"}`
	calls := []Call{call(note), call(note), call(note)}
	v, err := Compile(Expectation{Arguments: json.RawMessage(`{"field":"note","operator":"matches","value":"^ab"}`)})
	require.NoError(t, err)
	n, err := v.Count(calls)
	require.NoError(t, err)
	require.Equal(t, 3, n)

	v, err = Compile(Expectation{Arguments: json.RawMessage(`{"field":"note","operator":"matches","value":"(?:a|b){999}(?:a|b){998}c"}`)})
	require.NoError(t, err)
	_, err = v.Count(calls)
	f, ok := failure.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, "arguments", f.Fields[0].Field)
	require.Contains(t, f.Fields[0].Message, "would take more than the 10000000 units")
	require.Contains(t, f.Fields[0].Message, `(at "note")`)
}

func TestVerdict(t *testing.T) {
	cases := []struct {
		name       string
		e          Expectation
		count      int
		complete   bool
		journaling bool
		want       Verdict
	}{
		{"at least one", Expectation{Tool: "get_weather"}, 4, true, true,
			Verdict{Count: 4, Expected: "at least 1", Verified: true, Complete: true,
				Message: `tool "get_weather" was called 4 times, as expected (at least 1)`}},
		{"exactly, with every check", Expectation{Tool: "t", Arguments: json.RawMessage(`{}`), Asked: ptr("q1"),
			Answers: json.RawMessage(`{}`), Times: ptr(1)}, 2, true, true,
			Verdict{Count: 2, Expected: "exactly 1", Complete: true,
				Message: `tool "t" was called twice with matching arguments, asking "q1", with matching answers; expected exactly 1`}},
		{"never, as expected", Expectation{Tool: "t", Times: ptr(0)}, 0, true, true,
			Verdict{Count: 0, Expected: "exactly 0", Verified: true, Complete: true,
				Message: `tool "t" was never called, as expected (exactly 0)`}},
		{"without a journal", Expectation{Tool: "t"}, 1, false, false,
			Verdict{Count: 1, Expected: "at least 1", Verified: true,
				Message: `tool "t" was called once, as expected (at least 1) (the call journal is disabled on this instance: ` +
					`JOURNAL_ENABLED=false) (incomplete: the journal dropped records of this server, over its share of the ` +
					`journal's rate or with its queue full, so calls may be missing)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Compile(c.e)
			require.NoError(t, err)
			require.Equal(t, c.want, v.Verdict(c.count, c.complete, c.journaling))
		})
	}
}
