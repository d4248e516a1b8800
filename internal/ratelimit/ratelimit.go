// Package ratelimit counts requests in fixed windows, per key, in production
// mode only: in memory, or in Redis when REDIS_URL is set so that every
// instance shares one count. In Redis each instance leases allowances in
// batches and spends them locally (lease.go), so that a request seldom
// waits for Redis. A failing Redis never fails a request: the request is
// let through, and the failure logged and counted.
package ratelimit

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"
	memorystore "github.com/ulule/limiter/v3/drivers/store/memory"
	redisstore "github.com/ulule/limiter/v3/drivers/store/redis"

	"github.com/mockmcp/mockmcp/internal/redisconn"
)

// DefaultWindow is the length of a counting window.
const DefaultWindow = time.Minute

// Options configure a Limiter.
type Options struct {
	// Enabled: limits apply (production mode). A disabled Limiter lets
	// everything through and sets no headers.
	Enabled bool
	// RedisURL, when set, keeps the counters in Redis.
	RedisURL string
	// Redis, when set, keeps the counters in this open client instead of
	// one opened from RedisURL; the caller closes it.
	Redis *redis.Client
	// Window is the length of a fixed window (DefaultWindow when zero).
	Window time.Duration
	// Prefix starts every counter's key (default "mockmcp").
	Prefix string
	// perRequest counts in Redis with one round trip per request instead of
	// leases: the way leases are measured against.
	perRequest bool
	// idleAfter is how long a key goes unused on an instance before the
	// allowances it holds of it are given back (DefaultIdleAfter when zero).
	idleAfter time.Duration
}

// Limiter decides whether a request fits its key's limit.
type Limiter struct {
	enabled  bool
	window   time.Duration
	store    limiter.Store // in memory, or in Redis one round trip per request
	leases   *leaseStore   // in Redis, leased
	redis    *redis.Client // closed by Close when ownRedis
	ownRedis bool
	log      *slog.Logger
	failures atomic.Int64
	lastLog  atomic.Int64 // unix nanos of the last failure logged
	// downUntil (unix nanos): after a store failure, checks are skipped for
	// a moment, so an outage costs one slow request per second rather than
	// a slow every request.
	downUntil atomic.Int64
	// perRequestTrips counts the round trips of the per-request store.
	perRequestTrips atomic.Int64
	// counts are the messages admitted and refused, by kind.
	counts [len(Kinds)]struct{ admitted, refused atomic.Uint64 }
}

// Kinds are the limiters, told apart by their keys: PublicKey's (the
// per-server endpoints), ExchangeKey's (the agent card exchange),
// PlatformKey's (the service endpoint and the policy routes), and any
// other key's.
var Kinds = [...]string{"public", "exchange", "platform", "other"}

func kindOf(key string) int {
	switch {
	case strings.HasPrefix(key, "pub:"):
		return 0
	case strings.HasPrefix(key, "exch:"):
		return 1
	case strings.HasPrefix(key, "plat:"):
		return 2
	}
	return 3
}

// Counts are the messages (or requests) a kind of limiter admitted and
// refused since New: those checked, in production.
type Counts struct{ Admitted, Refused uint64 }

// Counts reports the counts of the limiter kind, one of Kinds.
func (l *Limiter) Counts(kind string) Counts {
	for i, k := range Kinds {
		if k == kind {
			c := &l.counts[i]
			return Counts{Admitted: c.admitted.Load(), Refused: c.refused.Load()}
		}
	}
	return Counts{}
}

// retryDown is how long checks are skipped after the store failed.
const retryDown = time.Second

