package readiness_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/readiness"
)

func TestCheck(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	dbErr := errors.New("dial tcp 10.0.0.5:5432: connect: connection refused")
	var dbDown, slow bool
	c := readiness.New(log, 100*time.Millisecond,
		readiness.DatabaseCheck(func(context.Context) error {
			if dbDown {
				return dbErr
			}
			return nil
		}),
		readiness.Check{Name: "slow", Run: func(ctx context.Context) error {
			if slow {
				<-ctx.Done()
			}
			return nil
		}},
		readiness.ListenerCheck(map[string]func() (bool, time.Time){
			"b": func() (bool, time.Time) { return false, time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC) },
			"a": func() (bool, time.Time) { return false, time.Time{} },
			"c": func() (bool, time.Time) { return true, time.Time{} },
		}),
	)

	r := c.Check(context.Background())
	require.False(t, r.Ready)
	require.Equal(t, map[string]string{"database": "ok", "slow": "ok",
		"listener": "a: not yet subscribed; b: disconnected since 2026-01-02T15:04:05Z"}, r.Checks)
	require.Contains(t, logs.String(), `"msg":"not ready"`)

	logs.Reset()
	dbDown, slow = true, true
	start := time.Now()
	r = c.Check(context.Background())
	require.Less(t, time.Since(start), time.Second, "a check that does not answer is given up")
	require.Equal(t, "unreachable", r.Checks["database"], "the cause stays out of the report")
	require.Equal(t, "no answer within 100ms", r.Checks["slow"])
	require.Empty(t, logs.String(), "still not ready: nothing new to log")
}

func TestCheckLogsChanges(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	err := errors.New("dial tcp 10.0.0.5:5432: connect: connection refused")
	c := readiness.New(log, 0, readiness.DatabaseCheck(func(context.Context) error { return err }))
	require.False(t, c.Check(context.Background()).Ready)
	require.Contains(t, logs.String(), `"level":"WARN","msg":"not ready","checks":{"database":"unreachable: dial tcp 10.0.0.5:5432`,
		"the log keeps the cause")
	logs.Reset()
	err = nil
	require.True(t, c.Check(context.Background()).Ready)
	require.Contains(t, logs.String(), `"level":"INFO","msg":"ready again"`)
	logs.Reset()
	require.True(t, c.Check(context.Background()).Ready)
	require.Empty(t, logs.String())
}
