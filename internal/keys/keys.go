// Package keys mints platform API keys and checks the ones requests present.
//
// A raw key is "mmcp_" followed by 43 base64url characters (32 random bytes);
// only its SHA-256 hex is stored. Checks are cached per instance, and the
// cache is dropped whenever any key is created, revoked or changed: every
// instance listens on the database channel the api_keys triggers notify, so
// a revoked key is refused everywhere within moments. While that
// subscription is down the cache is not used at all.
package keys

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
)

// Prefix starts every raw key, so keys are recognisable in configuration
// files and by secret scanners.
const Prefix = "mmcp_"

// rawLen is the length of a raw key: the prefix and 32 bytes in unpadded
// base64url.
const rawLen = len(Prefix) + 43

// Generate returns a fresh raw key and the hash under which it is stored.
// The raw key is shown to its creator once and never stored.
func Generate() (raw, hash string) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	raw = Prefix + base64.RawURLEncoding.EncodeToString(b[:])
	return raw, auth.HashToken(raw)
}

// WellFormed reports whether raw has the shape of a key this service mints,
// so that malformed keys are refused without a database look-up.
func WellFormed(raw string) bool {
	if len(raw) != rawLen || !strings.HasPrefix(raw, Prefix) {
		return false
	}
	for i := len(Prefix); i < len(raw); i++ {
		c := raw[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// FromRequest returns the key a request presents in `Authorization: Bearer`
// or `X-API-Key`, which are equivalent. Sending two different keys is an
// error; an Authorization header of another scheme is not a key.
func FromRequest(r *http.Request) (raw string, ok bool, err error) {
	bearer := bearerToken(r.Header.Get("Authorization"))
	header := strings.TrimSpace(r.Header.Get("X-API-Key"))
	switch {
	case bearer != "" && header != "" && bearer != header:
		return "", false, failure.BadRequest("send one API key: Authorization and X-API-Key carry different keys")
	case bearer != "":
		return bearer, true, nil
	case header != "":
		return header, true, nil
	}
	return "", false, nil
}

// Present reports whether the request carries a key header at all.
func Present(r *http.Request) bool {
	return r.Header.Get("X-API-Key") != "" || bearerToken(r.Header.Get("Authorization")) != ""
}

func bearerToken(h string) string {
	const scheme = "bearer "
	if len(h) < len(scheme) || !strings.EqualFold(h[:len(scheme)], scheme) {
		return ""
	}
	return strings.TrimSpace(h[len(scheme):])
}
