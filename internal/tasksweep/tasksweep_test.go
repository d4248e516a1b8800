package tasksweep_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/tasksweep"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// TestRunSweepsExpiredTasks runs a sweeper with a short interval over a
// real database: the expired task's row goes, the live one stays.
func TestRunSweepsExpiredTasks(t *testing.T) {
	t.Parallel()
	st := testdb.Store(t)
	ctx := context.Background()
	org, server := uuid.New(), uuid.New()
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) error {
		if _, err := tx.CreateOrganization(ctx, org, "Sweep Org", ""); err != nil {
			return err
		}
		_, err := tx.CreateServer(ctx, design.Server{ID: server, Name: "swept", Version: "1.0.0", Type: "mock",
			ProtocolVersion: "2024-11-05", AuthMode: "none", Eras: design.DefaultEras,
			CacheScope: design.DefaultCacheScope, CreatedBy: "test"})
		return err
	}))
	soon := time.Now().Add(300 * time.Millisecond)
	task := func(id string, expires *time.Time) {
		require.NoError(t, st.CreateTask(ctx, store.Task{ID: id, OrgID: org, ServerID: server, Tool: "t",
			Scenario: "s", Script: json.RawMessage(`{}`), CreatedAt: time.Now(), ExpiresAt: expires}))
	}
	task("0000000000000000000000000000000a", &soon)
	task("0000000000000000000000000000000b", nil)

	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		tasksweep.New(st, quiet, tasksweep.Options{Interval: 20 * time.Millisecond}).Run(runCtx)
		close(done)
	}()
	rows := func() int {
		var n int
		require.NoError(t, st.Pool().QueryRow(ctx, `SELECT count(*) FROM mcp_tasks`).Scan(&n))
		return n
	}
	require.Equal(t, 2, rows())
	require.Eventually(t, func() bool { return rows() == 1 }, 10*time.Second, 20*time.Millisecond)
	_, err := st.GetTask(ctx, org, server, "0000000000000000000000000000000b")
	require.NoError(t, err, "the task without expiry stays")
	stop()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return once its context ended")
	}
}

// failing counts its sweeps and fails each.
type failing struct{ calls atomic.Int64 }

func (f *failing) SweepTasks(context.Context, time.Time) (int64, error) {
	f.calls.Add(1)
	return 0, errors.Join(failure.ErrUnavailable, errors.New("database down"))
}

func TestRunGoesOnAfterAFailedSweep(t *testing.T) {
	t.Parallel()
	f := &failing{}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go tasksweep.New(f, quiet, tasksweep.Options{Interval: 5 * time.Millisecond}).Run(ctx)
	require.Eventually(t, func() bool { return f.calls.Load() >= 3 }, 5*time.Second, 5*time.Millisecond)
}
