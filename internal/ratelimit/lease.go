package ratelimit

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Counters in Redis are leased rather than incremented per request: an
// instance takes a batch of a window's allowances from Redis at once (one
// INCRBY, capped at the limit by leaseScript), spends them locally, and
// leases the next batch in the background before the last one runs out. So
// a request waits for Redis only when its instance holds too few
// allowances: a key's first request in a window, a batch larger than what
// is held, or a request that arrives while a lease is on its way and
// nothing is left.
//
// Redis never grants more than the limit, so the instances together never
// admit more than the limit in a window. Allowances an instance holds are
// lost to the others: an instance may refuse while another still holds
// some, at most two leases, each at most limit/leaseShare and a quarter of
// what was left (so leases shrink near the limit). They are spent by that
// instance's traffic or expire with the window; so do those leased under a
// key's previous limit, when it changes, unless the key goes unused on
// that instance for DefaultIdleAfter: then they are given back, as they
// are when the instance shuts down. Limits below leaseShare lease nothing
// ahead: each request takes exactly what it needs, and the count is as
// exact as with one round trip per request.

// leaseShare bounds a lease to limit/leaseShare allowances: a quarter of
// the limit shared by four instances, each holding at most two leases.
const leaseShare = 16

// leaseHorizon is how much of a key's recent traffic a lease covers: long
// enough that the next lease, asked for when half is left, is back long
// before the last allowance is spent.
const leaseHorizon = 200 * time.Millisecond

// minRateSample is the shortest time a rate is measured over, so that two
// requests in a row do not make a huge lease.
const minRateSample = 20 * time.Millisecond

// leaseScript grants up to need allowances of what is left under the limit
// in the window's counter, then up to extra more but at most a quarter of
// what is left after them; it starts the window if the counter is new.
// KEYS[1]: the counter. ARGV: need, extra, limit, window (milliseconds).
// Returns the allowances granted, the count after them and the window's
// time to live in milliseconds.
var leaseScript = redis.NewScript(`
local need, extra, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local left = math.max(limit - count, 0)
local grant = math.min(need, left)
grant = grant + math.min(extra, math.ceil((left - grant) / 4))
count = redis.call('INCRBY', KEYS[1], grant)
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
	redis.call('PEXPIRE', KEYS[1], ARGV[4])
	ttl = tonumber(ARGV[4])
end
return {grant, count, ttl}
`)

// DefaultIdleAfter is how long a key goes unused on an instance before
// the allowances the instance holds of it are given back to Redis.
const DefaultIdleAfter = time.Second

// leaseStore holds an instance's leases of the counters in Redis.
type leaseStore struct {
	redis  *redis.Client
	prefix string
	window time.Duration
	// failed records a background lease that Redis could not answer.
	failed func(error)
	// idleAfter: see DefaultIdleAfter. stopIdle ends the goroutine that
	// gives idle keys' allowances back; idle waits for it.
	idleAfter time.Duration
	stopIdle  chan struct{}
	stopOnce  sync.Once
	idle      sync.WaitGroup

	mu         sync.RWMutex
	counters   map[string]*counter
	lastSweep  atomic.Int64
	background sync.WaitGroup
	roundTrips atomic.Int64
}

// counter is what an instance knows of one key's counter in Redis.
type counter struct {
	mu sync.Mutex
	// limit the allowances held were leased under.
	limit int64
	// expires (unix nanos) is when the window ends, as seen from here: the
	// time a lease was sent plus the counter's time to live then, so never
	// later than in Redis.
	expires int64
	// count is the window's count in Redis after this instance's last lease:
	// the allowances leased by every instance.
	count int64
	// held are allowances leased by this instance and not yet spent.
	held int64
	// size is how many allowances to lease ahead (0: none).
	size int64
	// used counts the allowances spent since (unix nanos), the rate the
	// next size follows.
	used, since int64
	// last (unix nanos) is when allowances were last asked for.
	last int64
	// pending is the lease on its way, nil when none.
	pending *lease
	// dead: swept from the store; look the key up again.
	dead bool
}

// lease is one round trip to Redis; done is closed once it is answered.
type lease struct {
	done chan struct{}
	err  error
}

func newLeaseStore(c *redis.Client, prefix string, window, idleAfter time.Duration, failed func(error)) *leaseStore {
	s := &leaseStore{redis: c, prefix: prefix, window: window, failed: failed, counters: map[string]*counter{},
		idleAfter: idleAfter, stopIdle: make(chan struct{})}
	s.lastSweep.Store(time.Now().UnixNano())
	s.idle.Go(s.giveBackIdle)
	return s
}

