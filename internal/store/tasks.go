package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/failure"
)

// Tasks is the part of the Store that keeps MCP tasks for the per-server
// endpoint, each call in a transaction of its own.
type Tasks struct{ *conn }

// TasksTx is the part of a transaction that reads and ends MCP tasks.
type TasksTx struct{ *txConn }

// The statuses a task ends with.
const (
	TaskCompleted = "completed"
	TaskFailed    = "failed"
	TaskCancelled = "cancelled"
)

// Task is one MCP task: a tools/call whose scenario runs as a task, kept
// here so that any instance can answer its polls, updates and cancels. The
// store does not read Script, Arguments, Answers or EndedPayload; their
// writers bound their sizes.
type Task struct {
	ID              string // 32 lowercase hex characters, drawn at random by the creator
	OrgID, ServerID uuid.UUID
	Tool, Scenario  string // the tool called and the name of its scenario
	Script          json.RawMessage
	Arguments       json.RawMessage // the call's arguments; {} when empty
	CreatedAt       time.Time
	ExpiresAt       *time.Time      // nil: never expires
	Answers         json.RawMessage // object: question id -> answer; {} when none
	AnsweredAt      *time.Time
	EndedStatus     string     // "" while not ended, else TaskCompleted, TaskFailed or TaskCancelled
	EndedAt         *time.Time // set with EndedStatus
	EndedPayload    json.RawMessage
}

// TaskPageKey is a position in a server's task list.
type TaskPageKey struct {
	CreatedAt time.Time
	ID        string
}

// TaskPage is one page of a server's tasks, newest first.
type TaskPage struct {
	Tasks []Task
	Next  *TaskPageKey // nil on the last page
}

// CreateTask inserts t in its organization, with the answers it was
// given (those to questions asked before the task); it is durable once
// this returns. A server not of t.OrgID's is not found.
func (s Tasks) CreateTask(ctx context.Context, t Task) error {
	args, answers := objectOrEmpty(t.Arguments), objectOrEmpty(t.Answers)
	return s.inTx(ctx, Scope{OrgID: t.OrgID}, func(tx *Tx) error {
		return tx.q.CreateTask(ctx, tx.tx, db.CreateTaskParams{
			ID: t.ID, OrganizationID: t.OrgID, ServerID: t.ServerID, Tool: t.Tool, Scenario: t.Scenario,
			Script: t.Script, Arguments: args, Answers: answers, CreatedAt: t.CreatedAt, ExpiresAt: t.ExpiresAt,
		})
	})
}

// GetTask reads the task id of the organization's server, expired or not:
// an expired task is kept until swept, and the caller's clock says whether
// it has expired (ExpiresAt). An unknown task and one of another server or
// organization are not found.
func (s Tasks) GetTask(ctx context.Context, orgID, serverID uuid.UUID, id string) (Task, error) {
	var t Task
	err := s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) (err error) {
		t, err = found("task", infallible(taskFrom))(tx.q.GetTask(ctx, tx.tx, db.GetTaskParams{ID: id, ServerID: serverID}))
		return err
	})
	return t, err
}

// AnswerTask replaces the answers of the task (and when they came) while
// it has not ended; once it has, it changes nothing and reports no
// failure. A task that Tx.Task would not find at now is not found.
func (s Tasks) AnswerTask(ctx context.Context, orgID, serverID uuid.UUID, id string, answers json.RawMessage, answeredAt *time.Time, now time.Time) error {
	if len(answers) == 0 {
		answers = json.RawMessage("{}")
	}
	return s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) error {
		n, err := tx.q.AnswerTask(ctx, tx.tx, db.AnswerTaskParams{Answers: answers, AnsweredAt: answeredAt,
			ID: id, ServerID: serverID, Now: now})
		if err != nil || n > 0 {
			return err
		}
		_, err = tx.Task(ctx, serverID, id, now) // ended, or not found
		return err
	})
}

