package service_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

// authCard is a publishable card of the given name with auth.
func authCard(name string, auth map[string]any) map[string]any {
	return map[string]any{"name": name, "version": "1.0.0",
		"description": "An agent that answers only those who present its credential. " + strings.Repeat("It is a mock agent for tests. ", 7),
		"skills":      []any{map[string]any{"name": "answer", "description": "Answers any question put to it, in a sentence or two."}},
		"invocation":  map[string]any{"protocol": "mcp", "endpoint": "https://agents.example.com/mcp"},
		"auth":        auth}
}

// sendWith sends a SendMessage to endpoint with header and returns the
// answer.
func sendWith(t *testing.T, endpoint string, header http.Header) (int, http.Header, []byte) {
	t.Helper()
	body := apitest.JSON(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
		"params": map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER",
			"parts": []any{map[string]any{"text": "hello"}}}}})
	req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	return resp.StatusCode, resp.Header, buf.Bytes()
}

// publishCard creates and publishes body and returns its id and its agent
// endpoint.
func publishCard(t *testing.T, env *apitest.Env, owner *apitest.Client, body map[string]any) (string, string) {
	t.Helper()
	r := owner.Do(http.MethodPost, "/api/agent-cards", body).Status(http.StatusCreated)
	id := r.String("id")
	owner.Do(http.MethodPost, "/api/agent-cards/"+id+"/publish", nil).Status(http.StatusOK)
	slug := owner.Do(http.MethodGet, "/api/organizations/"+owner.OrgID, nil).Status(http.StatusOK).String("slug")
	return id, env.URL + "/api/exchange/agent-cards/" + slug + "/" + body["name"].(string)
}

// TestAgentRequiresAPIKey: a card whose agent requires an API key keeps
// only its hash, answers 401 with WWW-Authenticate without the key or with
// another, journals the refusal, and its A2A card declares the scheme.
func TestAgentRequiresAPIKey(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Agent Keys")
	const key = "s3cret-agent-key"
	id, base := publishCard(t, env, owner, authCard("keyed-agent",
		map[string]any{"scheme": "api_key", "header": "X-Agent-Key", "key": key}))
	endpoint := base + "/a2a"

	got := owner.Do(http.MethodGet, "/api/agent-cards/"+id, nil).Status(http.StatusOK)
	require.Nil(t, got.Get("auth.key"), "the raw key is never answered")
	require.Len(t, got.String("auth.key_sha256"), 64)
	var stored string
	require.NoError(t, env.Service.Store().Pool().QueryRow(t.Context(),
		`SELECT card::text FROM agent_cards WHERE id = $1`, id).Scan(&stored))
	require.NotContains(t, stored, key, "the raw key is never stored")

	status, hdr, raw := sendWith(t, endpoint, nil)
	require.Equal(t, http.StatusUnauthorized, status, "%s", raw)
	require.Equal(t, `ApiKey header="X-Agent-Key"`, hdr.Get("WWW-Authenticate"))
	status, _, raw = sendWith(t, endpoint, http.Header{"X-Agent-Key": {"wrong-key-value"}})
	require.Equal(t, http.StatusUnauthorized, status, "%s", raw)
	require.NotContains(t, string(raw), key)
	status, _, raw = sendWith(t, endpoint, http.Header{"X-Agent-Key": {key}})
	require.Equal(t, http.StatusOK, status, "%s", raw)
	require.Contains(t, string(raw), "received your message")

	card := env.Anonymous(t).Do(http.MethodGet, strings.TrimPrefix(base, env.URL)+"/.well-known/agent-card.json", nil).Status(http.StatusOK)
	require.Equal(t, map[string]any{"location": "header", "name": "X-Agent-Key"},
		card.Get("securitySchemes.mock_agent_api_key.apiKeySecurityScheme"))
	require.Equal(t, []any{map[string]any{"schemes": map[string]any{"mock_agent_api_key": map[string]any{"list": []any{}}}}},
		card.Get("securityRequirements"))

	v := owner.Do(http.MethodPost, "/api/agent-cards/"+id+"/verify", map[string]any{}).Status(http.StatusOK)
	require.Equal(t, float64(3), v.Get("count"), "%s", v.Raw)
	page := owner.Do(http.MethodGet, "/api/agent-cards/"+id+"/journal?outcome=rejected", nil).Status(http.StatusOK)
	require.Equal(t, 2, page.Len("items"), "%s", page.Raw)

	// The card's document keeps the hash, never the key, and applies back
	// unchanged.
	doc := owner.Do(http.MethodGet, "/api/agent-cards/"+id+"/export", nil).Status(http.StatusOK)
	require.NotContains(t, string(doc.Raw), key)
	require.Equal(t, got.String("auth.key_sha256"), doc.String("auth.key_sha256"))
	require.Equal(t, "unchanged", owner.Do(http.MethodPost, "/api/agent-cards/apply", doc.Raw).Status(http.StatusOK).String("card.action"))
	status, _, _ = sendWith(t, endpoint, http.Header{"X-Agent-Key": {key}})
	require.Equal(t, http.StatusOK, status)

	// A key too short, or a scheme without what it needs, is refused.
	owner.Do(http.MethodPatch, "/api/agent-cards/"+id, map[string]any{"auth": map[string]any{"scheme": "api_key", "key": "short"}}).
		Problem(http.StatusUnprocessableEntity, "auth.key")
	owner.Do(http.MethodPatch, "/api/agent-cards/"+id, map[string]any{"auth": map[string]any{"scheme": "bearer"}}).
		Problem(http.StatusUnprocessableEntity, "auth.oauth_server")
	// Clearing auth opens the agent again.
	owner.Do(http.MethodPatch, "/api/agent-cards/"+id, map[string]any{"auth": nil}).Status(http.StatusOK)
	status, _, raw = sendWith(t, endpoint, nil)
	require.Equal(t, http.StatusOK, status, "%s", raw)
}

