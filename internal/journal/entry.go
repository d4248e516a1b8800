// Package journal records every call to a per-server MCP endpoint in the
// background: the endpoint hands each call to a Writer without waiting; one
// loop summarizes answers and inserts the records in batches. Under
// overload records are dropped and counted; a request never waits for the
// journal.
//
// Why scenarios did not match is explained by the endpoint, once, for the
// entries the journal admits, and travels in the entry: the writer never
// runs a design's conditions or patterns, so a slow pattern cannot stall
// every organization's records, and a retried insert writes the same
// explanation.
package journal

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Outcomes of a call.
const (
	OutcomeResult   = "result"   // answered with a result
	OutcomeError    = "error"    // answered with a JSON-RPC error (scripted, or bad params)
	OutcomeNoMatch  = "no_match" // a tools/call no scenario matched
	OutcomeFault    = "fault"    // the fault of the scenario, its tool or the server
	OutcomeRejected = "rejected" // refused before dispatch: 401, 403, 429
	OutcomeProxied  = "proxied"  // answered by the design's upstream
)

// MaxUpstreamAnswer bounds the upstream's answer kept in an entry; a
// longer one is cut (and marked so) in the record.
const MaxUpstreamAnswer = 256 << 10

// Upstream is what the design's upstream did with a forwarded call.
type Upstream struct {
	Latency time.Duration
	// Answer is the upstream's result, or its JSON-RPC error object, as
	// relayed.
	Answer []byte
}

// Entry is one call as the endpoint saw it. The endpoint fills it on the
// request's goroutine; the writer derives the answer's summary.
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
	// Mismatches, for a tools/call, say why each scenario before the
	// matched one (every one when none matched) did not match, in at most
	// MaxExplanation bytes.
	Mismatches []Mismatch
	// Rounds are the rounds of questions a scenario, prompt or resource
	// that asks the client played in this request, in order; nil for
	// every other call.
	Rounds []Round
	// Upstream is set for a call the design's upstream answered.
	Upstream *Upstream
	// StateChange is what the call's scenario did to the design's live
	// state (set_state); nil when it changed none.
	StateChange *StateChange
}

// Round is one round of questions to the client as one request saw it.
type Round struct {
	// Asked holds the round's questions by id, each the
	// {"method", "params"} of the request the client is (or was) sent.
	Asked map[string]json.RawMessage `json:"asked"`
	// Sent: the questions went to the client in this request (an
	// input_required result, or requests on the SSE reply); false for a
	// round whose answers a later request brought.
	Sent bool `json:"sent"`
	// Answers are the client's answers by question id, those that came.
	Answers map[string]json.RawMessage `json:"answers"`
	// Branch is the index of the branch the answers took, -1 when none
	// did (the round ended asking, timed out without a timeout branch, or
	// no branch matched).
	Branch int `json:"branch"`
	// TimedOut: the client did not answer every question in time.
	TimedOut bool `json:"timed_out,omitempty"`
}

// MaxExplanation bounds the text of an entry's Mismatches (names, fields,
// operators and reasons together), in bytes; the endpoint ends a longer
// explanation with a Mismatch that counts the scenarios left out.
const MaxExplanation = 4096
