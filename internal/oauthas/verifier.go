package oauthas

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/store"
)

// accessClaims are the private claims of an access token beside the
// registered ones.
type accessClaims struct {
	ClientID string `json:"client_id"`
	Scope    string `json:"scope,omitempty"`
}

// sign issues the access token of c, signed with the current key.
func (k *Keys) sign(ctx context.Context, c oauthcfg.Claims) (string, error) {
	key, err := k.signer(ctx)
	if err != nil {
		return "", err
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key.private},
		(&jose.SignerOptions{}).WithType("at+jwt").WithHeader("kid", key.kid))
	if err != nil {
		return "", err
	}
	std := jwt.Claims{Issuer: c.Issuer, Audience: jwt.Audience{c.Audience}, Subject: c.Subject, ID: c.ID,
		IssuedAt: jwt.NewNumericDate(c.IssuedAt), Expiry: jwt.NewNumericDate(c.Expiry)}
	return jwt.Signed(signer).Claims(std).Claims(accessClaims{ClientID: c.ClientID, Scope: strings.Join(c.Scopes, " ")}).Serialize()
}

// parse checks the signature of token and returns its claims, unchecked.
func (k *Keys) parse(ctx context.Context, token string) (oauthcfg.Claims, error) {
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		return oauthcfg.Claims{}, fmt.Errorf("%w: not a signed JWT", oauthcfg.ErrInvalidToken)
	}
	if len(parsed.Headers) != 1 {
		return oauthcfg.Claims{}, fmt.Errorf("%w: one signature expected", oauthcfg.ErrInvalidToken)
	}
	pub, err := k.publicKey(ctx, parsed.Headers[0].KeyID)
	if err != nil {
		return oauthcfg.Claims{}, err
	}
	var std jwt.Claims
	var priv accessClaims
	if err := parsed.Claims(pub, &std, &priv); err != nil {
		return oauthcfg.Claims{}, fmt.Errorf("%w: bad signature", oauthcfg.ErrInvalidToken)
	}
	c := oauthcfg.Claims{Issuer: std.Issuer, Subject: std.Subject, ClientID: priv.ClientID, ID: std.ID}
	if len(std.Audience) == 1 {
		c.Audience = std.Audience[0]
	}
	if priv.Scope != "" {
		c.Scopes = strings.Fields(priv.Scope)
	}
	if std.IssuedAt != nil {
		c.IssuedAt = std.IssuedAt.Time()
	}
	if std.Expiry != nil {
		c.Expiry = std.Expiry.Time()
	}
	return c, nil
}

// newID is a random identifier: a jti, a client id.
func newID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// Verifier checks access tokens for a design's MCP endpoint: the
// signature with the cached public keys (the database is read only for an
// unknown key id), the issuer, the audience and the expiry, and refuses
// revoked tokens, whose ids every instance keeps in memory, current through
// PostgreSQL notifications. It implements oauthcfg.Verifier.
type Verifier struct {
	keys  *Keys
	store *store.Store
	log   *slog.Logger
	now   func() time.Time

	mu      sync.RWMutex
	revoked map[string]time.Time // jti → the token's expiry
	// verified holds the claims of tokens whose signature was checked,
	// by the token: clients send the same token with every request, and
	// checking an ECDSA signature costs far more than the map look-up.
	verified map[string]oauthcfg.Claims
	// live is false while the subscription is down: revocations may be
	// missed, so every token's jti is then looked up afresh.
	live   atomic.Bool
	lostAt atomic.Int64 // unix nanoseconds; 0 before the first loss
	ready  chan struct{}
	once   sync.Once
}

var _ oauthcfg.Verifier = (*Verifier)(nil)

// NewVerifier returns a verifier over keys; Run keeps its set of revoked
// tokens current.
func NewVerifier(keys *Keys, st *store.Store, log *slog.Logger) *Verifier {
	return &Verifier{keys: keys, store: st, log: log, now: keys.now, revoked: map[string]time.Time{},
		verified: map[string]oauthcfg.Claims{}, ready: make(chan struct{})}
}

