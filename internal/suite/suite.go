// Package suite checks suites of REST API tests and runs them: each test
// of a suite is run and stored as a run of its own, and the suite run sums
// them up.
package suite

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Store is what the suite workflows read and write in one transaction of
// the caller's organization; *store.Tx is one.
type Store interface {
	Suite(ctx context.Context, id uuid.UUID) (store.Suite, error)
	RestTestsByID(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]store.RestTest, error)
	CreateTestRun(ctx context.Context, id, test uuid.UUID, r resttest.Run) (store.TestRun, error)
	CreateSuiteRun(ctx context.Context, r store.SuiteRun) (store.SuiteRun, error)
}

// InTx runs fn in one transaction of the caller's organization.
type InTx func(ctx context.Context, fn func(Store) error) error

// Runner runs a test case: *resttest.Runner is one.
type Runner interface {
	Run(ctx context.Context, c resttest.Case) resttest.Run
}

// Check refuses a blank name and, when checkTests, tests that are not the
// organization's, or listed twice. A change that leaves test_ids as they
// are does not check them: a test deleted since it was added stays in the
// suite (its runs report it as an error) and must not block the change.
func Check(ctx context.Context, st Store, v store.Suite, checkTests bool) error {
	var f failure.Fields
	if v.Name == "" {
		f.Add("name", "must not be blank")
	}
	if !checkTests {
		return f.Err()
	}
	found, err := st.RestTestsByID(ctx, v.TestIDs)
	if err != nil {
		return err
	}
	seen := map[uuid.UUID]int{}
	for i, id := range v.TestIDs {
		at := "test_ids[" + strconv.Itoa(i) + "]"
		if j, dup := seen[id]; dup {
			f.Add(at, "test %s is already in the suite (test_ids[%d])", id, j)
			continue
		}
		seen[id] = i
		if _, ok := found[id]; !ok {
			f.Add(at, "no test with this id in the organization")
		}
	}
	return f.Err()
}

// Run runs the tests of the suite id now with the runner runner gives
// (and then releases), stores each test's run and the suite run, and
// returns the suite run. The suite and its tests are read in one
// transaction, the tests run outside any, and the runs are written in
// another, under ctx without its cancellation: a caller gone once the
// tests have run loses nothing.
func Run(ctx context.Context, inTx InTx, runner func() (Runner, func()), id uuid.UUID) (store.SuiteRun, error) {
	var (
		suite store.Suite
		found map[uuid.UUID]store.RestTest
	)
	err := inTx(ctx, func(st Store) (err error) {
		if suite, err = st.Suite(ctx, id); err != nil {
			return err
		}
		found, err = st.RestTestsByID(ctx, suite.TestIDs)
		return err
	})
	if err != nil {
		return store.SuiteRun{}, err
	}
	r, done := runner()
	defer done()
	started := time.Now().UTC()
	parts := resttest.RunSuite(ctx, suiteTests(suite, found), suite.Parallelism, suite.StopOnFailure, r.Run)
	run := summed(parts)
	run.ID, run.SuiteID, run.StartedAt = uuid.New(), suite.ID, started
	run.DurationMS = float64(time.Since(started).Microseconds()) / 1000
	kept := context.WithoutCancel(ctx)
	err = inTx(kept, func(st Store) (err error) {
		run, err = saved(kept, st, run)
		return err
	})
	if err != nil {
		return store.SuiteRun{}, err
	}
	return run, nil
}

// suiteTests are the tests of suite as they are about to run; found holds
// those that still exist.
func suiteTests(suite store.Suite, found map[uuid.UUID]store.RestTest) []resttest.SuiteTest {
	tests := make([]resttest.SuiteTest, len(suite.TestIDs))
	for i, id := range suite.TestIDs {
		tests[i] = resttest.SuiteTest{ID: id}
		if t, ok := found[id]; ok {
			c := t.Case
			tests[i].Name, tests[i].Case = c.Name, &c
		}
	}
	return tests
}

// summed is the suite run of parts: it passed when none failed or was
// skipped.
func summed(parts []resttest.SuiteTestRun) store.SuiteRun {
	run := store.SuiteRun{Total: len(parts), TestRuns: parts}
	for _, p := range parts {
		switch p.Status {
		case resttest.StatusPassed:
			run.PassedCount++
		case resttest.StatusSkipped:
			run.SkippedCount++
		default:
			run.FailedCount++
		}
	}
	run.Passed = run.FailedCount == 0 && run.SkippedCount == 0
	return run
}

// saved stores each test's run of run, then run itself. A test deleted
// while the suite ran keeps its part without a stored run.
func saved(ctx context.Context, st Store, run store.SuiteRun) (store.SuiteRun, error) {
	for i := range run.TestRuns {
		p := &run.TestRuns[i]
		if p.Run == nil {
			continue
		}
		tr, err := st.CreateTestRun(ctx, uuid.New(), p.TestID, *p.Run)
		if failure.Is(err, failure.ErrNotFound) {
			continue // deleted while the suite ran
		}
		if err != nil {
			return run, err
		}
		p.RunID = &tr.ID
	}
	return st.CreateSuiteRun(ctx, run)
}
