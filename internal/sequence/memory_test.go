package sequence_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/sequence"
	"github.com/mockmcp/mockmcp/internal/testclock"
)

func TestMemoryForgetsIdleCounters(t *testing.T) {
	t.Parallel()
	clk := testclock.New(time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC))
	m := sequence.NewMemory(sequence.MemoryOptions{TTL: time.Hour, Now: clk.Now})
	busy, idle := uuid.New(), uuid.New()
	calls(t, m, busy, "flaky", "k", 2)
	calls(t, m, idle, "flaky", "k", 2)

	clk.Advance(59 * time.Minute)
	require.Equal(t, int64(2), next(t, m, busy, "flaky", "k"), "a call within the TTL keeps the count and renews it")
	clk.Advance(59 * time.Minute)
	require.Equal(t, int64(3), next(t, m, busy, "flaky", "k"), "still within the TTL of the last call")
	require.Equal(t, 1, m.Len(), "the idle pair expired and was dropped")
	require.Equal(t, int64(0), next(t, m, idle, "flaky", "k"), "the idle pair starts over")

	clk.Advance(time.Hour)
	require.Equal(t, int64(0), next(t, m, busy, "flaky", "k"), "exactly a TTL after the last call")
}

func TestMemoryIsBounded(t *testing.T) {
	t.Parallel()
	m := sequence.NewMemory(sequence.MemoryOptions{MaxEntries: 3})
	server := uuid.New()
	for _, key := range []string{"a", "b", "c"} {
		calls(t, m, server, "flaky", key, 2)
	}
	require.Equal(t, int64(2), next(t, m, server, "flaky", "a"), "a is now the most recently called")
	require.Equal(t, int64(0), next(t, m, uuid.New(), "flaky", "d"), "a fourth pair")
	require.Equal(t, 3, m.Len())
	require.Equal(t, int64(0), next(t, m, server, "flaky", "b"), "b, called least recently, was forgotten")
	require.Equal(t, int64(3), next(t, m, server, "flaky", "a"))
	require.Equal(t, 3, m.Len())

	for i := range 100 {
		next(t, m, uuid.New(), "flaky", strconv.Itoa(i))
	}
	require.Equal(t, 3, m.Len())
}

func TestMemoryResetFreesEntries(t *testing.T) {
	t.Parallel()
	m := sequence.NewMemory(sequence.MemoryOptions{})
	s1, s2 := uuid.New(), uuid.New()
	for _, key := range []string{"a", "b", "c"} {
		next(t, m, s1, "flaky", key)
	}
	next(t, m, s2, "flaky", "a")
	require.Equal(t, 4, m.Len())
	require.NoError(t, m.Reset(context.Background(), s1, "b"))
	require.Equal(t, 3, m.Len())
	require.NoError(t, m.Reset(context.Background(), s1, ""))
	require.Equal(t, 1, m.Len())
}

func TestMemoryNextDoesNotAllocate(t *testing.T) {
	m := sequence.NewMemory(sequence.MemoryOptions{})
	server, ctx := uuid.New(), context.Background()
	_, _ = m.Next(ctx, server, "flaky", "10.0.0.1")
	allocs := testing.AllocsPerRun(1000, func() {
		_, _ = m.Next(ctx, server, "flaky", "10.0.0.1")
	})
	require.Zero(t, allocs, "Next on a pair already held")
}

func BenchmarkMemoryNext(b *testing.B) {
	m := sequence.NewMemory(sequence.MemoryOptions{})
	server, ctx := uuid.New(), context.Background()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, _ = m.Next(ctx, server, "flaky", "10.0.0.1")
		}
	})
}
