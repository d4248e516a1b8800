package periodic

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRunUntilStopped(t *testing.T) {
	var calls atomic.Int32
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		Run(context.Background(), 5*time.Millisecond, stop, func(ctx context.Context) {
			_, ok := ctx.Deadline()
			require.True(t, ok, "each call has a deadline")
			calls.Add(1)
		})
		close(done)
	}()
	require.Eventually(t, func() bool { return calls.Load() >= 3 }, 5*time.Second, time.Millisecond)
	close(stop)
	<-done
	n := calls.Load()
	time.Sleep(20 * time.Millisecond)
	require.Equal(t, n, calls.Load(), "no call after stop")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	Run(ctx, time.Millisecond, nil, func(context.Context) { t.Error("called after ctx ended") })
}

// TestSweepReports: a sweep that did nothing is not reported, one that did
// something is, and so is a failure while the context lives.
func TestSweepReports(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	results := []int{0, 2, -1}
	var calls, reports, swept, failed atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		Sweep(ctx, time.Millisecond, nil, func(context.Context) (int, error) {
			n := results[min(int(calls.Add(1))-1, len(results)-1)]
			if n < 0 {
				return 0, errors.New("down")
			}
			return n, nil
		}, func(int, error) { failed.Add(1) }, func(n int) { reports.Add(1); swept.Add(int32(n)) })
	}()
	require.Eventually(t, func() bool { return failed.Load() >= 1 }, 5*time.Second, time.Millisecond)
	cancel()
	<-done
	require.Equal(t, int32(1), reports.Load(), "only the sweep that did something is reported")
	require.Equal(t, int32(2), swept.Load())
}
