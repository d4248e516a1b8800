package upstream_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/upstream"
)

func TestKeySealsAndOpens(t *testing.T) {
	k, err := upstream.RandomKey()
	require.NoError(t, err)
	headers := map[string]string{"Authorization": "Bearer sk-live-123", "X-Team": "blue"}
	sealed, err := k.Seal(headers)
	require.NoError(t, err)
	require.False(t, bytes.Contains(sealed, []byte("sk-live-123")), "the value is not in clear")
	again, err := k.Seal(headers)
	require.NoError(t, err)
	require.NotEqual(t, sealed, again, "each sealing has its own nonce")

	got, err := k.Open(sealed)
	require.NoError(t, err)
	require.Equal(t, headers, got)

	other, err := upstream.RandomKey()
	require.NoError(t, err)
	_, err = other.Open(sealed)
	require.ErrorIs(t, err, upstream.ErrUnsealable, "another key cannot open it")

	sealed[len(sealed)-1] ^= 1
	_, err = k.Open(sealed)
	require.ErrorIs(t, err, upstream.ErrUnsealable, "a damaged value does not open")

	none, err := k.Seal(nil)
	require.NoError(t, err)
	require.Nil(t, none)
	got, err = k.Open(nil)
	require.NoError(t, err)
	require.Nil(t, got)

	_, err = upstream.NewKey([]byte("short"))
	require.Error(t, err)
}