// TestAgentRequiresBearerToken: a card whose agent requires a bearer token
// accepts the access tokens of the OAuth design it names, issued by that
// design's authorization server, and refuses a missing or forged one.
func TestAgentRequiresBearerToken(t *testing.T) {
	t.Parallel()
	env, owner, server := enabledServer(t, "Agent Tokens", `{"name": "Tokens", "version": "1.0.0", "auth_mode": "oauth"}`)
	_, base := publishCard(t, env, owner, authCard("token-agent", map[string]any{"scheme": "bearer", "oauth_server": server}))
	endpoint := base + "/a2a"

	status, hdr, raw := sendWith(t, endpoint, nil)
	require.Equal(t, http.StatusUnauthorized, status, "%s", raw)
	require.True(t, strings.HasPrefix(hdr.Get("WWW-Authenticate"), "Bearer "), hdr.Get("WWW-Authenticate"))
	status, hdr, raw = sendWith(t, endpoint, http.Header{"Authorization": {"Bearer not-a-token"}})
	require.Equal(t, http.StatusUnauthorized, status, "%s", raw)
	require.Contains(t, hdr.Get("WWW-Authenticate"), `error="invalid_token"`)

	issuer := oauthcfg.Issuer(env.URL, uuid.MustParse(server))
	resp, err := http.Post(issuer+"/register", "application/json", strings.NewReader(
		`{"token_endpoint_auth_method": "client_secret_post", "grant_types": ["client_credentials"]}`))
	require.NoError(t, err)
	var reg map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&reg))
	resp.Body.Close()
	resp, err = http.PostForm(issuer+"/token", url.Values{"grant_type": {"client_credentials"},
		"client_id": {reg["client_id"].(string)}, "client_secret": {reg["client_secret"].(string)}})
	require.NoError(t, err)
	var tok map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&tok))
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", tok)

	status, _, raw = sendWith(t, endpoint, http.Header{"Authorization": {"Bearer " + tok["access_token"].(string)}})
	require.Equal(t, http.StatusOK, status, "%s", raw)

	card := env.Anonymous(t).Do(http.MethodGet, strings.TrimPrefix(base, env.URL)+"/.well-known/agent-card.json", nil).Status(http.StatusOK)
	require.Equal(t, "Bearer", card.String("securitySchemes.mock_agent_bearer.httpAuthSecurityScheme.scheme"))

	// The design named must be one of the organization's, with OAuth:
	// a card naming another saves as a draft, and does not publish.
	plain := owner.Do(http.MethodPost, "/api/servers", map[string]any{"name": "Plain", "version": "1.0.0"}).
		Status(http.StatusCreated).String("id")
	rival := env.Signup(t, "Agent Tokens Rival")
	theirs := rival.Do(http.MethodPost, "/api/servers", map[string]any{"name": "Theirs", "version": "1.0.0", "auth_mode": "oauth"}).
		Status(http.StatusCreated).String("id")
	for name, tc := range map[string]struct{ server, says string }{
		"without-oauth": {plain, "does not use OAuth"},
		"unknown":       {uuid.NewString(), "no MCP server design with this id"},
		"of-a-rival":    {theirs, "no MCP server design with this id"},
	} {
		id := owner.Do(http.MethodPost, "/api/agent-cards", authCard("token-agent-"+name, map[string]any{"scheme": "bearer", "oauth_server": tc.server})).
			Status(http.StatusCreated).String("id")
		r := owner.Do(http.MethodPost, "/api/agent-cards/"+id+"/publish", nil).Problem(http.StatusUnprocessableEntity, "auth.oauth_server")
		require.Contains(t, string(r.Raw), tc.says, name)
	}
}
