package service_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

// enabledServer signs up org and creates and enables the server of the
// body of POST /api/servers; it returns the service, the owner and the
// server's id.
func enabledServer(t *testing.T, org, server string) (*apitest.Env, *apitest.Client, string) {
	t.Helper()
	env := apitest.New(t, nil)
	owner := env.Signup(t, org)
	id := owner.CreateServer(json.RawMessage(server), nil, nil, nil)
	owner.EnableServer(id)
	return env, owner, id
}

// TestOAuthDesignsAuthorizationServer: the service routes an OAuth design's
// authorization server, its tokens pass the service's verifier, and its
// chaos is in the design's call journal.
func TestOAuthDesignsAuthorizationServer(t *testing.T) {
	t.Parallel()
	env, owner, id := enabledServer(t, "OAuth Service", `{"name": "OAuth", "version": "1.0.0", "protocol_version": "2025-11-25"}`)
	server := uuid.MustParse(id)
	issuer := oauthcfg.Issuer(env.URL, server)

	// Not an OAuth design (yet): no authorization server.
	resp, err := http.Get(oauthcfg.AuthorizationServerMetadata(env.URL, server))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	owner.Do(http.MethodPatch, "/api/servers/"+id, map[string]any{"auth_mode": "oauth",
		"oauth": map[string]any{"scopes_supported": []string{"mcp:read"}, "chaos": map[string]any{"wrong_issuer": true}}}).Status(http.StatusOK)
	resp, err = http.Get(oauthcfg.AuthorizationServerMetadata(env.URL, server))
	require.NoError(t, err)
	var meta map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&meta))
	resp.Body.Close()
	require.Equal(t, issuer, meta["issuer"])

	var reg struct{ ClientID, ClientSecret string }
	resp, err = http.Post(issuer+"/register", "application/json", strings.NewReader(
		`{"redirect_uris": ["http://127.0.0.1:9/cb"], "token_endpoint_auth_method": "client_secret_post", "grant_types": ["client_credentials", "authorization_code"]}`))
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode, out)
	reg.ClientID, reg.ClientSecret = out["client_id"].(string), out["client_secret"].(string)

	resp, err = http.PostForm(issuer+"/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {reg.ClientID},
		"client_secret": {reg.ClientSecret}})
	require.NoError(t, err)
	var tok map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, tok)
	claims, err := env.Service.OAuthVerifier().VerifyToken(t.Context(), tok["access_token"].(string), issuer, oauthcfg.Resource(env.URL, server))
	require.NoError(t, err)
	require.Equal(t, []string{"mcp:read"}, claims.Scopes)

	noRedirects := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noRedirects.Get(issuer + "/authorize?" + url.Values{"response_type": {"code"}, "client_id": {reg.ClientID},
		"code_challenge": {strings.Repeat("a", 43)}, "code_challenge_method": {"S256"}}.Encode())
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	require.NotEqual(t, issuer, loc.Query().Get("iss"))

	require.NoError(t, env.Service.Journal().Flush(t.Context()))
	page := owner.Do(http.MethodGet, "/api/servers/"+id+"/journal", nil).Status(http.StatusOK)
	var methods []string
	for i := range page.Len("items") {
		methods = append(methods, page.String("items."+strconv.Itoa(i)+".method"))
		if page.String("items."+strconv.Itoa(i)+".method") == "oauth/authorize" {
			require.Contains(t, page.String("items."+strconv.Itoa(i)+".response"), "wrong_issuer")
		}
	}
	require.Contains(t, methods, "oauth/authorize")
	require.Contains(t, methods, "oauth/token")
	require.Contains(t, methods, "oauth/register")
}

// TestDeleteOAuthClients: the design's owner deletes every client of its
// authorization server, which then refuses them and takes new ones.
func TestDeleteOAuthClients(t *testing.T) {
	t.Parallel()
	env, owner, id := enabledServer(t, "OAuth Clients", `{"name": "OAuth", "version": "1.0.0", "auth_mode": "oauth"}`)
	issuer := oauthcfg.Issuer(env.URL, uuid.MustParse(id))
	register := func() (string, string) {
		t.Helper()
		resp, err := http.Post(issuer+"/register", "application/json", strings.NewReader(
			`{"token_endpoint_auth_method": "client_secret_post", "grant_types": ["client_credentials"]}`))
		require.NoError(t, err)
		var out map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
		resp.Body.Close()
		require.Equal(t, http.StatusCreated, resp.StatusCode, out)
		return out["client_id"].(string), out["client_secret"].(string)
	}
	token := func(client, secret string) int {
		t.Helper()
		resp, err := http.PostForm(issuer+"/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {client}, "client_secret": {secret}})
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	client, secret := register()
	require.Equal(t, http.StatusOK, token(client, secret))

	owner.Do(http.MethodDelete, "/api/servers/"+id+"/oauth/clients", nil).Status(http.StatusNoContent)
	require.Equal(t, http.StatusUnauthorized, token(client, secret))
	client, secret = register()
	require.Equal(t, http.StatusOK, token(client, secret))

	stranger := env.Signup(t, "Someone Else")
	stranger.Do(http.MethodDelete, "/api/servers/"+id+"/oauth/clients", nil).Status(http.StatusNotFound)
	require.Equal(t, http.StatusOK, token(client, secret))
}

// TestOAuthRateLimitInDevelopment: the authorization servers' per-address
// limits apply in development too, as configured.
func TestOAuthRateLimitInDevelopment(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		require.False(t, c.Production())
		c.OAuthRegisterRateLimit = 3
	}})
	owner := env.Signup(t, "OAuth Limits")
	id := owner.CreateServer(json.RawMessage(`{"name": "OAuth", "version": "1.0.0", "auth_mode": "oauth"}`), nil, nil, nil)
	owner.EnableServer(id)
	issuer := oauthcfg.Issuer(env.URL, uuid.MustParse(id))
	for i := range 4 {
		resp, err := http.Post(issuer+"/register", "application/json", strings.NewReader(`{"token_endpoint_auth_method": "client_secret_post", "grant_types": ["client_credentials"]}`))
		require.NoError(t, err)
		resp.Body.Close()
		if i < 3 {
			require.Equal(t, http.StatusCreated, resp.StatusCode, i)
			continue
		}
		require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
		require.NotEmpty(t, resp.Header.Get("Retry-After"))
	}
}
