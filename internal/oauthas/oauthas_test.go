package oauthas_test

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/oauthas"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testclock"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// designs is an in-memory oauthcfg.Designs.
type designs struct {
	mu sync.Mutex
	m  map[uuid.UUID]oauthcfg.Design
}

func (d *designs) OAuthDesign(_ context.Context, id uuid.UUID) (oauthcfg.Design, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if v, ok := d.m[id]; ok {
		return v, nil
	}
	return oauthcfg.Design{}, failure.ErrNotFound
}

func (d *designs) set(v oauthcfg.Design) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.m[v.ServerID] = v
}

// entries is an in-memory journal.
type entries struct {
	mu  sync.Mutex
	all []journal.Entry
}

func (e *entries) Admit(uuid.UUID, uuid.UUID) bool { return true }
func (e *entries) Record(x journal.Entry) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, x)
	return true
}

func (e *entries) find(method, contains string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.all {
		if x.Method == method && strings.Contains(string(x.Answer), contains) {
			return true
		}
	}
	return false
}

// env is one authorization server over a fresh database, serving one
// OAuth design.
type env struct {
	url      string
	st       *store.Store
	designs  *designs
	design   oauthcfg.Design
	keys     *oauthas.Keys
	verifier *oauthas.Verifier
	journal  *entries
	clock    *testclock.Clock
	secret   []byte
}

type envOptions struct {
	allowPrivate bool
	settings     oauthcfg.Settings
	rotation     time.Duration // an hour when zero
	// limiter, when set, bounds the requests per address with limits.
	limiter                     *ratelimit.Limiter
	registerLimit, requestLimit int
}

