package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

func newA2ATask(t *testing.T, st *store.Store, ten tenant, contextID string, created time.Time) store.A2ATask {
	t.Helper()
	task := store.A2ATask{ID: uuid.New(), OrgID: ten.OrgID, CardID: ten.CardID, ContextID: contextID, Reply: "report",
		Script:    json.RawMessage(`{"steps":[{"state":"input-required"}],"outcome":{"state":"completed"}}`),
		History:   json.RawMessage(`[{"role":"user","text":"go"}]`),
		CreatedAt: created.UTC().Truncate(time.Microsecond)}
	require.NoError(t, st.CreateA2ATask(context.Background(), task))
	return task
}

func TestA2ATaskRoundTrip(t *testing.T) {
	t.Parallel()
	st, a, _ := seedTwo(t)
	ctx := context.Background()
	want := newA2ATask(t, st, a, "ctx-1", time.Now())

	got, err := st.A2ATask(ctx, a.OrgID, a.CardID, want.ID)
	require.NoError(t, err)
	require.Equal(t, []any{want.ID, a.OrgID, a.CardID, "ctx-1", "report"}, []any{got.ID, got.OrgID, got.CardID, got.ContextID, got.Reply})
	require.JSONEq(t, string(want.Script), string(got.Script))
	require.JSONEq(t, string(want.History), string(got.History))
	require.True(t, want.CreatedAt.Equal(got.CreatedAt))
	require.Empty(t, got.ResumedAt)
	require.Nil(t, got.CanceledAt)

	resumed := time.Now().UTC().Truncate(time.Microsecond)
	changed, err := st.ChangeA2ATask(ctx, a.OrgID, a.CardID, want.ID, func(task *store.A2ATask) error {
		task.History = json.RawMessage(`[{"role":"user","text":"go"},{"role":"user","text":"yes"}]`)
		task.ResumedAt = append(task.ResumedAt, resumed)
		task.CanceledAt = &resumed
		return nil
	})
	require.NoError(t, err)
	require.Len(t, changed.ResumedAt, 1)
	got, err = st.A2ATask(ctx, a.OrgID, a.CardID, want.ID)
	require.NoError(t, err)
	require.JSONEq(t, `[{"role":"user","text":"go"},{"role":"user","text":"yes"}]`, string(got.History))
	require.Len(t, got.ResumedAt, 1)
	require.True(t, resumed.Equal(got.ResumedAt[0]))
	require.True(t, resumed.Equal(*got.CanceledAt))

	t.Run("a refused change changes nothing", func(t *testing.T) {
		refused := errors.New("refused")
		_, err := st.ChangeA2ATask(ctx, a.OrgID, a.CardID, want.ID, func(task *store.A2ATask) error {
			task.History = json.RawMessage(`[]`)
			return refused
		})
		require.ErrorIs(t, err, refused)
		got, err := st.A2ATask(ctx, a.OrgID, a.CardID, want.ID)
		require.NoError(t, err)
		require.JSONEq(t, `[{"role":"user","text":"go"},{"role":"user","text":"yes"}]`, string(got.History))
	})
}

// TestA2ATasksOfAnotherOrganization: a task is reached only in its own
// organization's transaction and under its own card.
func TestA2ATasksOfAnotherOrganization(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	task := newA2ATask(t, st, a, "ctx", time.Now())

	for name, at := range map[string]struct{ org, card uuid.UUID }{
		"b's organization, a's card": {b.OrgID, a.CardID},
		"b's organization and card":  {b.OrgID, b.CardID},
		"a's organization, b's card": {a.OrgID, b.CardID},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := st.A2ATask(ctx, at.org, at.card, task.ID)
			require.ErrorIs(t, err, failure.ErrNotFound)
			_, err = st.ChangeA2ATask(ctx, at.org, at.card, task.ID, func(t *store.A2ATask) error {
				now := time.Now()
				t.CanceledAt = &now
				return nil
			})
			require.ErrorIs(t, err, failure.ErrNotFound)
			page, err := st.ListA2ATasks(ctx, at.org, at.card, "", nil, 10)
			require.NoError(t, err)
			for _, got := range page.Tasks {
				require.NotEqual(t, task.ID, got.ID)
			}
		})
	}
	got, err := st.A2ATask(ctx, a.OrgID, a.CardID, task.ID)
	require.NoError(t, err)
	require.Nil(t, got.CanceledAt, "untouched")

	t.Run("no task hangs under another organization's card", func(t *testing.T) {
		err := st.CreateA2ATask(ctx, store.A2ATask{ID: uuid.New(), OrgID: b.OrgID, CardID: a.CardID, ContextID: "c",
			Reply: "r", Script: json.RawMessage(`{}`), CreatedAt: time.Now()})
		require.Error(t, err)
	})
}

