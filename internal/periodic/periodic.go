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
