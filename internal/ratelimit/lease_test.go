package ratelimit_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/ratelimit"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// sharing returns count limiters over one Redis, on counters of their own.
func sharing(t testing.TB, count int, opts ratelimit.Options) []*ratelimit.Limiter {
	t.Helper()
	opts.Enabled = true
	if opts.RedisURL == "" {
		opts.RedisURL = redisURL()
	}
	opts.Prefix = "test-lease-" + uuid.NewString()
	ls := make([]*ratelimit.Limiter, count)
	for i := range ls {
		l, err := ratelimit.New(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), opts)
		require.NoError(t, err)
		t.Cleanup(func() { _ = l.Close() })
		ls[i] = l
	}
	return ls
}

// hammer has workers on each limiter take n at a time from key until one
// is refused, and returns how many each limiter admitted.
func hammer(ls []*ratelimit.Limiter, workers int, key string, limit int, n func(i int) int) []int64 {
	admitted := make([]atomic.Int64, len(ls))
	var wg sync.WaitGroup
	for i, l := range ls {
		for w := range workers {
			wg.Go(func() {
				for j := w; ; j++ {
					want := n(j)
					d := l.TakeN(context.Background(), key, limit, want)
					admitted[i].Add(int64(d.Admitted))
					if d.Admitted < want {
						return
					}
				}
			})
		}
	}
	wg.Wait()
	got := make([]int64, len(ls))
	for i := range admitted {
		got[i] = admitted[i].Load()
	}
	return got
}

// TestLeasesShareOneLimit: instances hammering one counter in Redis
// together admit exactly the limit, in far fewer round trips than
// messages, each spending the others' leftovers none.
func TestLeasesShareOneLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		limit int
		n     func(int) int
	}{
		{"limit 100", 100, func(int) int { return 1 }},
		{"limit 5000", 5000, func(int) int { return 1 }},
		{"limit 5000 in batches", 5000, func(i int) int { return 1 + i%7 }},
		{"limit 10, below leasing ahead", 10, func(int) int { return 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ls := sharing(t, 2, ratelimit.Options{})
			got := hammer(ls, 4, "k", tc.limit, tc.n)
			require.EqualValues(t, tc.limit, got[0]+got[1], "admitted by each instance: %v", got)
			trips := ls[0].RoundTrips() + ls[1].RoundTrips()
			t.Logf("admitted %v in %d round trips", got, trips)
			if tc.limit >= 1000 {
				require.Less(t, trips, int64(tc.limit/10), "round trips")
			}
			for _, l := range ls {
				d := l.Take(context.Background(), "k", tc.limit)
				require.False(t, d.Allowed)
				require.True(t, d.Counted)
				require.Zero(t, d.Remaining)
			}
		})
	}
}

// TestLeasedBatchInOrder: a batch takes what is left of the window across
// instances, its first members; what another instance leased ahead is not
// left.
func TestLeasedBatchInOrder(t *testing.T) {
	t.Parallel()
	ls := sharing(t, 2, ratelimit.Options{})
	ctx := context.Background()
	one := ls[0].TakeN(ctx, "k", 100, 60)
	require.Equal(t, 60, one.Admitted)
	// The first lease takes what the batch needs and one ahead.
	require.EqualValues(t, 40, one.Remaining)
	two := ls[1].TakeN(ctx, "k", 100, 60)
	require.True(t, two.Allowed)
	require.InDelta(t, 40, two.Admitted, 100/8, "what the first instance did not hold")
	require.Zero(t, two.Remaining)
	require.False(t, ls[1].Take(ctx, "k", 100).Allowed)
	rest := ls[0].TakeN(ctx, "k", 100, 60)
	require.Equal(t, 40-two.Admitted, rest.Admitted, "the first instance spends what it holds")
	require.Zero(t, rest.Remaining)
}

