package store_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// taskID is a fresh task id: 32 lowercase hex characters.
func taskID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newTask creates a task of server's in org, expiring at expires (nil:
// never), and returns it as written.
func newTask(t *testing.T, st *store.Store, org, server uuid.UUID, created time.Time, expires *time.Time) store.Task {
	t.Helper()
	task := store.Task{ID: taskID(), OrgID: org, ServerID: server, Tool: "slow_report", Scenario: "report",
		Script:    json.RawMessage(`{"steps":[{"ask":{"confirm":{"message":"Go on?"}}}]}`),
		Arguments: json.RawMessage(`{"year":2026}`), CreatedAt: created.Truncate(time.Microsecond), ExpiresAt: expires}
	require.NoError(t, st.CreateTask(context.Background(), task))
	return task
}

// expiringTask creates a task of ten's server, created an hour before now
// and expiring at expires.
func expiringTask(t *testing.T, st *store.Store, ten tenant, now, expires time.Time) store.Task {
	t.Helper()
	return newTask(t, st, ten.OrgID, ten.ServerID, now.Add(-time.Hour), &expires)
}

func at(t time.Time) *time.Time { return &t }

func TestTaskRoundTrip(t *testing.T) {
	t.Parallel()
	st, a, _ := seedTwo(t)
	ctx := context.Background()
	created := time.Now().UTC()
	want := newTask(t, st, a.OrgID, a.ServerID, created, at(created.Add(time.Hour).Truncate(time.Microsecond)))

	got, err := st.GetTask(ctx, a.OrgID, a.ServerID, want.ID)
	require.NoError(t, err)
	require.JSONEq(t, string(want.Script), string(got.Script))
	require.JSONEq(t, string(want.Arguments), string(got.Arguments))
	require.JSONEq(t, `{}`, string(got.Answers))
	require.True(t, want.CreatedAt.Equal(got.CreatedAt))
	require.True(t, want.ExpiresAt.Equal(*got.ExpiresAt))
	require.Equal(t, []any{want.ID, a.OrgID, a.ServerID, "slow_report", "report"},
		[]any{got.ID, got.OrgID, got.ServerID, got.Tool, got.Scenario})
	require.Empty(t, got.EndedStatus)
	require.Nil(t, got.EndedAt)
	require.Nil(t, got.AnsweredAt)
	require.Nil(t, got.EndedPayload)

	answered := time.Now().UTC().Truncate(time.Microsecond)
	require.NoError(t, st.AnswerTask(ctx, a.OrgID, a.ServerID, want.ID,
		json.RawMessage(`{"confirm":{"action":"accept"}}`), &answered, answered))
	got, err = st.GetTask(ctx, a.OrgID, a.ServerID, want.ID)
	require.NoError(t, err)
	require.JSONEq(t, `{"confirm":{"action":"accept"}}`, string(got.Answers))
	require.True(t, answered.Equal(*got.AnsweredAt))

	t.Run("without arguments or expiry", func(t *testing.T) {
		bare := store.Task{ID: taskID(), OrgID: a.OrgID, ServerID: a.ServerID, Tool: "t", Scenario: "s",
			Script: json.RawMessage(`[]`), CreatedAt: time.Now()}
		require.NoError(t, st.CreateTask(ctx, bare))
		got, err := st.GetTask(ctx, a.OrgID, a.ServerID, bare.ID)
		require.NoError(t, err)
		require.JSONEq(t, `{}`, string(got.Arguments))
		require.Nil(t, got.ExpiresAt)
	})
	t.Run("with the answers given before it", func(t *testing.T) {
		asked := store.Task{ID: taskID(), OrgID: a.OrgID, ServerID: a.ServerID, Tool: "t", Scenario: "s",
			Script: json.RawMessage(`[]`), Answers: json.RawMessage(`{"user_name":{"action":"accept","content":{"name":"Alice"}}}`),
			CreatedAt: time.Now()}
		require.NoError(t, st.CreateTask(ctx, asked))
		got, err := st.GetTask(ctx, a.OrgID, a.ServerID, asked.ID)
		require.NoError(t, err)
		require.JSONEq(t, string(asked.Answers), string(got.Answers))
		require.Nil(t, got.AnsweredAt)
	})
	t.Run("a duplicate id is a conflict", func(t *testing.T) {
		dup := want
		err := st.CreateTask(ctx, dup)
		require.ErrorIs(t, err, failure.ErrConflict)
	})
}

