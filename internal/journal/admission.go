package journal

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
)

// maxTracked bounds the organizations, and apart the servers, whose budget
// and drops a writer keeps in memory. Past it an untracked one is bounded by
// the instance's budget alone, and a drop of an untracked server's record
// makes every verification of the retention period incomplete: the bound
// never hides a drop.
const maxTracked = 1 << 16

// droppingWindow is how long an organization counts as dropping after its
// last dropped record (the metric).
const droppingWindow = time.Minute

// Bound names the limit that dropped a record.
type Bound int

// The bounds, in the order Admit checks them.
const (
	BoundServer       Bound = iota // the server's JOURNAL_MAX_RATE_PER_SERVER
	BoundOrganization              // the organization's JOURNAL_MAX_RATE_PER_ORG
	BoundInstance                  // the instance's JOURNAL_MAX_RATE
	BoundQueue                     // the queue was full, or the writer closed
	numBounds
)

// Bounds lists every Bound, for metrics.
var Bounds = []Bound{BoundServer, BoundOrganization, BoundInstance, BoundQueue}

// String is the bound's metric label.
func (b Bound) String() string {
	return [...]string{"server", "organization", "instance", "queue"}[b]
}

// bucket is a token bucket of one organization or server, refilled at its
// rate up to one second's worth, and when it last lost a record.
type bucket struct {
	tokens  float64
	last    int64 // Unix nanoseconds of the last refill
	dropped int64 // Unix nanoseconds of the last drop; 0 when none
	cleared int64 // Unix nanoseconds of the last clear of a server's journal
}

// refill adds what rate a second earned since the last refill, up to one
// second's worth.
func (b *bucket) refill(now int64, rate float64) {
	if now > b.last {
		b.tokens = min(rate, b.tokens+float64(now-b.last)*rate/1e9)
		b.last = now
	}
}

// admission shares the journal's rate between tenants: token buckets per
// organization and per server, checked before the instance's budget, so a
// flood spends its own budget and never the instance's budget that other
// tenants need. The maps hold values, not pointers: once a key is known,
// admitting its entries allocates nothing.
type admission struct {
	orgRate, serverRate float64
	keepDrops           time.Duration // how long a server's drop makes its verifications incomplete

	mu        sync.Mutex
	orgs      map[uuid.UUID]bucket
	servers   map[uuid.UUID]bucket
	lastSweep int64 // Unix nanoseconds
	forgotten int64 // the last drop of a server that could not be tracked

	dropped [numBounds]atomic.Uint64
}

func newAdmission(orgRate, serverRate int, keepDrops time.Duration) *admission {
	return &admission{orgRate: float64(orgRate), serverRate: float64(serverRate), keepDrops: keepDrops,
		orgs: make(map[uuid.UUID]bucket), servers: make(map[uuid.UUID]bucket)}
}

// instanceBudget is the instance's rate budget (the Writer's).
type instanceBudget interface{ withinRate(second int64) bool }

// admit takes one entry of org's server from their budgets, and from the
// instance's budget of second, which it asks only when both have one. It
// returns false and the bound that refused otherwise, and remembers the
// drop.
func (a *admission) admit(org, server uuid.UUID, now int64, instance instanceBudget, second int64) (bool, Bound) {
	a.mu.Lock()
	defer a.mu.Unlock()
	sb, sTracked := a.lookup(a.servers, server, a.serverRate, now)
	ob, oTracked := a.lookup(a.orgs, org, a.orgRate, now)
	bound := numBounds
	switch {
	case sTracked && sb.tokens < 1:
		bound = BoundServer
	case oTracked && ob.tokens < 1:
		bound = BoundOrganization
	case !instance.withinRate(second):
		bound = BoundInstance
	default:
		sb.tokens--
		ob.tokens--
	}
	if bound != numBounds {
		a.dropped[bound].Add(1)
		sb.dropped, ob.dropped = now, now
		if !sTracked {
			a.forgotten = now
		}
	}
	if sTracked {
		a.servers[server] = sb
	}
	if oTracked {
		a.orgs[org] = ob
	}
	return bound == numBounds, bound
}

// droppedQueue remembers a record of server that the queue dropped after
// admission.
func (a *admission) droppedQueue(org, server uuid.UUID, now int64) {
	a.dropped[BoundQueue].Add(1)
	a.mu.Lock()
	defer a.mu.Unlock()
	if b, ok := a.lookup(a.servers, server, a.serverRate, now); ok {
		b.dropped = now
		a.servers[server] = b
	} else {
		a.forgotten = now
	}
	if b, ok := a.lookup(a.orgs, org, a.orgRate, now); ok {
		b.dropped = now
		a.orgs[org] = b
	}
}

// lookup returns key's bucket in m refilled to now, a full one for a new
// key, and whether m tracks key (it does not when m is full of buckets that
// must be kept).
func (a *admission) lookup(m map[uuid.UUID]bucket, key uuid.UUID, rate float64, now int64) (bucket, bool) {
	b, ok := m[key]
	if !ok {
		if len(m) >= maxTracked {
			a.sweep(now)
			if len(m) >= maxTracked {
				return bucket{tokens: rate}, false
			}
		}
		b = bucket{tokens: rate, last: now}
	}
	b.refill(now, rate)
	return b, true
}

// sweep forgets the buckets that are full and whose drops no longer count,
// which behave as absent ones, at most once a second.
func (a *admission) sweep(now int64) {
	if now-a.lastSweep >= int64(time.Second) {
		a.lastSweep = now
		for k, b := range a.servers {
			if b.refill(now, a.serverRate); b.tokens >= a.serverRate && now-b.dropped > int64(a.keepDrops) &&
				now-b.cleared > int64(a.keepDrops) {
				delete(a.servers, k)
			}
		}
		for k, b := range a.orgs {
			if b.refill(now, a.orgRate); b.tokens >= a.orgRate && now-b.dropped > int64(droppingWindow) {
				delete(a.orgs, k)
			}
		}
	}
}

// complete reports whether no record of server was dropped in the window a
// verification covers: since its journal was last cleared through this
// instance, within keepDrops.
func (a *admission) complete(server uuid.UUID, now int64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	from := now - int64(a.keepDrops)
	b := a.servers[server]
	from = max(from, b.cleared)
	return b.dropped < from && a.forgotten < from
}

// cleared starts server's window anew: its earlier drops no longer count.
func (a *admission) cleared(server uuid.UUID, now int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := a.lookup(a.servers, server, a.serverRate, now)
	if !ok {
		return
	}
	b.cleared = now
	a.servers[server] = b
}

// droppingOrganizations counts the organizations whose records were
// dropped within droppingWindow of now.
func (a *admission) droppingOrganizations(now int64) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for _, b := range a.orgs {
		if b.dropped != 0 && now-b.dropped <= int64(droppingWindow) {
			n++
		}
	}
	return n
}
