package mcpserve

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// fakeLoads counts loads per id and returns designs of a given size; ids in
// missing serve nothing.
type fakeLoads struct {
	mu      sync.Mutex
	count   map[uuid.UUID]int
	missing map[uuid.UUID]bool
	size    int
	gate    chan struct{} // when set, loads wait on it
}

func (f *fakeLoads) load(_ context.Context, id uuid.UUID) (*design, error) {
	if f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.count == nil {
		f.count = map[uuid.UUID]int{}
	}
	f.count[id]++
	if f.missing[id] {
		return nil, failure.NotFound("server")
	}
	return &design{id: id, size: f.size}, nil
}

func (f *fakeLoads) loads(id uuid.UUID) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count[id]
}

func TestCacheLoadsOnceAndServesWarm(t *testing.T) {
	f := &fakeLoads{size: 100}
	c := newCache(10, 1<<20, f.load)
	id := uuid.New()
	for range 5 {
		d, err := c.get(context.Background(), id)
		require.NoError(t, err)
		require.Equal(t, id, d.id)
	}
	require.Equal(t, 1, f.loads(id))
}

func TestCacheRemembersWhatServesNothing(t *testing.T) {
	id := uuid.New()
	f := &fakeLoads{missing: map[uuid.UUID]bool{id: true}}
	c := newCache(10, 1<<20, f.load)
	for range 3 {
		_, err := c.get(context.Background(), id)
		require.True(t, failure.Is(err, failure.ErrNotFound))
	}
	require.Equal(t, 1, f.loads(id), "a flood of requests for an unknown id reaches the database once")

	// Enabling the server invalidates the remembered miss.
	f.mu.Lock()
	delete(f.missing, id)
	f.mu.Unlock()
	c.invalidate(id)
	d, err := c.get(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, id, d.id)
}

func TestCacheConcurrentFirstRequestsLoadOnce(t *testing.T) {
	f := &fakeLoads{gate: make(chan struct{})}
	c := newCache(10, 1<<20, f.load)
	id := uuid.New()
	var wg sync.WaitGroup
	var ok atomic.Int32
	for range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.get(context.Background(), id); err == nil {
				ok.Add(1)
			}
		}()
	}
	time.Sleep(50 * time.Millisecond) // let them all queue on the one load
	close(f.gate)
	wg.Wait()
	require.Equal(t, int32(50), ok.Load())
	require.Equal(t, 1, f.loads(id))
}

func TestCacheBoundsEntriesAndBytes(t *testing.T) {
	f := &fakeLoads{size: 1000}
	c := newCache(3, 1<<20, f.load)
	ids := []uuid.UUID{uuid.New(), uuid.New(), uuid.New(), uuid.New()}
	for _, id := range ids {
		_, err := c.get(context.Background(), id)
		require.NoError(t, err)
	}
	n, _ := c.stats()
	require.Equal(t, 3, n)
	_, err := c.get(context.Background(), ids[0]) // evicted, least recently used
	require.NoError(t, err)
	require.Equal(t, 2, f.loads(ids[0]))
	require.Equal(t, 1, f.loads(ids[3]), "the most recent stays")

	byBytes := newCache(100, 2500, f.load)
	for range 5 {
		_, err := byBytes.get(context.Background(), uuid.New())
		require.NoError(t, err)
	}
	n, size := byBytes.stats()
	require.Equal(t, 2, n)
	require.LessOrEqual(t, size, 2500)
}

func TestCacheInvalidationDuringLoadIsNotUndone(t *testing.T) {
	f := &fakeLoads{gate: make(chan struct{})}
	c := newCache(10, 1<<20, f.load)
	id := uuid.New()
	done := make(chan error)
	go func() {
		_, err := c.get(context.Background(), id)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	// A change lands while the (now stale) load is in flight.
	c.invalidate(id)
	close(f.gate)
	require.NoError(t, <-done)
	n, _ := c.stats()
	require.Equal(t, 0, n, "the stale result is used once but not kept")
	_, err := c.get(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, 2, f.loads(id))
}

func TestCacheLoadErrorsAreNotCached(t *testing.T) {
	calls := 0
	c := newCache(10, 1<<20, func(context.Context, uuid.UUID) (*design, error) {
		calls++
		return nil, errors.New("database down")
	})
	id := uuid.New()
	_, err := c.get(context.Background(), id)
	require.ErrorContains(t, err, "database down")
	_, err = c.get(context.Background(), id)
	require.Error(t, err)
	require.Equal(t, 2, calls)
}

func TestCacheFlush(t *testing.T) {
	f := &fakeLoads{size: 10}
	c := newCache(10, 1<<20, f.load)
	id := uuid.New()
	_, err := c.get(context.Background(), id)
	require.NoError(t, err)
	c.flush()
	n, size := c.stats()
	require.Zero(t, n)
	require.Zero(t, size)
	_, err = c.get(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, 2, f.loads(id))
}
