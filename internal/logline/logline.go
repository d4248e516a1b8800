// Package logline is the service's log format: one JSON object per line on
// stderr, durations in milliseconds, and every logger in the process (the
// standard library's log package, the HTTP server's error log, Echo's own
// logger) routed into the same handler, so that a log collector never
// meets a line it cannot parse.
package logline

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"time"
)

// New is the service's logger: JSON lines on w at level and above. Every
// time.Duration attribute is written as a number of milliseconds under its
// key with "_ms" appended ("duration" becomes "duration_ms": 1.234), never
// as Go's "1.234ms" nor as nanoseconds.
func New(w io.Writer, level slog.Leveler) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level, ReplaceAttr: durationsInMS}))
}

// Install makes log the process's default logger: the standard library's
// log package (log.Printf, and every package that logs through it, such as
// net/http without an ErrorLog) then writes through it, at info level.
func Install(log *slog.Logger) {
	slog.SetDefault(log)
}

func durationsInMS(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindDuration {
		return slog.Float64(a.Key+"_ms", Milliseconds(a.Value.Duration()))
	}
	return a
}

// Milliseconds is d in milliseconds, to the microsecond.
func Milliseconds(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// Writer is an io.Writer for loggers that only write text: each line
// written becomes one record at level with message msg and the line as
// "detail". Echo's own logger writes through one.
func Writer(log *slog.Logger, level slog.Level, msg string) io.Writer {
	return &lineWriter{log: log, level: level, msg: msg}
}

type lineWriter struct {
	log   *slog.Logger
	level slog.Level
	msg   string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	for line := range bytes.Lines(p) {
		if s := strings.TrimSpace(string(line)); s != "" {
			w.log.Log(context.Background(), w.level, w.msg, "detail", s)
		}
	}
	return len(p), nil
}