// New returns a Limiter. With a Redis URL it connects at once, so a
// misconfigured or unreachable Redis stops the start-up with a clear error.
func New(ctx context.Context, log *slog.Logger, opts Options) (*Limiter, error) {
	if opts.Window <= 0 {
		opts.Window = DefaultWindow
	}
	if opts.Prefix == "" {
		opts.Prefix = "mockmcp"
	}
	l := &Limiter{enabled: opts.Enabled, window: opts.Window, log: log}
	storeOpts := limiter.StoreOptions{Prefix: opts.Prefix, CleanUpInterval: limiter.DefaultCleanUpInterval}
	switch {
	case opts.Redis != nil:
		l.redis = opts.Redis
	case opts.RedisURL != "":
		c, err := redisconn.Open(ctx, opts.RedisURL)
		if err != nil {
			return nil, err
		}
		l.redis, l.ownRedis = c, true
	default:
		l.store = memorystore.NewStoreWithOptions(storeOpts)
		return l, nil
	}
	if !opts.perRequest {
		if opts.idleAfter <= 0 {
			opts.idleAfter = DefaultIdleAfter
		}
		l.leases = newLeaseStore(l.redis, opts.Prefix, opts.Window, opts.idleAfter, l.storeDown)
		return l, nil
	}
	var err error
	if l.store, err = redisstore.NewStoreWithOptions(l.redis, storeOpts); err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("prepare the rate-limit store in Redis: %w", err)
	}
	return l, nil
}

// Close waits for the leases on their way, gives back to Redis the
// allowances leased and not spent (of windows that still run), and
// releases the Redis connection the Limiter opened, if any.
func (l *Limiter) Close() error {
	if l.leases != nil {
		l.leases.close()
	}
	if l.ownRedis {
		return l.redis.Close()
	}
	return nil
}

// RedisCalls counts the round trips to Redis the Limiter made: its leases
// (and giving back what it held, at Close), or one per check with the
// per-request store; 0 without Redis.
func (l *Limiter) RedisCalls() int64 {
	switch {
	case l.redis == nil:
		return 0
	case l.leases == nil:
		return l.perRequestTrips.Load()
	}
	return l.leases.roundTrips.Load()
}

// Enabled reports whether limits apply.
func (l *Limiter) Enabled() bool { return l.enabled }

// Failures counts the checks the store could not answer (requests let through).
func (l *Limiter) Failures() int64 { return l.failures.Load() }

// Decision is the outcome of one check.
type Decision struct {
	// Allowed: at least one of the messages counted fits the limit.
	Allowed bool
	// Admitted is how many of the messages counted fit, the first ones;
	// those past it are refused.
	Admitted int
	// Counted: the store answered, and the fields below mean something.
	Counted   bool
	Limit     int64
	Remaining int64
	Reset     int64 // unix seconds when the window ends
}

// Take counts one request against key with limit requests per window.
func (l *Limiter) Take(ctx context.Context, key string, limit int) Decision {
	return l.TakeN(ctx, key, limit, 1)
}

// unbounded is the limit the store is asked to apply: it reports the new
// count only as Remaining = limit - count while the count is within the
// limit, so with this one the count reads back exactly, and the Limiter
// works out itself how many of n fit.
const unbounded = math.MaxInt64

// TakeN counts n messages (the members of a JSON-RPC batch) against key
// with limit messages per window, in one step (at most one lease from
// Redis), and admits as many of them as still fit.
func (l *Limiter) TakeN(ctx context.Context, key string, limit, n int) Decision {
	d := l.takeN(ctx, key, limit, n)
	c := &l.counts[kindOf(key)]
	c.admitted.Add(uint64(d.Admitted))
	if d.Admitted < n {
		c.refused.Add(uint64(n - d.Admitted))
	}
	return d
}

