package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/store"
)

// emptyToolResult is the result of a task completed by hand without one.
var emptyToolResult = json.RawMessage(`{"content":[]}`)

// ListTasks lists a server's unexpired MCP tasks, newest first.
func (s *Server) ListTasks(ctx context.Context, req api.ListTasksRequestObject) (api.ListTasksResponseObject, error) {
	after, err := decodeTaskCursor(deref(req.Params.Cursor))
	if err != nil {
		return nil, err
	}
	now := s.now()
	_, page, err := withParent(ctx, s, req.ServerId, (*store.Tx).Server,
		func(tx *store.Tx, _ design.Server) (store.TaskPage, error) {
			return tx.Tasks(ctx, req.ServerId, after, or(req.Params.Limit, 100), now)
		})
	if err != nil {
		return nil, err
	}
	items := make([]api.TaskSummary, len(page.Tasks))
	for i, t := range page.Tasks {
		items[i] = apiTaskSummary(t, now)
	}
	out := api.ListTasks200JSONResponse{Items: items, NextCursor: nullable.NewNullNullable[string]()}
	if page.Next != nil {
		out.NextCursor = nullable.NewNullableWithValue(encodeTaskCursor(*page.Next))
	}
	return out, nil
}

// EndTask ends an open task by hand, now, with the body's status and its
// result or error.
func (s *Server) EndTask(ctx context.Context, req api.EndTaskRequestObject) (api.EndTaskResponseObject, error) {
	status, payload, err := endOfTask(req.Body)
	if err != nil {
		return nil, err
	}
	now := s.now()
	_, task, err := withParent(ctx, s, req.ServerId, (*store.Tx).Server,
		func(tx *store.Tx, _ design.Server) (store.Task, error) {
			task, err := tx.Task(ctx, req.ServerId, req.TaskId, now)
			if err != nil {
				return task, err
			}
			// A task whose script has run its course is over too.
			if st, _, err := mcpserve.TaskState(mcpserve.TaskRecord(task), now); err == nil && task.EndedStatus == "" && mcpserve.TaskOver(st) {
				return task, failure.Conflict("the task is over already (%s by its script); a task ends once", st)
			}
			ended, err := tx.EndTask(ctx, req.ServerId, req.TaskId, status, now, payload)
			if err != nil {
				return store.Task{}, err
			}
			task, err = tx.Task(ctx, req.ServerId, req.TaskId, now)
			if err == nil && !ended {
				err = failure.Conflict("the task already ended (%s at %s); a task ends once", task.EndedStatus,
					task.EndedAt.UTC().Format(time.RFC3339))
			}
			return task, err
		})
	if err != nil {
		return nil, err
	}
	return api.EndTask200JSONResponse(apiTaskSummary(task, now)), nil
}

// endOfTask checks an end request and returns the status and the payload
// to store: the result of a completed task, the error of a failed one.
func endOfTask(b *api.EndTaskRequest) (string, json.RawMessage, error) {
	var f failure.Fields
	status := string(b.Status)
	var payload json.RawMessage
	switch status {
	case store.TaskCompleted:
		if b.Error != nil {
			f.Add("error", "only a failed task has an error; a completed one may have a result")
		}
		payload = emptyToolResult
		if b.Result != nil {
			if raw := bytes.TrimSpace(*b.Result); len(raw) == 0 || raw[0] != '{' {
				f.Add("result", "must be an object (a CallToolResult such as {\"content\": [{\"type\": \"text\", \"text\": \"done\"}]})")
			}
			payload = *b.Result
		}
	case store.TaskFailed:
		if b.Result != nil {
			f.Add("result", "only a completed task has a result; a failed one has an error")
		}
		if b.Error == nil {
			f.Add("error", "required when status is failed: a JSON-RPC error {code, message, data?}")
			break
		}
		checkTaskError(&f, *b.Error)
		raw, err := json.Marshal(b.Error)
		if err != nil {
			f.Add("error", "must be a JSON-RPC error {code, message, data?}")
		}
		payload = raw
	case store.TaskCancelled:
		if b.Result != nil {
			f.Add("result", "a cancelled task has no result")
		}
		if b.Error != nil {
			f.Add("error", "a cancelled task has no error")
		}
	default:
		f.Add("status", "must be completed, failed or cancelled, not %q", status)
	}
	if err := f.Err(); err != nil {
		return "", nil, err
	}
	return status, payload, nil
}

// checkTaskError checks the error of a failed task as a scenario's error
// is checked.
func checkTaskError(f *failure.Fields, e mockspec.RPCError) {
	if e.Code == 0 {
		f.Add("error.code", "must be a non-zero integer: a JSON-RPC error code such as -32603 (internal error)")
	}
	if strings.TrimSpace(e.Message) == "" {
		f.Add("error.message", "must not be blank")
	}
}

// apiTaskSummary is t as the API lists it, with its status now.
func apiTaskSummary(t store.Task, now time.Time) api.TaskSummary {
	status, message, err := mcpserve.TaskState(mcpserve.TaskRecord(t), now)
	if err != nil { // kept by an earlier version in a form this one cannot read
		status, message = store.TaskFailed, "the task's script can no longer be read"
	}
	out := api.TaskSummary{Id: t.ID, Tool: t.Tool, Scenario: t.Scenario, Status: api.TaskSummaryStatus(status), StatusMessage: message,
		CreatedAt: t.CreatedAt.UTC(), ExpiresAt: nullable.NewNullNullable[time.Time](),
		EndedStatus: nullable.NewNullNullable[api.TaskSummaryEndedStatus](), EndedAt: nullable.NewNullNullable[time.Time]()}
	if t.ExpiresAt != nil {
		out.ExpiresAt = nullable.NewNullableWithValue(t.ExpiresAt.UTC())
	}
	if t.EndedStatus != "" {
		out.EndedStatus = nullable.NewNullableWithValue(api.TaskSummaryEndedStatus(t.EndedStatus))
	}
	if t.EndedAt != nil {
		out.EndedAt = nullable.NewNullableWithValue(t.EndedAt.UTC())
	}
	return out
}

// now is the service's clock.
func (s *Server) now() time.Time {
	if s.cfg.Clock != nil {
		return s.cfg.Clock()
	}
	return time.Now()
}

// Task cursors are opaque to clients, as every cursor.
func encodeTaskCursor(k store.TaskPageKey) string { return cursorText(k.CreatedAt, k.ID) }

func decodeTaskCursor(c string) (*store.TaskPageKey, error) {
	at, id, err := readCursor(c, isTaskID)
	if err != nil || id == "" {
		return nil, err
	}
	return &store.TaskPageKey{CreatedAt: at, ID: id}, nil
}

// isTaskID reports whether id has the form of a task id: 32 lowercase hex
// characters.
func isTaskID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for _, c := range id {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
