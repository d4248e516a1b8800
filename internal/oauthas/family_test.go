package oauthas_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/oauthas"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

// newFamilyEnv is an authorization server running on two instances, with
// a public client that may refresh: the verifiers are the instances'.
func newFamilyEnv(t *testing.T) (e *env, verifiers []*oauthas.Verifier, client string) {
	t.Helper()
	e = newEnv(t, envOptions{})
	_, other := e.instance(t, time.Hour)
	client, _ = e.register(t, "none", "authorization_code", "refresh_token")
	return e, []*oauthas.Verifier{e.verifier, other}, client
}

// refresh uses a refresh token.
func (e *env) refresh(t testing.TB, client, token string) (int, map[string]any) {
	t.Helper()
	return postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {token}})
}

// requireRevoked waits for verifier v to refuse access as revoked.
func (e *env) requireRevoked(t testing.TB, v *oauthas.Verifier, access string) {
	t.Helper()
	require.Eventually(t, func() bool {
		_, err := v.VerifyToken(context.Background(), access, e.issuer(), e.resource())
		return errors.Is(err, oauthcfg.ErrInvalidToken) && strings.HasSuffix(err.Error(), ": revoked")
	}, 5*time.Second, 20*time.Millisecond, "the access token is not revoked")
}

// rotate uses a refresh token that must be good and returns the next
// access and refresh tokens.
func (e *env) rotate(t testing.TB, client, token string) (access, refresh string) {
	t.Helper()
	status, tok := e.refresh(t, client, token)
	require.Equal(t, http.StatusOK, status, tok)
	return tok["access_token"].(string), tok["refresh_token"].(string)
}

// requireFamilyRevoked checks the answer to a replayed credential (an
// invalid_grant saying revoked), then that each verifier refuses every
// access token of the family.
func (e *env) requireFamilyRevoked(t testing.TB, status int, out map[string]any, verifiers []*oauthas.Verifier, access ...string) {
	t.Helper()
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "invalid_grant", out["error"])
	require.Contains(t, out["error_description"], "revoked")
	for _, v := range verifiers {
		for _, a := range access {
			e.requireRevoked(t, v, a)
		}
	}
}

func (e *env) requireValid(t testing.TB, access string) {
	t.Helper()
	_, err := e.verifier.VerifyToken(context.Background(), access, e.issuer(), e.resource())
	require.NoError(t, err)
}

// grant runs an authorization code grant to its first tokens.
func (e *env) grant(t testing.TB, client string) (code, access, refresh string) {
	t.Helper()
	verifier, challenge := pkce()
	code = e.code(t, client, challenge)
	status, tok := e.exchange(t, client, code, verifier)
	require.Equal(t, http.StatusOK, status, tok)
	return code, tok["access_token"].(string), tok["refresh_token"].(string)
}

// TestCodeReplayRevokesTheFamily: a replayed authorization code revokes
// every token issued from it, the rotated ones too (RFC 6749 4.1.2), on
// every instance; another grant of the client is untouched.
func TestCodeReplayRevokesTheFamily(t *testing.T) {
	t.Parallel()
	e, verifiers, client := newFamilyEnv(t)
	code, access1, refresh1 := e.grant(t, client)
	_, bystander, bystanderRefresh := e.grant(t, client)
	access2, refresh2 := e.rotate(t, client, refresh1)
	e.requireValid(t, access2)

	verifier, _ := pkce()
	status, out := e.exchange(t, client, code, verifier)
	e.requireFamilyRevoked(t, status, out, verifiers, access1, access2)
	status, _ = e.refresh(t, client, refresh2)
	require.Equal(t, http.StatusBadRequest, status)

	e.requireValid(t, bystander)
	status, _ = e.refresh(t, client, bystanderRefresh)
	require.Equal(t, http.StatusOK, status)
}

// TestRefreshReuseRevokesTheFamily: a rotated refresh token used again
// revokes every refresh and access token of its grant (RFC 9700 4.14.2).
func TestRefreshReuseRevokesTheFamily(t *testing.T) {
	t.Parallel()
	e, verifiers, client := newFamilyEnv(t)
	_, access1, refresh1 := e.grant(t, client)
	access2, refresh2 := e.rotate(t, client, refresh1)

	status, out := e.refresh(t, client, refresh1)
	e.requireFamilyRevoked(t, status, out, verifiers, access1, access2)
	status, out = e.refresh(t, client, refresh2)
	require.Equal(t, http.StatusBadRequest, status, out)
}

// TestRevokingARefreshTokenRevokesItsAccessTokens (RFC 7009 2.1).
func TestRevokingARefreshTokenRevokesItsAccessTokens(t *testing.T) {
	t.Parallel()
	e, verifiers, client := newFamilyEnv(t)
	_, access, refresh := e.grant(t, client)
	e.requireValid(t, access)
	status, out := postForm(t, e.issuer()+"/revoke", url.Values{"client_id": {client}, "token": {refresh}})
	require.Equal(t, http.StatusOK, status, out)
	for _, v := range verifiers {
		e.requireRevoked(t, v, access)
	}
	status, _ = e.refresh(t, client, refresh)
	require.Equal(t, http.StatusBadRequest, status)
}
