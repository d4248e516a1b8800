package mcpserve

import (
	"container/list"
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/singleflight"

	"github.com/mockmcp/mockmcp/internal/failure"
)

const (
	// defaultStaleMax bounds how long a design that could not be
	// revalidated is still served.
	defaultStaleMax = 5 * time.Minute
	// retryInterval spaces the attempts to reach a database that did not
	// answer: one revalidation per entry, and no load at all for a second
	// after one found the database unreachable.
	retryInterval = time.Second
	// loadTimeout bounds one load of a design.
	loadTimeout = 10 * time.Second
)

// cache holds compiled designs, most recently used first, within a bound on
// both their number and their approximate size. It also remembers ids that
// serve nothing (unknown or draft), so a flood of requests for them does not
// reach the database. Concurrent first requests for one server load it once.
//
// An entry is fresh while the cache receives change notifications: one
// drops it when its design changes. While notifications may be missed (the
// listening connection is lost, or not yet back) every entry is stale: it
// is still served, for at most staleMax since it was last known current,
// and reloaded in the background on use; a reload that cannot reach the
// database keeps the stale copy, one that finds the server gone drops it.
type cache struct {
	load     func(context.Context, uuid.UUID) (*compiled, error)
	staleMax time.Duration
	now      func() time.Time

	mu         sync.Mutex
	items      map[uuid.UUID]*list.Element
	order      *list.List // of *cacheEntry, front = most recent
	bytes      int
	maxEntries int
	maxBytes   int
	// epoch counts invalidations and changes of listening; a load that
	// started before one may have read an old design, so its result is used
	// once but not kept.
	epoch uint64
	// listening is true while change notifications arrive; entries loaded
	// meanwhile are fresh.
	listening bool
	// lostAt is when listening last turned false.
	lostAt time.Time
	// downUntil: a load found the database unreachable; until then requests
	// that would load are refused at once instead of waiting on it.
	downUntil time.Time

	flight singleflight.Group

	// warmBudget bounds the bytes warming (warm.go) adds to the designs
	// cached, warmed; 0 warms nothing. warmQueue holds the entries to warm,
	// warming is true while the goroutine warming them runs. warmHook,
	// when set (tests), runs before each tool is warmed.
	warmBudget int
	warmed     int
	warmQueue  []*cacheEntry
	warming    bool
	warmHook   func(id uuid.UUID)

	// counts, read by Handler.CacheCounts; kept under mu, which every path that
	// changes them holds already.
	counts CacheCounts
}

// CacheCounts counts what the design cache did since the Handler was built,
// and holds its size now.
type CacheCounts struct {
	// Hits are requests answered from a cached entry (a design, or an id
	// known to serve nothing); Misses had to wait for a load.
	Hits, Misses uint64
	// Loads are designs read from the database (one for all concurrent
	// misses of a server, and background revalidations).
	Loads uint64
	// Evictions are entries dropped to stay within the bounds.
	Evictions uint64
	// WarmedTools are tools compiled in the background when their design
	// entered the cache; WarmSkipped are designs not warmed because the
	// queue or the warm budget was full.
	WarmedTools, WarmSkipped uint64
	// Entries and Bytes are the entries cached now and their approximate
	// size.
	Entries, Bytes int
}

type cacheEntry struct {
	id uuid.UUID
	d  *compiled // nil: the id serves nothing
	// charged is the bytes counted for it in cache.bytes; warmed, those of
	// them warming added.
	charged int
	warmed  int

	stale        bool      // notifications may have been missed since staleSince
	staleSince   time.Time // when the design was last known current
	revalidating bool      // a background reload is under way
	triedAt      time.Time // the last reload started
}

func newCache(maxEntries, maxBytes int, staleMax time.Duration, load func(context.Context, uuid.UUID) (*compiled, error)) *cache {
	if staleMax <= 0 {
		staleMax = defaultStaleMax
	}
	return &cache{load: load, staleMax: staleMax, now: time.Now, items: map[uuid.UUID]*list.Element{}, order: list.New(),
		maxEntries: maxEntries, maxBytes: maxBytes}
}

// get returns the compiled design of an enabled server, a not-found
// failure when the id serves nothing, or an unavailable failure when the
// design is not cached (or stale past the bound) and the database cannot
// be reached.
func (c *cache) get(ctx context.Context, id uuid.UUID) (*compiled, error) {
	c.mu.Lock()
	if el, ok := c.items[id]; ok {
		c.order.MoveToFront(el)
		e := el.Value.(*cacheEntry)
		if !e.stale || c.serveStale(e) {
			d := e.d
			c.counts.Hits++
			c.mu.Unlock()
			if d == nil {
				return nil, errNotServed
			}
			return d, nil
		}
	}
	c.counts.Misses++
	c.mu.Unlock()

	return c.loadNow(ctx, id)
}

var (
	errNotServed   = failure.NotFound("server")
	errUnreachable = failure.Unavailable(nil)
)

