package sequence_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/redisconn"
	"github.com/mockmcp/mockmcp/internal/sequence"
)

// redisClient connects to the Redis of the tests: TEST_REDIS_URL, else the
// local default. CI runs one, so an unreachable Redis fails the test
// rather than skipping it.
func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	url := os.Getenv("TEST_REDIS_URL")
	if url == "" {
		url = "redis://127.0.0.1:6379/0"
	}
	c, err := redisconn.Open(context.Background(), url)
	require.NoError(t, err, "the sequence tests need Redis (set TEST_REDIS_URL)")
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// testPrefix is a hash-name prefix of t's own, whose hashes are deleted when
// t ends.
func testPrefix(t *testing.T, c *redis.Client) string {
	t.Helper()
	prefix := "mockmcp-test:seq:" + uuid.NewString()
	t.Cleanup(func() {
		ctx := context.Background()
		keys, err := c.Keys(ctx, prefix+"*").Result()
		if err == nil && len(keys) > 0 {
			err = c.Del(ctx, keys...).Err()
		}
		if err != nil {
			t.Errorf("clean up %s*: %v", prefix, err)
		}
	})
	return prefix
}

// newRedis returns a Redis store with a prefix of t's own.
func newRedis(t *testing.T, opts sequence.RedisOptions) *sequence.Redis {
	t.Helper()
	c := redisClient(t)
	opts.Prefix = testPrefix(t, c)
	return sequence.NewRedis(c, opts)
}

func TestRedisHashes(t *testing.T) {
	t.Parallel()
	c := redisClient(t)
	prefix := testPrefix(t, c)
	r := sequence.NewRedis(c, sequence.RedisOptions{Prefix: prefix, TTL: time.Hour})
	server, ctx := uuid.New(), context.Background()
	long := strings.Repeat("z", 1000)
	calls(t, r, server, "flaky", "alice", 3)
	calls(t, r, server, "steady", "alice", 1)
	calls(t, r, server, "flaky", long, 1)

	alice := prefix + ":" + server.String() + ":alice"
	require.Equal(t, map[string]string{"flaky": "3", "steady": "1"}, c.HGetAll(ctx, alice).Val(),
		"one hash per (server, key), one field per scenario")
	ttl := c.TTL(ctx, alice).Val()
	require.True(t, ttl > 59*time.Minute && ttl <= time.Hour, "the hash expires a TTL after its last call: %v", ttl)

	sum := sha256.Sum256([]byte(long))
	hashed := prefix + ":" + server.String() + ":sha256:" + hex.EncodeToString(sum[:])
	require.Equal(t, map[string]string{"flaky": "1"}, c.HGetAll(ctx, hashed).Val(), "a long key is stored as its SHA-256")
	keys, err := c.Keys(ctx, prefix+"*").Result()
	require.NoError(t, err)
	require.ElementsMatch(t, []string{alice, hashed}, keys)
}

func TestRedisResetTakesKeysLiterally(t *testing.T) {
	t.Parallel()
	r := newRedis(t, sequence.RedisOptions{})
	server, ctx := uuid.New(), context.Background()
	keys := []string{"a*", "ab", "a?", "a[b]", `a\b`, "[ab]", "b"}
	for _, key := range keys {
		calls(t, r, server, "flaky", key, 2)
	}
	for i, key := range keys {
		require.NoError(t, r.Reset(ctx, server, key))
		require.Equal(t, int64(0), next(t, r, server, "flaky", key), "%q was reset", key)
		for _, kept := range keys[i+1:] {
			require.Equal(t, int64(2), next(t, r, server, "flaky", kept), "resetting %q kept %q", key, kept)
			require.NoError(t, r.Reset(ctx, server, kept)) // back to where it was
			calls(t, r, server, "flaky", kept, 2)
		}
	}
}

func TestRedisResetAllTakesThePrefixLiterally(t *testing.T) {
	t.Parallel()
	c := redisClient(t)
	base := testPrefix(t, c)
	server, ctx := uuid.New(), context.Background()
	// Read as a pattern, "x[ab]" would match "xa" too.
	globby := sequence.NewRedis(c, sequence.RedisOptions{Prefix: base + ":x[ab]"})
	plain := sequence.NewRedis(c, sequence.RedisOptions{Prefix: base + ":xa"})
	calls(t, globby, server, "flaky", "k", 2)
	calls(t, plain, server, "flaky", "k", 2)
	require.NoError(t, globby.Reset(ctx, server, ""))
	require.Equal(t, int64(0), next(t, globby, server, "flaky", "k"))
	require.Equal(t, int64(2), next(t, plain, server, "flaky", "k"))
}

func TestRedisResetAllInBatches(t *testing.T) {
	t.Parallel()
	c := redisClient(t)
	r := sequence.NewRedis(c, sequence.RedisOptions{Prefix: testPrefix(t, c)})
	server, other, ctx := uuid.New(), uuid.New(), context.Background()
	const keys = 1234 // more than one SCAN step and one UNLINK batch
	for i := range keys {
		next(t, r, server, "flaky", strconv.Itoa(i))
	}
	next(t, r, other, "flaky", "0")
	require.NoError(t, r.Reset(ctx, server, ""))
	for _, key := range []string{"0", "617", strconv.Itoa(keys - 1)} {
		require.Equal(t, int64(0), next(t, r, server, "flaky", key), key)
	}
	require.Equal(t, int64(1), next(t, r, other, "flaky", "0"))
}

func TestRedisInstancesShareCounts(t *testing.T) {
	t.Parallel()
	c1, c2 := redisClient(t), redisClient(t)
	prefix := testPrefix(t, c1)
	one := sequence.NewRedis(c1, sequence.RedisOptions{Prefix: prefix})
	two := sequence.NewRedis(c2, sequence.RedisOptions{Prefix: prefix})
	server := uuid.New()
	for i := range int64(6) {
		s := one
		if i%2 == 1 {
			s = two
		}
		require.Equal(t, i, next(t, s, server, "flaky", "shared"), "call %d", i)
	}
	require.NoError(t, two.Reset(context.Background(), server, "shared"))
	require.Equal(t, int64(0), next(t, one, server, "flaky", "shared"), "a reset on one instance counts on the other")
}

func TestRedisFailureIsAnError(t *testing.T) {
	t.Parallel()
	// Nothing listens on port 1.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", DialTimeout: 100 * time.Millisecond, MaxRetries: -1, DialerRetries: 1})
	t.Cleanup(func() { _ = c.Close() })
	r := sequence.NewRedis(c, sequence.RedisOptions{})
	_, err := r.Next(context.Background(), uuid.New(), "flaky", "k")
	require.ErrorContains(t, err, "count a sequence call in Redis")
	require.ErrorContains(t, r.Reset(context.Background(), uuid.New(), "k"), "reset sequence counters in Redis")
	require.ErrorContains(t, r.Reset(context.Background(), uuid.New(), ""), "list sequence counters in Redis")
}
