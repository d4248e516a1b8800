package mcpserve

import (
	"container/list"
	"context"
	"sync"

	"github.com/google/uuid"
	"golang.org/x/sync/singleflight"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// cache holds compiled designs, most recently used first, within a bound on
// both their number and their approximate size. It also remembers ids that
// serve nothing (unknown or draft), so a flood of requests for them does not
// reach the database. Concurrent first requests for one server load it once.
type cache struct {
	load func(context.Context, uuid.UUID) (*design, error)

	mu         sync.Mutex
	items      map[uuid.UUID]*list.Element
	order      *list.List // of *cacheEntry, front = most recent
	bytes      int
	maxEntries int
	maxBytes   int
	// epoch counts invalidations; a load that started before one may have
	// read the old design, so its result is used once but not kept.
	epoch uint64

	flight singleflight.Group
}

type cacheEntry struct {
	id uuid.UUID
	d  *design // nil: the id serves nothing
}

func newCache(maxEntries, maxBytes int, load func(context.Context, uuid.UUID) (*design, error)) *cache {
	return &cache{load: load, items: map[uuid.UUID]*list.Element{}, order: list.New(),
		maxEntries: maxEntries, maxBytes: maxBytes}
}

// get returns the compiled design of an enabled server, or a not-found
// failure when the id serves nothing.
func (c *cache) get(ctx context.Context, id uuid.UUID) (*design, error) {
	c.mu.Lock()
	if el, ok := c.items[id]; ok {
		c.order.MoveToFront(el)
		d := el.Value.(*cacheEntry).d
		c.mu.Unlock()
		if d == nil {
			return nil, errNotServed
		}
		return d, nil
	}
	c.mu.Unlock()

	v, err, _ := c.flight.Do(id.String(), func() (any, error) {
		c.mu.Lock()
		epoch := c.epoch
		c.mu.Unlock()
		// The load belongs to no single caller: one caller going away must
		// not fail the others waiting on it.
		d, err := c.load(context.WithoutCancel(ctx), id)
		if err != nil && !failure.Is(err, failure.ErrNotFound) {
			return nil, err
		}
		c.put(id, d, epoch)
		return d, nil
	})
	if err != nil {
		return nil, err
	}
	d, _ := v.(*design)
	if d == nil {
		return nil, errNotServed
	}
	return d, nil
}

var errNotServed = failure.NotFound("server")

func (c *cache) put(id uuid.UUID, d *design, epoch uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		return
	}
	if el, ok := c.items[id]; ok {
		c.remove(el)
	}
	c.items[id] = c.order.PushFront(&cacheEntry{id: id, d: d})
	c.bytes += entrySize(d)
	for c.order.Len() > c.maxEntries || (c.bytes > c.maxBytes && c.order.Len() > 1) {
		c.remove(c.order.Back())
	}
}

func (c *cache) remove(el *list.Element) {
	e := c.order.Remove(el).(*cacheEntry)
	delete(c.items, e.id)
	c.bytes -= entrySize(e.d)
}

func entrySize(d *design) int {
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

// flush drops everything, for when invalidations may have been missed.
func (c *cache) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.items = map[uuid.UUID]*list.Element{}
	c.order.Init()
	c.bytes = 0
}

// stats reports the number of cached entries and their approximate bytes.
func (c *cache) stats() (entries, bytes int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.bytes
}
