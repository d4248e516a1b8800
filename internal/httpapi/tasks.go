package httpapi

import (
	"context"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/task"
)

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
	b := req.Body
	end, err := task.Check(task.Request{Status: string(b.Status), Result: b.Result, Error: b.Error})
	if err != nil {
		return nil, err
	}
	now := s.now()
	_, t, err := withParent(ctx, s, req.ServerId, (*store.Tx).Server,
		func(tx *store.Tx, _ design.Server) (store.Task, error) {
			return task.End(ctx, tx, req.ServerId, req.TaskId, end, now)
		})
	if err != nil {
		return nil, err
	}
	return api.EndTask200JSONResponse(apiTaskSummary(t, now)), nil
}

// A task is ended in the handler's transaction.
var _ task.Store = (*store.Tx)(nil)

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
