package store

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

// OAuth is the part of the Store that the mock authorization servers use
// outside a tenant transaction: signing keys, revoked tokens, the sweep.
type OAuth struct{ *conn }

// OAuthTx is the part of a transaction that keeps the OAuth clients, codes
// and tokens of a design's mock authorization server.
type OAuthTx struct{ *txConn }

// OAuthClient is a client registered with a design's authorization server.
type OAuthClient struct {
	ClientID string
	OrgID    uuid.UUID
	ServerID uuid.UUID
	// SecretHash is the SHA-256 hex of the client secret; "" for a public
	// client (AuthMethod "none").
	SecretHash   string
	Name         string
	RedirectURIs []string
	GrantTypes   []string
	AuthMethod   string
	Scope        string
	CreatedAt    time.Time
	// LastUsedAt is when the client was last used, to within
	// ClientTouchInterval: clients idle too long are swept.
	LastUsedAt time.Time
}

// ClientTouchInterval is how stale a client's LastUsedAt may grow before
// a use writes it again: at most one write an hour per client keeps the
// token path cheap.
const ClientTouchInterval = time.Hour

// OAuthGrant is what an authorization code or a refresh token stands for.
type OAuthGrant struct {
	ServerID uuid.UUID
	ClientID string
	Scope    string
	Subject  string
	// RedirectURI and CodeChallenge are an authorization code's.
	RedirectURI   string
	CodeChallenge string
	IssuedAt      time.Time
	ExpiresAt     time.Time
	// FamilyID is shared by a code and every refresh token that follows
	// from it: a replay or a reuse revokes the family.
	FamilyID string
	// AccessJTI and AccessExpiresAt are the access token issued with a
	// refresh token, revoked with its family.
	AccessJTI       string
	AccessExpiresAt time.Time
}

// OAuthSigningKey is one of the service's access token signing keys.
type OAuthSigningKey struct {
	KID            string
	PublicKey      []byte // PKIX DER
	PrivateSealed  []byte
	CreatedAt      time.Time
	SignUntil      time.Time
	PublishedUntil time.Time
}

// RevokedToken is an access token revoked before its expiry.
type RevokedToken struct {
	JTI       string
	ExpiresAt time.Time
}

// CreateOAuthClient registers c in the transaction's organization.
func (t OAuthTx) CreateOAuthClient(ctx context.Context, c OAuthClient) error {
	var secret *string
	if c.SecretHash != "" {
		secret = &c.SecretHash
	}
	return t.q.CreateOAuthClient(ctx, t.tx, db.CreateOAuthClientParams{ClientID: c.ClientID, ServerID: c.ServerID,
		SecretHash: secret, ClientName: c.Name, RedirectUris: nonNil(c.RedirectURIs), GrantTypes: nonNil(c.GrantTypes),
		AuthMethod: c.AuthMethod, Scope: c.Scope})
}

// CreateOAuthClientCapped registers c unless server's authorization
// server has max clients already (then false). Registrations of one server
// are serialized until the transaction ends, so concurrent ones never
// overshoot the cap.
func (t OAuthTx) CreateOAuthClientCapped(ctx context.Context, c OAuthClient, max int64) (bool, error) {
	if err := t.q.LockOAuthClients(ctx, t.tx, c.ServerID.String()); err != nil {
		return false, err
	}
	n, err := t.q.CountOAuthClients(ctx, t.tx, c.ServerID)
	if err != nil || n >= max {
		return false, err
	}
	return true, t.CreateOAuthClient(ctx, c)
}

// TouchOAuthClient records that the client was used at now.
func (t OAuthTx) TouchOAuthClient(ctx context.Context, server uuid.UUID, clientID string, now time.Time) error {
	return t.q.TouchOAuthClient(ctx, t.tx, db.TouchOAuthClientParams{ClientID: clientID, ServerID: server, Now: now})
}

