package conformance_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// oauthReport is what testdata/oauthclient.mjs reports.
type oauthReport struct {
	Registrations  []map[string]any           `json:"registrations"`
	Authorizations []oauthAuthorization       `json:"authorizations"`
	Tokens         []map[string]any           `json:"tokens"`
	Steps          map[string]json.RawMessage `json:"steps"`
	WrongIssuer    struct {
		Authorizations []oauthAuthorization `json:"authorizations"`
		Tokens         []map[string]any     `json:"tokens"`
	} `json:"wrongIssuer"`
}

type oauthAuthorization struct {
	Scope    *string           `json:"scope"`
	Resource *string           `json:"resource"`
	Method   *string           `json:"method"`
	Status   int               `json:"status"`
	Callback map[string]string `json:"callback"`
}

// oauthDesign is a design that requires OAuth: forecast needs no scope
// beyond the design's, admin_report needs admin.
func oauthDesign(chaos map[string]any) json.RawMessage {
	oauth := map[string]any{"scopes_supported": []string{"forecast:read", "admin"}, "required_scopes": []string{"forecast:read"}}
	if chaos != nil {
		oauth["chaos"] = chaos
	}
	raw, _ := json.Marshal(map[string]any{"name": "Protected weather", "version": "1.0.0", "auth_mode": "oauth", "oauth": oauth})
	return raw
}

var oauthTools = []json.RawMessage{
	json.RawMessage(`{"name": "forecast", "description": "The forecast.", "input_schema": {"type": "object"},
		"mock_scenarios": [{"name": "any", "condition": {}, "response": {"forecast": "sunny"}}]}`),
	json.RawMessage(`{"name": "admin_report", "description": "Needs admin.", "input_schema": {"type": "object"}, "required_scopes": ["admin"],
		"mock_scenarios": [{"name": "any", "condition": {}, "response": {"report": "all clear"}}]}`),
}

// TestSDKClientOAuth connects the official TypeScript SDK client (v2, its
// OAuth support, in both protocol eras) to an OAuth design from nothing:
// it discovers the protected resource metadata and the authorization
// server, registers, authorizes with PKCE (the script plays the browser),
// gets a token and calls a tool; once every token of the design is
// expired it refreshes; a tool needing another scope makes it step up.
// Against a design whose authorization server sends a wrong iss, the SDK
// refuses the authorization response.
func TestSDKClientOAuth(t *testing.T) {
	node, cli := toolchain(t)
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		c.AllowedHosts = []string{"127.0.0.1", "localhost"}
	}})
	owner := env.Signup(t, "OAuth")
	id := owner.CreateServer(oauthDesign(nil), oauthTools, nil, nil)
	endpoint := owner.EnableServer(id).String("endpoint_url")
	wrong := owner.CreateServer(oauthDesign(map[string]any{"wrong_issuer": true}), oauthTools[:1], nil, nil)
	wrongEndpoint := owner.EnableServer(wrong).String("endpoint_url")
	key := owner.Do("POST", "/api/keys", map[string]any{"name": "oauth check"}).Status(http.StatusCreated).String("raw_key")
	base := strings.TrimSuffix(endpoint, "/api/platform/"+id+"/mcp")

	for _, era := range []string{"modern", "legacy"} {
		t.Run(era, func(t *testing.T) {
			plan := map[string]any{"endpoint": endpoint, "era": era, "tool": "forecast", "scopedTool": "admin_report",
				"expireURL": base + "/api/servers/" + id + "/oauth/expire-tokens", "apiKey": key,
				"wrongIssuerEndpoint": wrongEndpoint}
			var r oauthReport
			runScript(t, node, "oauthclient.mjs", plan, &r, packagesDir(t, cli))

			require.Len(t, r.Registrations, 1, "one dynamic registration")
			require.NotEmpty(t, r.Authorizations)
			first := r.Authorizations[0]
			require.Equal(t, "S256", *first.Method)
			require.Equal(t, endpoint, *first.Resource, "the resource indicator names the endpoint")
			require.Equal(t, http.StatusFound, first.Status)
			require.Equal(t, base+"/api/platform/"+id+"/oauth", first.Callback["iss"])

			require.Contains(t, string(r.Steps["call"]), "sunny")
			require.Contains(t, string(r.Steps["expire"]), `"status":200`)
			require.Contains(t, string(r.Steps["call after expiry"]), "sunny", "the client refreshed its token")
			require.Contains(t, string(r.Steps["scoped call"]), "all clear", "the client stepped up to the admin scope")
			last := r.Authorizations[len(r.Authorizations)-1]
			require.Contains(t, *last.Scope, "admin", "the step-up asks for the scope the tool needs")
			require.GreaterOrEqual(t, len(r.Tokens), 3, "tokens: first, refreshed, stepped up")
			require.True(t, r.Tokens[0]["refresh"].(bool))

			require.Contains(t, string(r.Steps["wrong issuer"]), `"error"`, "the SDK refused the authorization response")
			require.NotEmpty(t, r.WrongIssuer.Authorizations)
			require.Contains(t, r.WrongIssuer.Authorizations[0].Callback["iss"], "wrong-issuer")
			require.Empty(t, r.WrongIssuer.Tokens, "no token for a response with a wrong iss")
		})
	}
}