// VerifyToken checks token for the design whose issuer and resource are
// given; every refusal wraps oauthcfg.ErrInvalidToken. Any other error
// means the check could not be made (the database is unreachable while the
// revocation subscription is down).
func (v *Verifier) VerifyToken(ctx context.Context, token, issuer, resource string) (oauthcfg.Claims, error) {
	c, err := v.signed(ctx, token)
	if err != nil {
		return oauthcfg.Claims{}, err
	}
	switch {
	case c.Issuer != issuer:
		return oauthcfg.Claims{}, fmt.Errorf("%w: issued by %q, not by this server's authorization server", oauthcfg.ErrInvalidToken, c.Issuer)
	case c.Audience != resource:
		return oauthcfg.Claims{}, fmt.Errorf("%w: issued for %q, not for this resource", oauthcfg.ErrInvalidToken, c.Audience)
	case !v.now().Before(c.Expiry):
		return oauthcfg.Claims{}, fmt.Errorf("%w: expired", oauthcfg.ErrInvalidToken)
	}
	revoked, err := v.isRevoked(ctx, c.ID)
	if err != nil {
		return oauthcfg.Claims{}, fmt.Errorf("check whether the token is revoked: %w", err)
	}
	if revoked {
		return oauthcfg.Claims{}, fmt.Errorf("%w: revoked", oauthcfg.ErrInvalidToken)
	}
	return c, nil
}

// maxVerified bounds the tokens whose claims are kept; the set starts
// afresh when full.
const maxVerified = 10000

// signed returns the claims of token once its signature is checked, from
// the tokens already checked when it is one.
func (v *Verifier) signed(ctx context.Context, token string) (oauthcfg.Claims, error) {
	v.mu.RLock()
	c, ok := v.verified[token]
	v.mu.RUnlock()
	if ok {
		c.Scopes = slices.Clone(c.Scopes) // the caller's to change
		return c, nil
	}
	c, err := v.keys.parse(ctx, token)
	if err != nil {
		return c, err
	}
	v.mu.Lock()
	if len(v.verified) >= maxVerified {
		clear(v.verified)
	}
	v.verified[token] = c
	v.mu.Unlock()
	return c, nil
}

// isRevoked looks jti up in memory while the subscription is up, else in
// the database: a revocation made meanwhile would not have been heard.
func (v *Verifier) isRevoked(ctx context.Context, jti string) (bool, error) {
	v.mu.RLock()
	_, ok := v.revoked[jti]
	v.mu.RUnlock()
	if ok || v.live.Load() {
		return ok, nil
	}
	return v.store.IsOAuthTokenRevoked(ctx, jti)
}

// revoke adds jti, expiring at exp, to the set at once (the notification
// follows).
func (v *Verifier) revoke(jti string, exp time.Time) {
	v.mu.Lock()
	v.revoked[jti] = exp
	v.mu.Unlock()
}

// Ready is closed once the set of revoked tokens is first loaded and kept
// current.
func (v *Verifier) Ready() <-chan struct{} { return v.ready }

// ListenState reports whether the revocation subscription is up and, when
// not, since when it is lost (zero time before its first subscription).
func (v *Verifier) ListenState() (bool, time.Time) {
	if v.live.Load() {
		return true, time.Time{}
	}
	if ns := v.lostAt.Load(); ns != 0 {
		return false, time.Unix(0, ns)
	}
	return false, time.Time{}
}

// Run keeps the set of revoked tokens current until ctx ends: it loads the
// set on each (re)subscription and adds each notified token; expired
// entries are dropped every minute.
func (v *Verifier) Run(ctx context.Context) {
	go func() {
		t := time.NewTicker(time.Minute)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				v.prune()
			}
		}
	}()
	v.store.Listen(ctx, store.OAuthRevokedChannel, v.notified,
		func() {
			if v.live.Swap(false) {
				v.lostAt.Store(time.Now().UnixNano())
			}
		},
		func() {
			if err := v.reload(ctx); err != nil {
				v.log.Warn("could not load the revoked access tokens", "error", err)
				return
			}
			v.live.Store(true)
			v.once.Do(func() { close(v.ready) })
		},
		func(err error) { v.log.Warn("revoked access token subscription lost", "error", err) })
}

// notified adds the token of a notification "jti expiry-unix-seconds".
func (v *Verifier) notified(payload string) {
	jti, exp, ok := strings.Cut(payload, " ")
	secs, err := strconv.ParseInt(exp, 10, 64)
	if !ok || err != nil {
		return
	}
	v.revoke(jti, time.Unix(secs, 0))
}

func (v *Verifier) reload(ctx context.Context) error {
	rows, err := v.store.RevokedOAuthTokens(ctx)
	if err != nil {
		return err
	}
	set := make(map[string]time.Time, len(rows))
	for _, r := range rows {
		set[r.JTI] = r.ExpiresAt
	}
	v.mu.Lock()
	// Tokens revoked here while reading stay.
	for jti, exp := range v.revoked {
		set[jti] = exp
	}
	v.revoked = set
	v.mu.Unlock()
	return nil
}

func (v *Verifier) prune() {
	now := v.now()
	v.mu.Lock()
	for jti, exp := range v.revoked {
		if now.After(exp) {
			delete(v.revoked, jti)
		}
	}
	for token, c := range v.verified {
		if now.After(c.Expiry) {
			delete(v.verified, token)
		}
	}
	v.mu.Unlock()
}