// DeleteOAuthClients deletes every client of server's authorization
// server, with the codes and refresh tokens issued to them, and says how
// many clients there were.
func (t OAuthTx) DeleteOAuthClients(ctx context.Context, server uuid.UUID) (int64, error) {
	return t.q.DeleteOAuthClients(ctx, t.tx, server)
}

// OAuthClients lists the clients registered with server's authorization
// server, oldest first, without their secret hashes (SecretHash is "").
// A server holds at most its cap of clients, so the list is bounded.
func (t OAuthTx) OAuthClients(ctx context.Context, server uuid.UUID) ([]OAuthClient, error) {
	rows, err := t.q.ListOAuthClients(ctx, t.tx, server)
	if err != nil {
		return nil, err
	}
	out := make([]OAuthClient, len(rows))
	for i, r := range rows {
		out[i] = OAuthClient{ClientID: r.ClientID, ServerID: server, Name: r.ClientName, RedirectURIs: r.RedirectUris,
			GrantTypes: r.GrantTypes, AuthMethod: r.AuthMethod, Scope: r.Scope, CreatedAt: r.CreatedAt, LastUsedAt: r.LastUsedAt}
	}
	return out, nil
}

// OAuthClient reads a client registered with server's authorization server.
func (t OAuthTx) OAuthClient(ctx context.Context, server uuid.UUID, clientID string) (OAuthClient, error) {
	r, err := t.q.GetOAuthClient(ctx, t.tx, db.GetOAuthClientParams{ClientID: clientID, ServerID: server})
	if err != nil {
		return OAuthClient{}, notFound(err, "client")
	}
	c := OAuthClient{ClientID: r.ClientID, OrgID: r.OrganizationID, ServerID: r.ServerID, Name: r.ClientName,
		RedirectURIs: r.RedirectUris, GrantTypes: r.GrantTypes, AuthMethod: r.AuthMethod, Scope: r.Scope, CreatedAt: r.CreatedAt,
		LastUsedAt: r.LastUsedAt}
	if r.SecretHash != nil {
		c.SecretHash = *r.SecretHash
	}
	return c, nil
}

// CreateOAuthCode stores an authorization code by the hash of its value.
func (t OAuthTx) CreateOAuthCode(ctx context.Context, hash string, g OAuthGrant) error {
	// Codes never exchanged go when the next one is made, so a design's
	// codes stay bounded by those of their minute.
	if err := t.q.DeleteExpiredOAuthCodes(ctx, t.tx, g.ServerID); err != nil {
		return fmt.Errorf("delete expired codes: %w", err)
	}
	return t.q.CreateOAuthCode(ctx, t.tx, db.CreateOAuthCodeParams{CodeHash: hash, ServerID: g.ServerID,
		ClientID: g.ClientID, RedirectUri: g.RedirectURI, CodeChallenge: g.CodeChallenge, Scope: g.Scope,
		Subject: g.Subject, ExpiresAt: g.ExpiresAt, FamilyID: g.FamilyID})
}

// TakeOAuthCode marks the code whose value hashes to hash used and
// returns it: a code is used at most once. Not found when unknown or used;
// replayed then says whether it was used before.
func (t OAuthTx) TakeOAuthCode(ctx context.Context, server uuid.UUID, hash string) (OAuthGrant, error) {
	r, err := t.q.TakeOAuthCode(ctx, t.tx, db.TakeOAuthCodeParams{CodeHash: hash, ServerID: server})
	if err != nil {
		return OAuthGrant{}, notFound(err, "authorization code")
	}
	return OAuthGrant{ServerID: r.ServerID, ClientID: r.ClientID, Scope: r.Scope, Subject: r.Subject,
		RedirectURI: r.RedirectUri, CodeChallenge: r.CodeChallenge, IssuedAt: r.CreatedAt, ExpiresAt: r.ExpiresAt,
		FamilyID: r.FamilyID}, nil
}

