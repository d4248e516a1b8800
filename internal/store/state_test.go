package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// TestLiveState: a server's live state starts as its design's initial
// state, changes key by key in one statement each (no change lost when
// many run at once), is replaced and reset whole, and is out of reach of
// another organization.
func TestLiveState(t *testing.T) {
	t.Parallel()
	st := testdb.Store(t)
	ctx := context.Background()
	a := seedTenant(t, st, "Alpha", "alpha@example.com")
	b := seedTenant(t, st, "Beta", "beta@example.com")
	inA := func(fn func(*store.Tx) error) {
		t.Helper()
		require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: a.OrgID}, fn))
	}
	// A server of A's with an initial state.
	var srv design.Server
	inA(func(tx *store.Tx) (err error) {
		srv, err = tx.CreateServer(ctx, design.Server{ID: uuid.New(), Name: "stateful", Version: "1.0.0", Type: "mock",
			ProtocolVersion: "2024-11-05", AuthMode: "none", Eras: design.DefaultEras, CacheScope: design.DefaultCacheScope,
			CreatedBy: "test", State: json.RawMessage(`{"items": [], "mode": "open"}`)})
		return err
	})
	require.JSONEq(t, `{"items": [], "mode": "open"}`, string(srv.State))

	t.Run("starts as the initial state", func(t *testing.T) {
		v, err := st.LiveState(ctx, a.OrgID, srv.ID)
		require.NoError(t, err)
		require.JSONEq(t, `{"items": [], "mode": "open"}`, string(v.State))
		require.Zero(t, v.Version)
	})
	t.Run("a change sets and deletes keys", func(t *testing.T) {
		v, err := st.ChangeLiveState(ctx, a.OrgID, srv.ID, mockspec.StateChange{
			Sets: json.RawMessage(`{"item": {"id": "1"}}`), Deletes: []string{"mode"}})
		require.NoError(t, err)
		require.JSONEq(t, `{"items": [], "item": {"id": "1"}}`, string(v.State))
		require.EqualValues(t, 1, v.Version)
		got, err := st.LiveState(ctx, a.OrgID, srv.ID)
		require.NoError(t, err)
		require.Equal(t, v, got)
	})
	t.Run("concurrent changes are none of them lost", func(t *testing.T) {
		before, err := st.LiveState(ctx, a.OrgID, srv.ID)
		require.NoError(t, err)
		const n = 20
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, err := st.ChangeLiveState(ctx, a.OrgID, srv.ID, mockspec.StateChange{
					Sets: json.RawMessage(fmt.Sprintf(`{"k%d": %d}`, i, i))})
				require.NoError(t, err)
			})
		}
		wg.Wait()
		v, err := st.LiveState(ctx, a.OrgID, srv.ID)
		require.NoError(t, err)
		require.Equal(t, before.Version+n, v.Version)
		var m map[string]any
		require.NoError(t, json.Unmarshal(v.State, &m))
		for i := range n {
			require.EqualValues(t, i, m[fmt.Sprintf("k%d", i)])
		}
	})
	t.Run("replaced and reset whole", func(t *testing.T) {
		inA(func(tx *store.Tx) error {
			v, err := tx.ReplaceLiveState(ctx, srv.ID, json.RawMessage(`{"only": 1}`))
			require.NoError(t, err)
			require.JSONEq(t, `{"only": 1}`, string(v.State))
			v, err = tx.ResetLiveState(ctx, srv.ID)
			require.NoError(t, err)
			require.JSONEq(t, `{"items": [], "mode": "open"}`, string(v.State))
			return nil
		})
	})
	t.Run("another organization can neither read nor change it", func(t *testing.T) {
		before, err := st.LiveState(ctx, a.OrgID, srv.ID)
		require.NoError(t, err)
		_, err = st.LiveState(ctx, b.OrgID, srv.ID)
		require.ErrorIs(t, err, failure.ErrNotFound)
		_, err = st.ChangeLiveState(ctx, b.OrgID, srv.ID, mockspec.StateChange{Sets: json.RawMessage(`{"x": 1}`)})
		require.ErrorIs(t, err, failure.ErrNotFound)
		require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: b.OrgID}, func(tx *store.Tx) error {
			_, err := tx.LiveState(ctx, srv.ID)
			require.ErrorIs(t, err, failure.ErrNotFound)
			_, err = tx.ReplaceLiveState(ctx, srv.ID, json.RawMessage(`{"x": 1}`))
			require.ErrorIs(t, err, failure.ErrNotFound)
			_, err = tx.ResetLiveState(ctx, srv.ID)
			require.ErrorIs(t, err, failure.ErrNotFound)
			return nil
		}))
		after, err := st.LiveState(ctx, a.OrgID, srv.ID)
		require.NoError(t, err)
		require.Equal(t, before, after)
	})
}
