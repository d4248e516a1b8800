package ratelimit

import "time"

// PerRequest returns o counting in Redis with one round trip per request,
// as before leases.
func PerRequest(o Options) Options {
	o.perRequest = true
	return o
}

// RoundTrips counts the times l asked its store: for leases, or per
// request.
func (l *Limiter) RoundTrips() int64 { return l.RedisCalls() }

// Counters counts the keys whose leases l keeps.
func (l *Limiter) Counters() int {
	l.leases.mu.RLock()
	defer l.leases.mu.RUnlock()
	return len(l.leases.counters)
}

// IdleAfter returns o giving back the allowances of keys unused for d.
func IdleAfter(o Options, d time.Duration) Options {
	o.idleAfter = d
	return o
}