// ReplayedOAuthCode is the family of the code whose value hashes to hash
// when it was used before; not found otherwise.
func (t OAuthTx) ReplayedOAuthCode(ctx context.Context, server uuid.UUID, hash string) (string, error) {
	family, err := t.q.ReplayedOAuthCode(ctx, t.tx, db.ReplayedOAuthCodeParams{CodeHash: hash, ServerID: server})
	return family, notFound(err, "authorization code")
}

// SpentOAuthRefreshToken is the family of the refresh token whose value
// hashes to hash, issued to clientID, when it was spent before (its reuse);
// not found otherwise.
func (t OAuthTx) SpentOAuthRefreshToken(ctx context.Context, server uuid.UUID, clientID, hash string) (string, error) {
	family, err := t.q.SpentOAuthRefreshToken(ctx, t.tx, db.SpentOAuthRefreshTokenParams{TokenHash: hash, ServerID: server, ClientID: clientID})
	return family, notFound(err, "refresh token")
}

// RevokeOAuthFamily spends every refresh token of family and revokes the
// access tokens issued with them that are still valid at now; it returns
// those, for the caller's own verifier (every instance is notified).
func (t OAuthTx) RevokeOAuthFamily(ctx context.Context, server uuid.UUID, family string, now time.Time) ([]RevokedToken, error) {
	if family == "" {
		return nil, nil
	}
	rows, err := t.q.RevokeOAuthFamily(ctx, t.tx, db.RevokeOAuthFamilyParams{ServerID: server, FamilyID: family})
	if err != nil {
		return nil, err
	}
	var out []RevokedToken
	for _, r := range rows {
		if r.AccessJti == "" || r.AccessExpiresAt == nil || !now.Before(*r.AccessExpiresAt) {
			continue
		}
		if err := t.q.RevokeOAuthAccessToken(ctx, t.tx, db.RevokeOAuthAccessTokenParams{Jti: r.AccessJti, ServerID: server,
			ExpiresAt: *r.AccessExpiresAt}); err != nil {
			return nil, err
		}
		out = append(out, RevokedToken{JTI: r.AccessJti, ExpiresAt: *r.AccessExpiresAt})
	}
	return out, nil
}

// CreateOAuthRefreshToken stores a refresh token by the hash of its value.
// Expired and spent ones are deleted by SweepOAuth, not here: the token
// path never scans a server's tokens.
func (t OAuthTx) CreateOAuthRefreshToken(ctx context.Context, hash string, g OAuthGrant) error {
	var accessExpiry *time.Time
	if !g.AccessExpiresAt.IsZero() {
		accessExpiry = &g.AccessExpiresAt
	}
	return t.q.CreateOAuthRefreshToken(ctx, t.tx, db.CreateOAuthRefreshTokenParams{TokenHash: hash,
		ServerID: g.ServerID, ClientID: g.ClientID, Scope: g.Scope, Subject: g.Subject, IssuedAt: g.IssuedAt,
		ExpiresAt: g.ExpiresAt, FamilyID: g.FamilyID, AccessJti: g.AccessJTI, AccessExpiresAt: accessExpiry})
}

// SpendOAuthRefreshToken marks the refresh token whose value hashes to
// hash, issued to clientID, used (or revoked) and returns it; not found
// when it is unknown, another client's, or was spent before.
func (t OAuthTx) SpendOAuthRefreshToken(ctx context.Context, server uuid.UUID, clientID, hash string) (OAuthGrant, error) {
	r, err := t.q.SpendOAuthRefreshToken(ctx, t.tx, db.SpendOAuthRefreshTokenParams{TokenHash: hash, ServerID: server, ClientID: clientID})
	if err != nil {
		return OAuthGrant{}, notFound(err, "refresh token")
	}
	g := OAuthGrant{ServerID: r.ServerID, ClientID: r.ClientID, Scope: r.Scope, Subject: r.Subject,
		IssuedAt: r.IssuedAt, ExpiresAt: r.ExpiresAt, FamilyID: r.FamilyID, AccessJTI: r.AccessJti}
	if r.AccessExpiresAt != nil {
		g.AccessExpiresAt = *r.AccessExpiresAt
	}
	return g, nil
}