func TestTaskOfAnotherServerOrOrganizationIsNotFound(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	other := newServer(t, st, a.OrgID)
	task := newTask(t, st, a.OrgID, a.ServerID, time.Now(), nil)

	cases := map[string]struct {
		org, server uuid.UUID
		id          string
	}{
		"unknown id":                       {a.OrgID, a.ServerID, taskID()},
		"another server of the org":        {a.OrgID, other, task.ID},
		"another organization":             {b.OrgID, b.ServerID, task.ID},
		"another organization, A's server": {b.OrgID, a.ServerID, task.ID},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := st.GetTask(ctx, tc.org, tc.server, tc.id)
			require.ErrorIs(t, err, failure.ErrNotFound)
			err = st.AnswerTask(ctx, tc.org, tc.server, tc.id, json.RawMessage(`{"x":1}`), nil, time.Now())
			require.ErrorIs(t, err, failure.ErrNotFound)
			ended, err := st.EndTask(ctx, tc.org, tc.server, tc.id, store.TaskCancelled, time.Now(), nil)
			require.ErrorIs(t, err, failure.ErrNotFound)
			require.False(t, ended)
		})
	}
	got, err := st.GetTask(ctx, a.OrgID, a.ServerID, task.ID)
	require.NoError(t, err)
	require.Empty(t, got.EndedStatus, "untouched by the attempts")
	require.JSONEq(t, `{}`, string(got.Answers))

	t.Run("a task under another organization's server cannot be created", func(t *testing.T) {
		err := st.CreateTask(ctx, store.Task{ID: taskID(), OrgID: b.OrgID, ServerID: a.ServerID, Tool: "t",
			Scenario: "s", Script: json.RawMessage(`{}`), CreatedAt: time.Now()})
		require.ErrorIs(t, err, failure.ErrNotFound)
	})
}

func TestTaskExpired(t *testing.T) {
	t.Parallel()
	st, a, _ := seedTwo(t)
	ctx := context.Background()
	now := time.Now()
	gone := expiringTask(t, st, a, now, now.Add(-time.Second))
	live := expiringTask(t, st, a, now, now.Add(time.Hour))

	// Read until swept, so that its reader can say it expired.
	got, err := st.GetTask(ctx, a.OrgID, a.ServerID, gone.ID)
	require.NoError(t, err)
	require.True(t, got.ExpiresAt.Before(now))
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: a.OrgID}, func(tx *store.Tx) error {
		_, err := tx.Task(ctx, a.ServerID, gone.ID, now)
		require.ErrorIs(t, err, failure.ErrNotFound)
		_, err = tx.Task(ctx, a.ServerID, gone.ID, now.Add(-2*time.Second))
		require.NoError(t, err, "expiry is the caller's clock's, not the database's")
		return nil
	}))
	require.ErrorIs(t, st.AnswerTask(ctx, a.OrgID, a.ServerID, gone.ID, json.RawMessage(`{}`), nil, now), failure.ErrNotFound)
	_, err = st.EndTask(ctx, a.OrgID, a.ServerID, gone.ID, store.TaskCompleted, now, nil)
	require.ErrorIs(t, err, failure.ErrNotFound)
	_, err = st.GetTask(ctx, a.OrgID, a.ServerID, live.ID)
	require.NoError(t, err)

	// A clock behind the database's sees the task alive: answers and
	// listing follow it too.
	earlier := now.Add(-2 * time.Second)
	require.NoError(t, st.AnswerTask(ctx, a.OrgID, a.ServerID, gone.ID, json.RawMessage(`{"x":1}`), nil, earlier))
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: a.OrgID}, func(tx *store.Tx) error {
		page, err := tx.Tasks(ctx, a.ServerID, nil, 100, earlier)
		require.NoError(t, err)
		var ids []string
		for _, task := range page.Tasks {
			ids = append(ids, task.ID)
		}
		require.Contains(t, ids, gone.ID)
		return nil
	}))

	var listed []string
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: a.OrgID}, func(tx *store.Tx) error {
		page, err := tx.Tasks(ctx, a.ServerID, nil, 100, now)
		for _, task := range page.Tasks {
			listed = append(listed, task.ID)
		}
		return err
	}))
	require.Contains(t, listed, live.ID)
	require.NotContains(t, listed, gone.ID, "an expired task is not listed")
}