// serveStale reports whether the stale entry e may still be served, and
// starts its revalidation when none is under way and the last attempt is
// old enough. c.mu is held.
func (c *cache) serveStale(e *cacheEntry) bool {
	now := c.now()
	if now.Sub(e.staleSince) > c.staleMax {
		return false
	}
	if !e.revalidating && now.Sub(e.triedAt) >= retryInterval && !now.Before(c.downUntil) {
		e.revalidating, e.triedAt = true, now
		go func() {
			<-c.fetch(context.Background(), e.id)
			c.mu.Lock()
			e.revalidating = false
			c.mu.Unlock()
		}()
	}
	return true
}

// loadNow loads the design for a request that has nothing to serve.
func (c *cache) loadNow(ctx context.Context, id uuid.UUID) (*compiled, error) {
	c.mu.Lock()
	down := c.now().Before(c.downUntil)
	c.mu.Unlock()
	if down {
		return nil, errUnreachable
	}
	var res singleflight.Result
	select {
	case res = <-c.fetch(ctx, id):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if res.Err != nil {
		return nil, res.Err
	}
	d, _ := res.Val.(*compiled)
	if d == nil {
		return nil, errNotServed
	}
	return d, nil
}

// fetch loads the design of id once for every concurrent caller and keeps
// the result: a design, or a miss when the server is gone or disabled. A
// load that fails otherwise leaves the cache as it was (a stale entry stays).
func (c *cache) fetch(ctx context.Context, id uuid.UUID) <-chan singleflight.Result {
	return c.flight.DoChan(id.String(), func() (any, error) {
		c.mu.Lock()
		epoch := c.epoch
		c.counts.Loads++
		c.mu.Unlock()
		start := c.now()
		// The load belongs to no single caller: one caller going away must
		// not fail the others waiting on it.
		lctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), loadTimeout)
		defer cancel()
		d, err := c.load(lctx, id)
		if err != nil && !failure.Is(err, failure.ErrNotFound) {
			if failure.Is(err, failure.ErrUnavailable) {
				c.mu.Lock()
				c.downUntil = c.now().Add(retryInterval)
				c.mu.Unlock()
			}
			return nil, err
		}
		c.put(id, d, start, epoch)
		return d, nil
	})
}

// put keeps the result of a load that started at start, unless an
// invalidation or a change of listening came meanwhile.
func (c *cache) put(id uuid.UUID, d *compiled, start time.Time, epoch uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.downUntil = time.Time{}
	if epoch != c.epoch {
		return
	}
	if el, ok := c.items[id]; ok {
		c.remove(el)
	}
	e := &cacheEntry{id: id, d: d, charged: entrySize(d)}
	if d != nil {
		// The form served to modern requests is built on the first one:
		// its bytes count from then.
		charge := func(n int) { c.charge(e, n) }
		d.modern.charge.Store(&charge)
	}
	if !c.listening {
		// Nothing would tell this copy that it changed: it is current as of
		// start only, and reloaded on use from time to time.
		e.stale, e.staleSince, e.triedAt = true, start, start
	}
	c.items[id] = c.order.PushFront(e)
	c.bytes += e.charged
	c.evict()
	if c.holds(e) {
		c.enqueueWarm(e)
	}
}

// charge counts n more bytes for entry e, while it is cached.
func (c *cache) charge(e *cacheEntry, n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[e.id]; !ok || el.Value != e {
		return
	}
	e.charged += n
	c.bytes += n
	c.evict()
}

// evict drops the least recently used entries beyond the bounds.
func (c *cache) evict() {
	for c.order.Len() > c.maxEntries || (c.bytes > c.maxBytes && c.order.Len() > 1) {
		c.remove(c.order.Back())
		c.counts.Evictions++
	}
}

func (c *cache) remove(el *list.Element) {
	e := c.order.Remove(el).(*cacheEntry)
	delete(c.items, e.id)
	c.bytes -= e.charged
	c.warmed -= e.warmed
}

func entrySize(d *compiled) int {
	if d == nil {
		return 64
	}
	return d.size
}

// invalidate drops the compiled design of one server.
func (c *cache) invalidate(id uuid.UUID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	if el, ok := c.items[id]; ok {
		c.remove(el)
	}
}

// lost is told that change notifications stopped: every entry turns stale
// as of now.
func (c *cache) lost() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.listening {
		return
	}
	c.listening = false
	c.epoch++
	now := c.now()
	c.lostAt = now
	for el := c.order.Front(); el != nil; el = el.Next() {
		if e := el.Value.(*cacheEntry); !e.stale {
			e.stale, e.staleSince = true, now
		}
	}
}

// live is told that change notifications arrive (again). Changes made while
// they did not may have been missed, so every entry is revalidated on its
// next use, straight away.
func (c *cache) live() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.listening = true
	c.epoch++
	c.downUntil = time.Time{}
	now := c.now()
	for el := c.order.Front(); el != nil; el = el.Next() {
		e := el.Value.(*cacheEntry)
		if !e.stale {
			e.stale, e.staleSince = true, now
		}
		e.triedAt = time.Time{}
	}
}

// stats reports the number of cached entries and their approximate bytes.
func (c *cache) stats() (entries, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.bytes
}

// snapshot reports the counters and the size now.
func (c *cache) snapshot() CacheCounts {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.counts
	s.Entries, s.Bytes = c.order.Len(), c.bytes
	return s
}
