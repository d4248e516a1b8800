package oauthas

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/sealbox"
	"github.com/mockmcp/mockmcp/internal/store"
)

// DefaultRotation is how long one signing key signs before a new one
// takes over.
const DefaultRotation = 24 * time.Hour

// SecretName is the service secret that seals the signing keys' private
// halves.
const SecretName = "oauth_signing_keys"

// SecretSize is the length of that secret: AES-256.
const SecretSize = sealbox.KeySize

// refreshKeys bounds how often the published keys are re-read for JWKS,
// and missLimit how often an unknown kid causes a read.
const (
	refreshKeys = time.Minute
	missLimit   = time.Second
)

// Keys are the service-wide, rotating access token signing keys (ECDSA
// P-256, ES256), shared by every instance through the database. A key signs
// for Rotation, then stays published until every token it signed has
// expired (tokens live at most oauthcfg.MaxTokenLifetime).
type Keys struct {
	store    *store.Store
	box      *sealbox.Box
	rotation time.Duration
	// consentKey signs consent forms (consentToken): derived from the
	// secret, so every instance shares it.
	consentKey []byte
	now        func() time.Time

	mu       sync.Mutex
	keys     []signingKey // newest first
	loadedAt time.Time
	missAt   time.Time
}

type signingKey struct {
	kid            string
	public         *ecdsa.PublicKey
	private        *ecdsa.PrivateKey
	signUntil      time.Time
	publishedUntil time.Time
}

// KeysOptions configure NewKeys.
type KeysOptions struct {
	// Secret seals the private keys at rest: SecretSize bytes, the same on
	// every instance.
	Secret []byte
	// Rotation is DefaultRotation when zero.
	Rotation time.Duration
	// Now is time.Now when nil.
	Now func() time.Time
}

// NewKeys returns the signing keys kept in st.
func NewKeys(st *store.Store, opts KeysOptions) (*Keys, error) {
	box, err := sealbox.New(opts.Secret)
	if err != nil {
		return nil, fmt.Errorf("oauthas: %w", err)
	}
	mac := hmac.New(sha256.New, opts.Secret)
	mac.Write([]byte("mockmcp oauth consent form"))
	k := &Keys{store: st, box: box, rotation: opts.Rotation, now: opts.Now, consentKey: mac.Sum(nil)}
	if k.rotation <= 0 {
		k.rotation = DefaultRotation
	}
	if k.now == nil {
		k.now = time.Now
	}
	return k, nil
}

// signer is the key that signs now, made (and stored) when there is none.
func (k *Keys) signer(ctx context.Context) (signingKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	if key, ok := k.current(now); ok {
		return key, nil
	}
	// Another instance may have made one since.
	if err := k.load(ctx, now); err != nil {
		return signingKey{}, err
	}
	if key, ok := k.current(now); ok {
		return key, nil
	}
	if err := k.create(ctx, now); err != nil {
		return signingKey{}, err
	}
	if err := k.load(ctx, now); err != nil {
		return signingKey{}, err
	}
	if key, ok := k.current(now); ok {
		return key, nil
	}
	return signingKey{}, errors.New("oauthas: no signing key after making one")
}

// current is the newest key that signs at now; k.mu is held.
func (k *Keys) current(now time.Time) (signingKey, bool) {
	for _, key := range k.keys {
		if key.private != nil && now.Before(key.signUntil) {
			return key, true
		}
	}
	return signingKey{}, false
}

// create makes a key signing from now; k.mu is held.
func (k *Keys) create(ctx context.Context, now time.Time) error {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return err
	}
	id := make([]byte, 12)
	if _, err := rand.Read(id); err != nil {
		return err
	}
	kid := hex.EncodeToString(id)
	sealed, err := k.box.Seal(der, []byte(kid))
	if err != nil {
		return err
	}
	signUntil := now.Add(k.rotation)
	return k.store.CreateOAuthSigningKey(ctx, store.OAuthSigningKey{KID: kid, PublicKey: pub, PrivateSealed: sealed,
		CreatedAt: now, SignUntil: signUntil, PublishedUntil: signUntil.Add(oauthcfg.MaxTokenLifetime)})
}

// load re-reads the published keys; k.mu is held.
func (k *Keys) load(ctx context.Context, now time.Time) error {
	rows, err := k.store.OAuthSigningKeys(ctx, now)
	if err != nil {
		return fmt.Errorf("read the signing keys: %w", err)
	}
	keys := make([]signingKey, 0, len(rows))
	for _, r := range rows {
		key, err := k.open(r)
		if err != nil {
			return fmt.Errorf("signing key %s: %w", r.KID, err)
		}
		keys = append(keys, key)
	}
	k.keys, k.loadedAt = keys, now
	return nil
}

func (k *Keys) open(r store.OAuthSigningKey) (signingKey, error) {
	pub, err := x509.ParsePKIXPublicKey(r.PublicKey)
	if err != nil {
		return signingKey{}, err
	}
	ec, ok := pub.(*ecdsa.PublicKey)
	if !ok {
		return signingKey{}, errors.New("not an ECDSA key")
	}
	key := signingKey{kid: r.KID, public: ec, signUntil: r.SignUntil, publishedUntil: r.PublishedUntil}
	der, err := k.box.Open(r.PrivateSealed, []byte(r.KID))
	if err != nil {
		// Sealed under another secret (or damaged): it still verifies, it
		// cannot sign.
		return key, nil
	}
	priv, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		return signingKey{}, err
	}
	if key.private, ok = priv.(*ecdsa.PrivateKey); !ok {
		return signingKey{}, errors.New("not an ECDSA private key")
	}
	return key, nil
}

// publicKey is the public key of kid; an unknown kid re-reads the keys, at
// most once per missLimit.
func (k *Keys) publicKey(ctx context.Context, kid string) (*ecdsa.PublicKey, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	if key, ok := k.find(kid); ok {
		return key, nil
	}
	if now.Sub(k.missAt) < missLimit {
		return nil, fmt.Errorf("%w: unknown signing key %q", oauthcfg.ErrInvalidToken, kid)
	}
	k.missAt = now
	if err := k.load(ctx, now); err != nil {
		return nil, err
	}
	if key, ok := k.find(kid); ok {
		return key, nil
	}
	return nil, fmt.Errorf("%w: unknown signing key %q", oauthcfg.ErrInvalidToken, kid)
}

func (k *Keys) find(kid string) (*ecdsa.PublicKey, bool) {
	for _, key := range k.keys {
		if key.kid == kid {
			return key.public, true
		}
	}
	return nil, false
}

// JWKS is the published public keys as a JSON Web Key Set, newest first.
func (k *Keys) JWKS(ctx context.Context) (jose.JSONWebKeySet, error) {
	// Signing first makes sure there is a key to publish.
	if _, err := k.signer(ctx); err != nil {
		return jose.JSONWebKeySet{}, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	if now.Sub(k.loadedAt) >= refreshKeys {
		if err := k.load(ctx, now); err != nil {
			return jose.JSONWebKeySet{}, err
		}
	}
	set := jose.JSONWebKeySet{Keys: make([]jose.JSONWebKey, 0, len(k.keys))}
	for _, key := range k.keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: key.public, KeyID: key.kid, Algorithm: string(jose.ES256), Use: "sig"})
	}
	return set, nil
}
