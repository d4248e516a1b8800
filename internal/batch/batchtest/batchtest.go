// Package batchtest holds what the tests of the writers built on
// internal/batch share: running a writer's loop for a test, closing it
// under a deadline, and the check that a full queue drops items without
// blocking the caller.
package batchtest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/batch"
)

// RecordBudget is how long handing a writer one item may take at most,
// whatever the database does.
const RecordBudget = 50 * time.Millisecond

// Loop is a writer with a background loop: Run inserts until its context
// ends, Close writes what is left and stops.
type Loop interface {
	Run(ctx context.Context)
	Close(ctx context.Context) error
}

// Writer is a Loop that counts what happened to its items.
type Writer interface {
	Loop
	Stats() batch.Stats
}

// Run starts w's loop for the test's duration and returns a channel closed
// when Run returns.
func Run(t testing.TB, w Loop) <-chan struct{} {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	t.Cleanup(func() {
		_ = CloseWithin(w, 5*time.Second)
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Run did not return")
		}
	})
	return done
}

// CloseWithin closes w, giving it d.
func CloseWithin(w Loop, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return w.Close(ctx)
}

// FullQueueDropsWithoutBlocking hands w 100 items through record while its
// sink holds the first insert, and checks that each call returns within
// RecordBudget and that what the queue cannot take is dropped and counted.
// Then it calls release, which lets the sink answer, closes w and checks
// that every accepted item, and no other, reached the sink: stored counts
// the distinct items the sink holds. w's loop must be running, with a
// queue of 10 and batches of 1.
func FullQueueDropsWithoutBlocking(t *testing.T, w Writer, record func() bool, release func(), stored func() int) {
	t.Helper()
	const n = 100
	accepted := 0
	for range n {
		start := time.Now()
		if record() {
			accepted++
		}
		require.Less(t, time.Since(start), RecordBudget)
	}
	s := w.Stats()
	require.EqualValues(t, accepted, s.Queued)
	require.EqualValues(t, n-accepted, s.Dropped)
	// The queue holds 10; the loop may hold one more in its blocked batch.
	require.GreaterOrEqual(t, s.Dropped, uint64(n-11))

	release()
	require.NoError(t, CloseWithin(w, 10*time.Second))
	s = w.Stats()
	require.EqualValues(t, n, s.Written+s.Dropped)
	require.EqualValues(t, accepted, s.Written)
	require.Equal(t, accepted, stored())
}
