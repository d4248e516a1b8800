package agentcard

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"regexp"

	"github.com/google/uuid"
)

// The schemes a card's mock agent can require.
const (
	AuthAPIKey = "api_key"
	AuthBearer = "bearer"
)

// DefaultAPIKeyHeader is the header an api_key agent reads its key from
// unless the card names another.
const DefaultAPIKeyHeader = "X-API-Key"

// AgentAuth is what the card's mock A2A agent requires of a caller: an API
// key in a header (api_key), or a bearer access token issued by the mock
// OAuth authorization server of one of the organization's MCP server
// designs (bearer). The key is given as Key when the card is written and
// kept only as its SHA-256 (KeySHA256): the store never writes Key.
type AgentAuth struct {
	Scheme string `json:"scheme"`
	// Header names the header holding the API key; empty means
	// DefaultAPIKeyHeader.
	Header string `json:"header,omitempty"`
	// Key is the API key as written (the member "key"); it is read, never
	// written out: not stored (see HashKey), not answered.
	Key string `json:"-"`
	// KeySHA256 is the hex SHA-256 of the API key.
	KeySHA256 string `json:"key_sha256,omitempty"`
	// OAuthServer is the id of the MCP server design whose authorization
	// server issues the bearer tokens the agent accepts.
	OAuthServer string `json:"oauth_server,omitempty"`
}

// UnmarshalJSON reads a's members, "key" included.
func (a *AgentAuth) UnmarshalJSON(b []byte) error {
	type plain AgentAuth
	var w struct {
		plain
		Key string `json:"key"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*a = AgentAuth(w.plain)
	a.Key = w.Key
	return nil
}

// KeyHeader is the header an api_key agent reads.
func (a AgentAuth) KeyHeader() string {
	if a.Header == "" {
		return DefaultAPIKeyHeader
	}
	return http.CanonicalHeaderKey(a.Header)
}

// HashKey is a with its Key replaced by its hash: the form a card is
// stored in.
func (a AgentAuth) HashKey() AgentAuth {
	if a.Key != "" {
		sum := sha256.Sum256([]byte(a.Key))
		a.KeySHA256, a.Key = hex.EncodeToString(sum[:]), ""
	}
	return a
}

// KeyMatches reports whether key is the agent's API key, in time that
// does not depend on where they differ.
func (a AgentAuth) KeyMatches(key string) bool {
	want, err := hex.DecodeString(a.HashKey().KeySHA256)
	if err != nil || len(want) != sha256.Size || key == "" {
		return false
	}
	got := sha256.Sum256([]byte(key))
	return subtle.ConstantTimeCompare(got[:], want) == 1
}

// headerName is an HTTP header name (RFC 9110 token).
var headerName = regexp.MustCompile("^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")

var sha256Hex = regexp.MustCompile("^[0-9a-f]{64}$")

// auth checks what the agent compiles of a card's auth; a card that breaks
// it is not stored, draft or not.
func (v *cardCheck) auth(a *AgentAuth) {
	if a == nil {
		return
	}
	switch a.Scheme {
	case AuthAPIKey:
		if a.Header != "" && !headerName.MatchString(a.Header) {
			v.f.Add("auth.header", "must be an HTTP header name (letters, digits and !#$%%&'*+.^_`|~-), at most 100 characters")
		}
		switch {
		case a.Key == "" && a.KeySHA256 == "":
			v.f.Add("auth.key", "is required for the api_key scheme (or key_sha256, the hex SHA-256 of the key)")
		case a.Key != "" && len(a.Key) < 8:
			v.f.Add("auth.key", "must be at least 8 characters")
		case a.Key == "" && !sha256Hex.MatchString(a.KeySHA256):
			v.f.Add("auth.key_sha256", "must be 64 lowercase hexadecimal digits")
		}
		if a.OAuthServer != "" {
			v.f.Add("auth.oauth_server", "is for the bearer scheme only")
		}
	case AuthBearer:
		if id, err := uuid.Parse(a.OAuthServer); err != nil {
			v.f.Add("auth.oauth_server", "is required for the bearer scheme: the id of an MCP server design with OAuth")
		} else if v.publish {
			switch linked := v.links[a.OAuthServer]; {
			case linked == nil || linked.ID != id:
				v.f.Add("auth.oauth_server", "no MCP server design with this id in the organization")
			case !linked.OAuth:
				v.f.Add("auth.oauth_server", "MCP server design '%s' does not use OAuth (its auth_mode is not oauth), so it issues no tokens", linked.Name)
			}
		}
		if a.Key != "" || a.KeySHA256 != "" || a.Header != "" {
			v.f.Add("auth.scheme", "bearer takes oauth_server only (key, key_sha256 and header are for api_key)")
		}
	default:
		v.f.Add("auth.scheme", "must be one of: api_key, bearer")
	}
}

// a2aAgentSecurity renders the agent's auth as its A2A scheme, required.
func a2aAgentSecurity(a AgentAuth) (string, A2ASecurityScheme) {
	if a.Scheme == AuthBearer {
		return "mock_agent_bearer", A2ASecurityScheme{HTTPAuth: &A2AHTTPAuthSecurityScheme{Scheme: "Bearer", BearerFormat: "JWT",
			Description: "An access token from the authorization server of the MCP server design " + a.OAuthServer + "."}}
	}
	return "mock_agent_api_key", A2ASecurityScheme{APIKey: &A2AAPIKeySecurityScheme{Location: "header", Name: a.KeyHeader()}}
}