// TestLeasedRemainingCountsDown: on one instance, Remaining counts down one
// by one while the leases are taken ahead.
func TestLeasedRemainingCountsDown(t *testing.T) {
	t.Parallel()
	l := sharing(t, 1, ratelimit.Options{})[0]
	for i := 1; i <= 200; i++ {
		d := l.Take(context.Background(), "k", 200)
		require.True(t, d.Allowed, "request %d", i)
		require.EqualValues(t, 200-i, d.Remaining, "request %d", i)
		require.InDelta(t, time.Now().Add(ratelimit.DefaultWindow).Unix(), d.Reset, 2)
	}
	require.False(t, l.Take(context.Background(), "k", 200).Allowed)
	require.Less(t, l.RoundTrips(), int64(200))
}

// TestLeasedWindowRollover: once the window ends, a new one starts with the
// whole limit, shared again.
func TestLeasedWindowRollover(t *testing.T) {
	t.Parallel()
	ls := sharing(t, 2, ratelimit.Options{Window: 1500 * time.Millisecond})
	got := hammer(ls, 2, "k", 300, func(int) int { return 1 })
	require.EqualValues(t, 300, got[0]+got[1])
	d := ls[0].Take(context.Background(), "k", 300)
	require.False(t, d.Allowed)
	time.Sleep(time.Until(time.Unix(d.Reset, 0)) + 100*time.Millisecond)

	next := ls[1].Take(context.Background(), "k", 300)
	require.True(t, next.Allowed, "a new window")
	require.Greater(t, next.Reset, d.Reset)
	got = hammer(ls, 2, "k", 300, func(int) int { return 1 })
	require.EqualValues(t, 299, got[0]+got[1], "the new window's limit, less the first request")
}

// TestLeasedOutageFailsOpen: with Redis gone, requests are served, those
// past the allowances held without limit headers; Redis is retried once a
// second, and counts again once back.
func TestLeasedOutageFailsOpen(t *testing.T) {
	t.Parallel()
	px, url := testdb.NewProxy(t, redisURL())
	l := sharing(t, 1, ratelimit.Options{RedisURL: url})[0]
	ctx := context.Background()
	require.True(t, l.Take(ctx, "k", 1000).Counted)

	px.Cut()
	start := time.Now()
	uncounted := 0
	for i := range 50 {
		d := l.Take(ctx, "k", 1000)
		require.True(t, d.Allowed, "request %d with Redis gone", i)
		if !d.Counted {
			uncounted++
		}
	}
	require.Positive(t, uncounted, "requests past the leases held are not counted")
	require.Less(t, time.Since(start), 2*time.Second, "an outage does not make every request wait")
	require.GreaterOrEqual(t, l.Failures(), int64(uncounted))

	px.Restore()
	require.Eventually(t, func() bool { return l.Take(ctx, "k", 1000).Counted }, 5*time.Second, 50*time.Millisecond)
}

// TestLeaseHeldDoesNotWaitForRedis: an instance that holds allowances
// spends them without waiting for Redis, even while Redis does not answer.
func TestLeaseHeldDoesNotWaitForRedis(t *testing.T) {
	t.Parallel()
	px, url := testdb.NewProxy(t, redisURL())
	l := sharing(t, 1, ratelimit.Options{RedisURL: url})[0]
	ctx := context.Background()
	for range 500 {
		require.True(t, l.Take(ctx, "k", 100000).Counted)
	}
	time.Sleep(50 * time.Millisecond) // the lease ahead lands
	trips := l.RoundTrips()

	px.Stall()
	for i := range 10 {
		start := time.Now()
		d := l.Take(ctx, "k", 100000)
		require.True(t, d.Counted, "request %d, from the lease held", i)
		require.Less(t, time.Since(start), 20*time.Millisecond, "request %d waited", i)
	}
	require.LessOrEqual(t, l.RoundTrips()-trips, int64(1), "at most the next lease, in the background")
}

