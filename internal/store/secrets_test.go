package store_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// TestServiceSecretIsShared: the first instance's secret is every
// instance's, and it survives a restart.
func TestServiceSecretIsShared(t *testing.T) {
	dsn := testdb.New(t)
	require.NoError(t, store.Migrate(context.Background(), dsn, nil))
	first, second := open(t, dsn), open(t, dsn)
	ctx := context.Background()
	a, b := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	got, err := first.ServiceSecret(ctx, "request_state", a)
	require.NoError(t, err)
	require.Equal(t, a, got)
	got, err = second.ServiceSecret(ctx, "request_state", b)
	require.NoError(t, err)
	require.Equal(t, a, got, "the second instance reads the first's")
	got, err = first.ServiceSecret(ctx, "other", b)
	require.NoError(t, err)
	require.Equal(t, b, got, "secrets are kept by name")
}
