package sequence_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/sequence"
)

var (
	_ mcpserve.Sequencer = (*sequence.Memory)(nil)
	_ mcpserve.Sequencer = (*sequence.Redis)(nil)
)

// stores returns a fresh, empty store of each kind; the contract tests run
// against each.
func stores(t *testing.T) map[string]mcpserve.Sequencer {
	t.Helper()
	return map[string]mcpserve.Sequencer{
		"memory": sequence.NewMemory(sequence.MemoryOptions{}),
		"redis":  newRedis(t, sequence.RedisOptions{}),
	}
}

// forEachStore runs test against each kind of store, as parallel subtests.
func forEachStore(t *testing.T, test func(t *testing.T, s mcpserve.Sequencer)) {
	t.Helper()
	for name, s := range stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, s)
		})
	}
}

// next calls s.Next, requiring it to succeed.
func next(t *testing.T, s mcpserve.Sequencer, server uuid.UUID, scenario, key string) int64 {
	t.Helper()
	n, err := s.Next(context.Background(), server, scenario, key)
	require.NoError(t, err)
	return n
}

// calls calls s.Next times times and returns what each answered.
func calls(t *testing.T, s mcpserve.Sequencer, server uuid.UUID, scenario, key string, times int) []int64 {
	t.Helper()
	out := make([]int64, times)
	for i := range out {
		out[i] = next(t, s, server, scenario, key)
	}
	return out
}

func TestCountsCalls(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s mcpserve.Sequencer) {
		require.Equal(t, []int64{0, 1, 2, 3}, calls(t, s, uuid.New(), "flaky", "10.0.0.1", 4))
	})
}

func TestCountersAreIndependent(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s mcpserve.Sequencer) {
		s1, s2 := uuid.New(), uuid.New()
		require.Equal(t, []int64{0, 1, 2}, calls(t, s, s1, "flaky", "alice", 3))
		for _, tc := range []struct {
			name           string
			server         uuid.UUID
			scenario, key  string
			alreadyCounted int64
		}{
			{"another key", s1, "flaky", "bob", 0},
			{"another scenario", s1, "steady", "alice", 0},
			{"another server", s2, "flaky", "alice", 0},
			{"a key that extends another", s1, "flaky", "alice2", 0},
			{"the same counter", s1, "flaky", "alice", 3},
		} {
			require.Equal(t, tc.alreadyCounted, next(t, s, tc.server, tc.scenario, tc.key), tc.name)
		}
	})
}

func TestResetOneKey(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s mcpserve.Sequencer) {
		ctx := context.Background()
		s1, s2 := uuid.New(), uuid.New()
		for _, key := range []string{"alice", "bob"} {
			calls(t, s, s1, "flaky", key, 2)
			calls(t, s, s1, "steady", key, 2)
			calls(t, s, s2, "flaky", key, 2)
		}
		require.NoError(t, s.Reset(ctx, s1, "alice"))
		require.Equal(t, int64(0), next(t, s, s1, "flaky", "alice"), "alice's counters start over")
		require.Equal(t, int64(0), next(t, s, s1, "steady", "alice"), "in every scenario")
		require.Equal(t, int64(2), next(t, s, s1, "flaky", "bob"), "bob's are kept")
		require.Equal(t, int64(2), next(t, s, s2, "flaky", "alice"), "alice's on another server are kept")
		require.NoError(t, s.Reset(ctx, s1, "nobody"), "resetting a key never counted is no error")
		require.NoError(t, s.Reset(ctx, uuid.New(), ""), "nor is resetting a server never called")
	})
}

func TestResetAllKeys(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s mcpserve.Sequencer) {
		s1, s2 := uuid.New(), uuid.New()
		keys := []string{"alice", "bob", "", strings.Repeat("k", 300)}
		for _, key := range keys {
			calls(t, s, s1, "flaky", key, 2)
			calls(t, s, s2, "flaky", key, 2)
		}
		require.NoError(t, s.Reset(context.Background(), s1, ""))
		for _, key := range keys {
			require.Equal(t, int64(0), next(t, s, s1, "flaky", key), "key %.10q of the reset server", key)
			require.Equal(t, int64(2), next(t, s, s2, "flaky", key), "key %.10q of the other server", key)
		}
	})
}

func TestLongKeys(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s mcpserve.Sequencer) {
		server := uuid.New()
		long := strings.Repeat("x", sequence.MaxKeyBytes)
		longer, other := long+"1", long+"2" // the same first 200 bytes
		require.Equal(t, []int64{0, 1}, calls(t, s, server, "flaky", long, 2))
		require.Equal(t, []int64{0, 1, 2}, calls(t, s, server, "flaky", longer, 3))
		require.Equal(t, []int64{0}, calls(t, s, server, "flaky", other, 1), "keys are hashed, not cut short")
		require.NoError(t, s.Reset(context.Background(), server, longer))
		require.Equal(t, int64(0), next(t, s, server, "flaky", longer), "a long key resets")
		require.Equal(t, int64(1), next(t, s, server, "flaky", other))
		require.Equal(t, int64(2), next(t, s, server, "flaky", long))
	})
}

func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, s mcpserve.Sequencer) {
		const goroutines, each = 100, 10
		server := uuid.New()
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			seen = make(map[int64]int)
			errs = make(chan error, goroutines*each)
		)
		for range goroutines {
			wg.Go(func() {
				for range each {
					n, err := s.Next(context.Background(), server, "flaky", "shared")
					if err != nil {
						errs <- err
						continue
					}
					mu.Lock()
					seen[n]++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		require.Len(t, seen, goroutines*each, "every call got a value of its own")
		for i := range int64(goroutines * each) {
			require.Equal(t, 1, seen[i], "value %d", i)
		}
		require.Equal(t, int64(goroutines*each), next(t, s, server, "flaky", "shared"))
	})
}
