package service

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/store"
)

// taskStatementTimeout bounds each task read or write: a database whose
// packets are dropped would otherwise hold the call until TCP gives up
// (minutes); past it the call is answered 503 with Retry-After, as any
// request meeting an outage.
const taskStatementTimeout = 3 * time.Second

// taskStore keeps the per-server endpoint's tasks in the store: the
// endpoint reaches no database package itself.
type taskStore struct{ st *store.Store }

func (ts taskStore) CreateTask(ctx context.Context, t mcpserve.TaskRecord) error {
	ctx, cancel := context.WithTimeout(ctx, taskStatementTimeout)
	defer cancel()
	return ts.st.CreateTask(ctx, store.Task(t))
}

func (ts taskStore) GetTask(ctx context.Context, orgID, serverID uuid.UUID, id string) (mcpserve.TaskRecord, error) {
	ctx, cancel := context.WithTimeout(ctx, taskStatementTimeout)
	defer cancel()
	t, err := ts.st.GetTask(ctx, orgID, serverID, id)
	return mcpserve.TaskRecord(t), err
}

func (ts taskStore) AnswerTask(ctx context.Context, orgID, serverID uuid.UUID, id string, answers json.RawMessage, answeredAt *time.Time, now time.Time) error {
	ctx, cancel := context.WithTimeout(ctx, taskStatementTimeout)
	defer cancel()
	return ts.st.AnswerTask(ctx, orgID, serverID, id, answers, answeredAt, now)
}

func (ts taskStore) EndTask(ctx context.Context, orgID, serverID uuid.UUID, id, status string, at time.Time, payload json.RawMessage) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, taskStatementTimeout)
	defer cancel()
	return ts.st.EndTask(ctx, orgID, serverID, id, status, at, payload)
}
