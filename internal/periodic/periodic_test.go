package periodic

import (
	"context"
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
