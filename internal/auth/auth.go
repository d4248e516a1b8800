// Package auth holds who is calling: the principal a request acts for, and the
// browser-session tokens and password hashes that establish it.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"sync"

	"github.com/google/uuid"
	"golang.org/x/crypto/bcrypt"
)

// CookieName is the browser-session cookie.
const CookieName = "mockmcp_session"

// Principal is whoever a request acts for: a signed-in user or an API key.
type Principal struct {
	UserID uuid.UUID // the signed-in user; uuid.Nil for API keys
	Email  string
	OrgID  uuid.UUID // the organization whose data the request sees
	Role   string    // the user's role in OrgID

	KeyID       uuid.UUID   // the API key; uuid.Nil for users
	Scope       string      // the key's scope: full or policy
	BoundAssets []uuid.UUID // the servers a policy-scoped key is bound to
}

// Key scopes.
const (
	ScopeFull   = "full"
	ScopePolicy = "policy"
)

// IsKey reports whether the principal is an API key.
func (p Principal) IsKey() bool { return p.KeyID != uuid.Nil }

// Reaches reports whether the principal may act on the server: users and
// full-scope keys reach every server of their organization, policy-scoped
// keys only those they are bound to.
func (p Principal) Reaches(server uuid.UUID) bool {
	if !p.IsKey() || p.Scope == ScopeFull {
		return true
	}
	for _, id := range p.BoundAssets {
		if id == server {
			return true
		}
	}
	return false
}

// Actor names the principal in created_by fields: a user id, or
// "key:<key id>" for an API key.
func (p Principal) Actor() string {
	if p.IsKey() {
		return "key:" + p.KeyID.String()
	}
	return p.UserID.String()
}

type ctxKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext returns the principal ctx carries, if any.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(ctxKey{}).(Principal)
	return p, ok
}

// NewToken returns a fresh random session token and the hash under which it
// is stored. The raw token only ever lives in the caller's cookie.
func NewToken() (raw, hash string) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand never fails on supported platforms
	raw = base64.RawURLEncoding.EncodeToString(b[:])
	return raw, HashToken(raw)
}

// HashToken is the SHA-256 hex digest under which a token is stored.
func HashToken(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}

// HashPassword hashes a password with bcrypt at cost.
func HashPassword(password string, cost int) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	return string(h), err
}

// dummyHashes holds, per bcrypt cost, the hash of a random password nobody
// knows: a login for an unknown e-mail is compared against the one of the
// configured cost, so it takes as long as a wrong password does.
var dummyHashes sync.Map // int → []byte

func dummyHash(cost int) []byte {
	if h, ok := dummyHashes.Load(cost); ok {
		return h.([]byte)
	}
	raw, _ := NewToken()
	h, err := bcrypt.GenerateFromPassword([]byte(raw), cost)
	if err != nil {
		h, _ = bcrypt.GenerateFromPassword([]byte(raw), bcrypt.DefaultCost)
	}
	actual, _ := dummyHashes.LoadOrStore(cost, h)
	return actual.([]byte)
}

// CheckPassword reports whether password matches hash. An empty hash (no
// such account) still costs one comparison at cost, and never matches.
func CheckPassword(hash, password string, cost int) bool {
	if hash == "" {
		_ = bcrypt.CompareHashAndPassword(dummyHash(cost), []byte(password))
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
}
