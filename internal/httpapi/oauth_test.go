package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

// testTokens verifies the tokens a test mints: a table of token → claims,
// checked as the real verifier checks them (issuer, audience, expiry).
type testTokens struct {
	mu     sync.Mutex
	claims map[string]oauthcfg.Claims
	n      int
}

func (v *testTokens) VerifyToken(_ context.Context, token, issuer, resource string) (oauthcfg.Claims, error) {
	v.mu.Lock()
	c, ok := v.claims[token]
	v.mu.Unlock()
	switch {
	case !ok:
		return c, fmt.Errorf("%w: bad signature", oauthcfg.ErrInvalidToken)
	case c.Issuer != issuer:
		return c, fmt.Errorf("%w: wrong issuer", oauthcfg.ErrInvalidToken)
	case c.Audience != resource:
		return c, fmt.Errorf("%w: wrong audience", oauthcfg.ErrInvalidToken)
	case !time.Now().Before(c.Expiry):
		return c, fmt.Errorf("%w: expired", oauthcfg.ErrInvalidToken)
	}
	return c, nil
}

// mint issues a token for the design at endpoint (its URL), with scopes.
func (v *testTokens) mint(endpoint string, scopes ...string) string {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.n++
	tok := fmt.Sprintf("tok-%d", v.n)
	iss := strings.TrimSuffix(endpoint, "/mcp") + "/oauth"
	v.claims[tok] = oauthcfg.Claims{Issuer: iss, Audience: endpoint, Subject: "alice", ClientID: "c", Scopes: scopes,
		IssuedAt: time.Now().Truncate(time.Second), Expiry: time.Now().Add(time.Hour), ID: tok} // iat in whole seconds, as in a JWT
	return tok
}

// nextSecond waits for the next whole second.
func nextSecond() { time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second))) }

func oauthEnv(t *testing.T) (*apitest.Env, *testTokens) {
	t.Helper()
	v := &testTokens{claims: map[string]oauthcfg.Claims{}}
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.OAuthVerifier = v }})
	return env, v
}

// oauthServer creates an enabled oauth design with a tool "read" (no
// scope) and a tool "write" (scope files:write), and returns its id.
func oauthServer(t *testing.T, c *apitest.Client, name string, oauth map[string]any) string {
	t.Helper()
	body := map[string]any{"name": name, "auth_mode": "oauth"}
	if oauth != nil {
		body["oauth"] = oauth
	}
	id := c.Do("POST", "/api/servers", body).Status(http.StatusCreated).String("id")
	mkChild(t, c, id, "tools", map[string]any{"name": "read",
		"mock_scenarios": []any{map[string]any{"name": "ok", "response": map[string]any{"ok": true}}}})
	mkChild(t, c, id, "tools", map[string]any{"name": "write", "required_scopes": []string{"files:write"},
		"mock_scenarios": []any{map[string]any{"name": "ok", "response": map[string]any{"ok": true}}}})
	c.Do("PATCH", "/api/servers/"+id, map[string]any{"enabled": true}).Status(http.StatusOK)
	return id
}

const (
	legacyVersion = "2025-06-18"
	modernVersion = "2026-07-28"
)