// EndTask ends the task with status at at, with payload (a result or an
// error; nil for none), and reports true; a task that had already ended is
// left as it was and EndTask reports false. A task that Tx.Task would not
// find at at is not found.
func (s Tasks) EndTask(ctx context.Context, orgID, serverID uuid.UUID, id, status string, at time.Time, payload json.RawMessage) (bool, error) {
	var ended bool
	err := s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) (err error) {
		ended, err = tx.EndTask(ctx, serverID, id, status, at, payload)
		return err
	})
	return ended, err
}

// SweepTasks deletes, for every organization, the tasks that expired at or
// before now, and returns how many.
func (s Tasks) SweepTasks(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.inTx(ctx, Scope{TaskSweep: true}, func(tx *Tx) (err error) {
		n, err = tx.q.SweepTasks(ctx, tx.tx, now)
		return err
	})
	return n, err
}

// Task reads the task id of server in the transaction's organization,
// unless it had expired at now: then it is not found.
func (t TasksTx) Task(ctx context.Context, server uuid.UUID, id string, now time.Time) (Task, error) {
	task, err := found("task", infallible(taskFrom))(t.q.GetTask(ctx, t.tx, db.GetTaskParams{ID: id, ServerID: server}))
	if err == nil && task.ExpiresAt != nil && !now.Before(*task.ExpiresAt) {
		return Task{}, failure.NotFound("task")
	}
	return task, err
}

// EndTask is Store.EndTask in the transaction's organization.
func (t TasksTx) EndTask(ctx context.Context, server uuid.UUID, id, status string, at time.Time, payload json.RawMessage) (bool, error) {
	switch status {
	case TaskCompleted, TaskFailed, TaskCancelled:
	default:
		return false, failure.Invalid(failure.Field("status", "must be completed, failed or cancelled"))
	}
	n, err := t.q.EndTask(ctx, t.tx, db.EndTaskParams{Status: status, EndedAt: at, Payload: jsonOrNull(payload),
		ID: id, ServerID: server, Now: at})
	if err != nil || n > 0 {
		return n > 0, err
	}
	_, err = t.Task(ctx, server, id, at) // ended already, or not found
	return false, err
}

// Tasks lists a page of at most limit of server's tasks unexpired at now
// after the key (nil: from the newest), newest first. Row-level security
// limits it to the transaction's organization.
func (t TasksTx) Tasks(ctx context.Context, server uuid.UUID, after *TaskPageKey, limit int, now time.Time) (TaskPage, error) {
	p := db.ListTasksParams{ServerID: server, RowLimit: int32(limit + 1), Now: now}
	if after != nil {
		p.AfterCreatedAt, p.AfterID = &after.CreatedAt, &after.ID
	}
	rows, err := t.q.ListTasks(ctx, t.tx, p)
	if err != nil {
		return TaskPage{}, err
	}
	var out TaskPage
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[limit-1]
		out.Next = &TaskPageKey{CreatedAt: last.CreatedAt, ID: last.ID}
	}
	out.Tasks = make([]Task, len(rows))
	for i, r := range rows {
		out.Tasks[i] = taskFrom(r)
	}
	return out, nil
}

func taskFrom(r db.McpTask) Task {
	return Task{
		ID: r.ID, OrgID: r.OrganizationID, ServerID: r.ServerID, Tool: r.Tool, Scenario: r.Scenario,
		Script: r.Script, Arguments: r.Arguments, CreatedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt,
		Answers: r.Answers, AnsweredAt: r.AnsweredAt, EndedStatus: orEmpty(r.EndedStatus), EndedAt: r.EndedAt,
		EndedPayload: r.EndedPayload,
	}
}

// objectOrEmpty is the JSON object raw, {} when it is absent or null.
func objectOrEmpty(raw json.RawMessage) []byte {
	if len(raw) == 0 || string(raw) == "null" {
		return []byte("{}")
	}
	return raw
}
