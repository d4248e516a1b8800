package journal

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Record is one call to a per-server MCP endpoint, as the call journal
// keeps it: what a Sink stores and the store lists.
type Record struct {
	ID         uuid.UUID
	OrgID      uuid.UUID
	ServerID   uuid.UUID
	ReceivedAt time.Time
	Method     string
	Tool       string          // "" unless a tools/call named one
	Params     json.RawMessage // nil when the request had none
	Outcome    string
	Scenario   string // the matched scenario; "" when none
	Step       int    // the sequence step answered; -1 when none
	Mismatches []Mismatch
	Response   string // a summary of the answer, at most 500 characters
	ErrorCode  int    // 0 when the answer was no JSON-RPC error
	Latency    time.Duration
	ClientAddr string
	// SequenceKey names the sequence counter the call used; "" when none.
	SequenceKey string
	// Rounds are the rounds of questions the call played, as the writer
	// bounds them (see MaxRounds); nil when it asked none.
	Rounds []Round
	// Upstream is what the design's upstream did with a proxied call; nil
	// for every other call.
	Upstream *UpstreamRecord
	// StateChange is what the call did to the design's live state, as
	// JSON {"set", "deleted", "version"} within MaxStateChange bytes; nil
	// when it changed none.
	StateChange json.RawMessage
}

// UpstreamRecord is the upstream's part of a proxied call.
type UpstreamRecord struct {
	Latency time.Duration
	// Answer is the upstream's result or JSON-RPC error object as JSON
	// text, cut to MaxUpstreamAnswer bytes (Truncated then; the text is no
	// longer JSON).
	Answer    string
	Truncated bool
}

// Mismatch says why one scenario did not match a call.
type Mismatch struct {
	Scenario string `json:"scenario"`
	Field    string `json:"field,omitempty"`
	Operator string `json:"operator,omitempty"`
	Reason   string `json:"reason"`
}