// oauthCall sends one request to the endpoint with token ("" for none), as
// a client of the legacy era or the modern one.
func oauthCall(t *testing.T, env *apitest.Env, server, token string, modern bool, method string, params map[string]any) *apitest.Response {
	t.Helper()
	c := env.Anonymous(t)
	c.Header.Set("Accept", "application/json")
	if token != "" {
		c.Header.Set("Authorization", "Bearer "+token)
	}
	if params == nil {
		params = map[string]any{}
	}
	if modern {
		c.Header.Set("Mcp-Protocol-Version", modernVersion)
		c.Header.Set("Mcp-Method", method)
		if name, ok := params["name"].(string); ok {
			c.Header.Set("Mcp-Name", name)
		}
		params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": modernVersion,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
			"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "t", "version": "1"}}
	} else {
		c.Header.Set("Mcp-Protocol-Version", legacyVersion)
	}
	return c.Do("POST", "/api/platform/"+server+"/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

func prmURL(env *apitest.Env, server string) string {
	return env.URL + "/.well-known/oauth-protected-resource/api/platform/" + server + "/mcp"
}

func TestOAuthDesignFields(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Acme Labs")

	t.Run("defaults", func(t *testing.T) {
		r := ada.For(t).Do("POST", "/api/servers", map[string]any{"name": "Plain"}).Status(http.StatusCreated)
		require.Equal(t, "none", r.Get("auth_mode"))
		require.Equal(t, map[string]any{"consent": "auto", "token_lifetime_seconds": float64(3600), "chaos": map[string]any{}}, r.Get("oauth"))
		require.Nil(t, r.Get("oauth_tokens_not_before"))
		require.Nil(t, r.Get("oauth_refresh_not_before"))
	})

	t.Run("round trip through REST and design documents", func(t *testing.T) {
		ada := ada.For(t)
		oauth := map[string]any{"scopes_supported": []any{"files:read", "files:write"}, "required_scopes": []any{"files:read"},
			"token_lifetime_seconds": float64(120), "consent": "page",
			"chaos": map[string]any{"wrong_issuer": true, "moved_authorization_server": true, "refuse_refresh": true}}
		id := oauthServer(t, ada, "Files", oauth)
		got := ada.Do("GET", "/api/servers/"+id, nil).Status(http.StatusOK)
		require.Equal(t, "oauth", got.Get("auth_mode"))
		require.Equal(t, oauth, got.Get("oauth"))
		tools := ada.Do("GET", "/api/servers/"+id+"/tools", nil).Status(http.StatusOK)
		require.Equal(t, []any{}, tools.Get("items.0.required_scopes"))
		require.Equal(t, []any{"files:write"}, tools.Get("items.1.required_scopes"))

		doc := ada.Do("GET", "/api/servers/"+id+"/export", nil).Status(http.StatusOK)
		require.Contains(t, string(doc.Raw), `"required_scopes": [`)
		require.NotContains(t, string(doc.Raw), "not_before")
		text := strings.Replace(string(doc.Raw), `"name": "Files"`, `"name": "Files again"`, 1)
		applied := ada.Do("POST", "/api/servers/apply", text).Status(http.StatusCreated)
		cp := applied.String("server.id")
		require.Equal(t, oauth, ada.Do("GET", "/api/servers/"+cp, nil).Status(http.StatusOK).Get("oauth"))
		again := ada.Do("GET", "/api/servers/"+cp+"/export", nil).Status(http.StatusOK)
		require.Equal(t, text, string(again.Raw))
		// Applying the same document again changes nothing.
		require.Equal(t, false, ada.Do("POST", "/api/servers/apply", text).Status(http.StatusOK).Get("changed"))

		r := ada.Do("PATCH", "/api/servers/"+id, map[string]any{"oauth": map[string]any{"required_scopes": []any{"x"}}}).
			Status(http.StatusOK)
		require.Equal(t, []any{"x"}, r.Get("oauth.required_scopes"), "oauth is replaced whole")
		require.Nil(t, r.Get("oauth.scopes_supported"))
	})

	t.Run("a document without oauth exports none", func(t *testing.T) {
		ada := ada.For(t)
		id := mkServer(t, ada, "No OAuth")
		doc := ada.Do("GET", "/api/servers/"+id+"/export", nil).Status(http.StatusOK)
		require.NotContains(t, string(doc.Raw), `"oauth"`)
		require.NotContains(t, string(doc.Raw), `required_scopes`)
	})

	t.Run("invalid", func(t *testing.T) {
		ada := ada.For(t)
		for _, tc := range []struct {
			name  string
			body  map[string]any
			field string
		}{
			{"unknown auth_mode", map[string]any{"name": "x", "auth_mode": "oauth2"}, "auth_mode"},
			{"scope with a space", map[string]any{"name": "x", "oauth": map[string]any{"required_scopes": []any{"a b"}}}, "oauth.required_scopes"},
			{"scope with a quote", map[string]any{"name": "x", "oauth": map[string]any{"scopes_supported": []any{`a"b`}}}, "oauth.scopes_supported"},
			{"empty scope", map[string]any{"name": "x", "oauth": map[string]any{"scopes_supported": []any{""}}}, "oauth.scopes_supported"},
			{"scope twice", map[string]any{"name": "x", "oauth": map[string]any{"scopes_supported": []any{"a", "a"}}}, "oauth.scopes_supported"},
			{"zero lifetime", map[string]any{"name": "x", "oauth": map[string]any{"token_lifetime_seconds": 0}}, "oauth.token_lifetime_seconds"},
			{"lifetime over a day", map[string]any{"name": "x", "oauth": map[string]any{"token_lifetime_seconds": 86401}}, "oauth.token_lifetime_seconds"},
			{"unknown consent", map[string]any{"name": "x", "oauth": map[string]any{"consent": "maybe"}}, "oauth.consent"},
			{"unknown member", map[string]any{"name": "x", "oauth": map[string]any{"issuer": "x"}}, "oauth"},
			{"unknown chaos", map[string]any{"name": "x", "oauth": map[string]any{"chaos": map[string]any{"slow": true}}}, "oauth.chaos"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := ada.For(t).Do("POST", "/api/servers", tc.body).Problem(http.StatusUnprocessableEntity)
				require.Contains(t, string(r.Raw), `"field":"`+tc.field)
			})
		}
		t.Run("required scope not supported", func(t *testing.T) {
			ada.For(t).Do("POST", "/api/servers", map[string]any{"name": "x", "oauth": map[string]any{
				"scopes_supported": []any{"a"}, "required_scopes": []any{"b"}}}).
				Problem(http.StatusUnprocessableEntity, "oauth.required_scopes[0]")
		})
		t.Run("tool scope", func(t *testing.T) {
			id := mkServer(t, ada.For(t), "Scoped tools")
			r := ada.For(t).Do("POST", "/api/servers/"+id+"/tools", map[string]any{"name": "t", "required_scopes": []any{"a\\b"}}).
				Problem(http.StatusUnprocessableEntity)
			require.Contains(t, string(r.Raw), `"field":"required_scopes`)
		})
	})
	t.Run("a token its authorization server did not sign is refused", func(t *testing.T) {
		id := oauthServer(t, ada.For(t), "Unverifiable", nil)
		r := oauthCall(t, env, id, "any", false, "tools/list", nil)
		require.Equal(t, http.StatusUnauthorized, r.Code)
		require.Equal(t, `Bearer error="invalid_token", error_description="not a signed JWT", resource_metadata="`+
			prmURL(env, id)+`"`, r.Hdr.Get("WWW-Authenticate"))
	})
}

func TestOAuthProtectedEndpoint(t *testing.T) {
	t.Parallel()
	env, tokens := oauthEnv(t)
	ada := env.Signup(t, "Acme Labs")
	open := oauthServer(t, ada, "Open scopes", nil)
	scoped := oauthServer(t, ada, "Scoped", map[string]any{"required_scopes": []any{"mcp:use"}})
	endpoint := func(id string) string { return env.URL + "/api/platform/" + id + "/mcp" }

	t.Run("no token: 401 naming the metadata", func(t *testing.T) {
		for _, modern := range []bool{false, true} {
			r := oauthCall(t, env, open, "", modern, "tools/list", nil)
			require.Equal(t, http.StatusUnauthorized, r.Code, "%s", r.Raw)
			require.Equal(t, []string{`Bearer resource_metadata="` + prmURL(env, open) + `"`}, r.Hdr.Values("WWW-Authenticate"))
			require.Equal(t, float64(-32001), r.Get("error.code"))

			r = oauthCall(t, env, scoped, "", modern, "tools/list", nil)
			require.Equal(t, http.StatusUnauthorized, r.Code)
			require.Equal(t, []string{`Bearer resource_metadata="` + prmURL(env, scoped) + `", scope="mcp:use"`}, r.Hdr.Values("WWW-Authenticate"))
		}
	})

	t.Run("invalid token", func(t *testing.T) {
		r := oauthCall(t, env, open, "forged", false, "tools/list", nil)
		require.Equal(t, http.StatusUnauthorized, r.Code)
		require.Equal(t, `Bearer error="invalid_token", error_description="bad signature", resource_metadata="`+prmURL(env, open)+`"`,
			r.Hdr.Get("WWW-Authenticate"))
	})

	t.Run("a token of another design is refused", func(t *testing.T) {
		tok := tokens.mint(endpoint(scoped), "mcp:use")
		r := oauthCall(t, env, open, tok, false, "tools/list", nil)
		require.Equal(t, http.StatusUnauthorized, r.Code)
		require.Contains(t, r.Hdr.Get("WWW-Authenticate"), `error="invalid_token"`)
	})

	t.Run("a valid token lists every tool", func(t *testing.T) {
		tok := tokens.mint(endpoint(open))
		for _, modern := range []bool{false, true} {
			r := oauthCall(t, env, open, tok, modern, "tools/list", nil).Status(http.StatusOK)
			require.Equal(t, 2, r.Len("result.tools"), "tools needing scopes are listed too")
			oauthCall(t, env, open, tok, modern, "tools/call", map[string]any{"name": "read", "arguments": map[string]any{}}).
				Status(http.StatusOK)
		}
	})

	t.Run("missing required scope: 403", func(t *testing.T) {
		tok := tokens.mint(endpoint(scoped))
		r := oauthCall(t, env, scoped, tok, false, "tools/list", nil)
		require.Equal(t, http.StatusForbidden, r.Code)
		require.Equal(t, `Bearer error="insufficient_scope", scope="mcp:use", resource_metadata="`+prmURL(env, scoped)+`"`,
			r.Hdr.Get("WWW-Authenticate"))
	})

	t.Run("scoped tool: 403 insufficient_scope in both eras", func(t *testing.T) {
		tok := tokens.mint(endpoint(scoped), "mcp:use")
		for _, modern := range []bool{false, true} {
			r := oauthCall(t, env, scoped, tok, modern, "tools/call", map[string]any{"name": "write", "arguments": map[string]any{}})
			require.Equal(t, http.StatusForbidden, r.Code, "modern %v: %s", modern, r.Raw)
			require.Equal(t, `Bearer error="insufficient_scope", scope="mcp:use files:write", resource_metadata="`+prmURL(env, scoped)+`"`,
				r.Hdr.Get("WWW-Authenticate"), "every scope the call needs, those held included")
			require.Equal(t, float64(-32001), r.Get("error.code"))
		}
		up := tokens.mint(endpoint(scoped), "mcp:use", "files:write")
		for _, modern := range []bool{false, true} {
			oauthCall(t, env, scoped, up, modern, "tools/call", map[string]any{"name": "write", "arguments": map[string]any{}}).
				Status(http.StatusOK)
		}
	})

	t.Run("a batch with a scoped call is refused whole", func(t *testing.T) {
		tok := tokens.mint(endpoint(open))
		c := env.Anonymous(t)
		c.Header.Set("Accept", "application/json")
		c.Header.Set("Authorization", "Bearer "+tok)
		c.Header.Set("Mcp-Protocol-Version", "2025-03-26")
		r := c.Do("POST", "/api/platform/"+open+"/mcp", []any{
			map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": "read"}},
			map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{"name": "write"}},
		})
		require.Equal(t, http.StatusForbidden, r.Code, "%s", r.Raw)
		require.Contains(t, r.Hdr.Get("WWW-Authenticate"), `scope="files:write"`)
	})

	t.Run("refusals are journaled with their reason", func(t *testing.T) {
		r := journalPage(t, ada.For(t), open, "?outcome=rejected", 5)
		var answers []string
		for i := 0; i < r.Len("items"); i++ {
			answers = append(answers, r.String(fmt.Sprintf("items.%d.response", i)))
		}
		require.Contains(t, strings.Join(answers, "\n"), "401 invalid_token: bad signature")
		require.Contains(t, strings.Join(answers, "\n"), "401 no bearer token")
		require.Contains(t, strings.Join(answers, "\n"), "403 insufficient_scope: needs files:write")
	})
}