func TestListA2ATasks(t *testing.T) {
	t.Parallel()
	st, a, _ := seedTwo(t)
	ctx := context.Background()
	base := time.Now().Add(-time.Hour)
	var ids []uuid.UUID
	for i := range 5 {
		ctxID := "even"
		if i%2 == 1 {
			ctxID = "odd"
		}
		ids = append(ids, newA2ATask(t, st, a, ctxID, base.Add(time.Duration(i)*time.Minute)).ID)
	}
	// The seeded task was created now: it is the newest.
	page, err := st.ListA2ATasks(ctx, a.OrgID, a.CardID, "", nil, 3)
	require.NoError(t, err)
	require.Len(t, page.Tasks, 3)
	require.Equal(t, []uuid.UUID{ids[4], ids[3]}, []uuid.UUID{page.Tasks[1].ID, page.Tasks[2].ID})
	require.NotNil(t, page.Next)
	page, err = st.ListA2ATasks(ctx, a.OrgID, a.CardID, "", page.Next, 3)
	require.NoError(t, err)
	require.Equal(t, []uuid.UUID{ids[2], ids[1], ids[0]}, []uuid.UUID{page.Tasks[0].ID, page.Tasks[1].ID, page.Tasks[2].ID})
	require.Nil(t, page.Next)

	page, err = st.ListA2ATasks(ctx, a.OrgID, a.CardID, "odd", nil, 10)
	require.NoError(t, err)
	require.Equal(t, []uuid.UUID{ids[3], ids[1]}, []uuid.UUID{page.Tasks[0].ID, page.Tasks[1].ID})
}

// TestA2ATasksPerCardAreBounded: past MaxA2ATasksPerCard, creating a task
// deletes the card's oldest; other cards keep theirs.
func TestA2ATasksPerCardAreBounded(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	_, err := st.Pool().Exec(ctx, `INSERT INTO a2a_tasks (id, organization_id, agent_card_id, context_id, reply, script, created_at)
		SELECT gen_random_uuid(), $1, $2, 'bulk', 'r', '{}', now() - make_interval(secs => g) FROM generate_series(1, $3) g`,
		a.OrgID, a.CardID, store.MaxA2ATasksPerCard)
	require.NoError(t, err)
	count := func(card uuid.UUID) int {
		var n int
		require.NoError(t, st.Pool().QueryRow(ctx, `SELECT count(*) FROM a2a_tasks WHERE agent_card_id = $1`, card).Scan(&n))
		return n
	}
	require.Equal(t, store.MaxA2ATasksPerCard+1, count(a.CardID), "the bulk and the seeded task")
	newest := newA2ATask(t, st, a, "ctx", time.Now())
	require.Equal(t, store.MaxA2ATasksPerCard, count(a.CardID))
	_, err = st.A2ATask(ctx, a.OrgID, a.CardID, newest.ID)
	require.NoError(t, err)
	var oldest int
	require.NoError(t, st.Pool().QueryRow(ctx, `SELECT count(*) FROM a2a_tasks WHERE agent_card_id = $1 AND created_at < now() - interval '999 seconds'`,
		a.CardID).Scan(&oldest))
	require.Zero(t, oldest, "the oldest went")
	require.Equal(t, 1, count(b.CardID))
}
