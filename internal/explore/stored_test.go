package explore_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/explore"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// hangUp answers every request with a 204 and then cancels the caller's
// context, as a client that disconnects while its request is out.
type hangUp struct{ cancel context.CancelFunc }

func (h hangUp) Run(_ context.Context, c resttest.Case) resttest.Run {
	h.cancel()
	return resttest.Run{Results: []resttest.Result{{Request: resttest.Request{Method: c.Scopes[0].Method, URL: c.BaseURL + c.Scopes[0].Path},
		Response: &resttest.Response{Status: 204}}}}
}

func (h hangUp) get() (explore.Runner, func()) { return h, func() {} }

// TestSendLoggedWhenTheCallerHasGone sends a session request over a real
// database whose caller goes away once the answer is in: the entry is
// still logged.
func TestSendLoggedWhenTheCallerHasGone(t *testing.T) {
	t.Parallel()
	st := testdb.Store(t)
	ctx := context.Background()
	org, session := uuid.New(), uuid.New()
	inTx := func(ctx context.Context, fn func(explore.Store) error) error {
		return st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) error { return fn(tx) })
	}
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) error {
		if _, err := tx.CreateOrganization(ctx, org, "Session Org", ""); err != nil {
			return err
		}
		_, err := tx.CreateExploreSession(ctx, store.ExploreSession{ID: session, Name: "poke",
			BaseURL: "https://api.example.com", CreatedBy: "test"})
		return err
	}))

	callerCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	entry, err := explore.Send(callerCtx, inTx, hangUp{cancel}.get, session, explore.Request{Method: "DELETE", Path: "/users/42"})
	require.NoError(t, err)
	require.Error(t, callerCtx.Err(), "the caller went away before the entry was written")

	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) error {
		logged, err := tx.ExploreEntries(ctx, session)
		require.NoError(t, err)
		require.Len(t, logged, 1, "the entry is logged")
		require.Equal(t, entry.ID, logged[0].ID)
		require.Equal(t, 204, logged[0].Response.Status)
		return nil
	}))
}
