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

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/testclock"
)

// fakeLoads counts loads per id and returns designs of a given size; ids in
// missing serve nothing.
type fakeLoads struct {
	mu      sync.Mutex
	count   map[uuid.UUID]int
	missing map[uuid.UUID]bool
	size    int
	gate    chan struct{} // when set, loads wait on it
	down    bool          // when set, loads fail as with the database out
}

func (f *fakeLoads) load(_ context.Context, id uuid.UUID) (*compiled, error) {
	if f.gate != nil {
		<-f.gate
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.count == nil {
		f.count = map[uuid.UUID]int{}
	}
	f.count[id]++
	if f.down {
		return nil, failure.Unavailable(errors.New("connection refused"))
	}
	if f.missing[id] {
		return nil, failure.NotFound("server")
	}
	return &compiled{core: &core{id: id}, size: f.size}, nil
}

func (f *fakeLoads) set(change func(*fakeLoads)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
}

// listeningCache is a cache that receives change notifications, as it does
// once Handler.Listen has subscribed.
func listeningCache(maxEntries, maxBytes int, load func(context.Context, uuid.UUID) (*compiled, error)) *cache {
	c := newCache(maxEntries, maxBytes, 0, load)
	c.live()
	return c
}

func (f *fakeLoads) loads(id uuid.UUID) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.count[id]
}