// TestLeasedLimitChange: a key's new limit applies at once; what was leased
// under the old one is not spent, so the window admits at most the new
// limit.
func TestLeasedLimitChange(t *testing.T) {
	t.Parallel()
	l := sharing(t, 1, ratelimit.Options{})[0]
	ctx := context.Background()
	for range 3 {
		require.EqualValues(t, 1000, l.Take(ctx, "k", 1000).Limit)
	}
	admitted := 3
	for {
		d := l.Take(ctx, "k", 7)
		require.EqualValues(t, 7, d.Limit)
		if !d.Allowed {
			break
		}
		admitted++
	}
	// The lease taken ahead under the old limit stays counted in the window.
	require.LessOrEqual(t, admitted, 7, "not spent under the new limit")
}

// TestLeasedCountersSwept: the counters of keys whose window ended a window
// ago are dropped.
func TestLeasedCountersSwept(t *testing.T) {
	t.Parallel()
	l := sharing(t, 1, ratelimit.Options{Window: 200 * time.Millisecond})[0]
	ctx := context.Background()
	for i := range 10 {
		require.True(t, l.Take(ctx, fmt.Sprint("old-", i), 100).Allowed)
	}
	require.Equal(t, 10, l.Counters())
	time.Sleep(500 * time.Millisecond)
	require.True(t, l.Take(ctx, "new", 100).Allowed)
	require.Eventually(t, func() bool { return l.Counters() == 1 }, time.Second, 10*time.Millisecond)
	require.True(t, l.Take(ctx, "new", 100).Counted)
}

// TestClosingGivesBackUnspentLeases: an instance that shuts down returns
// the allowances it leased and did not spend, so another instance may
// spend the whole limit but what the first admitted.
func TestClosingGivesBackUnspentLeases(t *testing.T) {
	t.Parallel()
	const limit = 3200
	ls := sharing(t, 2, ratelimit.Options{})
	a, b := ls[0], ls[1]
	key := "pub:give-back"
	// Enough calls, spread out, for a to lease ahead of what it spends.
	admitted := 0
	for range 400 {
		if a.Take(context.Background(), key, limit).Allowed {
			admitted++
		}
		time.Sleep(100 * time.Microsecond)
	}
	require.Equal(t, 400, admitted)
	d := b.Take(context.Background(), key, limit)
	require.Less(t, d.Remaining, int64(limit-admitted-1), "a holds allowances it has not spent")
	tripsBefore := a.RoundTrips()
	require.NoError(t, a.Close())
	require.Equal(t, tripsBefore+1, a.RoundTrips(), "one round trip gives every lease back")

	got := hammer([]*ratelimit.Limiter{b}, 4, key, limit, func(int) int { return 1 })
	require.EqualValues(t, limit-admitted-1, got[0], "b spends all that a did not")
}

// TestIdleLeasesAreGivenBack: allowances instances leased ahead for a key
// are given back once the key has been idle on them, without shutting
// down: another instance may then spend the whole limit but what was
// admitted, and an instance that gave back counts right after (what it
// knew of the count in Redis drops by what it gave).
func TestIdleLeasesAreGivenBack(t *testing.T) {
	t.Parallel()
	const limit = 3200
	const idle = 50 * time.Millisecond
	ls := sharing(t, 2, ratelimit.IdleAfter(ratelimit.Options{}, idle))
	a, b := ls[0], ls[1]
	key := "pub:idle-give-back"
	ctx := context.Background()
	admitted := 0
	for range 400 {
		if a.Take(ctx, key, limit).Allowed {
			admitted++
		}
		time.Sleep(100 * time.Microsecond)
	}
	require.Equal(t, 400, admitted)
	d := b.Take(ctx, key, limit)
	require.Less(t, d.Remaining, int64(limit-admitted-1), "a holds allowances it has not spent")

	// Both idle: what they hold goes back, and a's next take asks Redis,
	// which counts what was spent only (a's 400, b's 1, this one).
	time.Sleep(10 * idle)
	require.EqualValues(t, limit-admitted-2, a.Take(ctx, key, limit).Remaining)

	time.Sleep(10 * idle)
	got := hammer([]*ratelimit.Limiter{b}, 4, key, limit, func(int) int { return 1 })
	require.EqualValues(t, limit-admitted-2, got[0], "b spends all that a did not")
	require.False(t, a.Take(ctx, key, limit).Allowed, "the window is spent")
}
