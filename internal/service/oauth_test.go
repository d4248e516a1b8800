package service_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/service"
)

// oauthDesigns is an in-memory oauthcfg.Designs.
type oauthDesigns struct {
	mu sync.Mutex
	m  map[uuid.UUID]oauthcfg.Design
}

func (d *oauthDesigns) OAuthDesign(_ context.Context, id uuid.UUID) (oauthcfg.Design, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if v, ok := d.m[id]; ok {
		return v, nil
	}
	return oauthcfg.Design{}, failure.ErrNotFound
}

// TestOAuthDesignsAuthorizationServer: the service routes an OAuth design's
// authorization server, its tokens pass the service's verifier, and its
// chaos is in the design's call journal.
func TestOAuthDesignsAuthorizationServer(t *testing.T) {
	designs := &oauthDesigns{m: map[uuid.UUID]oauthcfg.Design{}}
	env := apitest.New(t, &apitest.Options{Service: service.Options{OAuthDesigns: designs}})
	owner := env.Signup(t, "OAuth Service")
	id := owner.CreateServer(json.RawMessage(`{"name": "OAuth", "version": "1.0.0", "protocol_version": "2025-11-25"}`), nil, nil, nil)
	owner.EnableServer(id)
	server := uuid.MustParse(id)
	var org uuid.UUID
	require.NoError(t, env.Service.Store().Pool().QueryRow(t.Context(), `SELECT organization_id FROM mcp_servers WHERE id = $1`, server).Scan(&org))
	issuer := oauthcfg.Issuer(env.URL, server)

	// Not an OAuth design (yet): no authorization server.
	resp, err := http.Get(oauthcfg.AuthorizationServerMetadata(env.URL, server))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusNotFound, resp.StatusCode)

	designs.mu.Lock()
	designs.m[server] = oauthcfg.Design{ServerID: server, OrgID: org, OAuth: true,
		Settings: oauthcfg.Settings{ScopesSupported: []string{"mcp:read"}, Chaos: oauthcfg.Chaos{WrongIssuer: true}}}
	designs.mu.Unlock()
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