func TestCacheLoadsOnceAndServesWarm(t *testing.T) {
	f := &fakeLoads{size: 100}
	c := listeningCache(10, 1<<20, f.load)
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
	c := listeningCache(10, 1<<20, f.load)
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
	c := listeningCache(10, 1<<20, f.load)
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
	c := listeningCache(3, 1<<20, f.load)
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

	byBytes := listeningCache(100, 2500, f.load)
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
	c := listeningCache(10, 1<<20, f.load)
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
	c := listeningCache(10, 1<<20, func(context.Context, uuid.UUID) (*compiled, error) {
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

// staleCache is a listening cache on a settable clock, with one design
// cached (of size 1) for id.
func staleCache(t *testing.T, staleMax time.Duration) (*cache, *fakeLoads, *testclock.Clock, uuid.UUID) {
	t.Helper()
	f := &fakeLoads{size: 1}
	k := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := newCache(10, 1<<20, staleMax, f.load)
	c.now = k.Now
	c.live()
	id := uuid.New()
	d, err := c.get(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, 1, d.size)
	return c, f, k, id
}

// size reads the version (size) of the design the cache serves for id.
func servedSize(t *testing.T, c *cache, id uuid.UUID) int {
	t.Helper()
	d, err := c.get(context.Background(), id)
	require.NoError(t, err)
	return d.size
}

func TestCacheServesStaleWhileTheDatabaseIsOut(t *testing.T) {
	c, f, k, id := staleCache(t, time.Minute)
	f.set(func(f *fakeLoads) { f.down, f.size = true, 2 })
	c.lost()
	require.Equal(t, 1, servedSize(t, c, id), "the stale copy is served")
	require.Eventually(t, func() bool { return f.loads(id) == 2 }, 5*time.Second, 5*time.Millisecond,
		"serving a stale entry starts its revalidation")

	// The reload failed for an outage: the stale copy stays, and is not
	// retried at every request.
	for range 10 {
		require.Equal(t, 1, servedSize(t, c, id))
	}
	require.Equal(t, 2, f.loads(id))
	k.Advance(30 * time.Second)
	require.Eventually(t, func() bool { return servedSize(t, c, id) == 1 && f.loads(id) == 3 }, 5*time.Second, 5*time.Millisecond,
		"a second later it is tried again")
	n, _ := c.stats()
	require.Equal(t, 1, n)
}

func TestCacheStaleBoundExceededIsNotServed(t *testing.T) {
	c, f, k, id := staleCache(t, time.Minute)
	f.set(func(f *fakeLoads) { f.down = true })
	c.lost()
	k.Advance(time.Minute)
	require.Equal(t, 1, servedSize(t, c, id), "within the bound")
	k.Advance(time.Second)
	_, err := c.get(context.Background(), id)
	require.True(t, failure.Is(err, failure.ErrUnavailable), "past the bound: %v", err)

	// Once the database answers, the design is loaded and served again.
	f.set(func(f *fakeLoads) { f.down, f.size = false, 2 })
	k.Advance(retryInterval)
	require.Equal(t, 2, servedSize(t, c, id))
}

func TestCacheRevalidatesEveryEntryOnReconnect(t *testing.T) {
	c, f, _, id := staleCache(t, time.Minute)
	// While notifications arrive, a cached design is served without loads.
	for range 5 {
		require.Equal(t, 1, servedSize(t, c, id))
	}
	require.Equal(t, 1, f.loads(id))

	// The design changes while notifications are lost: the change is never
	// announced, so the reconnect must revalidate.
	c.lost()
	f.set(func(f *fakeLoads) { f.size = 2 })
	c.live()
	require.Equal(t, 1, servedSize(t, c, id), "the stale copy answers while it is revalidated")
	require.Eventually(t, func() bool { return servedSize(t, c, id) == 2 }, 5*time.Second, 5*time.Millisecond)
	require.Equal(t, 2, f.loads(id))
	for range 5 {
		require.Equal(t, 2, servedSize(t, c, id))
	}
	require.Equal(t, 2, f.loads(id), "the revalidated entry is fresh again")
}

func TestCacheRevalidationDropsAServerGone(t *testing.T) {
	c, f, _, id := staleCache(t, time.Minute)
	c.lost()
	f.set(func(f *fakeLoads) { f.missing = map[uuid.UUID]bool{id: true} }) // deleted or disabled meanwhile
	c.live()
	require.Eventually(t, func() bool {
		_, err := c.get(context.Background(), id)
		return failure.Is(err, failure.ErrNotFound)
	}, 5*time.Second, 5*time.Millisecond)
}

func TestCacheMissWhileTheDatabaseIsOut(t *testing.T) {
	c, f, k, _ := staleCache(t, time.Minute)
	f.set(func(f *fakeLoads) { f.down = true })
	c.lost()
	id := uuid.New()
	for range 3 {
		_, err := c.get(context.Background(), id)
		require.True(t, failure.Is(err, failure.ErrUnavailable), "%v", err)
	}
	require.Equal(t, 1, f.loads(id), "an unreachable database is not asked again within a second")
	k.Advance(retryInterval)
	_, err := c.get(context.Background(), id)
	require.True(t, failure.Is(err, failure.ErrUnavailable))
	require.Equal(t, 2, f.loads(id))
}

func TestCacheLoadedWithoutNotificationsIsRevalidated(t *testing.T) {
	f := &fakeLoads{size: 1}
	k := testclock.New(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	c := newCache(10, 1<<20, time.Minute, f.load)
	c.now = k.Now // never live: notifications are not (yet) received
	id := uuid.New()
	require.Equal(t, 1, servedSize(t, c, id))
	require.Equal(t, 1, servedSize(t, c, id))
	require.Equal(t, 1, f.loads(id))
	f.set(func(f *fakeLoads) { f.size = 2 })
	k.Advance(retryInterval)
	require.Equal(t, 1, servedSize(t, c, id))
	require.Eventually(t, func() bool { return servedSize(t, c, id) == 2 }, 5*time.Second, 5*time.Millisecond,
		"a copy nothing would invalidate is reloaded from time to time")
}

// TestCacheCountsTheModernFormOnceBuilt: the form served to modern requests
// is built on the first one, and only then do its bytes count against the
// cache's budget; they go with the entry.
func TestCacheCountsTheModernFormOnceBuilt(t *testing.T) {
	d := design.Design{
		Server: design.Server{ID: uuid.New(), OrgID: uuid.New(), Name: "W", Version: "1", ProtocolVersion: "2024-11-05",
			Eras: design.ErasModernAndLegacy, CacheScope: design.CacheScopePrivate, CacheTTLMs: 1000},
		Tools: []design.Tool{{Name: "t", InputSchema: []byte(`{"type":"object"}`),
			Scenarios: []design.Scenario{{Name: "s", Response: []byte(`{"ok":true}`)}}}},
	}
	reloads, down := 0, true
	load := func(context.Context, uuid.UUID) (*compiled, error) {
		c, err := compile(d)
		require.True(t, c.needsReload(), "a 2024-11-05 design's answers are shaped apart")
		c.modern.reload = func(context.Context) (design.Design, error) {
			reloads++
			if down {
				return design.Design{}, failure.Unavailable(errors.New("connection refused"))
			}
			return d, nil
		}
		return c, err
	}
	c := listeningCache(10, 1<<20, load)
	got, err := c.get(context.Background(), d.Server.ID)
	require.NoError(t, err)
	_, before := c.stats()
	require.Equal(t, got.size, before)

	_, err = got.forModern(context.Background())
	require.True(t, failure.Is(err, failure.ErrUnavailable), "the design could not be read again: %v", err)
	down = false
	m, err := got.forModern(context.Background())
	require.NoError(t, err, "a failed build is tried again")
	require.Equal(t, 2, reloads)
	require.Positive(t, m.size)
	_, after := c.stats()
	require.Equal(t, before+m.size, after, "the modern form counts once built")
	_, err = got.forModern(context.Background())
	require.NoError(t, err)
	require.Equal(t, 2, reloads, "built once")
	_, again := c.stats()
	require.Equal(t, after, again, "built once, counted once")

	c.invalidate(d.Server.ID)
	n, bytes := c.stats()
	require.Zero(t, n)
	require.Zero(t, bytes, "the entry's bytes go with it, the modern form's too")
}
