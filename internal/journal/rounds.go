package journal

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mockmcp/mockmcp/internal/pgtext"
)

// Bounds of the rounds a record keeps. A question (the request sent to the
// client) or an answer longer than MaxRoundValue bytes of JSON (as
// json.Marshal writes it: compact, <, > and & escaped), or one the
// database cannot store (a \u0000 escape, an unpaired surrogate, bytes
// that are not UTF-8, not JSON at all), is kept as a marker: a JSON string
// such as "(left out: 5321 bytes)". The rounds together are kept within
// MaxRounds bytes of JSON: answers first (they are what a verification
// reads), round by round, then questions; those past the bound become
// markers too. Question ids, sent, branch and timed_out are always kept, so
// a verification of what was asked still counts the call. Only an entry with
// more rounds or questions than a design may hold (mockspec.MaxAskDepth,
// mockspec.MaxInputRequests) can find even those over the bound: its last
// rounds are then left out.
const (
	MaxRoundValue = 2048
	MaxRounds     = 16 << 10
)

// markerCost is the most bytes a marker takes as JSON (a value of a
// gigabyte or more cannot reach the writer).
const markerCost = len(`"(left out: 1000000000 bytes)"`)

// roundCost bounds the JSON of a round without its questions and answers,
// the comma after it included.
const roundCost = len(`{"asked":null,"sent":false,"answers":null,"branch":-9223372036854775808,"timed_out":true},`)

// boundRounds returns rounds as a record keeps them (see MaxRounds): new
// maps whose values are encoded copies or markers, and question ids the
// database can store. It is deterministic, so that a retried insert writes
// what the first attempt would have.
func boundRounds(rounds []Round) []Round {
	if len(rounds) == 0 {
		return nil
	}
	out := make([]Round, 0, len(rounds))
	// size bounds the JSON kept so far, every value counted as a marker.
	size := len("[]")
	for _, r := range rounds {
		cost := roundCost + idsCost(r.Asked) + idsCost(r.Answers)
		if size+cost > MaxRounds {
			break
		}
		size += cost
		out = append(out, Round{Asked: sameSize(r.Asked), Sent: r.Sent, Answers: sameSize(r.Answers),
			Branch: r.Branch, TimedOut: r.TimedOut})
	}
	// Keep the values, instead of markers, while they fit: answers, then
	// questions.
	fill := func(kept, from map[string]json.RawMessage) {
		for _, id := range slices.Sorted(maps.Keys(from)) {
			v, ok := encoded(from[id])
			switch {
			case !ok:
				kept[storableID(id)] = marker("not storable")
			case len(v) > MaxRoundValue || size+len(v)-markerCost > MaxRounds:
				kept[storableID(id)] = marker(strconv.Itoa(len(v)) + " bytes")
			default:
				kept[storableID(id)] = v
				size += len(v) - markerCost
			}
		}
	}
	for i := range out {
		fill(out[i].Answers, rounds[i].Answers)
	}
	for i := range out {
		fill(out[i].Asked, rounds[i].Asked)
	}
	return out
}

// idsCost bounds the JSON of m's members with markers for values: the
// quoted id, a colon, the marker and a comma each.
func idsCost(m map[string]json.RawMessage) int {
	n := 0
	for id := range m {
		quoted, _ := json.Marshal(storableID(id)) // a string always marshals
		n += len(quoted) + 2 + markerCost
	}
	return n
}

// sameSize is an empty map with room for m's members; nil for nil.
func sameSize(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	return make(map[string]json.RawMessage, len(m))
}

// encoded returns v as json.Marshal writes it (compact, <, > and &
// escaped), in a new slice, and false when v is not JSON or holds what the
// database cannot store; an empty v is null.
func encoded(v json.RawMessage) (json.RawMessage, bool) {
	if len(v) == 0 {
		return json.RawMessage("null"), true
	}
	out, err := json.Marshal(v)
	if err != nil || pgtext.JSONBProblem(out) != "" {
		return nil, false
	}
	return out, true
}

// marker is the JSON string "(left out: why)".
func marker(why string) json.RawMessage {
	return json.RawMessage(`"(left out: ` + why + `)"`)
}

// storableID replaces in a question id what a jsonb key cannot hold:
// invalid UTF-8 and NUL become U+FFFD.
func storableID(id string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(id, "\uFFFD"), "\x00", "\uFFFD")
}
