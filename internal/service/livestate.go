package service

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/store"
)

// stateStore keeps the per-server endpoint's live states in the store, each
// read or change bounded like a task's statement.
type stateStore struct{ st *store.Store }

func (ss stateStore) ReadState(ctx context.Context, orgID, serverID uuid.UUID) (json.RawMessage, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, taskStatementTimeout)
	defer cancel()
	v, err := ss.st.LiveState(ctx, orgID, serverID)
	return v.State, v.Version, err
}

func (ss stateStore) ChangeState(ctx context.Context, orgID, serverID uuid.UUID, c mockspec.StateChange) (json.RawMessage, int64, error) {
	ctx, cancel := context.WithTimeout(ctx, taskStatementTimeout)
	defer cancel()
	v, err := ss.st.ChangeLiveState(ctx, orgID, serverID, c)
	return v.State, v.Version, err
}
