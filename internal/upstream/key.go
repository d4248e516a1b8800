// Package upstream holds what a design's upstream needs beside the design:
// the key that seals its header values at rest, and the forwarder that
// relays calls to it through the outbound address policy.
package upstream

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/mockmcp/mockmcp/internal/sealbox"
)

// KeySize is the length of a sealing key: AES-256.
const KeySize = sealbox.KeySize

// Key seals and opens upstream header values (sealbox: AES-256-GCM).
type Key struct {
	box *sealbox.Box
}

// NewKey returns the Key of a KeySize-byte secret.
func NewKey(secret []byte) (*Key, error) {
	box, err := sealbox.New(secret)
	if err != nil {
		return nil, fmt.Errorf("upstream: %w", err)
	}
	return &Key{box: box}, nil
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
	return k.box.Seal(plain, additional)
}

// ErrUnsealable is the error of sealed headers the key cannot open (sealed
// under another key, or damaged).
var ErrUnsealable = errors.New("the upstream's headers cannot be decrypted with this service's key")

// Open opens what Seal sealed; no headers for nil.
func (k *Key) Open(sealed []byte) (map[string]string, error) {
	if len(sealed) == 0 {
		return nil, nil
	}
	plain, err := k.box.Open(sealed, additional)
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
