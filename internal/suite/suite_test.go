package suite

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
)

// memStore is an organization's tests, suites and runs in memory.
type memStore struct {
	tests     map[uuid.UUID]store.RestTest
	suites    map[uuid.UUID]store.Suite
	testRuns  map[uuid.UUID][]resttest.Run // by test
	suiteRuns []store.SuiteRun
	deleted   uuid.UUID // a test deleted while the suite ran
	fail      error     // answered by CreateSuiteRun when set
}

func newMemStore() *memStore {
	return &memStore{tests: map[uuid.UUID]store.RestTest{}, suites: map[uuid.UUID]store.Suite{},
		testRuns: map[uuid.UUID][]resttest.Run{}}
}

func (m *memStore) Suite(_ context.Context, id uuid.UUID) (store.Suite, error) {
	s, ok := m.suites[id]
	if !ok {
		return s, failure.NotFound("suite")
	}
	return s, nil
}

func (m *memStore) RestTestsByID(_ context.Context, ids []uuid.UUID) (map[uuid.UUID]store.RestTest, error) {
	out := map[uuid.UUID]store.RestTest{}
	for _, id := range ids {
		if t, ok := m.tests[id]; ok {
			out[id] = t
		}
	}
	return out, nil
}

func (m *memStore) CreateTestRun(ctx context.Context, id, test uuid.UUID, r resttest.Run) (store.TestRun, error) {
	if err := ctx.Err(); err != nil {
		return store.TestRun{}, err // as a database statement would
	}
	if test == m.deleted {
		return store.TestRun{}, failure.NotFound("test")
	}
	m.testRuns[test] = append(m.testRuns[test], r)
	return store.TestRun{ID: id, TestID: test, Run: r}, nil
}

func (m *memStore) CreateSuiteRun(ctx context.Context, r store.SuiteRun) (store.SuiteRun, error) {
	if err := ctx.Err(); err != nil {
		return store.SuiteRun{}, err
	}
	if m.fail != nil {
		return store.SuiteRun{}, m.fail
	}
	m.suiteRuns = append(m.suiteRuns, r)
	return r, nil
}

func (m *memStore) test(name string) uuid.UUID {
	id := uuid.New()
	m.tests[id] = store.RestTest{ID: id, Case: resttest.Case{Name: name, BaseURL: "https://api.example.com",
		Scopes: []resttest.Scope{{Method: "GET", Path: "/" + name}}}}
	return id
}

func (m *memStore) inTx(ctx context.Context, fn func(Store) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fn(m)
}

func fields(t *testing.T, err error) []string {
	t.Helper()
	f, ok := failure.As(err)
	require.True(t, ok, "%v", err)
	var out []string
	for _, fe := range f.Fields {
		out = append(out, fe.Field+": "+fe.Message)
	}
	return out
}

func TestCheck(t *testing.T) {
	m := newMemStore()
	a, b := m.test("a"), m.test("b")
	missing := uuid.New()
	ctx := context.Background()

	require.NoError(t, Check(ctx, m, store.Suite{Name: "s", TestIDs: []uuid.UUID{a, b}}, true))
	require.Equal(t, []string{
		"name: must not be blank",
		"test_ids[1]: no test with this id in the organization",
		"test_ids[2]: test " + a.String() + " is already in the suite (test_ids[0])",
	}, fields(t, Check(ctx, m, store.Suite{TestIDs: []uuid.UUID{a, missing, a}}, true)))
	require.NoError(t, Check(ctx, m, store.Suite{Name: "s", TestIDs: []uuid.UUID{missing}}, false),
		"tests left as they are are not checked")
	require.Equal(t, []string{"name: must not be blank"}, fields(t, Check(ctx, m, store.Suite{TestIDs: []uuid.UUID{missing}}, false)))
}

// verdicts answers a case by its path: /pass passes, anything else fails.
type verdicts struct {
	ran      []string
	released int
	cancel   func() // called by each run when set
}

