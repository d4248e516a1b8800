package ratelimit_test

import (
	"context"
	"io"
	"log/slog"
	"math"
	"testing"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/ratelimit"
)

// BenchmarkAdmitRedis admits one message at a time on one counter in
// Redis, under a limit never reached: with one round trip per request (the
// way before leases) and leased, one caller and as many as GOMAXPROCS.
func BenchmarkAdmitRedis(b *testing.B) {
	for _, tc := range []struct {
		name string
		opts func(ratelimit.Options) ratelimit.Options
	}{
		{"per-request", ratelimit.PerRequest},
		{"leased", func(o ratelimit.Options) ratelimit.Options { return o }},
	} {
		newLimiter := func(b *testing.B) *ratelimit.Limiter {
			l, err := ratelimit.New(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)),
				tc.opts(ratelimit.Options{Enabled: true, RedisURL: redisURL(), Prefix: "bench-" + uuid.NewString()}))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = l.Close() })
			return l
		}
		b.Run(tc.name, func(b *testing.B) {
			l := newLimiter(b)
			ctx := context.Background()
			for b.Loop() {
				if !l.Take(ctx, "k", math.MaxInt32).Counted {
					b.Fatal("not counted")
				}
			}
		})
		b.Run(tc.name+"/parallel", func(b *testing.B) {
			l := newLimiter(b)
			b.RunParallel(func(pb *testing.PB) {
				ctx := context.Background()
				for pb.Next() {
					if !l.Take(ctx, "k", math.MaxInt32).Counted {
						b.Error("not counted")
						return
					}
				}
			})
		})
	}
}
