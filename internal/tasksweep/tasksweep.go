// Package tasksweep deletes expired MCP tasks on a timer, for every
// organization at once, as journal retention does for the call journal.
// A task past its expiry is already invisible (the store treats it as not
// found); the sweep only frees its row.
package tasksweep

import (
	"context"
	"log/slog"
	"time"

	"github.com/mockmcp/mockmcp/internal/periodic"
)

// Store deletes the tasks that expired at or before now and says how many.
type Store interface {
	SweepTasks(ctx context.Context, now time.Time) (int64, error)
}

// DefaultInterval is how often a Sweeper sweeps unless told otherwise.
const DefaultInterval = time.Minute

// Options tune a Sweeper; zero values take the defaults.
type Options struct {
	Interval time.Duration // how often the sweep runs; default DefaultInterval
}

// Sweeper runs the sweep every Interval until its context ends.
type Sweeper struct {
	store Store
	log   *slog.Logger
	opts  Options
}

// New returns a Sweeper over st.
func New(st Store, log *slog.Logger, opts Options) *Sweeper {
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	return &Sweeper{store: st, log: log, opts: opts}
}

// Sweep deletes the tasks expired by now, once.
func (s *Sweeper) Sweep(ctx context.Context) (int64, error) {
	return s.store.SweepTasks(ctx, time.Now())
}

// Run sweeps every Interval until ctx ends. A failed sweep is logged and
// tried again at the next tick: every instance sweeps, so one that cannot
// costs nothing but rows kept a little longer.
func (s *Sweeper) Run(ctx context.Context) {
	periodic.Sweep(ctx, s.opts.Interval, nil, s.Sweep,
		func(_ int64, err error) { s.log.Warn("task sweep failed", "err", err) },
		func(n int64) { s.log.Debug("task sweep", "deleted", n) })
}
