package redisconn

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/redis/go-redis/v9"
)

// UseLogger sends the Redis client's own messages (a failed dial, a
// connection the pool dropped) to log as warnings, instead of the plain
// "redis: …" lines the client writes to stderr by default. The client has
// one logger per process, so this holds for every client.
func UseLogger(log *slog.Logger) {
	redis.SetLogger(clientLogger{log})
}

// clientLogger adapts slog to the Redis client's Printf-style logger.
type clientLogger struct{ log *slog.Logger }

func (l clientLogger) Printf(ctx context.Context, format string, v ...any) {
	msg := strings.TrimPrefix(fmt.Sprintf(format, v...), "redis: ")
	l.log.WarnContext(ctx, "redis client", "detail", msg)
}
