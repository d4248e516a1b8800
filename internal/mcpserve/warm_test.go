package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
)

// warmDesign is a design of n tools, each with a condition and a fallback.
func warmDesign(id uuid.UUID, n int) design.Design {
	d := design.Design{Server: design.Server{ID: id, OrgID: uuid.New(), Name: "W", Version: "1", ProtocolVersion: "2025-06-18"}}
	for i := range n {
		d.Tools = append(d.Tools, design.Tool{Name: fmt.Sprintf("tool_%d", i),
			InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
			Scenarios: []design.Scenario{
				{Name: "oslo", Condition: json.RawMessage(`{"city":"Oslo"}`), Response: json.RawMessage(`{"forecast":"snow"}`)},
				{Name: "any", Response: json.RawMessage(`{"forecast":"sun"}`)},
			}})
	}
	return d
}

// warmingCache is a listening cache of compiled designs of tools tools
// each, warming within budget.
func warmingCache(t *testing.T, budget, tools int) *cache {
	t.Helper()
	c := listeningCache(1000, 1<<30, func(_ context.Context, id uuid.UUID) (*compiled, error) {
		return compile(warmDesign(id, tools))
	})
	c.warmBudget = budget
	return c
}

// warmIdle waits until no goroutine warms designs.
func warmIdle(t *testing.T, c *cache) {
	t.Helper()
	require.Eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return !c.warming
	}, 10*time.Second, time.Millisecond)
}

// compiledTools counts the tools of d whose scenarios and input schema are
// compiled. The caller has synchronized with the warming (warmIdle).
func compiledTools(d *compiled) int {
	n := 0
	for _, t := range d.tools {
		if t.play != nil && t.input != nil {
			n++
		}
	}
	return n
}

func TestCacheWarmsTheToolsOfADesignEnteringIt(t *testing.T) {
	c := warmingCache(t, 1<<20, 3)
	d, err := c.get(context.Background(), uuid.New())
	require.NoError(t, err)
	warmIdle(t, c)
	require.Equal(t, 3, compiledTools(d), "every tool compiled before its first call")
	s := c.snapshot()
	require.EqualValues(t, 3, s.WarmedTools)
	require.Greater(t, s.Bytes, d.size, "what warming compiled counts for the design")
	require.Equal(t, s.Bytes-d.size, c.warmed)

	// The first call finds the tool compiled: it compiles nothing more.
	tl := d.tools["tool_0"]
	play, err := tl.playing(d)
	require.NoError(t, err)
	require.Same(t, tl.play, play)
	require.Equal(t, s.Bytes, c.snapshot().Bytes)

	c.invalidate(d.id)
	require.Zero(t, c.warmed, "a design leaving the cache gives its warm bytes back")
}

func TestCacheWarmsNothingWithoutABudget(t *testing.T) {
	c := warmingCache(t, 0, 3)
	d, err := c.get(context.Background(), uuid.New())
	require.NoError(t, err)
	warmIdle(t, c)
	require.Zero(t, compiledTools(d))
	require.Zero(t, c.snapshot().WarmedTools)
}

func TestCacheWarmingIsOneGoroutineAndNeverBlocksTheRequest(t *testing.T) {
	c := warmingCache(t, 1<<30, 2)
	gate := make(chan struct{})
	var running, most atomic.Int32
	c.warmHook = func(uuid.UUID) {
		n := running.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-gate
		running.Add(-1)
	}
	const designs = maxWarmQueue + 50
	var wg sync.WaitGroup
	for range designs {
		wg.Go(func() {
			_, err := c.get(context.Background(), uuid.New())
			require.NoError(t, err)
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done: // every request answered while the warming waits
	case <-time.After(10 * time.Second):
		t.Fatal("requests waited for the warming")
	}
	c.mu.Lock()
	queued, skipped := len(c.warmQueue), c.counts.WarmSkipped
	c.mu.Unlock()
	require.LessOrEqual(t, queued, maxWarmQueue, "the queue is bounded")
	require.GreaterOrEqual(t, skipped, uint64(designs-maxWarmQueue-1), "designs past the queue are left to their first calls")

	close(gate)
	warmIdle(t, c)
	require.EqualValues(t, 1, most.Load(), "one goroutine warms")
	require.EqualValues(t, 2*(designs-int(skipped)), c.snapshot().WarmedTools)
	require.Eventually(t, func() bool { return !goroutineRuns("(*cache).warmLoop") }, 5*time.Second, time.Millisecond,
		"the warming goroutine ends with its queue")
}

func TestCacheStopsWarmingADesignThatLeftIt(t *testing.T) {
	c := warmingCache(t, 1<<30, 4)
	entered, gate := make(chan struct{}), make(chan struct{})
	var first atomic.Bool
	c.warmHook = func(uuid.UUID) {
		if first.CompareAndSwap(false, true) {
			close(entered)
			<-gate
		}
	}
	d, err := c.get(context.Background(), uuid.New())
	require.NoError(t, err)
	<-entered
	c.invalidate(d.id) // while its first tool is being warmed
	close(gate)
	warmIdle(t, c)
	require.Equal(t, 1, compiledTools(d), "no tool warmed after the design left")
	require.Zero(t, c.warmed, "nothing counted for a design no longer cached")
}

func TestCacheWarmBudgetBoundsWhatWarmingAdds(t *testing.T) {
	c := warmingCache(t, 1, 4) // one byte: one tool, then the budget is spent
	a, err := c.get(context.Background(), uuid.New())
	require.NoError(t, err)
	warmIdle(t, c)
	require.Equal(t, 1, compiledTools(a))
	b, err := c.get(context.Background(), uuid.New())
	require.NoError(t, err)
	warmIdle(t, c)
	require.Zero(t, compiledTools(b), "the budget is spent")
	require.EqualValues(t, 1, c.snapshot().WarmSkipped)

	c.invalidate(a.id)
	d, err := c.get(context.Background(), uuid.New())
	require.NoError(t, err)
	warmIdle(t, c)
	require.Equal(t, 1, compiledTools(d), "a design leaving the cache frees its share of the budget")
}

// goroutineRuns reports whether a goroutine's stack names fn.
func goroutineRuns(fn string) bool {
	var b strings.Builder
	_ = pprof.Lookup("goroutine").WriteTo(&b, 2)
	return strings.Contains(b.String(), fn)
}