func TestOAuthProtectedResourceMetadata(t *testing.T) {
	t.Parallel()
	env, _ := oauthEnv(t)
	ada := env.Signup(t, "Acme Labs")
	id := oauthServer(t, ada, "Files", map[string]any{"required_scopes": []any{"mcp:use"}})
	anon := env.Anonymous(t)

	r := anon.Do("GET", "/.well-known/oauth-protected-resource/api/platform/"+id+"/mcp", nil).Status(http.StatusOK)
	require.Equal(t, map[string]any{
		"resource":                 env.URL + "/api/platform/" + id + "/mcp",
		"authorization_servers":    []any{env.URL + "/api/platform/" + id + "/oauth"},
		"scopes_supported":         []any{"mcp:use", "files:write"},
		"bearer_methods_supported": []any{"header"},
		"resource_name":            "Files",
	}, r.JSON)
	require.Equal(t, "*", r.Hdr.Get("Access-Control-Allow-Origin"))
	pre := anon.Do("OPTIONS", "/.well-known/oauth-protected-resource/api/platform/"+id+"/mcp", nil)
	require.Equal(t, http.StatusNoContent, pre.Code)
	require.Equal(t, "*", pre.Hdr.Get("Access-Control-Allow-Origin"))

	t.Run("moved authorization server", func(t *testing.T) {
		ada := ada.For(t)
		ada.Do("PATCH", "/api/servers/"+id, map[string]any{"oauth": map[string]any{
			"scopes_supported": []any{"a", "b"}, "chaos": map[string]any{"moved_authorization_server": true}}}).Status(http.StatusOK)
		var got *apitest.Response
		apitest.Eventually(t, "the metadata names the moved server", func() bool {
			got = anon.For(t).Do("GET", "/.well-known/oauth-protected-resource/api/platform/"+id+"/mcp", nil).Status(http.StatusOK)
			return len(got.Get("authorization_servers").([]any)) == 1 &&
				got.Get("authorization_servers").([]any)[0] == env.URL+"/api/platform/"+id+"/oauth-moved"
		})
		require.Equal(t, []any{"a", "b"}, got.Get("scopes_supported"))
	})

	t.Run("404", func(t *testing.T) {
		plain := mkServer(t, ada.For(t), "Plain")
		ada.For(t).Do("PATCH", "/api/servers/"+plain, map[string]any{"enabled": true}).Status(http.StatusOK)
		for _, path := range []string{
			"/.well-known/oauth-protected-resource",
			"/.well-known/oauth-protected-resource/",
			"/.well-known/oauth-protected-resource/api/platform/" + plain + "/mcp",
			"/.well-known/oauth-protected-resource/api/platform/00000000-0000-0000-0000-000000000000/mcp",
			"/.well-known/oauth-protected-resource/api/platform/" + id,
		} {
			anon.For(t).Do("GET", path, nil).Problem(http.StatusNotFound)
		}
	})
}

