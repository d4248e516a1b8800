package store

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/db"
)

// A2ATasks is the part of the Store that keeps the tasks of the cards'
// mock A2A agents, each call in a transaction of the card's organization:
// the agent endpoint is public, and finds the card under the exchange
// scope, which cannot write.
type A2ATasks struct{ *conn }

// A2ATask is one task of a card's mock A2A agent. The store does not read
// Script or History; their writers bound their sizes.
type A2ATask struct {
	ID         uuid.UUID
	OrgID      uuid.UUID
	CardID     uuid.UUID
	ContextID  string
	Reply      string          // the name of the reply that began it
	Script     json.RawMessage // the task's timeline, its texts rendered
	History    json.RawMessage // the conversation's messages, an array
	ResumedAt  []time.Time     // when messages continued its input-required steps
	CreatedAt  time.Time
	CanceledAt *time.Time
}

// A2ATaskPage is one page of a card's tasks, newest first.
type A2ATaskPage struct {
	Tasks []A2ATask
	Next  *A2ATaskPageKey // nil on the last page
}

// A2ATaskPageKey is a position in a card's task list.
type A2ATaskPageKey struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// MaxA2ATasksPerCard bounds the tasks kept per card: creating one past it
// deletes the oldest.
const MaxA2ATasksPerCard = 1000

// CreateA2ATask inserts t in its organization, keeping the card's newest
// MaxA2ATasksPerCard tasks only; it is durable once this returns. A card
// not of t.OrgID's cannot hold it (the insert fails).
func (s A2ATasks) CreateA2ATask(ctx context.Context, t A2ATask) error {
	history := t.History
	if len(history) == 0 {
		history = json.RawMessage("[]")
	}
	return s.inTx(ctx, Scope{OrgID: t.OrgID}, func(tx *Tx) error {
		if err := tx.q.CreateA2ATask(ctx, tx.tx, db.CreateA2ATaskParams{ID: t.ID, OrganizationID: t.OrgID,
			AgentCardID: t.CardID, ContextID: t.ContextID, Reply: t.Reply, Script: t.Script, History: history,
			CreatedAt: t.CreatedAt}); err != nil {
			return err
		}
		_, err := tx.q.TrimA2ATasks(ctx, tx.tx, db.TrimA2ATasksParams{CardID: t.CardID, Keep: MaxA2ATasksPerCard})
		return err
	})
}

// A2ATask reads the task id of the organization's card. An unknown task
// and one of another card or organization are not found.
func (s A2ATasks) A2ATask(ctx context.Context, orgID, cardID, id uuid.UUID) (A2ATask, error) {
	var t A2ATask
	err := s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) (err error) {
		t, err = found("task", infallible(a2aTaskFrom))(tx.q.GetA2ATask(ctx, tx.tx, db.GetA2ATaskParams{ID: id, AgentCardID: cardID}))
		return err
	})
	return t, err
}

// ChangeA2ATask reads the task id of the organization's card, locked, lets
// change alter its History, ResumedAt and CanceledAt, and writes them
// back; an error from change leaves the task as it was and is returned.
// It returns the task as written.
func (s A2ATasks) ChangeA2ATask(ctx context.Context, orgID, cardID, id uuid.UUID, change func(*A2ATask) error) (A2ATask, error) {
	var t A2ATask
	err := s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) (err error) {
		t, err = found("task", infallible(a2aTaskFrom))(tx.q.LockA2ATask(ctx, tx.tx, db.LockA2ATaskParams{ID: id, AgentCardID: cardID}))
		if err != nil {
			return err
		}
		if err := change(&t); err != nil {
			return err
		}
		resumed := t.ResumedAt
		if resumed == nil {
			resumed = []time.Time{}
		}
		return tx.q.UpdateA2ATask(ctx, tx.tx, db.UpdateA2ATaskParams{History: t.History, ResumedAt: resumed,
			CanceledAt: t.CanceledAt, ID: id, AgentCardID: cardID})
	})
	return t, err
}

// ListA2ATasks lists a page of at most limit of the organization's card's
// tasks after the key (nil: from the newest), newest first, of contextID
// only when it is not "".
func (s A2ATasks) ListA2ATasks(ctx context.Context, orgID, cardID uuid.UUID, contextID string, after *A2ATaskPageKey, limit int) (A2ATaskPage, error) {
	p := db.ListA2ATasksParams{AgentCardID: cardID, RowLimit: int32(limit + 1)}
	if contextID != "" {
		p.ContextID = &contextID
	}
	if after != nil {
		p.AfterCreatedAt, p.AfterID = &after.CreatedAt, uuid.NullUUID{UUID: after.ID, Valid: true}
	}
	var out A2ATaskPage
	err := s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) error {
		rows, err := tx.q.ListA2ATasks(ctx, tx.tx, p)
		if err != nil {
			return err
		}
		if len(rows) > limit {
			rows = rows[:limit]
			last := rows[limit-1]
			out.Next = &A2ATaskPageKey{CreatedAt: last.CreatedAt, ID: last.ID}
		}
		out.Tasks = make([]A2ATask, len(rows))
		for i, r := range rows {
			out.Tasks[i] = a2aTaskFrom(r)
		}
		return nil
	})
	return out, err
}

func a2aTaskFrom(r db.A2aTask) A2ATask {
	return A2ATask{ID: r.ID, OrgID: r.OrganizationID, CardID: r.AgentCardID, ContextID: r.ContextID, Reply: r.Reply,
		Script: r.Script, History: r.History, ResumedAt: r.ResumedAt, CreatedAt: r.CreatedAt, CanceledAt: r.CanceledAt}
}
