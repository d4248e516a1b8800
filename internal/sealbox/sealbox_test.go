package sealbox_test

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
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

// TestLayout: nonce, then AES-256-GCM ciphertext and tag, the layout of the
// values already stored (upstream headers, OAuth signing keys).
func TestLayout(t *testing.T) {
	secret := bytes.Repeat([]byte{7}, sealbox.KeySize)
	block, err := aes.NewCipher(secret)
	require.NoError(t, err)
	aead, err := cipher.NewGCM(block)
	require.NoError(t, err)
	nonce := bytes.Repeat([]byte{9}, aead.NonceSize())
	stored := aead.Seal(append([]byte{}, nonce...), nonce, []byte("value"), []byte("purpose"))

	box, err := sealbox.New(secret)
	require.NoError(t, err)
	got, err := box.Open(stored, []byte("purpose"))
	require.NoError(t, err)
	require.Equal(t, "value", string(got))
	sealed, err := box.Seal([]byte("value"), []byte("purpose"))
	require.NoError(t, err)
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte("purpose"))
	require.NoError(t, err)
	require.Equal(t, "value", string(plain))
}