func (v *verdicts) Run(_ context.Context, c resttest.Case) resttest.Run {
	v.ran = append(v.ran, c.Name)
	if v.cancel != nil {
		v.cancel()
	}
	return resttest.Run{Passed: c.Scopes[0].Path == "/pass"}
}

func (v *verdicts) get() (Runner, func()) { return v, func() { v.released++ } }

func TestRun(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name                       string
		tests                      []string // "pass", "fail", "gone" (deleted before the run), "deleted" (while it ran)
		stop                       bool
		ran                        []string
		passed                     bool
		passedN, failedN, skippedN int
		statuses                   []string
		stored                     int // test runs stored
	}{
		{"all pass", []string{"pass", "pass"}, false, []string{"pass", "pass"}, true, 2, 0, 0,
			[]string{resttest.StatusPassed, resttest.StatusPassed}, 2},
		{"a failure", []string{"pass", "fail", "pass"}, false, []string{"pass", "fail", "pass"}, false, 2, 1, 0,
			[]string{resttest.StatusPassed, resttest.StatusFailed, resttest.StatusPassed}, 3},
		{"stop on failure", []string{"fail", "pass"}, true, []string{"fail"}, false, 0, 1, 1,
			[]string{resttest.StatusFailed, resttest.StatusSkipped}, 1},
		{"a test deleted before", []string{"gone", "pass"}, false, []string{"pass"}, false, 1, 1, 0,
			[]string{resttest.StatusError, resttest.StatusPassed}, 1},
		{"a test deleted while it ran", []string{"deleted", "pass"}, false, []string{"pass", "pass"}, true, 2, 0, 0,
			[]string{resttest.StatusPassed, resttest.StatusPassed}, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := newMemStore()
			s := store.Suite{ID: uuid.New(), Parallelism: 1, StopOnFailure: c.stop}
			for _, kind := range c.tests {
				switch kind {
				case "gone":
					s.TestIDs = append(s.TestIDs, uuid.New())
				case "deleted":
					m.deleted = m.test("pass")
					s.TestIDs = append(s.TestIDs, m.deleted)
				default:
					s.TestIDs = append(s.TestIDs, m.test(kind))
				}
			}
			m.suites[s.ID] = s
			v := &verdicts{}
			run, err := Run(ctx, m.inTx, v.get, s.ID)
			require.NoError(t, err)
			require.Equal(t, c.ran, v.ran)
			require.Equal(t, 1, v.released)
			require.Equal(t, s.ID, run.SuiteID)
			require.Equal(t, c.passed, run.Passed)
			require.Equal(t, [4]int{len(c.tests), c.passedN, c.failedN, c.skippedN},
				[4]int{run.Total, run.PassedCount, run.FailedCount, run.SkippedCount})
			var statuses []string
			stored := 0
			for i, p := range run.TestRuns {
				statuses = append(statuses, p.Status)
				require.Equal(t, s.TestIDs[i], p.TestID)
				if p.RunID != nil {
					stored++
				}
			}
			require.Equal(t, c.statuses, statuses)
			require.Equal(t, c.stored, stored)
			require.Equal(t, []store.SuiteRun{run}, m.suiteRuns)
		})
	}
}

func TestRunFailures(t *testing.T) {
	m := newMemStore()
	v := &verdicts{}
	_, err := Run(context.Background(), m.inTx, v.get, uuid.New())
	require.True(t, failure.Is(err, failure.ErrNotFound), "%v", err)
	require.Zero(t, v.released, "no runner for a suite not found")

	s := store.Suite{ID: uuid.New(), TestIDs: []uuid.UUID{m.test("pass")}}
	m.suites[s.ID] = s
	m.fail = errors.New("connection lost")
	_, err = Run(context.Background(), m.inTx, v.get, s.ID)
	require.ErrorIs(t, err, m.fail)

	ctx, cancel := context.WithCancel(context.Background())
	m.fail = nil
	v.cancel = cancel
	run, err := Run(ctx, m.inTx, v.get, s.ID)
	require.NoError(t, err, "the runs are stored even when the caller has gone meanwhile")
	require.Equal(t, 1, run.PassedCount)
	require.Len(t, m.suiteRuns, 1)
}
