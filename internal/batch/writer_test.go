package batch_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/batch"
	"github.com/mockmcp/mockmcp/internal/batch/batchtest"
)

// The writer's batching, retry, overflow and Close are tested through its
// users (internal/audit, internal/journal); these tests cover Flush's
// interplay with the loop.

func TestFlushWaitsForABatchUnderRetry(t *testing.T) {
	t.Parallel()
	sink := &sink{failures: 2}
	w := batch.New("test", sink.insert, quiet(), batch.Options{BatchSize: 10, FlushInterval: time.Millisecond,
		RetryBackoff: 20 * time.Millisecond})
	batchtest.Run(t, w)
	for i := range 3 {
		require.True(t, w.Add(i))
	}
	require.Eventually(t, func() bool { return w.Stats().Failed >= 1 }, 5*time.Second, time.Millisecond)
	require.True(t, w.Add(3))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, w.Flush(ctx))
	require.Equal(t, batch.Stats{Queued: 4, Written: 4, Failed: 2}, w.Stats())
	require.ElementsMatch(t, []int{0, 1, 2, 3}, sink.written())
}

func TestFlushRacingAddAndClose(t *testing.T) {
	t.Parallel()
	sink := &sink{}
	w := batch.New("test", sink.insert, quiet(), batch.Options{QueueSize: 64, BatchSize: 8, FlushInterval: time.Hour})
	batchtest.Run(t, w)

	var calls atomic.Uint64
	var closing atomic.Bool
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				calls.Add(1)
				if !w.Add(g*1_000_000+i) && closing.Load() {
					return
				}
			}
		})
	}
	for range 4 {
		wg.Go(func() {
			for !closing.Load() {
				if err := w.Flush(context.Background()); err != nil && !errors.Is(err, batch.ErrClosing) {
					t.Errorf("Flush: %v", err)
				}
			}
		})
	}
	time.Sleep(30 * time.Millisecond)
	closing.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, w.Close(ctx))
	wg.Wait()
	s := w.Stats()
	require.Positive(t, s.Written)
	require.Equal(t, calls.Load(), s.Written+s.Dropped)
	require.Len(t, sink.written(), int(s.Written))
	require.NoError(t, w.Flush(ctx), "Flush after Close has nothing to do")
}

type sink struct {
	mu       sync.Mutex
	failures int
	items    []int
}

func (s *sink) insert(_ context.Context, items []int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failures > 0 {
		s.failures--
		return errors.New("transient failure")
	}
	s.items = append(s.items, items...)
	return nil
}

func (s *sink) written() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.items...)
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
