package sealbox_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/sealbox"
)

func TestSealOpen(t *testing.T) {
	box, err := sealbox.New(bytes.Repeat([]byte{1}, sealbox.KeySize))
	require.NoError(t, err)
	plain := []byte("private key")
	a, err := box.Seal(plain, []byte("kid-1"))
	require.NoError(t, err)
	b, err := box.Seal(plain, []byte("kid-1"))
	require.NoError(t, err)
	require.NotEqual(t, a, b, "a fresh nonce per sealing")
	require.NotContains(t, string(a), string(plain))

	got, err := box.Open(a, []byte("kid-1"))
	require.NoError(t, err)
	require.Equal(t, plain, got)

	_, err = box.Open(a, []byte("kid-2"))
	require.ErrorIs(t, err, sealbox.ErrUnsealable, "bound to its additional data")
	other, err := sealbox.New(bytes.Repeat([]byte{2}, sealbox.KeySize))
	require.NoError(t, err)
	_, err = other.Open(a, []byte("kid-1"))
	require.ErrorIs(t, err, sealbox.ErrUnsealable, "another secret")
	damaged := append([]byte{}, a...)
	damaged[len(damaged)-1] ^= 1
	_, err = box.Open(damaged, []byte("kid-1"))
	require.ErrorIs(t, err, sealbox.ErrUnsealable)
	_, err = box.Open(a[:5], []byte("kid-1"))
	require.ErrorIs(t, err, sealbox.ErrUnsealable, "shorter than a nonce")

	_, err = sealbox.New(make([]byte, 16))
	require.ErrorContains(t, err, "32 bytes")
}
