package store

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/gen/db"
)

// TestEveryPartSharesTheConnection checks the wiring of the parts: each
// part of a Store holds the Store's own pool and queries, and each part of a
// Tx the transaction's own, so that no part is left nil (a call through it
// would panic) or works on another connection.
func TestEveryPartSharesTheConnection(t *testing.T) {
	s := New(nil)
	requireParts(t, reflect.ValueOf(s).Elem(), reflect.ValueOf(s.conn), 7)

	tx := newTx(nil, db.New())
	requireParts(t, reflect.ValueOf(tx).Elem(), reflect.ValueOf(tx.txConn), 14)
}

// requireParts requires every embedded part of whole (every field but its
// first, the shared connection) to hold shared, and counts them.
func requireParts(t *testing.T, whole, shared reflect.Value, parts int) {
	t.Helper()
	require.False(t, shared.IsNil(), "%s has no connection", whole.Type())
	require.Equal(t, parts+1, whole.NumField(), "%s: a part was added or removed; count it here", whole.Type())
	for i := 1; i < whole.NumField(); i++ {
		f := whole.Type().Field(i)
		require.True(t, f.Anonymous, "%s.%s is a part, embedded", whole.Type(), f.Name)
		part := whole.Field(i)
		require.Equal(t, 1, part.NumField(), "part %s holds only the connection", f.Name)
		require.Equal(t, shared.Pointer(), part.Field(0).Pointer(), "part %s holds the shared connection", f.Name)
	}
}
