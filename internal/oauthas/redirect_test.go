package oauthas_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRedirectURIRules: redirect URIs are https, or http on a loopback
// host, at registration, in client ID metadata documents, and before any
// redirect.
func TestRedirectURIRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{allowPrivate: true})
	for _, uri := range []string{"https://app.example/cb", "http://localhost:3000/cb", "http://127.0.0.1/cb", "http://[::1]:8080/cb"} {
		status, out := postJSON(t, e.issuer()+"/register", map[string]any{"redirect_uris": []string{uri}, "token_endpoint_auth_method": "none"})
		require.Equal(t, http.StatusCreated, status, "%s: %v", uri, out)
	}
	for _, uri := range []string{"javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "file:///etc/passwd",
		"http://evil.example/cb", "http://127.0.0.1.evil.example/cb", "ftp://files.example/cb", "https://user@app.example/cb",
		"//app.example/cb", "https:///cb"} {
		status, out := postJSON(t, e.issuer()+"/register", map[string]any{"redirect_uris": []string{"https://app.example/cb", uri},
			"token_endpoint_auth_method": "none"})
		require.Equal(t, http.StatusBadRequest, status, uri)
		require.Equal(t, "invalid_redirect_uri", out["error"], uri)
		require.Contains(t, out["error_description"], "redirect_uris[1]", uri)
	}

	// A metadata document's redirect URIs pass the same rules.
	_, challenge := pkce()
	for _, uri := range []string{"javascript:alert(1)", "http://evil.example/cb"} {
		q := authorizeQuery(metadataDocument(t, false, uri), challenge)
		q.Set("redirect_uri", uri)
		resp, err := noRedirects.Get(e.issuer() + "/authorize?" + q.Encode())
		require.NoError(t, err)
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.Equal(t, http.StatusBadRequest, resp.StatusCode, uri)
		require.Empty(t, resp.Header.Get("Location"), uri)
		require.Contains(t, string(page), "redirect_uris[0]", uri)
	}

	// A client stored before the rules never gets a redirect to a URI
	// they refuse, not even an error's.
	_, err := e.st.Pool().Exec(context.Background(), `INSERT INTO oauth_clients (client_id, organization_id, server_id, auth_method, redirect_uris, grant_types)
		VALUES ('legacy', $1, $2, 'none', '{"javascript:alert(1)"}', '{authorization_code}')`, e.design.OrgID, e.design.ServerID)
	require.NoError(t, err)
	q := url.Values{"response_type": {"token"}, "client_id": {"legacy"}, "redirect_uri": {"javascript:alert(1)"}}
	status, loc := e.authorize(t, q)
	require.Equal(t, http.StatusBadRequest, status)
	require.Nil(t, loc)
}