func TestOAuthExpireAndRevokeTokens(t *testing.T) {
	t.Parallel()
	env, tokens := oauthEnv(t)
	ada, bob := env.Signup(t, "Acme Labs"), env.Signup(t, "Rival")
	id := oauthServer(t, ada, "Files", nil)
	endpoint := env.URL + "/api/platform/" + id + "/mcp"

	old := tokens.mint(endpoint)
	oauthCall(t, env, id, old, false, "tools/list", nil).Status(http.StatusOK)

	bob.Do("POST", "/api/servers/"+id+"/oauth/expire-tokens", nil).Problem(http.StatusNotFound)
	oauthCall(t, env, id, old, false, "tools/list", nil).Status(http.StatusOK)

	nextSecond() // a token issued within the second of the expiry is kept
	r := ada.Do("POST", "/api/servers/"+id+"/oauth/expire-tokens", nil).Status(http.StatusOK)
	require.NotNil(t, r.Get("oauth_tokens_not_before"))
	require.Nil(t, r.Get("oauth_refresh_not_before"), "refresh tokens still work")
	var refused *apitest.Response
	apitest.Eventually(t, "the token is refused", func() bool {
		refused = oauthCall(t, env, id, old, true, "tools/list", nil)
		return refused.Code == http.StatusUnauthorized
	})
	require.Equal(t, `Bearer error="invalid_token", error_description="expired", resource_metadata="`+prmURL(env, id)+`"`,
		refused.Hdr.Get("WWW-Authenticate"))
	fresh := tokens.mint(endpoint)
	oauthCall(t, env, id, fresh, false, "tools/list", nil).Status(http.StatusOK)

	nextSecond()
	r = ada.Do("POST", "/api/servers/"+id+"/oauth/revoke-tokens", nil).Status(http.StatusOK)
	require.NotNil(t, r.Get("oauth_refresh_not_before"))
	require.Equal(t, r.Get("oauth_tokens_not_before"), r.Get("oauth_refresh_not_before"))
	apitest.Eventually(t, "the fresh token is refused", func() bool {
		return oauthCall(t, env, id, fresh, false, "tools/list", nil).Code == http.StatusUnauthorized
	})
	got := ada.Do("GET", "/api/servers/"+id, nil).Status(http.StatusOK)
	require.Equal(t, r.Get("oauth_refresh_not_before"), got.Get("oauth_refresh_not_before"))

	j := journalPage(t, ada, id, "?method=oauth/revoke_tokens", 1)
	require.Equal(t, "result", j.Get("items.0.outcome"))
	journalPage(t, ada, id, "?method=oauth/expire_tokens", 1)
	rejected := journalPage(t, ada, id, "?outcome=rejected", 2)
	require.Contains(t, string(rejected.Raw), "401 invalid_token: expired")
}

