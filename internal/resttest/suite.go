package resttest

import (
	"context"
	"sync"

	"github.com/google/uuid"
)

// The states of a test in a suite run.
const (
	StatusPassed  = "passed"
	StatusFailed  = "failed"
	StatusSkipped = "skipped" // not run: an earlier test failed and the suite stops on failure
	StatusError   = "error"   // could not run: the test was deleted
)

// SuiteTestRun is one test's part in a suite run.
type SuiteTestRun struct {
	TestID   uuid.UUID  `json:"test_id"`
	TestName string     `json:"test_name"`
	Status   string     `json:"status"`
	RunID    *uuid.UUID `json:"run_id"`
	Run      *Run       `json:"run"`
	Error    string     `json:"error,omitempty"`
}

// SuiteTest is one test of a suite as it is about to run; Case is nil when
// the test no longer exists.
type SuiteTest struct {
	ID   uuid.UUID
	Name string
	Case *Case
}

// RunSuite runs tests in order and returns their parts in the same order.
// With parallelism 1 the tests run one after the other; above 1, that many
// run at once. With stopOnFailure, no test starts after one has failed
// (in parallel, the ones already running finish); the rest are skipped.
// A cancelled ctx skips what has not started.
func RunSuite(ctx context.Context, tests []SuiteTest, parallelism int, stopOnFailure bool,
	run func(context.Context, Case) Run) []SuiteTestRun {
	out := make([]SuiteTestRun, len(tests))
	for i, t := range tests {
		out[i] = SuiteTestRun{TestID: t.ID, TestName: t.Name, Status: StatusSkipped}
	}
	parallelism = max(1, parallelism)
	var (
		mu     sync.Mutex
		failed bool
		wg     sync.WaitGroup
	)
	slots := make(chan struct{}, parallelism)
	for i, t := range tests {
		slots <- struct{}{}
		mu.Lock()
		stop := (stopOnFailure && failed) || ctx.Err() != nil
		mu.Unlock()
		if stop {
			<-slots
			break
		}
		if t.Case == nil {
			out[i].Status, out[i].Error = StatusError, "the test no longer exists"
			<-slots
			mu.Lock()
			failed = true
			mu.Unlock()
			continue
		}
		wg.Add(1)
		go func(i int, c Case) {
			defer func() { <-slots; wg.Done() }()
			r := run(ctx, c)
			mu.Lock()
			defer mu.Unlock()
			out[i].Run = &r
			out[i].Status = StatusPassed
			if !r.Passed {
				out[i].Status = StatusFailed
				failed = true
			}
		}(i, *t.Case)
	}
	wg.Wait()
	return out
}
