// Package sealbox seals values kept at rest with AES-256-GCM: a random
// nonce per sealing, prefixed to the ciphertext, and additional data that
// binds a sealed value to its purpose (or its row).
package sealbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// KeySize is the length of a sealing secret: AES-256.
const KeySize = 32

// Box seals and opens values under one secret.
type Box struct {
	aead cipher.AEAD
}

// New returns the Box of a KeySize-byte secret.
func New(secret []byte) (*Box, error) {
	if len(secret) != KeySize {
		return nil, fmt.Errorf("a sealing secret must be %d bytes, got %d", KeySize, len(secret))
	}
	block, err := aes.NewCipher(secret)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// Seal seals plain, bound to additional.
func (b *Box) Seal(plain, additional []byte) ([]byte, error) {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plain)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return b.aead.Seal(nonce, nonce, plain, additional), nil
}

// ErrUnsealable is the error of a value the box cannot open: sealed under
// another secret or for other additional data, or damaged.
var ErrUnsealable = errors.New("the sealed value cannot be opened with this secret")

// Open opens what Seal sealed with the same additional data.
func (b *Box) Open(sealed, additional []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n {
		return nil, ErrUnsealable
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], additional)
	if err != nil {
		return nil, ErrUnsealable
	}
	return plain, nil
}
