// Package agentjournal records every message sent to a published card's
// mock A2A agent in the background, as package journal records the calls
// to an MCP endpoint: the endpoint hands each message to a Writer without
// waiting; one loop inserts the records in batches; under overload records
// are dropped and counted, and a message is never answered later for it.
//
// Why the replies tried before the chosen one did not match is explained by
// the endpoint, once, and travels in the entry, so the writer never runs a
// card's conditions.
package agentjournal

import (
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/journal"
)

// Outcomes of a message.
const (
	OutcomeResult   = "result"   // answered with a reply (scripted or the default one)
	OutcomeError    = "error"    // answered with a JSON-RPC error
	OutcomeFault    = "fault"    // a reply's fault (delay, drop, error)
	OutcomeRejected = "rejected" // refused before dispatch: 401
)

// DefaultReply names the default reply in a record: no scripted reply
// matched and the agent answered naming the skill.
const DefaultReply = "default"

// Bindings of the agent endpoint.
const (
	BindingJSONRPC = "JSONRPC"
	BindingHTTP    = "HTTP+JSON"
)

// MaxMessage bounds the message kept in a record, as JSON, in bytes. A
// longer one keeps its text cut to MaxText characters, its contextId, and
// says how many bytes were left out.
const MaxMessage = 16 << 10

// MaxText is the most characters of a message's text a record keeps when
// the whole message is over MaxMessage.
const MaxText = 4096

// Mismatch says why one scripted reply did not match a message.
type Mismatch = journal.Mismatch

// MaxExplanation bounds the text of an entry's Mismatches, in bytes, as it
// does for MCP calls.
const MaxExplanation = journal.MaxExplanation

// Message is what a record keeps of a message received: what the replies'
// conditions read.
type Message struct {
	Text      string         `json:"text"`
	Data      any            `json:"data,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
	ContextID string         `json:"contextId,omitempty"`
	// LeftOut counts the bytes of data and metadata left out of a message
	// over MaxMessage; its text is then cut to MaxText characters.
	LeftOut int `json:"left_out,omitempty"`
}

// Entry is one message as the endpoint saw it.
type Entry struct {
	OrgID      uuid.UUID
	CardID     uuid.UUID
	ReceivedAt time.Time
	Latency    time.Duration
	ClientAddr string
	Method     string
	Binding    string // BindingJSONRPC or BindingHTTP
	Version    string // the A2A version the request spoke
	// Message is nil when the request carried none that could be read.
	Message *Message
	Outcome string
	Reply   string // the scripted reply's name or DefaultReply; "" for an error
	Skill   string // the skill the message matched; "" when the card has none
	// Mismatches say why each reply before the chosen one did not match.
	Mismatches []Mismatch
	// Answer is the JSON-RPC result or error object as served.
	Answer    []byte
	ErrorCode int
}

// Record is one message as the journal keeps it.
type Record struct {
	ID         uuid.UUID
	OrgID      uuid.UUID
	CardID     uuid.UUID
	ReceivedAt time.Time
	Method     string
	Binding    string
	Version    string
	Message    json.RawMessage // nil when none was read
	Outcome    string
	Reply      string
	Skill      string
	Mismatches []Mismatch
	Response   string // a summary of the answer, at most journal.MaxResponse characters
	ErrorCode  int
	Latency    time.Duration
	ClientAddr string
}

// recordOf derives the stored record from an entry.
func recordOf(e Entry) Record {
	id, err := uuid.NewV7()
	if err != nil {
		id = uuid.New()
	}
	r := Record{ID: id, OrgID: e.OrgID, CardID: e.CardID, ReceivedAt: e.ReceivedAt, Method: e.Method,
		Binding: e.Binding, Version: e.Version, Outcome: e.Outcome, Reply: e.Reply, Skill: e.Skill,
		Mismatches: e.Mismatches, Response: journal.Summary(e.Answer), ErrorCode: e.ErrorCode,
		Latency: e.Latency, ClientAddr: e.ClientAddr}
	if r.ReceivedAt.IsZero() {
		r.ReceivedAt = time.Now()
	}
	if e.Message != nil {
		r.Message = bounded(*e.Message)
	}
	return r
}

// bounded is m as JSON within MaxMessage bytes: whole when it fits, else
// its text cut and its data and metadata left out, counted.
func bounded(m Message) json.RawMessage {
	raw, err := json.Marshal(m)
	if err == nil && len(raw) <= MaxMessage {
		return raw
	}
	cut := Message{Text: cutText(m.Text, MaxText), ContextID: cutText(m.ContextID, 200), LeftOut: len(raw)}
	raw, _ = json.Marshal(cut)
	return raw
}

// cutText is s cut to n characters, the last then "…".
func cutText(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for j := range s {
		if k == n-1 {
			i = j
			break
		}
		k++
	}
	return s[:i] + "…"
}
