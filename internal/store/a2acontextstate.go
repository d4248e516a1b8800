package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/mockspec"
)

// MaxA2AContextsPerCard bounds the contexts whose state a card keeps: a
// change past it deletes the states of the least recently changed.
const MaxA2AContextsPerCard = 1000

// ErrA2AContextStateTooLarge refuses a change that would leave a
// context's state larger than mockspec.MaxStateBytes; the state stays as
// it was.
var ErrA2AContextStateTooLarge = fmt.Errorf("the context's state would exceed %d KiB of JSON", mockspec.MaxStateBytes>>10)

// A2AContextState reads the state of context contextID of the
// organization's card: {} (version 0) for a context that has none.
func (s A2ATasks) A2AContextState(ctx context.Context, orgID, cardID uuid.UUID, contextID string) (LiveState, error) {
	var out LiveState
	err := s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) error {
		r, err := tx.q.GetA2AContextState(ctx, tx.tx, db.GetA2AContextStateParams{AgentCardID: cardID, ContextID: contextID})
		out = LiveState{State: r.State, Version: r.Version}
		return err
	})
	return out, err
}

// ChangeA2AContextState applies c to the state of context contextID of
// the organization's card in one statement (from {} when it has none)
// and returns the state it leaves, keeping the states of the card's
// MaxA2AContextsPerCard most recently changed contexts only. A card not of
// orgID's is not found; a change that would leave a state past
// mockspec.MaxStateBytes is ErrA2AContextStateTooLarge.
func (s A2ATasks) ChangeA2AContextState(ctx context.Context, orgID, cardID uuid.UUID, contextID string, c mockspec.StateChange) (LiveState, error) {
	var out LiveState
	err := s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) error {
		deletes := c.Deletes
		if deletes == nil {
			deletes = []string{}
		}
		r, err := tx.q.ChangeA2AContextState(ctx, tx.tx, db.ChangeA2AContextStateParams{AgentCardID: cardID,
			ContextID: contextID, Sets: stateJSON(c.Sets), Deletes: deletes, MaxBytes: mockspec.MaxStateBytes})
		if errors.Is(err, pgx.ErrNoRows) {
			exists, err := tx.q.A2AContextCardExists(ctx, tx.tx, cardID)
			if err != nil {
				return err
			}
			if !exists {
				return notFound(pgx.ErrNoRows, "agent card")
			}
			return ErrA2AContextStateTooLarge
		}
		if err != nil {
			return err
		}
		out = LiveState{State: r.State, Version: r.Version}
		if r.Version > 1 {
			return nil // no new context: the count is unchanged
		}
		_, err = tx.q.TrimA2AContextStates(ctx, tx.tx, db.TrimA2AContextStatesParams{CardID: cardID, Keep: MaxA2AContextsPerCard})
		return err
	})
	return out, err
}