func (l *Limiter) takeN(ctx context.Context, key string, limit, n int) Decision {
	if !l.enabled {
		return Decision{Allowed: true, Admitted: n}
	}
	now := time.Now().UnixNano()
	if now < l.downUntil.Load() {
		l.failures.Add(1)
		return Decision{Allowed: true, Admitted: n}
	}
	if l.leases != nil {
		d, err := l.leases.take(key, int64(limit), int64(n), now)
		if err != nil {
			return l.failed(err, n)
		}
		return d
	}
	l.perRequestTrips.Add(1)
	c, err := l.store.Increment(ctx, key, int64(n), limiter.Rate{Period: l.window, Limit: unbounded})
	if err != nil {
		return l.failed(err, n)
	}
	count := unbounded - c.Remaining
	admitted := min(max(int64(limit)-(count-int64(n)), 0), int64(n))
	return Decision{Allowed: admitted > 0, Admitted: int(admitted), Counted: true,
		Limit: int64(limit), Remaining: max(int64(limit)-count, 0), Reset: c.Reset}
}

// failed lets n messages through uncounted after the store failed, and
// skips the store for a moment.
func (l *Limiter) failed(err error, n int) Decision {
	l.failures.Add(1)
	l.storeDown(err)
	return Decision{Allowed: true, Admitted: n}
}

// storeDown skips the store for a moment after it failed, and logs the
// failure at most every 10 s.
func (l *Limiter) storeDown(err error) {
	now := time.Now().UnixNano()
	l.downUntil.Store(now + int64(retryDown))
	if last := l.lastLog.Load(); now-last > int64(10*time.Second) && l.lastLog.CompareAndSwap(last, now) {
		l.log.Warn("rate-limit store unavailable; letting requests through", "error", err.Error(),
			"failures", l.failures.Load())
	}
}

// Admit counts one request against key, as Take does, and writes the
// decision's headers to h.
func (l *Limiter) Admit(ctx context.Context, h http.Header, key string, limit int) Decision {
	return l.AdmitN(ctx, h, key, limit, 1)
}

// AdmitN counts n messages against key, as TakeN does, and writes the
// decision's headers to h.
func (l *Limiter) AdmitN(ctx context.Context, h http.Header, key string, limit, n int) Decision {
	d := l.TakeN(ctx, key, limit, n)
	d.SetHeaders(h)
	return d
}

// SetHeaders writes the rate-limit headers of d, and Retry-After when it
// refuses.
func (d Decision) SetHeaders(h http.Header) {
	if !d.Counted {
		return
	}
	// The names in their canonical form (as they go out), the values cut
	// from one string and held in one array: these headers are on every
	// limited response.
	var b [60]byte
	n := strconv.AppendInt(b[:0], d.Limit, 10)
	i := len(n)
	n = strconv.AppendInt(n, d.Remaining, 10)
	j := len(n)
	all := string(strconv.AppendInt(n, d.Reset, 10))
	v := []string{all[:i], all[i:j], all[j:]}
	h["X-Ratelimit-Limit"], h["X-Ratelimit-Remaining"], h["X-Ratelimit-Reset"] = v[0:1:1], v[1:2:2], v[2:3:3]
	if !d.Allowed {
		h.Set("Retry-After", strconv.FormatInt(d.RetryAfter(), 10))
	}
}

// RetryAfter is how many seconds until the window resets (at least 1).
func (d Decision) RetryAfter() int64 {
	return max(1, d.Reset-time.Now().Unix())
}

// PublicKey is the counter of one client address on the per-server
// endpoints of one organization.
func PublicKey(org, addr string) string { return "pub:" + org + ":" + addr }

// ExchangeKey is the counter of one client address on the public agent
// card exchange.
func ExchangeKey(addr string) string { return "exch:" + addr }

// PlatformKey is the counter of one organization on the service endpoint
// and the policy routes.
func PlatformKey(org string) string { return "plat:" + org }

// PublicLimit is the effective per-address limit of an organization: its
// override when lower than the ceiling.
func PublicLimit(override *int32, ceiling int) int {
	if override != nil && int(*override) < ceiling {
		return int(*override)
	}
	return ceiling
}

// OAuthKey is the counter of one client address on one kind of endpoint
// ("register", "request") of every design's authorization server.
func OAuthKey(endpoint, addr string) string { return "oauth:" + endpoint + ":" + addr }