// close stops giving idle keys back, waits for the leases on their way,
// then gives back what this instance holds unspent, so that the instances
// left may spend it.
func (s *leaseStore) close() {
	s.stopOnce.Do(func() { close(s.stopIdle) })
	s.idle.Wait()
	s.background.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), giveBackTimeout)
	defer cancel()
	s.giveBack(ctx, time.Now().UnixNano(), 0)
}

// giveBackIdle gives back, every idleAfter, the allowances held of the keys
// unused for idleAfter, until stopIdle: an instance whose traffic moved
// elsewhere does not keep them from the others until the window ends.
func (s *leaseStore) giveBackIdle() {
	t := time.NewTicker(s.idleAfter)
	defer t.Stop()
	for {
		select {
		case <-s.stopIdle:
			return
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), giveBackTimeout)
		s.giveBack(ctx, time.Now().UnixNano(), s.idleAfter)
		cancel()
	}
}

// giveBackTimeout bounds giving back the unspent leases at shutdown.
const giveBackTimeout = 2 * time.Second

// giveBackMargin: allowances are given back only while the window they
// were leased in has at least this long to run as seen from here (never
// later than in Redis), so that the counter they go back to is surely
// that window's and not a new one's.
const giveBackMargin = time.Second

// giveBackScript takes back allowances from a counter that still runs (a
// counter without a time to live is not touched), never below zero.
// KEYS[1]: the counter. ARGV[1]: the allowances.
var giveBackScript = redis.NewScript(`
if redis.call('PTTL', KEYS[1]) <= 0 then
	return -1
end
local count = redis.call('DECRBY', KEYS[1], ARGV[1])
if count < 0 then
	redis.call('SET', KEYS[1], '0', 'KEEPTTL')
	count = 0
end
return count
`)

// giveBack returns to Redis the allowances held unspent of windows that
// still run, of the keys unused for idle at least (0: every key), in one
// pipelined round trip; it stops at ctx's end.
func (s *leaseStore) giveBack(ctx context.Context, now int64, idle time.Duration) {
	type back struct {
		key  string
		held int64
	}
	var backs []back
	s.mu.RLock()
	for k, c := range s.counters {
		c.mu.Lock()
		if c.held > 0 && c.pending == nil && now < c.expires-int64(giveBackMargin) && now-c.last >= int64(idle) {
			backs = append(backs, back{k, c.held})
			// What Redis counts drops by as much, so the window is not
			// taken for exhausted when it is not.
			c.count -= c.held
			c.held = 0
		}
		c.mu.Unlock()
	}
	s.mu.RUnlock()
	if len(backs) == 0 {
		return
	}
	s.roundTrips.Add(1)
	// EVAL, not EVALSHA: a pipeline cannot load a script it finds missing.
	_, _ = s.redis.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, b := range backs {
			giveBackScript.Eval(ctx, p, []string{s.prefix + ":" + b.key}, b.held)
		}
		return nil
	})
}

// take spends n allowances of key's counter, as many as fit, at now (unix
// nanos).
func (s *leaseStore) take(key string, limit, n, now int64) (Decision, error) {
	s.sweepEvery(now)
	for {
		if d, dead, err := s.takeFrom(s.counter(key), key, limit, n, now); !dead {
			return d, err
		}
		now = time.Now().UnixNano()
	}
}

