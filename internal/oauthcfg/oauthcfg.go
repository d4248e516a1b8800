// Package oauthcfg holds what the two sides of a design's mock OAuth share:
// the design's OAuth settings, the URLs derived from its endpoint, and the
// claims of the access tokens its authorization server issues and its MCP
// endpoint accepts.
//
// Every design whose auth_mode is "oauth" has an authorization server of
// its own, whose issuer is Issuer(base, id); it signs audience-bound
// access tokens (aud = Resource(base, id)) that no other design accepts.
package oauthcfg

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Consent answers of the authorization endpoint.
const (
	ConsentAuto = "auto" // grant at once and redirect (the default)
	ConsentDeny = "deny" // redirect with error=access_denied
	ConsentPage = "page" // show a page with Allow and Deny
)

// Settings are a design's OAuth settings (the server's "oauth" field).
type Settings struct {
	// ScopesSupported are the scopes the authorization server grants;
	// empty: the union of RequiredScopes and the tools' required scopes.
	ScopesSupported []string `json:"scopes_supported,omitempty"`
	// RequiredScopes are needed for any request to the endpoint.
	RequiredScopes []string `json:"required_scopes,omitempty"`
	// TokenLifetimeSeconds is the access tokens' lifetime (DefaultTokenLifetime when zero).
	TokenLifetimeSeconds int `json:"token_lifetime_seconds,omitempty"`
	// Consent is ConsentAuto (when empty), ConsentDeny or ConsentPage.
	Consent string `json:"consent,omitempty"`
	Chaos   Chaos  `json:"chaos"`
}

// DefaultTokenLifetime is an access token's lifetime when the design sets none.
const DefaultTokenLifetime = time.Hour

// Chaos are the scripted misbehaviours of a design's OAuth.
type Chaos struct {
	// WrongIssuer: the authorization response carries an iss that is not
	// the authorization server's.
	WrongIssuer bool `json:"wrong_issuer,omitempty"`
	// MovedAuthorizationServer: the protected resource metadata names an
	// authorization server that is not there (its metadata answers 404).
	MovedAuthorizationServer bool `json:"moved_authorization_server,omitempty"`
	// RefuseRefresh: the token endpoint refuses every refresh token with
	// invalid_grant.
	RefuseRefresh bool `json:"refuse_refresh,omitempty"`
}

// Design is what a design's authorization server reads of it.
type Design struct {
	ServerID uuid.UUID
	OrgID    uuid.UUID
	// OAuth is true when the design's auth_mode is "oauth"; the
	// authorization server of any other design answers 404.
	OAuth    bool
	Settings Settings
	// ToolScopes are the scopes each tool requires, by tool name.
	ToolScopes map[string][]string
	// TokensNotBefore: access tokens issued before it are expired
	// ("expire all tokens now"); zero when never set.
	TokensNotBefore time.Time
	// RefreshNotBefore: refresh tokens issued before it are revoked
	// ("revoke all tokens now"); zero when never set.
	RefreshNotBefore time.Time
}

// Designs reads a served (enabled) design's OAuth view; a failure of kind
// failure.ErrNotFound when the server is gone or not enabled.
type Designs interface {
	OAuthDesign(ctx context.Context, id uuid.UUID) (Design, error)
}

// Claims are an access token's claims, as verified.
type Claims struct {
	Issuer   string
	Audience string // the resource: the design's endpoint URL
	Subject  string
	ClientID string
	Scopes   []string
	IssuedAt time.Time
	Expiry   time.Time
	ID       string // jti
}

// Verifier checks a bearer token for the design whose issuer and resource
// are given. It touches no database for a token signed by a key it
// already knows.
type Verifier interface {
	VerifyToken(ctx context.Context, token, issuer, resource string) (Claims, error)
}

// ErrInvalidToken is wrapped by every refusal of a token that the client
// should answer by getting a new one (bad signature, expired, revoked,
// wrong issuer or audience); its message says which.
var ErrInvalidToken = errors.New("invalid_token")

