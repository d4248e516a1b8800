// Package upstream holds what a design's upstream needs beside the design:
// the key that seals its header values at rest, and the forwarder that
// relays calls to it through the outbound address policy.
package upstream

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
)

// KeySize is the length of a sealing key: AES-256.
const KeySize = 32

// Key seals and opens upstream header values (AES-256-GCM, a random nonce
// per sealing, prefixed to the ciphertext).
type Key struct {
	aead cipher.AEAD
}

// NewKey returns the Key of a KeySize-byte secret.
func NewKey(secret []byte) (*Key, error) {
	if len(secret) != KeySize {
		return nil, fmt.Errorf("upstream: key must be %d bytes, got %d", KeySize, len(secret))
	}
	block, err := aes.NewCipher(secret)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Key{aead: aead}, nil
}

// additional binds a sealed value to its purpose.
var additional = []byte("mockmcp upstream headers")

// Seal seals headers; nil when there are none.
func (k *Key) Seal(headers map[string]string) ([]byte, error) {
	if len(headers) == 0 {
		return nil, nil
	}
	plain, err := json.Marshal(headers)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, k.aead.NonceSize(), k.aead.NonceSize()+len(plain)+k.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return k.aead.Seal(nonce, nonce, plain, additional), nil
}

// ErrUnsealable is the error of sealed headers the key cannot open (sealed
// under another key, or damaged).
var ErrUnsealable = errors.New("the upstream's headers cannot be decrypted with this service's key")

// Open opens what Seal sealed; no headers for nil.
func (k *Key) Open(sealed []byte) (map[string]string, error) {
	if len(sealed) == 0 {
		return nil, nil
	}
	n := k.aead.NonceSize()
	if len(sealed) < n {
		return nil, ErrUnsealable
	}
	plain, err := k.aead.Open(nil, sealed[:n], sealed[n:], additional)
	if err != nil {
		return nil, ErrUnsealable
	}
	var h map[string]string
	if err := json.Unmarshal(plain, &h); err != nil {
		return nil, ErrUnsealable
	}
	return h, nil
}

// RandomKey is a Key of a fresh random secret.
func RandomKey() (*Key, error) {
	secret := make([]byte, KeySize)
	if _, err := rand.Read(secret); err != nil {
		return nil, err
	}
	return NewKey(secret)
}
