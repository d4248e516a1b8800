package ratelimit

// PerRequest returns o counting in Redis with one round trip per request,
// as before leases.
func PerRequest(o Options) Options {
	o.perRequest = true
	return o
}

// RoundTrips counts the leases l asked Redis for.
func (l *Limiter) RoundTrips() int64 {
	if l.leases == nil {
		return 0
	}
	return l.leases.roundTrips.Load()
}