func newEnv(t testing.TB, o envOptions) *env {
	t.Helper()
	st := testdb.Store(t)
	ctx := context.Background()
	org, server := uuid.New(), uuid.New()
	_, err := st.Pool().Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES ($1, 'OAuth', $2)`, org, "oauth-"+org.String()[:8])
	require.NoError(t, err)
	_, err = st.Pool().Exec(ctx, `INSERT INTO mcp_servers (id, organization_id, name, created_by, enabled) VALUES ($1, $2, 'oauth', 'test', true)`, server, org)
	require.NoError(t, err)
	e := &env{st: st, designs: &designs{m: map[uuid.UUID]oauthcfg.Design{}}, journal: &entries{},
		clock: testclock.New(time.Now()), secret: make([]byte, oauthas.SecretSize)}
	_, _ = rand.Read(e.secret)
	if o.settings.ScopesSupported == nil {
		o.settings.ScopesSupported = []string{"mcp:read", "mcp:write"}
	}
	e.design = oauthcfg.Design{ServerID: server, OrgID: org, OAuth: true, Settings: o.settings}
	e.designs.set(e.design)
	if o.rotation == 0 {
		o.rotation = time.Hour
	}
	e.keys, e.verifier = e.instance(t, o.rotation)
	h := oauthas.New(oauthas.Options{Designs: e.designs, Store: st, Keys: e.keys, Verifier: e.verifier,
		AllowPrivate: o.allowPrivate, Journal: e.journal, Now: e.clock.Now, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limiter: o.limiter, RegisterLimit: o.registerLimit, RequestLimit: o.requestLimit})
	mux := http.NewServeMux()
	h.Routes(mux, func(_ string, h http.Handler) http.Handler { return h })
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	e.url = srv.URL
	return e
}

// instance is another instance's keys and verifier over the same database,
// its verifier running until the test ends.
func (e *env) instance(t testing.TB, rotation time.Duration) (*oauthas.Keys, *oauthas.Verifier) {
	t.Helper()
	keys, err := oauthas.NewKeys(e.st, oauthas.KeysOptions{Secret: e.secret, Rotation: rotation, Now: e.clock.Now})
	require.NoError(t, err)
	v := oauthas.NewVerifier(keys, e.st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); v.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-v.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("the verifier did not subscribe")
	}
	return keys, v
}

func (e *env) issuer() string { return oauthcfg.Issuer(e.url, e.design.ServerID) }

func (e *env) resource() string { return oauthcfg.Resource(e.url, e.design.ServerID) }

// noRedirects is a client that shows redirects instead of following them.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func postJSON(t testing.TB, url string, body any) (int, map[string]any) {
	t.Helper()
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	resp, err := http.Post(url, "application/json", strings.NewReader(string(raw)))
	require.NoError(t, err)
	return decode(t, resp)
}

func postForm(t testing.TB, url string, form url.Values, basic ...string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if len(basic) == 2 {
		req.SetBasicAuth(basic[0], basic[1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	return decode(t, resp)
}

func decode(t testing.TB, resp *http.Response) (int, map[string]any) {
	t.Helper()
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := map[string]any{}
	if len(raw) > 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	}
	return resp.StatusCode, out
}

const redirect = "http://127.0.0.1:9/callback"

// register registers a client; method "none" is a public one.
func (e *env) register(t testing.TB, method string, grants ...string) (id, secret string) {
	t.Helper()
	body := map[string]any{"client_name": "test", "redirect_uris": []string{redirect}, "token_endpoint_auth_method": method}
	if len(grants) > 0 {
		body["grant_types"] = grants
	}
	code, out := postJSON(t, e.issuer()+"/register", body)
	require.Equal(t, http.StatusCreated, code, out)
	id, _ = out["client_id"].(string)
	secret, _ = out["client_secret"].(string)
	return id, secret
}

func pkce() (verifier, challenge string) {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	verifier = base64.RawURLEncoding.EncodeToString(b)
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// authorize makes an authorization request and returns the answer's
// status and redirect Location (nil when none).
func (e *env) authorize(t testing.TB, q url.Values) (int, *url.URL) {
	t.Helper()
	resp, err := noRedirects.Get(e.issuer() + "/authorize?" + q.Encode())
	require.NoError(t, err)
	defer resp.Body.Close()
	if loc := resp.Header.Get("Location"); loc != "" {
		u, err := url.Parse(loc)
		require.NoError(t, err)
		return resp.StatusCode, u
	}
	return resp.StatusCode, nil
}

func authorizeQuery(client, challenge string) url.Values {
	return url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "state": {"st4te"},
		"code_challenge": {challenge}, "code_challenge_method": {"S256"}, "scope": {"mcp:read"}}
}

// code runs an authorization request to its code.
func (e *env) code(t testing.TB, client, challenge string) string {
	t.Helper()
	status, loc := e.authorize(t, authorizeQuery(client, challenge))
	require.Equal(t, http.StatusFound, status)
	require.NotNil(t, loc)
	require.Empty(t, loc.Query().Get("error"), loc.String())
	require.Equal(t, "st4te", loc.Query().Get("state"))
	require.Equal(t, e.issuer(), loc.Query().Get("iss"))
	return loc.Query().Get("code")
}

func (e *env) exchange(t testing.TB, client, code, verifier string) (int, map[string]any) {
	t.Helper()
	return postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {client},
		"code": {code}, "redirect_uri": {redirect}, "code_verifier": {verifier}, "resource": {e.resource()}})
}

func TestMetadata(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	id := e.design.ServerID.String()
	for _, path := range []string{"/.well-known/oauth-authorization-server/api/platform/" + id + "/oauth",
		"/.well-known/openid-configuration/api/platform/" + id + "/oauth",
		"/api/platform/" + id + "/oauth/.well-known/openid-configuration"} {
		resp, err := http.Get(e.url + path)
		require.NoError(t, err)
		code, m := decode(t, resp)
		require.Equal(t, http.StatusOK, code, path)
		require.Equal(t, e.issuer(), m["issuer"])
		require.Equal(t, e.issuer()+"/token", m["token_endpoint"])
		require.Equal(t, []any{"S256"}, m["code_challenge_methods_supported"])
		require.Equal(t, true, m["authorization_response_iss_parameter_supported"])
		require.Equal(t, true, m["client_id_metadata_document_supported"])
		require.Equal(t, []any{"mcp:read", "mcp:write"}, m["scopes_supported"])
	}
	// Another design, or one not using OAuth, has none.
	resp, err := http.Get(e.url + "/.well-known/oauth-authorization-server/api/platform/" + uuid.NewString() + "/oauth")
	require.NoError(t, err)
	code, _ := decode(t, resp)
	require.Equal(t, http.StatusNotFound, code)
}

func TestAuthorizationCodeRefreshRevoke(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	client, _ := e.register(t, "none", "authorization_code", "refresh_token")
	verifier, challenge := pkce()
	code := e.code(t, client, challenge)

	status, tok := e.exchange(t, client, code, verifier)
	require.Equal(t, http.StatusOK, status, tok)
	require.Equal(t, "Bearer", tok["token_type"])
	require.Equal(t, "mcp:read", tok["scope"])
	claims, err := e.verifier.VerifyToken(context.Background(), tok["access_token"].(string), e.issuer(), e.resource())
	require.NoError(t, err)
	require.Equal(t, client, claims.ClientID)
	require.Equal(t, []string{"mcp:read"}, claims.Scopes)
	require.Equal(t, oauthas.Subject, claims.Subject)
	_, err = e.verifier.VerifyToken(context.Background(), tok["access_token"].(string), e.issuer(), e.resource()+"x")
	require.ErrorIs(t, err, oauthcfg.ErrInvalidToken, "another audience")

	// The code is single-use.
	status, again := e.exchange(t, client, code, verifier)
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "invalid_grant", again["error"])

	// The replay revoked that grant's tokens (TestCodeReplayRevokesTheFamily):
	// the rest goes on with another grant.
	_, _, old := e.grant(t, client)

	// Refresh rotates: the old refresh token is spent.
	status, fresh := postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {old}})
	require.Equal(t, http.StatusOK, status, fresh)
	require.NotEqual(t, old, fresh["refresh_token"])
	status, reused := postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {old}})
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "invalid_grant", reused["error"])

	// Revocation of the new refresh token, then of the access token.
	status, _ = postForm(t, e.issuer()+"/revoke", url.Values{"client_id": {client}, "token": {fresh["refresh_token"].(string)}})
	require.Equal(t, http.StatusOK, status)
	status, out := postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {fresh["refresh_token"].(string)}})
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "invalid_grant", out["error"])

	// A second instance learns of a revoked access token without a
	// database read per request.
	_, second := e.instance(t, time.Hour)
	_, access, _ := e.grant(t, client)
	_, err = second.VerifyToken(context.Background(), access, e.issuer(), e.resource())
	require.NoError(t, err)
	status, _ = postForm(t, e.issuer()+"/revoke", url.Values{"client_id": {client}, "token": {access}, "token_type_hint": {"access_token"}})
	require.Equal(t, http.StatusOK, status)
	_, err = e.verifier.VerifyToken(context.Background(), access, e.issuer(), e.resource())
	require.ErrorIs(t, err, oauthcfg.ErrInvalidToken)
	apitest.Eventually(t, "the second instance refuses the revoked token", func() bool {
		_, err := second.VerifyToken(context.Background(), access, e.issuer(), e.resource())
		return err != nil
	})
	// An instance whose subscription is down asks the database.
	down := oauthas.NewVerifier(e.keys, e.st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	_, err = down.VerifyToken(context.Background(), access, e.issuer(), e.resource())
	require.ErrorContains(t, err, "revoked")
	// A third instance loads it at start.
	_, third := e.instance(t, time.Hour)
	_, err = third.VerifyToken(context.Background(), access, e.issuer(), e.resource())
	require.ErrorContains(t, err, "revoked")
}

func TestPKCEAndRedirectChecks(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	client, _ := e.register(t, "none")
	verifier, challenge := pkce()

	// A wrong verifier fails, and spends the code.
	code := e.code(t, client, challenge)
	status, out := e.exchange(t, client, code, verifier+"x")
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "invalid_grant", out["error"])
	require.Contains(t, out["error_description"], "PKCE")

	// with authorizes with one parameter changed, or removed when value
	// is "".
	with := func(name, value string) (int, *url.URL) {
		q := authorizeQuery(client, challenge)
		if value == "" {
			q.Del(name)
		} else {
			q.Set(name, value)
		}
		return e.authorize(t, q)
	}

	// No challenge, or plain: an error redirected to the client.
	status, loc := with("code_challenge", "")
	require.Equal(t, http.StatusFound, status)
	require.Equal(t, "invalid_request", loc.Query().Get("error"))
	_, loc = with("code_challenge_method", "plain")
	require.Equal(t, "invalid_request", loc.Query().Get("error"))

	// A redirect URI the client did not register is never redirected to.
	status, loc = with("redirect_uri", "https://evil.example/callback")
	require.Equal(t, http.StatusBadRequest, status)
	require.Nil(t, loc)
	// Nor is an unknown client's.
	status, loc = e.authorize(t, authorizeQuery("nobody", challenge))
	require.Equal(t, http.StatusBadRequest, status)
	require.Nil(t, loc)

	// The token request's redirect_uri must be the authorization's.
	code = e.code(t, client, challenge)
	status, out = postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"authorization_code"}, "client_id": {client},
		"code": {code}, "redirect_uri": {redirect + "/other"}, "code_verifier": {verifier}})
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "invalid_grant", out["error"])

	// A resource other than the design's endpoint, a scope it lacks.
	_, loc = with("resource", "https://elsewhere.example/mcp")
	require.Equal(t, "invalid_target", loc.Query().Get("error"))
	_, loc = with("scope", "admin")
	require.Equal(t, "invalid_scope", loc.Query().Get("error"))
}

func TestRefuseRefreshAndRevokeAll(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	client, _ := e.register(t, "none", "authorization_code", "refresh_token")
	verifier, challenge := pkce()
	_, tok := e.exchange(t, client, e.code(t, client, challenge), verifier)
	refresh := tok["refresh_token"].(string)

	d := e.design
	d.Settings.Chaos.RefuseRefresh = true
	e.designs.set(d)
	status, out := postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {refresh}})
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "invalid_grant", out["error"])
	require.True(t, e.journal.find("oauth/token", "refuse_refresh"), "the refused refresh is journaled")

	// Without the chaos, but with every refresh token revoked after it was
	// issued.
	d.Settings.Chaos.RefuseRefresh = false
	d.RefreshNotBefore = e.clock.Now().Add(time.Second)
	e.designs.set(d)
	status, out = postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {refresh}})
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "invalid_grant", out["error"])
	require.Contains(t, out["error_description"], "revoked")
}

func TestClientCredentialsAndRegistration(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	client, secret := e.register(t, "client_secret_basic", "client_credentials")
	require.NotEmpty(t, secret)
	var stored string
	require.NoError(t, e.st.Pool().QueryRow(context.Background(), `SELECT secret_hash FROM oauth_clients WHERE client_id = $1`, client).Scan(&stored))
	require.NotContains(t, stored, secret, "only the secret's hash is stored")

	status, tok := postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"client_credentials"}, "scope": {"mcp:write"}}, client, secret)
	require.Equal(t, http.StatusOK, status, tok)
	require.Nil(t, tok["refresh_token"])
	claims, err := e.verifier.VerifyToken(context.Background(), tok["access_token"].(string), e.issuer(), e.resource())
	require.NoError(t, err)
	require.Equal(t, client, claims.Subject)
	require.Equal(t, []string{"mcp:write"}, claims.Scopes)

	status, out := postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"client_credentials"}}, client, "wrong")
	require.Equal(t, http.StatusUnauthorized, status)
	require.Equal(t, "invalid_client", out["error"])

	// Registration refuses what it cannot serve.
	for name, body := range map[string]map[string]any{
		"public client_credentials": {"token_endpoint_auth_method": "none", "grant_types": []string{"client_credentials"}},
		"no redirect_uris":          {"token_endpoint_auth_method": "none"},
		"fragment":                  {"redirect_uris": []string{"https://x.example/cb#f"}},
		"unknown method":            {"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "private_key_jwt"},
		"unknown scope":             {"redirect_uris": []string{redirect}, "scope": "admin"},
		"NUL in client_name":        {"redirect_uris": []string{redirect}, "client_name": "a\x00b"},
		"long client_name":          {"redirect_uris": []string{redirect}, "client_name": strings.Repeat("n", 201)},
		"21 redirect_uris":          {"redirect_uris": slices.Repeat([]string{redirect}, 21)},
		"NUL in a redirect URI":     {"redirect_uris": []string{redirect + "\x00"}},
	} {
		status, out := postJSON(t, e.issuer()+"/register", body)
		require.Equal(t, http.StatusBadRequest, status, name)
		require.Contains(t, []any{"invalid_client_metadata", "invalid_redirect_uri"}, out["error"], name)
	}
	// A public client cannot use client_credentials.
	public, _ := e.register(t, "none")
	status, out = postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {public}})
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "unauthorized_client", out["error"])
}

func TestKeyRotation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{rotation: 30 * time.Minute})
	keys, verifier := e.instance(t, 30*time.Minute)
	client, secret := e.register(t, "client_secret_post", "client_credentials")
	token := func() string {
		status, tok := postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"client_credentials"},
			"client_id": {client}, "client_secret": {secret}})
		require.Equal(t, http.StatusOK, status, tok)
		return tok["access_token"].(string)
	}
	first := token()
	_, err := verifier.VerifyToken(context.Background(), first, e.issuer(), e.resource())
	require.NoError(t, err)
	e.clock.Advance(31 * time.Minute) // the first key no longer signs
	second := token()
	require.NotEqual(t, kid(t, first), kid(t, second))
	for _, tok := range []string{first, second} {
		_, err := verifier.VerifyToken(context.Background(), tok, e.issuer(), e.resource())
		require.NoError(t, err, "the old key still verifies; the new one, made by another instance, is read on its first token")
	}
	set, err := keys.JWKS(context.Background())
	require.NoError(t, err)
	require.Len(t, set.Keys, 2)
	resp, err := http.Get(e.issuer() + "/jwks")
	require.NoError(t, err)
	_, m := decode(t, resp)
	require.Len(t, m["keys"], 2)

	e.clock.Advance(30 * time.Minute) // the first token has expired
	_, err = verifier.VerifyToken(context.Background(), first, e.issuer(), e.resource())
	require.ErrorContains(t, err, "expired")
}

func kid(t testing.TB, token string) string {
	t.Helper()
	head, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[0])
	require.NoError(t, err)
	var h struct {
		KID string `json:"kid"`
	}
	require.NoError(t, json.Unmarshal(head, &h))
	return h.KID
}

func TestChaosAndConsent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{settings: oauthcfg.Settings{Chaos: oauthcfg.Chaos{WrongIssuer: true}}})
	client, _ := e.register(t, "none")
	_, challenge := pkce()
	status, loc := e.authorize(t, authorizeQuery(client, challenge))
	require.Equal(t, http.StatusFound, status)
	require.NotEmpty(t, loc.Query().Get("code"))
	require.NotEqual(t, e.issuer(), loc.Query().Get("iss"))
	require.NotEmpty(t, loc.Query().Get("iss"))
	require.True(t, e.journal.find("oauth/authorize", "wrong_issuer"))

	d := e.design
	d.Settings = oauthcfg.Settings{ScopesSupported: d.Settings.ScopesSupported, Consent: oauthcfg.ConsentDeny}
	e.designs.set(d)
	_, loc = e.authorize(t, authorizeQuery(client, challenge))
	require.Equal(t, "access_denied", loc.Query().Get("error"))
	require.Equal(t, e.issuer(), loc.Query().Get("iss"))
	require.True(t, e.journal.find("oauth/authorize", "access_denied"))

	d.Settings.Consent = oauthcfg.ConsentPage
	e.designs.set(d)
	resp, err := http.Get(e.issuer() + "/authorize?" + authorizeQuery(client, challenge).Encode())
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Contains(t, string(page), `value="allow"`)
	form := authorizeQuery(client, challenge)
	form.Set("csrf_token", csrfToken(t, string(page)))
	form.Set("decision", "allow")
	resp = e.submitConsent(t, form, e.url)
	resp.Body.Close()
	allowed, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	require.NotEmpty(t, allowed.Query().Get("code"))
	form.Set("decision", "deny")
	resp = e.submitConsent(t, form, e.url)
	resp.Body.Close()
	denied, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	require.Equal(t, "access_denied", denied.Query().Get("error"))
}

// metadataDocument serves a client ID metadata document naming itself,
// with redirect URIs redirects (the test's redirect when none).
func metadataDocument(t testing.TB, tls bool, redirects ...string) string {
	t.Helper()
	if len(redirects) == 0 {
		redirects = []string{redirect}
	}
	var self string
	h := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": self, "client_name": "CIMD client",
			"redirect_uris": redirects, "token_endpoint_auth_method": "none"})
	})
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	self = srv.URL + "/client.json"
	return self
}

func TestClientIDMetadataDocument(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{allowPrivate: true})
	client := metadataDocument(t, false)
	verifier, challenge := pkce()
	code := e.code(t, client, challenge)
	status, tok := e.exchange(t, client, code, verifier)
	require.Equal(t, http.StatusOK, status, tok)

	// Without private targets allowed, a document on loopback is refused
	// by the outbound address policy.
	guarded := newEnv(t, envOptions{})
	resp, err := noRedirects.Get(guarded.issuer() + "/authorize?" + authorizeQuery(metadataDocument(t, true), challenge).Encode())
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Empty(t, resp.Header.Get("Location"))
	require.Contains(t, string(page), "its host&#39;s address is refused: loopback addresses are not allowed")
	require.NotContains(t, string(page), "refused 127.0.0.1", "the page names no address the document's host resolved to")

	// A document of the wrong shape is refused naming the field, in JSON's
	// words, not Go's.
	var wrong string
	wrongSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": wrong, "redirect_uris": redirect})
	}))
	t.Cleanup(wrongSrv.Close)
	wrong = wrongSrv.URL + "/client.json"
	resp, err = noRedirects.Get(e.issuer() + "/authorize?" + authorizeQuery(wrong, challenge).Encode())
	require.NoError(t, err)
	page, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Contains(t, string(page), "redirect_uris must be an array of strings")
	require.NotContains(t, string(page), "Go struct")

	// A document's redirect URIs pass the checks a registration's do.
	resp, err = noRedirects.Get(e.issuer() + "/authorize?" + authorizeQuery(metadataDocument(t, false, redirect, "https://x.example/cb#f"), challenge).Encode())
	require.NoError(t, err)
	page, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusBadRequest, resp.StatusCode)
	require.Empty(t, resp.Header.Get("Location"))
	require.Contains(t, string(page), "redirect_uris[1]")
}

// TestServiceFailures: what fails on the service's side is no client
// error, and no client error is the service's.
func TestServiceFailures(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	client, secret := e.register(t, "client_secret_post", "client_credentials", "authorization_code")
	_, tok := postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {client}, "client_secret": {secret}})
	access, _ := tok["access_token"].(string)
	require.NotEmpty(t, access, tok)

	// A client_id PostgreSQL cannot hold is an unknown client.
	status, loc := e.authorize(t, authorizeQuery("a\x00b", "x"))
	require.Equal(t, http.StatusBadRequest, status)
	require.Nil(t, loc)

	// Revoking a token whose signing key cannot be read is no success:
	// the token might be good. A published key that does not open makes
	// every read of the keys fail.
	_, err := e.st.Pool().Exec(context.Background(), `INSERT INTO oauth_signing_keys (kid, public_key, private_sealed, sign_until, published_until)
		VALUES ('broken', '\x00', '\x00', now() - interval '1 hour', now() + interval '1 day')`)
	require.NoError(t, err)
	parts := strings.Split(access, ".")
	header, err := base64.RawURLEncoding.DecodeString(parts[0])
	require.NoError(t, err)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(header, &fields))
	fields["kid"] = "newer"
	header, err = json.Marshal(fields)
	require.NoError(t, err)
	foreign := base64.RawURLEncoding.EncodeToString(header) + "." + parts[1] + "." + parts[2]
	status, out := postForm(t, e.issuer()+"/revoke", url.Values{"token": {foreign}, "client_id": {client}, "client_secret": {secret}})
	require.Equal(t, http.StatusServiceUnavailable, status, out)
	require.Equal(t, "temporarily_unavailable", out["error"])

	// With the database gone, the authorization endpoint says so rather
	// than blaming the request.
	e.st.Pool().Close()
	resp, err := noRedirects.Get(e.issuer() + "/authorize?" + authorizeQuery(client, "x").Encode())
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, string(page))
	require.Contains(t, string(page), "temporarily unavailable")
	require.NotContains(t, string(page), "closed pool")
}

// BenchmarkVerifyToken is the MCP endpoint's cost of a bearer token: no
// database read.
func BenchmarkVerifyToken(b *testing.B) {
	e := newEnv(b, envOptions{})
	client, secret := e.register(b, "client_secret_post", "client_credentials")
	_, tok := postForm(b, e.issuer()+"/token", url.Values{"grant_type": {"client_credentials"}, "client_id": {client}, "client_secret": {secret}})
	access := tok["access_token"].(string)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := e.verifier.VerifyToken(context.Background(), access, e.issuer(), e.resource()); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkClientCredentialsToken is one token request over HTTP: client
// authentication (a database read) and signing.
func BenchmarkClientCredentialsToken(b *testing.B) {
	e := newEnv(b, envOptions{})
	client, secret := e.register(b, "client_secret_post", "client_credentials")
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {client}, "client_secret": {secret}}
	b.ResetTimer()
	for b.Loop() {
		if status, out := postForm(b, e.issuer()+"/token", form); status != http.StatusOK {
			b.Fatal(status, out)
		}
	}
}

func TestRegistrationIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	_, err := e.st.Pool().Exec(context.Background(), `INSERT INTO oauth_clients (client_id, organization_id, server_id, auth_method)
		SELECT 'filler-' || i, $1, $2, 'none' FROM generate_series(1, $3::int) AS i`, e.design.OrgID, e.design.ServerID, oauthas.MaxClients-1)
	require.NoError(t, err)
	e.register(t, "none")
	status, out := postJSON(t, e.issuer()+"/register", map[string]any{"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
	require.Equal(t, http.StatusBadRequest, status)
	require.Contains(t, out["error_description"], "clients already")
}
