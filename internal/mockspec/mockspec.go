// Package mockspec is the model of what a mock answers: a tool's scenarios
// (a plain JSON response, an explicit MCP result, a JSON-RPC error or a
// sequence of those, with delays and scripted notifications), a server's
// default fault, and the content blocks results and prompt messages carry.
// The types are stored as JSON with the design and are the wire types of
// the REST API; Check functions report every problem at once, each naming
// the field at fault.
package mockspec

import (
	"encoding/json"

	"github.com/mockmcp/mockmcp/internal/protocol"
)

// MaxDelayMS bounds every wait a scenario or fault scripts, and the whole
// wait of one call.
const MaxDelayMS = 30_000

// SequenceKeyHeader names the client's sequence counter on the MCP
// endpoint; without it the client address does.
const SequenceKeyHeader = "Mcp-Mock-Sequence-Key"

// Limits of one scenario.
const (
	MaxSteps         = 100
	MaxNotifications = 100
)

// Sequence modes: after the last step, repeat it or start over.
const (
	ThenRepeatLast = "repeat_last"
	ThenCycle      = "cycle"
)

// Notification types.
const (
	NotifyLog      = "log"
	NotifyProgress = "progress"
)

// The list changes a scenario may broadcast.
const (
	BroadcastToolsListChanged     = "tools_list_changed"
	BroadcastPromptsListChanged   = "prompts_list_changed"
	BroadcastResourcesListChanged = "resources_list_changed"
)

// BroadcastKinds lists the values of Scenario.Broadcast.
var BroadcastKinds = []string{BroadcastToolsListChanged, BroadcastPromptsListChanged, BroadcastResourcesListChanged}

// Scenario is one canned answer of a tool. Exactly one of Response, Result,
// Error, Sequence and Ask is set.
type Scenario struct {
	Name      string          `json:"name"`
	Condition json.RawMessage `json:"condition,omitempty"`
	// Response is a plain JSON object, served as one text item holding its
	// JSON (and as structuredContent where the tool lists an output schema).
	Response json.RawMessage `json:"response,omitempty"`
	// Result is an explicit MCP CallToolResult: content blocks, isError,
	// structuredContent, _meta.
	Result json.RawMessage `json:"result,omitempty"`
	// Error answers a JSON-RPC error instead of a result.
	Error *RPCError `json:"error,omitempty"`
	// Sequence answers differently call after call.
	Sequence *Sequence `json:"sequence,omitempty"`
	// Ask is a round of questions to the client, keyed by question id;
	// Then the branches tried in order on the answers, each answering or
	// asking again. Modern clients (protocol.Modern) get the questions as
	// an input_required result and retry with the answers.
	Ask  map[string]InputRequest `json:"ask,omitempty"`
	Then []Branch                `json:"then,omitempty"`
	// Task makes the call a task of the MCP tasks extension, whose
	// outcome the client polls for.
	Task *Task `json:"task,omitempty"`
	// DelayMS is waited before the result, after the notifications.
	DelayMS int `json:"delay_ms,omitempty"`
	// Notifications are sent on the SSE reply before the result.
	Notifications []Notification `json:"notifications,omitempty"`
	// Broadcast names the list changes a matching call announces to the
	// server's open subscriptions/listen streams (Broadcast* values).
	Broadcast []string `json:"broadcast,omitempty"`
	// Fault is the scenario's own fault: a call that matched the
	// scenario gets it instead of its tool's or its server's.
	Fault *Fault `json:"fault,omitempty"`
	// WhenState is a condition, in the syntax of Condition, over the
	// design's live state: the scenario matches only when both hold.
	WhenState json.RawMessage `json:"when_state,omitempty"`
	// SetState changes the live state when the scenario answers: each key
	// is set to its value, or deleted when the value is null.
	SetState json.RawMessage `json:"set_state,omitempty"`
}

// UsesState reports whether the scenario reads or changes the design's
// live state.
func (sc Scenario) UsesState() bool {
	return !emptyObject(sc.WhenState) || !emptyObject(sc.SetState)
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Sequence is a list of answers given in turn, counted per server, scenario
// and client key.
type Sequence struct {
	Steps []Step `json:"steps"`
	// Then is what follows the last step: ThenRepeatLast (default) or
	// ThenCycle.
	Then string `json:"then,omitempty"`
}

// Step is one answer of a sequence: exactly one of Response, Result and
// Error, with an optional delay of its own.
type Step struct {
	Response json.RawMessage `json:"response,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    *RPCError       `json:"error,omitempty"`
	// DelayMS, when set, replaces the scenario's delay for this step.
	DelayMS *int `json:"delay_ms,omitempty"`
}

// Notification is one scripted notification: a log message
// (notifications/message) or a progress report (notifications/progress,
// sent only when the request names a progress token).
type Notification struct {
	Type string `json:"type"`
	// Log fields.
	Level  string          `json:"level,omitempty"`
	Logger string          `json:"logger,omitempty"`
	Data   json.RawMessage `json:"data,omitempty"`
	// Progress fields.
	Progress *float64 `json:"progress,omitempty"`
	Total    *float64 `json:"total,omitempty"`
	Message  string   `json:"message,omitempty"`
	// DelayMS is waited before the notification is sent.
	DelayMS int `json:"delay_ms,omitempty"`
}

// Fault is a fault for chaos testing: a share of tools/call requests
// answers an error, after an optional delay. A server, a tool and a
// scenario may each have one; a call gets the most specific: its matched
// scenario's, else its tool's, else its server's.
type Fault struct {
	// Rate is the share of calls faulted, 0 to 1.
	Rate float64 `json:"rate"`
	// Error is answered by faulted calls; DefaultFaultError when nil and
	// DelayMS is zero. With only a delay, faulted calls are slow, not
	// failed.
	Error   *RPCError `json:"error,omitempty"`
	DelayMS int       `json:"delay_ms,omitempty"`
}

// DefaultFaultError is the error of a fault that names none.
var DefaultFaultError = RPCError{Code: -32603, Message: "Internal error (injected fault)"}

// LogLevels are the syslog levels of notifications/message, most verbose
// first.
var LogLevels = protocol.LogLevels
