package design

import (
	"fmt"
	"slices"
	"time"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

// Authentication modes of a server's MCP endpoint (Server.AuthMode).
const (
	AuthModeNone   = "none"
	AuthModeAPIKey = "api_key"
	// AuthModeOAuth: the endpoint is an OAuth protected resource whose
	// tokens the design's own mock authorization server issues.
	AuthModeOAuth = "oauth"
)

// Bounds of a design's OAuth settings.
const (
	// MaxScopes bounds each list of scopes (supported, required, a tool's).
	MaxScopes = 100
	// MaxScope bounds one scope's length, in bytes.
	MaxScope = 200
	// MaxTokenLifetimeSeconds is the authorization server's bound.
	MaxTokenLifetimeSeconds = int(oauthcfg.MaxTokenLifetime / time.Second)
)

// Consents are the answers the authorization endpoint may give.
var Consents = []string{oauthcfg.ConsentAuto, oauthcfg.ConsentDeny, oauthcfg.ConsentPage}

// checkOAuth checks a server's OAuth settings, naming fields under field.
func checkOAuth(f *failure.Fields, field string, o oauthcfg.Settings) {
	checkScopes(f, field+".scopes_supported", o.ScopesSupported)
	checkScopes(f, field+".required_scopes", o.RequiredScopes)
	if len(o.ScopesSupported) > 0 {
		for i, sc := range o.RequiredScopes {
			if ScopeProblem(sc) == "" && !slices.Contains(o.ScopesSupported, sc) {
				f.Add(fmt.Sprintf("%s.required_scopes[%d]", field, i), "%q is not one of scopes_supported", sc)
			}
		}
	}
	if n := o.TokenLifetimeSeconds; n < 0 || n > MaxTokenLifetimeSeconds {
		f.Add(field+".token_lifetime_seconds", "must be from 1 to %d (a day), got %d", MaxTokenLifetimeSeconds, n)
	}
	if o.Consent != "" {
		oneOf(f, field+".consent", o.Consent, Consents)
	}
}

// checkScopes checks a list of scopes: each a scope-token of RFC 6749
// (section 3.3), none twice.
func checkScopes(f *failure.Fields, field string, scopes []string) {
	if len(scopes) > MaxScopes {
		f.Add(field, "at most %d scopes, got %d", MaxScopes, len(scopes))
		return
	}
	for i, sc := range scopes {
		at := fmt.Sprintf("%s[%d]", field, i)
		if msg := ScopeProblem(sc); msg != "" {
			f.Add(at, "%s", msg)
		} else if slices.Contains(scopes[:i], sc) {
			f.Add(at, "%q is listed twice", sc)
		}
	}
}

// ScopeProblem says what is wrong with a scope, or "" when it is a valid
// scope-token: one or more printable ASCII characters other than space,
// '"' and '\'.
func ScopeProblem(sc string) string {
	if sc == "" {
		return "must not be empty"
	}
	if len(sc) > MaxScope {
		return fmt.Sprintf("must be at most %d characters", MaxScope)
	}
	for i := 0; i < len(sc); i++ {
		if c := sc[i]; c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return fmt.Sprintf("%q is not a scope: printable ASCII without space, '\"' or '\\' only (RFC 6749, section 3.3)", sc)
		}
	}
	return ""
}
