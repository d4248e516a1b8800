package logline_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/logline"
)

// lines decodes every line of out as one JSON object.
func lines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var all []map[string]any
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var v map[string]any
		require.NoErrorf(t, json.Unmarshal([]byte(l), &v), "not JSON: %q", l)
		all = append(all, v)
	}
	return all
}

func TestDurationsAreMilliseconds(t *testing.T) {
	var out bytes.Buffer
	lg := logline.New(&out, slog.LevelInfo)
	lg.Info("migration applied", "duration", 1500*time.Microsecond,
		slog.Group("retry", slog.Duration("after", 2*time.Second)), "name", "1.5ms")
	got := lines(t, out.String())[0]
	require.Equal(t, 1.5, got["duration_ms"])
	require.NotContains(t, got, "duration")
	require.Equal(t, map[string]any{"after_ms": float64(2000)}, got["retry"])
	require.Equal(t, "1.5ms", got["name"], "strings are left alone")
}

// TestOtherLoggersWriteJSON: the standard library's log package, once the
// logger is installed, and Echo's own logger through Writer.
func TestOtherLoggersWriteJSON(t *testing.T) {
	prev := slog.Default()
	t.Cleanup(func() { slog.SetDefault(prev) })
	var out bytes.Buffer
	lg := logline.New(&out, slog.LevelInfo)
	logline.Install(lg)
	log.Printf("http: TLS handshake error from %s", "192.0.2.1:1234")

	e := echo.New()
	e.Logger.SetHeader("${level}")
	e.Logger.SetOutput(logline.Writer(lg, slog.LevelWarn, "echo"))
	e.Logger.Error("something Echo says")
	fmt.Fprint(logline.Writer(lg, slog.LevelWarn, "text"), "one\ntwo\n\n")

	got := lines(t, out.String())
	require.Len(t, got, 4, out.String())
	require.Equal(t, "http: TLS handshake error from 192.0.2.1:1234", got[0]["msg"])
	require.Equal(t, "INFO", got[0]["level"])
	require.Equal(t, "echo", got[1]["msg"])
	require.Equal(t, "WARN", got[1]["level"])
	require.Equal(t, "ERROR something Echo says", got[1]["detail"])
	require.Equal(t, "one", got[2]["detail"])
	require.Equal(t, "two", got[3]["detail"])
}