// RevokeOAuthAccessToken records that the access token jti of server is
// revoked until it expires; every instance is notified.
func (t OAuthTx) RevokeOAuthAccessToken(ctx context.Context, server uuid.UUID, jti string, expires time.Time) error {
	if err := t.q.DeleteExpiredOAuthRevokedTokens(ctx, t.tx, server); err != nil {
		return fmt.Errorf("delete expired revocations: %w", err)
	}
	return t.q.RevokeOAuthAccessToken(ctx, t.tx, db.RevokeOAuthAccessTokenParams{Jti: jti, ServerID: server, ExpiresAt: expires})
}

// OAuthRevokedChannel is the notification channel on which every revoked
// access token announces "jti expiry-unix-seconds".
const OAuthRevokedChannel = "mockmcp_oauth_revoked"

// RevokedOAuthTokens lists the revoked access tokens of every organization
// not yet expired: the service's own read, outside any tenant scope.
func (s OAuth) RevokedOAuthTokens(ctx context.Context) ([]RevokedToken, error) {
	rows, err := s.q.ListRevokedOAuthTokens(ctx, s.pool)
	if err != nil {
		return nil, mapError(err)
	}
	out := make([]RevokedToken, len(rows))
	for i, r := range rows {
		out[i] = RevokedToken{JTI: r.Jti, ExpiresAt: r.ExpiresAt}
	}
	return out, nil
}

// CreateOAuthSigningKey stores a new signing key (service-wide).
func (s OAuth) CreateOAuthSigningKey(ctx context.Context, k OAuthSigningKey) error {
	return mapError(s.q.CreateOAuthSigningKey(ctx, s.pool, db.CreateOAuthSigningKeyParams{Kid: k.KID,
		PublicKey: k.PublicKey, PrivateSealed: k.PrivateSealed, CreatedAt: k.CreatedAt, SignUntil: k.SignUntil,
		PublishedUntil: k.PublishedUntil}))
}