func TestTaskEndsOnce(t *testing.T) {
	t.Parallel()
	st, a, _ := seedTwo(t)
	ctx := context.Background()
	task := newTask(t, st, a.OrgID, a.ServerID, time.Now(), nil)
	first := time.Now().UTC().Truncate(time.Microsecond)

	ended, err := st.EndTask(ctx, a.OrgID, a.ServerID, task.ID, store.TaskFailed, first,
		json.RawMessage(`{"code":-32000,"message":"down"}`))
	require.NoError(t, err)
	require.True(t, ended)

	ended, err = st.EndTask(ctx, a.OrgID, a.ServerID, task.ID, store.TaskCompleted, first.Add(time.Second),
		json.RawMessage(`{"content":[]}`))
	require.NoError(t, err)
	require.False(t, ended, "already ended")

	// Answers after the end change nothing either.
	require.NoError(t, st.AnswerTask(ctx, a.OrgID, a.ServerID, task.ID, json.RawMessage(`{"late":true}`), at(time.Now()), time.Now()))

	got, err := st.GetTask(ctx, a.OrgID, a.ServerID, task.ID)
	require.NoError(t, err)
	require.Equal(t, store.TaskFailed, got.EndedStatus)
	require.True(t, first.Equal(*got.EndedAt))
	require.JSONEq(t, `{"code":-32000,"message":"down"}`, string(got.EndedPayload))
	require.JSONEq(t, `{}`, string(got.Answers))
	require.Nil(t, got.AnsweredAt)

	t.Run("cancelled without a payload", func(t *testing.T) {
		task := newTask(t, st, a.OrgID, a.ServerID, time.Now(), nil)
		ended, err := st.EndTask(ctx, a.OrgID, a.ServerID, task.ID, store.TaskCancelled, time.Now(), nil)
		require.NoError(t, err)
		require.True(t, ended)
		got, err := st.GetTask(ctx, a.OrgID, a.ServerID, task.ID)
		require.NoError(t, err)
		require.Equal(t, store.TaskCancelled, got.EndedStatus)
		require.Nil(t, got.EndedPayload)
	})
	t.Run("an unknown status is refused", func(t *testing.T) {
		task := newTask(t, st, a.OrgID, a.ServerID, time.Now(), nil)
		_, err := st.EndTask(ctx, a.OrgID, a.ServerID, task.ID, "working", time.Now(), nil)
		require.ErrorIs(t, err, failure.ErrInvalid)
	})
	t.Run("concurrent ends: exactly one wins", func(t *testing.T) {
		task := newTask(t, st, a.OrgID, a.ServerID, time.Now(), nil)
		wins := make(chan bool, 8)
		for range 8 {
			go func() {
				ended, err := st.EndTask(ctx, a.OrgID, a.ServerID, task.ID, store.TaskCancelled, time.Now(), nil)
				wins <- err == nil && ended
			}()
		}
		n := 0
		for range 8 {
			if <-wins {
				n++
			}
		}
		require.Equal(t, 1, n)
	})
}

