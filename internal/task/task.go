// Package task ends a server's MCP tasks by hand: it checks the status and
// the result or error an end request brings, and ends an open task once,
// refusing a task that has ended already or whose script has run its
// course.
package task

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/store"
)

// emptyToolResult is the result of a task completed by hand without one.
var emptyToolResult = json.RawMessage(`{"content":[]}`)

// Store is what ending a task reads and writes in one transaction of the
// caller's organization; *store.Tx is one.
type Store interface {
	Task(ctx context.Context, server uuid.UUID, id string, now time.Time) (store.Task, error)
	EndTask(ctx context.Context, server uuid.UUID, id, status string, at time.Time, payload json.RawMessage) (bool, error)
}

// Request is how a task is to end: completed (with a result, or none),
// failed (with a JSON-RPC error) or cancelled (with neither).
type Request struct {
	Status string
	Result *json.RawMessage
	Error  *mockspec.RPCError
}

// Ending is a checked Request: the status and the payload to store, the
// result of a completed task or the error of a failed one.
type Ending struct {
	Status  string
	Payload json.RawMessage
}

// Check checks r and returns the ending it asks for; every field at fault
// is named.
func Check(r Request) (Ending, error) {
	var f failure.Fields
	e := Ending{Status: r.Status}
	switch r.Status {
	case store.TaskCompleted:
		e.Payload = completed(&f, r)
	case store.TaskFailed:
		e.Payload = failed(&f, r)
	case store.TaskCancelled:
		if r.Result != nil {
			f.Add("result", "a cancelled task has no result")
		}
		if r.Error != nil {
			f.Add("error", "a cancelled task has no error")
		}
	default:
		f.Add("status", "must be completed, failed or cancelled, not %q", r.Status)
	}
	if err := f.Err(); err != nil {
		return Ending{}, err
	}
	return e, nil
}

// completed is the payload of a completed task: its result, an empty one
// when r has none.
func completed(f *failure.Fields, r Request) json.RawMessage {
	if r.Error != nil {
		f.Add("error", "only a failed task has an error; a completed one may have a result")
	}
	if r.Result == nil {
		return emptyToolResult
	}
	if raw := bytes.TrimSpace(*r.Result); len(raw) == 0 || raw[0] != '{' {
		f.Add("result", "must be an object (a CallToolResult such as {\"content\": [{\"type\": \"text\", \"text\": \"done\"}]})")
	}
	return *r.Result
}

// failed is the payload of a failed task: its error, checked as a
// scenario's error is.
func failed(f *failure.Fields, r Request) json.RawMessage {
	if r.Result != nil {
		f.Add("result", "only a completed task has a result; a failed one has an error")
	}
	if r.Error == nil {
		f.Add("error", "required when status is failed: a JSON-RPC error {code, message, data?}")
		return nil
	}
	if r.Error.Code == 0 {
		f.Add("error.code", "must be a non-zero integer: a JSON-RPC error code such as -32603 (internal error)")
	}
	if strings.TrimSpace(r.Error.Message) == "" {
		f.Add("error.message", "must not be blank")
	}
	raw, err := json.Marshal(r.Error)
	if err != nil {
		f.Add("error", "must be a JSON-RPC error {code, message, data?}")
	}
	return raw
}

// End ends the task id of server at now as e says and returns the task as
// it is then. A task ends once: one that has ended already, by hand or by
// its script, is a conflict.
func End(ctx context.Context, st Store, server uuid.UUID, id string, e Ending, now time.Time) (store.Task, error) {
	t, err := st.Task(ctx, server, id, now)
	if err != nil {
		return t, err
	}
	if status, _, err := mcpserve.TaskState(mcpserve.TaskRecord(t), now); err == nil && t.EndedStatus == "" && mcpserve.TaskOver(status) {
		return t, failure.Conflict("the task is over already (%s by its script); a task ends once", status)
	}
	ended, err := st.EndTask(ctx, server, id, e.Status, now, e.Payload)
	if err != nil {
		return store.Task{}, err
	}
	t, err = st.Task(ctx, server, id, now)
	if err == nil && !ended {
		err = failure.Conflict("the task already ended (%s at %s); a task ends once", t.EndedStatus,
			t.EndedAt.UTC().Format(time.RFC3339))
	}
	return t, err
}
