// Package redisconn opens the Redis connection pool that an instance's
// shared state (rate-limit counters, sequence counters) lives in, tuned so
// that a failing Redis slows no request down.
package redisconn

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Open connects to the Redis at rawURL (REDIS_URL) at once, so that a
// misconfigured or unreachable Redis stops the start-up with a clear error.
// The caller closes the client.
func Open(ctx context.Context, rawURL string) (*redis.Client, error) {
	opts, err := redis.ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	// A failing Redis must not slow requests down: short timeouts, no
	// retries.
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = 500*time.Millisecond, 500*time.Millisecond, 500*time.Millisecond
	opts.PoolTimeout = time.Second
	opts.MaxRetries, opts.DialerRetries = -1, 1
	c := redis.NewClient(opts)
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := c.Ping(pctx).Err(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("connect to Redis at REDIS_URL (%s): %w", opts.Addr, err)
	}
	return c, nil
}
