// Package periodic runs a job on a timer: the service's sweeps and journal
// retention, each a loop of its own.
package periodic

import (
	"context"
	"time"
)

// Run calls job every interval, the first time one interval from now, until
// ctx ends or stop is closed (a nil stop never is). Each call gets a context
// that ends after one interval, so a slow job never overlaps the next.
func Run(ctx context.Context, every time.Duration, stop <-chan struct{}, job func(ctx context.Context)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-t.C:
		case <-stop:
			return
		case <-ctx.Done():
			return
		}
		jctx, cancel := context.WithTimeout(ctx, every)
		job(jctx)
		cancel()
	}
}

// Sweep runs sweep as Run runs a job, and reports each outcome: failed when
// the sweep fails while ctx lives (a sweep cut short by shutdown is no
// failure), swept when it did something (n is not the zero value).
func Sweep[N comparable](ctx context.Context, every time.Duration, stop <-chan struct{},
	sweep func(context.Context) (N, error), failed func(N, error), swept func(N)) {
	Run(ctx, every, stop, func(sctx context.Context) {
		var none N
		switch n, err := sweep(sctx); {
		case err != nil && ctx.Err() == nil:
			failed(n, err)
		case n != none:
			swept(n)
		}
	})
}