func TestTasksListNewestFirstByPages(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	base := time.Now().Add(-time.Hour)
	var want []string // newest first
	for i := range 7 {
		want = append([]string{newTask(t, st, a.OrgID, a.ServerID, base.Add(time.Duration(i)*time.Minute), nil).ID}, want...)
	}
	// Two tasks created in the same microsecond: the id breaks the tie.
	twinAt := base.Add(10 * time.Minute)
	x, y := newTask(t, st, a.OrgID, a.ServerID, twinAt, nil), newTask(t, st, a.OrgID, a.ServerID, twinAt, nil)
	if x.ID < y.ID {
		x, y = y, x
	}
	want = append([]string{x.ID, y.ID}, want...)
	newTask(t, st, a.OrgID, newServer(t, st, a.OrgID), base, nil) // another server's

	list := func(org uuid.UUID, limit int) []string {
		var got []string
		var after *store.TaskPageKey
		for {
			var page store.TaskPage
			require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) (err error) {
				page, err = tx.Tasks(ctx, a.ServerID, after, limit, time.Now())
				return err
			}))
			require.LessOrEqual(t, len(page.Tasks), limit)
			for _, task := range page.Tasks {
				got = append(got, task.ID)
			}
			if page.Next == nil {
				return got
			}
			after = page.Next
		}
	}
	for _, limit := range []int{1, 2, 3, 100} {
		got := list(a.OrgID, limit)
		require.Len(t, got, len(want)+1, "limit %d", limit)
		require.Equal(t, want, got[1:], "limit %d (seedTenant's task, created now, comes first)", limit)
	}
	require.Empty(t, list(b.OrgID, 10), "another organization sees no task of A's server")
}

func TestSweepTasks(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	now := time.Now()
	goneA := expiringTask(t, st, a, now, now.Add(-time.Minute))
	goneB := expiringTask(t, st, b, now, now.Add(-time.Second))
	edge := expiringTask(t, st, b, now, now.Truncate(time.Microsecond))
	later := newTask(t, st, a.OrgID, a.ServerID, now, at(now.Add(time.Hour)))
	never := newTask(t, st, a.OrgID, a.ServerID, now, nil)

	n, err := st.SweepTasks(ctx, now)
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	var left []string
	rows, err := st.Pool().Query(ctx, `SELECT id FROM mcp_tasks WHERE id = ANY($1)`,
		[]string{goneA.ID, goneB.ID, edge.ID, later.ID, never.ID})
	require.NoError(t, err)
	left, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.ElementsMatch(t, []string{later.ID, never.ID}, left)

	n, err = st.SweepTasks(ctx, now)
	require.NoError(t, err)
	require.Zero(t, n)
}

// TestTasksUnderTheAppRole reads tasks as the application role working for
// one organization: another's are invisible and untouchable.
func TestTasksUnderTheAppRole(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	task := newTask(t, st, a.OrgID, a.ServerID, time.Now(), nil)
	asApp(t, st.Pool(), settings{"app.org_id": b.OrgID.String()}, func(tx pgx.Tx) {
		var n int
		require.NoError(t, tx.QueryRow(ctx, `SELECT count(*) FROM mcp_tasks WHERE id = $1`, task.ID).Scan(&n))
		require.Zero(t, n)
		tag, err := tx.Exec(ctx, `UPDATE mcp_tasks SET answers = '{"x":1}' WHERE id = $1`, task.ID)
		require.NoError(t, err)
		require.Zero(t, tag.RowsAffected())
	})
	asApp(t, st.Pool(), settings{"app.org_id": a.OrgID.String()}, func(tx pgx.Tx) {
		var n int
		require.NoError(t, tx.QueryRow(ctx, `SELECT count(*) FROM mcp_tasks WHERE id = $1`, task.ID).Scan(&n))
		require.Equal(t, 1, n, "the zero above means something")
	})
}
