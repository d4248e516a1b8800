package sequence

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
)

// DefaultPrefix starts the name of every Redis hash of counters.
const DefaultPrefix = "mockmcp:seq"

// RedisOptions configure a Redis.
type RedisOptions struct {
	// TTL: the hash of a (server, client key) pair expires this long after
	// its last call (DefaultTTL when zero).
	TTL time.Duration
	// Prefix starts every hash's name (DefaultPrefix when empty).
	Prefix string
}

// Redis keeps sequence counters in Redis, shared by every instance: one
// hash per (server, client key) pair, named prefix:server:key, with a field
// per scenario.
type Redis struct {
	client *redis.Client
	ttl    time.Duration
	prefix string
}

// NewRedis returns counters kept in client, which the caller closes. The
// client should have short timeouts (redisconn.Open), since Next is on the
// path of tool calls.
func NewRedis(client *redis.Client, opts RedisOptions) *Redis {
	if opts.TTL <= 0 {
		opts.TTL = DefaultTTL
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	return &Redis{client: client, ttl: opts.TTL, prefix: opts.Prefix}
}

// Next counts one more call of scenario by key on server and returns how
// many calls came before it (0 for the first), in one round trip that also
// pushes the pair's expiry back. When Redis fails it returns the error and
// counts nothing.
func (r *Redis) Next(ctx context.Context, server uuid.UUID, scenario, key string) (int64, error) {
	h := r.hash(server, key)
	pipe := r.client.Pipeline()
	n := pipe.HIncrBy(ctx, h, scenario, 1)
	pipe.Expire(ctx, h, r.ttl)
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("count a sequence call in Redis: %w", err)
	}
	return n.Val() - 1, nil
}

// resetBatch is how many hashes one SCAN step asks for and one UNLINK
// removes.
const resetBatch = 500

// Reset forgets the counters of server for key, or for every key when key
// is empty.
func (r *Redis) Reset(ctx context.Context, server uuid.UUID, key string) error {
	if key != "" {
		if err := r.client.Unlink(ctx, r.hash(server, key)).Err(); err != nil {
			return fmt.Errorf("reset sequence counters in Redis: %w", err)
		}
		return nil
	}
	// SCAN returns every hash that exists from its start to its end, so
	// unlinking as it goes misses none.
	match := escapeGlob(r.hash(server, "")) + "*"
	iter := r.client.Scan(ctx, 0, match, resetBatch).Iterator()
	batch := make([]string, 0, resetBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := r.client.Unlink(ctx, batch...).Err()
		batch = batch[:0]
		return err
	}
	for iter.Next(ctx) {
		if batch = append(batch, iter.Val()); len(batch) == resetBatch {
			if err := flush(); err != nil {
				return fmt.Errorf("reset sequence counters in Redis: %w", err)
			}
		}
	}
	if err := iter.Err(); err != nil {
		return fmt.Errorf("list sequence counters in Redis: %w", err)
	}
	if err := flush(); err != nil {
		return fmt.Errorf("reset sequence counters in Redis: %w", err)
	}
	return nil
}

// hash names the hash of the (server, key) pair; with an empty key, the
// start shared by every hash of server.
func (r *Redis) hash(server uuid.UUID, key string) string {
	return r.prefix + ":" + server.String() + ":" + clientKey(key)
}

// globSpecial escapes the characters SCAN MATCH treats as pattern syntax.
var globSpecial = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`, `]`, `\]`)

// escapeGlob makes s match only itself in a SCAN MATCH pattern.
func escapeGlob(s string) string { return globSpecial.Replace(s) }
