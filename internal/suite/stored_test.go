package suite_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/suite"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// hangUp passes every case and then cancels the caller's context, as a
// client that disconnects while its suite runs.
type hangUp struct{ cancel context.CancelFunc }

func (h hangUp) Run(context.Context, resttest.Case) resttest.Run {
	h.cancel()
	return resttest.Run{Passed: true}
}

func (h hangUp) get() (suite.Runner, func()) { return h, func() {} }

// TestRunStoredWhenTheCallerHasGone runs a suite over a real database
// whose caller goes away once the tests have run: the test's run and the
// suite run are still stored.
func TestRunStoredWhenTheCallerHasGone(t *testing.T) {
	t.Parallel()
	st := testdb.Store(t)
	ctx := context.Background()
	org, test, id := uuid.New(), uuid.New(), uuid.New()
	inTx := func(ctx context.Context, fn func(suite.Store) error) error {
		return st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) error { return fn(tx) })
	}
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) error {
		if _, err := tx.CreateOrganization(ctx, org, "Suite Org", ""); err != nil {
			return err
		}
		c := resttest.Case{Name: "ping", BaseURL: "https://api.example.com", Scopes: []resttest.Scope{{Method: "GET", Path: "/ping"}}}
		if _, err := tx.CreateRestTest(ctx, test, c, nil, "test"); err != nil {
			return err
		}
		_, err := tx.CreateSuite(ctx, store.Suite{ID: id, Name: "smoke", TestIDs: []uuid.UUID{test}, Parallelism: 1, CreatedBy: "test"})
		return err
	}))

	callerCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	run, err := suite.Run(callerCtx, inTx, hangUp{cancel}.get, id)
	require.NoError(t, err)
	require.Error(t, callerCtx.Err(), "the caller went away before the runs were written")
	require.True(t, run.Passed)
	require.NotNil(t, run.TestRuns[0].RunID, "the test's run is stored")

	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) error {
		stored, err := tx.SuiteRun(ctx, id, run.ID)
		require.NoError(t, err, "the suite run is stored")
		require.Equal(t, 1, stored.PassedCount)
		runs, _, err := tx.TestRuns(ctx, test, nil, 10)
		require.NoError(t, err)
		require.Len(t, runs, 1)
		require.Equal(t, *run.TestRuns[0].RunID, runs[0].ID)
		return nil
	}))
}
