package sequence

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
)

// MemoryOptions configure a Memory.
type MemoryOptions struct {
	// TTL: the counters of a (server, client key) pair are forgotten this
	// long after its last call (DefaultTTL when zero).
	TTL time.Duration
	// MaxEntries bounds the (server, client key) pairs held; when full, the
	// pair called least recently is forgotten (DefaultMaxEntries when zero).
	MaxEntries int
	// Now is the clock (time.Now when nil), for tests.
	Now func() time.Time
}

// Memory keeps sequence counters in the instance's memory. It is safe for
// concurrent use, and Next allocates nothing for a counter it already holds.
type Memory struct {
	ttl int64 // nanoseconds
	max int
	now func() time.Time

	mu      sync.Mutex
	servers map[uuid.UUID]map[string]*entry
	n       int
	// lru links every entry, most recently called first: the expired and
	// the evicted are taken from its back.
	lru entry
}

// entry holds the counters of one (server, client key) pair.
type entry struct {
	server     uuid.UUID
	key        string
	counts     map[string]int64 // by scenario
	used       int64            // unix nanoseconds of the last call
	prev, next *entry
}

// NewMemory returns an empty Memory.
func NewMemory(opts MemoryOptions) *Memory {
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultMaxEntries
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	m := &Memory{ttl: int64(opts.TTL), max: opts.MaxEntries, now: opts.Now,
		servers: make(map[uuid.UUID]map[string]*entry)}
	m.lru.prev, m.lru.next = &m.lru, &m.lru
	return m
}

// Next counts one more call of scenario by key on server and returns how
// many calls came before it (0 for the first). It never fails.
func (m *Memory) Next(_ context.Context, server uuid.UUID, scenario, key string) (int64, error) {
	key = clientKey(key)
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now().UnixNano()
	m.expire(now)
	keys := m.servers[server]
	e := keys[key]
	if e == nil {
		if m.n >= m.max {
			m.remove(m.lru.prev)
		}
		if keys == nil {
			keys = make(map[string]*entry)
			m.servers[server] = keys
		}
		e = &entry{server: server, key: key, counts: make(map[string]int64, 1)}
		keys[key] = e
		m.n++
	} else {
		e.unlink()
	}
	e.used = now
	m.pushFront(e)
	c := e.counts[scenario]
	e.counts[scenario] = c + 1
	return c, nil
}

// Reset forgets the counters of server for key, or for every key when key
// is empty.
func (m *Memory) Reset(_ context.Context, server uuid.UUID, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if key != "" {
		if e := m.servers[server][clientKey(key)]; e != nil {
			m.remove(e)
		}
		return nil
	}
	for _, e := range m.servers[server] {
		e.unlink()
		m.n--
	}
	delete(m.servers, server)
	return nil
}

// Len is how many (server, client key) pairs are held, expired ones
// included until a call clears them.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.n
}

// expire forgets the pairs idle for the TTL: they sit at the back of the
// list, so each call clears the few that expired since the last.
func (m *Memory) expire(now int64) {
	for e := m.lru.prev; e != &m.lru && now-e.used >= m.ttl; e = m.lru.prev {
		m.remove(e)
	}
}

// remove forgets e.
func (m *Memory) remove(e *entry) {
	e.unlink()
	keys := m.servers[e.server]
	delete(keys, e.key)
	if len(keys) == 0 {
		delete(m.servers, e.server)
	}
	m.n--
}

func (m *Memory) pushFront(e *entry) {
	e.prev, e.next = &m.lru, m.lru.next
	m.lru.next.prev = e
	m.lru.next = e
}

func (e *entry) unlink() {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}