const (
	// A design's MCP endpoint path is EndpointPrefix + {server_id} +
	// EndpointSuffix.
	EndpointPrefix = "/api/platform/"
	EndpointSuffix = "/mcp"
	issuerSuffix   = "/oauth"
	// ProtectedResourcePrefix is the path prefix of protected resource
	// metadata (RFC 9728); the endpoint's path follows it.
	ProtectedResourcePrefix = "/.well-known/oauth-protected-resource"
)

// EndpointPath is the path of design id's MCP endpoint.
func EndpointPath(id uuid.UUID) string { return EndpointPrefix + id.String() + EndpointSuffix }

// Resource is the URL of design id's MCP endpoint on origin base (the
// access tokens' audience).
func Resource(base string, id uuid.UUID) string {
	return base + EndpointPath(id)
}

// Issuer is the issuer of design id's authorization server on origin base.
func Issuer(base string, id uuid.UUID) string {
	return base + EndpointPrefix + id.String() + issuerSuffix
}

// ProtectedResourceMetadata is the URL of design id's protected resource
// metadata, the path-suffixed form of RFC 9728.
func ProtectedResourceMetadata(base string, id uuid.UUID) string {
	return base + ProtectedResourcePrefix + EndpointPath(id)
}

// MaxTokenLifetime is the longest access token lifetime the authorization
// server grants, whatever the design sets: its signing keys stay published
// that long after they stop signing.
const MaxTokenLifetime = 24 * time.Hour

// TokenLifetime is the access tokens' lifetime of s: TokenLifetimeSeconds,
// DefaultTokenLifetime when zero, at most MaxTokenLifetime.
func (s Settings) TokenLifetime() time.Duration {
	d := time.Duration(s.TokenLifetimeSeconds) * time.Second
	if d <= 0 {
		d = DefaultTokenLifetime
	}
	return min(d, MaxTokenLifetime)
}

// Scopes are the scopes d's authorization server grants, those its
// protected resource metadata lists (EffectiveScopes).
func (d Design) Scopes() []string {
	return EffectiveScopes(d.Settings, d.ToolScopes)
}

// AuthorizationServerMetadata is the URL of design id's authorization
// server metadata, the path-inserted form of RFC 8414.
func AuthorizationServerMetadata(base string, id uuid.UUID) string {
	return base + "/.well-known/oauth-authorization-server" + EndpointPrefix + id.String() + issuerSuffix
}

// ExpiresToken reports whether d's "expire all tokens now"
// (TokensNotBefore) refuses the access token of c. An access token's iat
// counts whole seconds, so a token issued within the second of
// TokensNotBefore is kept: a client that gets a new token at once must not
// see it refused too.
func (d Design) ExpiresToken(c Claims) bool {
	return !d.TokensNotBefore.IsZero() && c.IssuedAt.Before(d.TokensNotBefore.Truncate(time.Second))
}

// movedSuffix follows the endpoint's id in the issuer that the protected
// resource metadata names with the chaos MovedAuthorizationServer.
const movedSuffix = "/oauth-moved"

// MovedIssuer is the authorization server that design id's protected
// resource metadata names with the chaos MovedAuthorizationServer: nothing
// is served under it.
func MovedIssuer(base string, id uuid.UUID) string {
	return base + EndpointPrefix + id.String() + movedSuffix
}

// ResourceMetadata is the protected resource metadata (RFC 9728) of a
// design's MCP endpoint.
type ResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name"`
}

// EffectiveScopes are the scopes a design's authorization server grants:
// s.ScopesSupported, or when empty the union of s.RequiredScopes and the
// tools' scopes (in the order of toolScopes' sorted names).
func EffectiveScopes(s Settings, toolScopes map[string][]string) []string {
	if len(s.ScopesSupported) > 0 {
		return s.ScopesSupported
	}
	out := append([]string{}, s.RequiredScopes...)
	names := make([]string, 0, len(toolScopes))
	for n := range toolScopes {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		for _, sc := range toolScopes[n] {
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		}
	}
	return out
}
