package store

import (
	"context"
	"encoding/json"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/mockspec"
)

// States is the part of the Store that reads and changes the live state
// of served designs for the per-server endpoint, each call in a
// transaction of its own under the design's organization.
type States struct{ *conn }

// StatesTx is the part of a transaction that reads, replaces and resets a
// server's live state.
type StatesTx struct{ *txConn }

// LiveState is a server's live state: a JSON object, and its version
// (0 while it is the design's initial state, unchanged; one more at each
// change).
type LiveState struct {
	State   json.RawMessage
	Version int64
}

// LiveState reads the live state of the organization's server; a server
// not of orgID's is not found.
func (s States) LiveState(ctx context.Context, orgID, serverID uuid.UUID) (LiveState, error) {
	var out LiveState
	err := s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) (err error) {
		out, err = tx.LiveState(ctx, serverID)
		return err
	})
	return out, err
}

// ChangeLiveState applies c to the live state of the organization's
// server in one statement (from the initial state when it has not changed
// yet) and returns the state it leaves; a server not of orgID's is not
// found.
func (s States) ChangeLiveState(ctx context.Context, orgID, serverID uuid.UUID, c mockspec.StateChange) (LiveState, error) {
	var out LiveState
	err := s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) error {
		deletes := c.Deletes
		if deletes == nil {
			deletes = []string{}
		}
		r, err := tx.q.ChangeLiveState(ctx, tx.tx, db.ChangeLiveStateParams{
			ServerID: serverID, Sets: stateJSON(c.Sets), Deletes: deletes})
		out = LiveState{State: r.State, Version: r.Version}
		return notFound(err, "server")
	})
	return out, err
}

// LiveState reads the live state of a server of the transaction's
// organization.
func (t StatesTx) LiveState(ctx context.Context, serverID uuid.UUID) (LiveState, error) {
	r, err := t.q.GetLiveState(ctx, t.tx, serverID)
	return LiveState{State: r.State, Version: r.Version}, notFound(err, "server")
}

// ReplaceLiveState makes state (a checked object) the server's live
// state.
func (t StatesTx) ReplaceLiveState(ctx context.Context, serverID uuid.UUID, state json.RawMessage) (LiveState, error) {
	r, err := t.q.ReplaceLiveState(ctx, t.tx, db.ReplaceLiveStateParams{ServerID: serverID, State: stateJSON(state)})
	return LiveState{State: r.State, Version: r.Version}, notFound(err, "server")
}

// ResetLiveState sets the server's live state back to its design's
// initial state.
func (t StatesTx) ResetLiveState(ctx context.Context, serverID uuid.UUID) (LiveState, error) {
	r, err := t.q.ResetLiveState(ctx, t.tx, serverID)
	return LiveState{State: r.State, Version: r.Version}, notFound(err, "server")
}

// stateJSON is the column value of a state object, {} when it is empty.
func stateJSON(v json.RawMessage) []byte {
	if len(v) == 0 || string(v) == "null" {
		return []byte("{}")
	}
	return v
}