// counter is key's counter, made if new.
func (s *leaseStore) counter(key string) *counter {
	s.mu.RLock()
	c := s.counters[key]
	s.mu.RUnlock()
	if c != nil {
		return c
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c = s.counters[key]; c == nil {
		c = &counter{}
		s.counters[key] = c
	}
	return c
}

// takeFrom spends n allowances of c, leasing more first when it holds too
// few and Redis may still have some.
func (s *leaseStore) takeFrom(c *counter, key string, limit, n, now int64) (Decision, bool, error) {
	c.mu.Lock()
	for {
		if c.dead {
			c.mu.Unlock()
			return Decision{}, true, nil
		}
		c.settle(limit, now)
		c.last = now
		if c.held >= n || c.exhausted(now) {
			got := min(c.held, n)
			c.held -= got
			c.used += got
			s.leaseAhead(c, key, now)
			d := c.decision(got)
			c.mu.Unlock()
			return d, false, nil
		}
		p := c.pending
		if p == nil {
			p = s.start(c, key, n-c.held, c.nextSize(now), now)
		}
		c.mu.Unlock()
		<-p.done
		if p.err != nil {
			return Decision{}, false, p.err
		}
		now = time.Now().UnixNano()
		c.mu.Lock()
	}
}

// settle forgets the allowances of a window that ended, or leased under
// another limit (those expire with the window unspent).
func (c *counter) settle(limit, now int64) {
	if now >= c.expires {
		c.held, c.count = 0, 0
	}
	if c.limit != limit {
		c.limit, c.held = limit, 0
		c.size = min(c.size, limit/leaseShare)
		if c.size == 0 && limit >= leaseShare {
			c.size = 1
		}
	}
}

// exhausted: the window is known to have nothing left to lease.
func (c *counter) exhausted(now int64) bool { return now < c.expires && c.count >= c.limit }

// nextSize is the size of the next lease: what covers leaseHorizon at the
// rate allowances were spent since the last one, at most limit/leaseShare.
func (c *counter) nextSize(now int64) int64 {
	if c.size == 0 {
		return 0
	}
	elapsed := max(now-c.since, int64(minRateSample))
	c.size = min(1+c.used*int64(leaseHorizon)/elapsed, c.limit/leaseShare)
	c.used, c.since = 0, now
	return c.size
}

// decision reports got allowances spent: Remaining is what Redis had left
// at the last lease plus what this instance still holds.
func (c *counter) decision(got int64) Decision {
	return Decision{Allowed: got > 0, Admitted: int(got), Counted: true, Limit: c.limit,
		Remaining: max(c.limit-c.count+c.held, 0), Reset: (c.expires + int64(time.Second) - 1) / int64(time.Second)}
}

// leaseAhead leases the next batch in the background once half of the
// current one is spent.
func (s *leaseStore) leaseAhead(c *counter, key string, now int64) {
	if c.size == 0 || c.pending != nil || c.exhausted(now) || c.held > c.size/2 {
		return
	}
	s.start(c, key, 0, c.nextSize(now), now)
}

// start sends a lease of need allowances plus extra ahead, which c answers
// when Redis does; c is locked.
func (s *leaseStore) start(c *counter, key string, need, extra, now int64) *lease {
	p := &lease{done: make(chan struct{})}
	c.pending = p
	limit := c.limit
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		grant, count, ttl, err := s.roundTrip(key, need, extra, limit)
		c.mu.Lock()
		if err == nil {
			c.apply(limit, grant, count, now+ttl)
		}
		c.pending = nil
		c.mu.Unlock()
		p.err = err
		close(p.done)
		if err != nil && need == 0 {
			s.failed(err)
		}
	}()
	return p
}

// apply adds a lease's grant, leased under limit, to c. A lease that
// started a new window replaces what c held of the last one.
func (c *counter) apply(limit, grant, count, expires int64) {
	if limit != c.limit {
		return
	}
	if time.Now().UnixNano() >= c.expires {
		c.held, c.count, c.expires = grant, count, expires
		return
	}
	c.held += grant
	c.count = max(c.count, count)
	c.expires = max(c.expires, expires)
}

// roundTrip runs leaseScript on key's counter.
func (s *leaseStore) roundTrip(key string, need, extra, limit int64) (grant, count, ttl int64, err error) {
	s.roundTrips.Add(1)
	// The lease serves every request of the key that waits for it, so it
	// does not end with the one that sent it; the client's timeouts bound it.
	r, err := leaseScript.Run(context.Background(), s.redis, []string{s.prefix + ":" + key},
		need, extra, limit, s.window.Milliseconds()).Int64Slice()
	if err != nil {
		return 0, 0, 0, err
	}
	if len(r) != 3 {
		return 0, 0, 0, fmt.Errorf("lease of rate-limit counter %q: %d values, want 3", key, len(r))
	}
	return r[0], r[1], r[2] * int64(time.Millisecond), nil
}

// sweepEvery drops, once a window, the counters whose window ended a window
// ago, so that keys seen once do not stay.
func (s *leaseStore) sweepEvery(now int64) {
	last := s.lastSweep.Load()
	if now-last < int64(s.window) || !s.lastSweep.CompareAndSwap(last, now) {
		return
	}
	s.background.Add(1)
	go func() {
		defer s.background.Done()
		s.mu.Lock()
		defer s.mu.Unlock()
		for k, c := range s.counters {
			c.mu.Lock()
			if c.pending == nil && now >= c.expires+int64(s.window) {
				c.dead = true
				delete(s.counters, k)
			}
			c.mu.Unlock()
		}
	}()
}