// TestListOAuthClients: the design's owner lists the clients registered
// with its authorization server, never their secrets; another
// organization does not find the server; deleted clients are gone from the
// list.
func TestListOAuthClients(t *testing.T) {
	t.Parallel()
	env, alpha, beta := apitest.Rivals(t, "Alpha OAuth Clients", "Beta OAuth Clients")
	id := oauthServer(t, alpha, "clients", nil)
	anon := env.Anonymous(t)
	list := func() *apitest.Response {
		t.Helper()
		return alpha.Do("GET", "/api/servers/"+id+"/oauth/clients", nil).Status(http.StatusOK)
	}
	require.Equal(t, 0, list().Len("items"))

	register := anon.Do("POST", "/api/platform/"+id+"/oauth/register", map[string]any{"client_name": "Robot",
		"token_endpoint_auth_method": "client_secret_post", "grant_types": []string{"client_credentials"}, "scope": "files:write"}).
		Status(http.StatusCreated)
	robot, secret := register.String("client_id"), register.String("client_secret")
	register = anon.Do("POST", "/api/platform/"+id+"/oauth/register", map[string]any{
		"token_endpoint_auth_method": "none", "grant_types": []string{"authorization_code", "refresh_token"},
		"redirect_uris": []string{"http://127.0.0.1:9/callback"}}).Status(http.StatusCreated)
	public := register.String("client_id")

	got := list()
	require.Equal(t, 2, got.Len("items"))
	byID := map[string]map[string]any{}
	for _, it := range got.Get("items").([]any) {
		c := it.(map[string]any)
		byID[c["client_id"].(string)] = c
	}
	require.Contains(t, byID, robot)
	require.Contains(t, byID, public)
	require.Equal(t, "Robot", byID[robot]["client_name"])
	require.Equal(t, []any{"client_credentials"}, byID[robot]["grant_types"])
	require.Equal(t, "client_secret_post", byID[robot]["token_endpoint_auth_method"])
	require.Equal(t, "files:write", byID[robot]["scope"])
	require.Equal(t, []any{}, byID[robot]["redirect_uris"])
	require.Nil(t, byID[public]["client_name"], "no name given: null")
	require.Contains(t, byID[public], "client_name")
	require.Equal(t, []any{"http://127.0.0.1:9/callback"}, byID[public]["redirect_uris"])
	require.Equal(t, "none", byID[public]["token_endpoint_auth_method"])
	for _, c := range byID {
		require.NotEmpty(t, c["created_at"])
		require.NotEmpty(t, c["last_used_at"])
		require.NotContains(t, c, "client_secret")
		require.NotContains(t, c, "secret_hash")
	}
	require.NotContains(t, string(got.Raw), secret, "never the secret")
	require.NotContains(t, string(got.Raw), "secret_hash")

	beta.Do("GET", "/api/servers/"+id+"/oauth/clients", nil).Problem(http.StatusNotFound)
	alpha.Do("GET", "/api/servers/00000000-0000-0000-0000-000000000000/oauth/clients", nil).Problem(http.StatusNotFound)

	alpha.Do("DELETE", "/api/servers/"+id+"/oauth/clients", nil).Status(http.StatusNoContent)
	require.Equal(t, 0, list().Len("items"))
}