// OAuthSigningKeys lists the signing keys still published at now, newest
// first, after deleting those that are not.
func (s OAuth) OAuthSigningKeys(ctx context.Context, now time.Time) ([]OAuthSigningKey, error) {
	if err := s.q.DeleteOAuthSigningKeys(ctx, s.pool, now); err != nil {
		return nil, mapError(err)
	}
	rows, err := s.q.ListOAuthSigningKeys(ctx, s.pool, now)
	if err != nil {
		return nil, mapError(err)
	}
	out := make([]OAuthSigningKey, len(rows))
	for i, r := range rows {
		out[i] = OAuthSigningKey{KID: r.Kid, PublicKey: r.PublicKey, PrivateSealed: r.PrivateSealed,
			CreatedAt: r.CreatedAt, SignUntil: r.SignUntil, PublishedUntil: r.PublishedUntil}
	}
	return out, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// IsOAuthTokenRevoked reports whether the access token jti was revoked,
// whatever its organization: the service's own read.
func (s OAuth) IsOAuthTokenRevoked(ctx context.Context, jti string) (bool, error) {
	revoked, err := s.q.IsOAuthTokenRevoked(ctx, s.pool, jti)
	return revoked, mapError(err)
}

var _ oauthcfg.Designs = (*Store)(nil)

// OAuthDesign reads what the authorization server of an enabled server's
// design needs, by id alone, as ServedDesign does: the server row through
// the public endpoint's policy, the tools as the server's organization.
func (s OAuth) OAuthDesign(ctx context.Context, id uuid.UUID) (oauthcfg.Design, error) {
	return servedRead(ctx, s.conn, id, func(tx *Tx, srv design.Server) (oauthcfg.Design, error) {
		d := OAuthView(srv, nil)
		rows, err := tx.q.ToolScopes(ctx, tx.tx, id)
		if err != nil {
			return d, err
		}
		for _, r := range rows {
			d.ToolScopes[r.Name] = textArray(r.RequiredScopes)
		}
		return d, nil
	})
}

// OAuthView is the OAuth view of server s whose tools are tools (only
// their names and scopes are read).
func OAuthView(s design.Server, tools []design.Tool) oauthcfg.Design {
	d := oauthcfg.Design{ServerID: s.ID, OrgID: s.OrgID, OAuth: s.AuthMode == design.AuthModeOAuth,
		Settings: s.OAuth, ToolScopes: map[string][]string{},
		TokensNotBefore: s.OAuthTokensNotBefore, RefreshNotBefore: s.OAuthRefreshNotBefore}
	for _, t := range tools {
		if len(t.RequiredScopes) > 0 {
			d.ToolScopes[t.Name] = t.RequiredScopes
		}
	}
	return d
}

// OAuthSweep bounds what one SweepOAuth deletes.
type OAuthSweep struct {
	// Now is the sweep's instant.
	Now time.Time
	// ClientIdleTTL: clients unused for longer are deleted (none when
	// zero).
	ClientIdleTTL time.Duration
	// SpentKeep is how long a spent refresh token is kept, so that its
	// reuse is recognized and revokes its family.
	SpentKeep time.Duration
	// CodeKeep is how long past its expiry an authorization code is kept,
	// so that its replay is recognized.
	CodeKeep time.Duration
	// Batch is the rows one statement deletes at most, per kind.
	Batch int32
}

// OAuthSwept counts what SweepOAuth deleted.
type OAuthSwept struct {
	RefreshTokens, Codes, Clients, RevokedTokens int64
}

// SweepOAuth deletes, for every organization, one batch of the expired and
// spent refresh tokens, expired codes, idle clients and expired access
// token revocations, in one short transaction. The caller repeats while a
// kind fills its batch.
func (s OAuth) SweepOAuth(ctx context.Context, o OAuthSweep) (OAuthSwept, error) {
	var n OAuthSwept
	err := s.inTx(ctx, Scope{}, func(tx *Tx) (err error) {
		if _, err = tx.tx.Exec(ctx, `SELECT set_config('app.oauth_sweep', 'on', true)`); err != nil {
			return err
		}
		spent := o.Now.Add(-o.SpentKeep)
		if n.RefreshTokens, err = tx.q.SweepOAuthRefreshTokens(ctx, tx.tx, db.SweepOAuthRefreshTokensParams{
			ExpiredBefore: o.Now, SpentBefore: &spent, RowLimit: o.Batch}); err != nil {
			return fmt.Errorf("refresh tokens: %w", err)
		}
		if n.Codes, err = tx.q.SweepOAuthCodes(ctx, tx.tx, db.SweepOAuthCodesParams{Before: o.Now.Add(-o.CodeKeep), RowLimit: o.Batch}); err != nil {
			return fmt.Errorf("codes: %w", err)
		}
		if o.ClientIdleTTL > 0 {
			if n.Clients, err = tx.q.SweepOAuthClients(ctx, tx.tx, db.SweepOAuthClientsParams{Before: o.Now.Add(-o.ClientIdleTTL), RowLimit: o.Batch}); err != nil {
				return fmt.Errorf("clients: %w", err)
			}
		}
		if n.RevokedTokens, err = tx.q.SweepOAuthRevokedTokens(ctx, tx.tx, db.SweepOAuthRevokedTokensParams{Now: o.Now, RowLimit: o.Batch}); err != nil {
			return fmt.Errorf("revoked tokens: %w", err)
		}
		return nil
	})
	return n, err
}
