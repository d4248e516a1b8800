// Package readiness decides whether an instance should receive traffic:
// a set of named checks, run together within a deadline, whose outcome a
// load balancer or an orchestrator reads at /readyz.
package readiness

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultTimeout bounds one round of checks: under the one second a
// Kubernetes probe waits by default, so that a slow database fails the
// check with its reason instead of the probe with a timeout.
const DefaultTimeout = 800 * time.Millisecond

// OK is the outcome of a passing check.
const OK = "ok"

// Check is one condition of readiness: Run returns nil when it holds, else
// an error whose text says why not. The report is public (a probe needs no
// credentials), so an error that may name hosts or addresses is wrapped
// with Fail, whose cause is logged only.
type Check struct {
	Name string
	Run  func(ctx context.Context) error
}

// Fail is a check's failure: reason goes into the report, cause into the
// log only.
func Fail(reason string, cause error) error { return &failed{reason, cause} }

type failed struct {
	reason string
	cause  error
}

func (f *failed) Error() string { return f.reason + ": " + f.cause.Error() }
func (f *failed) Unwrap() error { return f.cause }

// Report is the outcome of one round: Checks maps every check's name to OK
// or the reason it fails.
type Report struct {
	Ready  bool
	Checks map[string]string
}

// Checker runs the checks and logs each change of readiness once: a lost
// readiness at warn level with the failing checks, its return at info.
type Checker struct {
	checks  []Check
	timeout time.Duration
	log     *slog.Logger

	mu    sync.Mutex
	ready bool // as of the last round; the first failure is logged too
}

// New returns a Checker of checks whose rounds last at most timeout
// (DefaultTimeout when 0).
func New(log *slog.Logger, timeout time.Duration, checks ...Check) *Checker {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Checker{checks: checks, timeout: timeout, log: log, ready: true}
}

// Check runs every check at once and waits for all of them, each bounded by
// the Checker's timeout; a check still running then fails with
// "no answer within 800ms".
func (c *Checker) Check(ctx context.Context) Report {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	outcomes := make([]string, len(c.checks))
	causes := make([]error, len(c.checks))
	var wg sync.WaitGroup
	for i, ch := range c.checks {
		done := make(chan error, 1)
		go func() { done <- ch.Run(ctx) }()
		wg.Go(func() {
			select {
			case err := <-done:
				outcomes[i], causes[i] = outcome(err), err
			case <-ctx.Done():
				outcomes[i] = "no answer within " + c.timeout.String()
			}
		})
	}
	wg.Wait()
	r := Report{Ready: true, Checks: make(map[string]string, len(c.checks))}
	var failing []any // for the log: the failures with their causes
	for i, ch := range c.checks {
		r.Checks[ch.Name] = outcomes[i]
		if outcomes[i] != OK {
			r.Ready = false
			detail := outcomes[i]
			if causes[i] != nil {
				detail = causes[i].Error()
			}
			failing = append(failing, slog.String(ch.Name, detail))
		}
	}
	c.note(ctx, r, failing)
	return r
}

// outcome is what the report says of err.
func outcome(err error) string {
	var f *failed
	switch {
	case err == nil:
		return OK
	case errors.As(err, &f):
		return f.reason
	default:
		return err.Error()
	}
}

// note logs r when readiness changed since the last round.
func (c *Checker) note(ctx context.Context, r Report, failing []any) {
	c.mu.Lock()
	changed := c.ready != r.Ready
	c.ready = r.Ready
	c.mu.Unlock()
	if !changed || c.log == nil {
		return
	}
	if r.Ready {
		c.log.InfoContext(context.WithoutCancel(ctx), "ready again")
		return
	}
	c.log.WarnContext(context.WithoutCancel(ctx), "not ready", slog.Group("checks", failing...))
}

// DatabaseCheck is the check named "database": ping answers within the
// round's deadline.
func DatabaseCheck(ping func(context.Context) error) Check {
	return Check{Name: "database", Run: func(ctx context.Context) error {
		if err := ping(ctx); err != nil {
			return Fail("unreachable", err)
		}
		return nil
	}}
}

// ListenerCheck is the check named "listener": every listening connection
// (by what it listens for) is subscribed. A state reports whether its
// connection is subscribed and, when not, since when it is lost (zero
// before its first subscription).
func ListenerCheck(states map[string]func() (bool, time.Time)) Check {
	return Check{Name: "listener", Run: func(context.Context) error {
		var down []string
		for _, what := range slices.Sorted(maps.Keys(states)) {
			ok, since := states[what]()
			switch {
			case ok:
			case since.IsZero():
				down = append(down, what+": not yet subscribed")
			default:
				down = append(down, what+": disconnected since "+since.UTC().Format(time.RFC3339))
			}
		}
		if len(down) > 0 {
			return errors.New(strings.Join(down, "; "))
		}
		return nil
	}}
}
