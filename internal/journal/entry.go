// Package journal records every call to a per-server MCP endpoint in the
// background: the endpoint hands each call to a Writer without waiting; one
// loop explains scenario mismatches, summarizes answers and inserts the
// records in batches. Under overload records are dropped and counted; a
// request never waits for the journal.
package journal

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/scenario"
)

// Outcomes of a call.
const (
	OutcomeResult   = "result"   // answered with a result
	OutcomeError    = "error"    // answered with a JSON-RPC error (scripted, or bad params)
	OutcomeNoMatch  = "no_match" // a tools/call no scenario matched
	OutcomeFault    = "fault"    // the server's default fault
	OutcomeRejected = "rejected" // refused before dispatch: 401, 403, 429
)

// Entry is one call as the endpoint saw it. The endpoint fills it on the
// request's goroutine with what it already has; the expensive parts (the
// mismatch explanations, the answer's summary) are derived by the writer.
type Entry struct {
	OrgID       uuid.UUID
	ServerID    uuid.UUID
	ReceivedAt  time.Time
	Latency     time.Duration
	ClientAddr  string
	SequenceKey string // empty when the call used no sequence
	Method      string
	// Params is the request's params, a copy owned by the entry; nil when
	// absent.
	Params json.RawMessage
	Tool   string // tools/call only
	// Outcome is one of the Outcome constants.
	Outcome  string
	Scenario string // the matched scenario's name; empty when none
	Step     int    // the sequence step answered, -1 when none
	// Answer is the JSON-RPC result or error object as served. It may be
	// shared with the compiled design: never modified.
	Answer    []byte
	ErrorCode int // the JSON-RPC error code, 0 when none
	// Explain, for a tools/call, says why scenarios did not match.
	Explain *Explain
}

// Explain is what the writer needs to say why each scenario before the
// matched one (all of them when none matched) did not match.
type Explain struct {
	Matcher *scenario.Matcher
	Names   []string       // scenario names, in order
	Args    map[string]any // the call's decoded arguments; never modified
	Matched int            // the matched scenario's index, -1 when none
}
