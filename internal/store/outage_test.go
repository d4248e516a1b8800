package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

func open(t *testing.T, dsn string) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(st.Close)
	return st
}

func requireUnavailable(t *testing.T, err error) {
	t.Helper()
	require.True(t, failure.Is(err, failure.ErrUnavailable), "want unavailable, got %v", err)
	require.NotContains(t, err.Error(), "127.0.0.1", "what a caller may see names no address")
}

// TestCutConnectionIsUnavailable: a transaction whose connection is cut
// midway fails as unavailable and leaves nothing behind; while the database
// cannot be reached every transaction fails the same way; once it is back
// the pool connects again by itself.
func TestCutConnectionIsUnavailable(t *testing.T) {
	ctx := context.Background()
	dsn := testdb.New(t)
	proxy, through := testdb.NewProxy(t, dsn)
	st, direct := open(t, through), open(t, dsn)
	users := func(id uuid.UUID) int {
		var n int
		require.NoError(t, direct.Pool().QueryRow(ctx, "SELECT count(*) FROM users WHERE id = $1", id).Scan(&n))
		return n
	}
	// A user's id names their organization too, so that the scope of the
	// transaction can be derived from it.
	scope := func(user uuid.UUID) store.Scope { return store.Scope{OrgID: user, UserID: user} }
	signup := func(tx *store.Tx, user uuid.UUID) error {
		_, _, err := tx.CreateAccount(ctx, store.NewAccount{UserID: user, Email: user.String() + "@example.com",
			PasswordHash: "not-a-real-hash", OrgID: user, OrgName: "Cut " + user.String()[:8]})
		return err
	}

	for name, cut := range map[string]func(tx *store.Tx, user uuid.UUID) error{
		"before commit": func(tx *store.Tx, user uuid.UUID) error {
			if err := signup(tx, user); err != nil {
				return err
			}
			proxy.Cut()
			return nil
		},
		"between statements": func(tx *store.Tx, user uuid.UUID) error {
			if err := signup(tx, user); err != nil {
				return err
			}
			proxy.Cut()
			return tx.SetOrg(ctx, uuid.New())
		},
	} {
		t.Run(name, func(t *testing.T) {
			user := uuid.New()
			err := st.WithTx(ctx, scope(user), func(tx *store.Tx) error { return cut(tx, user) })
			requireUnavailable(t, err)
			require.Zero(t, users(user), "nothing of the cut transaction is written")

			// Cut: no connection can be made.
			requireUnavailable(t, st.WithTx(ctx, store.Scope{}, func(*store.Tx) error { return nil }))
			requireUnavailable(t, st.WithTx(ctx, scope(user), func(tx *store.Tx) error { return signup(tx, user) }))

			proxy.Restore()
			require.NoError(t, st.WithTx(ctx, scope(user), func(tx *store.Tx) error { return signup(tx, user) }))
			require.Equal(t, 1, users(user))
		})
	}
}

// TestPoolAcquireTimeoutIsUnavailable: a request that cannot get a
// connection from a pool in time is told the database is unavailable.
func TestPoolAcquireTimeoutIsUnavailable(t *testing.T) {
	st := open(t, testdb.New(t)+"&pool_max_conns=1")
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- st.WithTx(context.Background(), store.Scope{}, func(*store.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	requireUnavailable(t, st.WithTx(ctx, store.Scope{}, func(*store.Tx) error { return nil }))
	close(release)
	require.NoError(t, <-done)
}

// TestStatementErrorsStayFaults: errors of the statement itself are not
// outages.
func TestStatementErrorsStayFaults(t *testing.T) {
	st := testdb.Store(t)
	err := st.WithTx(context.Background(), store.Scope{}, func(*store.Tx) error { return fmt.Errorf("a bug") })
	require.EqualError(t, err, "a bug")
	require.False(t, failure.Is(err, failure.ErrUnavailable))
}
