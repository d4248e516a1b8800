package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/failure"
)

// A2APushConfig is where a card's mock A2A agent posts the changes of state
// of one task. Secrets (its token and credentials) are sealed by the
// caller; the store keeps them as they come.
type A2APushConfig struct {
	TaskID    uuid.UUID
	ID        string
	OrgID     uuid.UUID
	CardID    uuid.UUID
	URL       string
	Scheme    string // the authentication scheme; "" for none
	Secrets   []byte // sealed; nil for none
	Era       string // the A2A version the config was set in
	CreatedAt time.Time
}

// MaxA2APushConfigsPerTask bounds the configs of one task.
const MaxA2APushConfigsPerTask = 10

// ErrTooManyA2APushConfigs is PutA2APushConfig's error for a task that
// holds MaxA2APushConfigsPerTask configs already.
var ErrTooManyA2APushConfigs = fmt.Errorf("a task holds at most %d push-notification configs", MaxA2APushConfigsPerTask)

// PutA2APushConfig sets c on its task of its organization's card (a config
// of the same id is replaced); the task must exist (not found otherwise),
// and hold fewer than MaxA2APushConfigsPerTask other configs
// (ErrTooManyA2APushConfigs).
func (s A2ATasks) PutA2APushConfig(ctx context.Context, c A2APushConfig) error {
	return s.inTx(ctx, Scope{OrgID: c.OrgID}, func(tx *Tx) error {
		if _, err := found("task", infallible(a2aTaskFrom))(tx.q.LockA2ATask(ctx, tx.tx, db.LockA2ATaskParams{ID: c.TaskID, AgentCardID: c.CardID})); err != nil {
			return err
		}
		if _, err := tx.q.GetA2APushConfig(ctx, tx.tx, db.GetA2APushConfigParams{TaskID: c.TaskID, AgentCardID: c.CardID, ID: c.ID}); err != nil {
			n, err := tx.q.CountA2APushConfigs(ctx, tx.tx, c.TaskID)
			if err != nil {
				return err
			}
			if n >= MaxA2APushConfigsPerTask {
				return ErrTooManyA2APushConfigs
			}
		}
		return tx.q.PutA2APushConfig(ctx, tx.tx, db.PutA2APushConfigParams{TaskID: c.TaskID, ID: c.ID, OrganizationID: c.OrgID,
			AgentCardID: c.CardID, Url: c.URL, Scheme: c.Scheme, Secrets: c.Secrets, Era: c.Era})
	})
}

// A2APushConfig reads the config id of the task of the organization's card.
func (s A2ATasks) A2APushConfig(ctx context.Context, orgID, cardID, taskID uuid.UUID, id string) (A2APushConfig, error) {
	var c A2APushConfig
	err := s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) (err error) {
		c, err = found("push notification config", infallible(a2aPushConfigFrom))(tx.q.GetA2APushConfig(ctx, tx.tx,
			db.GetA2APushConfigParams{TaskID: taskID, AgentCardID: cardID, ID: id}))
		return err
	})
	return c, err
}

// A2APushConfigs lists the configs of the task of the organization's card,
// oldest first.
func (s A2ATasks) A2APushConfigs(ctx context.Context, orgID, cardID, taskID uuid.UUID) ([]A2APushConfig, error) {
	var out []A2APushConfig
	err := s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) error {
		rows, err := tx.q.ListA2APushConfigs(ctx, tx.tx, db.ListA2APushConfigsParams{TaskID: taskID, AgentCardID: cardID})
		for _, r := range rows {
			out = append(out, a2aPushConfigFrom(r))
		}
		return err
	})
	return out, err
}

// DeleteA2APushConfig deletes the config id of the task; not found when
// there is none.
func (s A2ATasks) DeleteA2APushConfig(ctx context.Context, orgID, cardID, taskID uuid.UUID, id string) error {
	return s.inTx(ctx, Scope{OrgID: orgID}, func(tx *Tx) error {
		n, err := tx.q.DeleteA2APushConfig(ctx, tx.tx, db.DeleteA2APushConfigParams{TaskID: taskID, AgentCardID: cardID, ID: id})
		if err == nil && n == 0 {
			err = failure.NotFound("push notification config")
		}
		return err
	})
}

func a2aPushConfigFrom(r db.A2aPushConfig) A2APushConfig {
	return A2APushConfig{TaskID: r.TaskID, ID: r.ID, OrgID: r.OrganizationID, CardID: r.AgentCardID, URL: r.Url,
		Scheme: r.Scheme, Secrets: r.Secrets, Era: r.Era, CreatedAt: r.CreatedAt}
}
