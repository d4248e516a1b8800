package oauthas_test

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

var csrfField = regexp.MustCompile(`name="csrf_token" value="([^"]+)"`)

// csrfToken is the token of a consent page.
func csrfToken(t testing.TB, page string) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(page)
	require.NotNil(t, m, "the consent page has no csrf_token field")
	return html.UnescapeString(m[1])
}

// submitConsent posts a consent form as a browser would from origin ("":
// no Origin header).
func (e *env) submitConsent(t testing.TB, form url.Values, origin string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.issuer()+"/authorize", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	resp, err := noRedirects.Do(req)
	require.NoError(t, err)
	return resp
}

// TestConsentFormNeedsItsOriginAndToken: consent: page is approved only by
// the page's own form, posted from the authorization server's origin with
// the token bound to the request.
func TestConsentFormNeedsItsOriginAndToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{settings: oauthcfg.Settings{Consent: oauthcfg.ConsentPage}})
	client, _ := e.register(t, "none")
	_, challenge := pkce()
	q := authorizeQuery(client, challenge)
	resp, err := http.Get(e.issuer() + "/authorize?" + q.Encode())
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	token := csrfToken(t, string(page))

	allow := func(mutate func(url.Values)) url.Values {
		f := authorizeQuery(client, challenge)
		f.Set("decision", "allow")
		f.Set("csrf_token", token)
		if mutate != nil {
			mutate(f)
		}
		return f
	}
	refused := []struct {
		name   string
		form   url.Values
		origin string
	}{
		{"another origin", allow(nil), "https://attacker.example"},
		{"a null origin", allow(nil), "null"},
		{"no origin nor referer", allow(nil), ""},
		{"no token", allow(func(f url.Values) { f.Del("csrf_token") }), e.url},
		{"a wrong token", allow(func(f url.Values) { f.Set("csrf_token", "9999999999.AAAA") }), e.url},
		{"another request's token", allow(func(f url.Values) { f.Set("scope", "mcp:write") }), e.url},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			resp := e.submitConsent(t, tc.form, tc.origin)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.Equal(t, http.StatusForbidden, resp.StatusCode, string(body))
			require.Empty(t, resp.Header.Get("Location"))
		})
	}

	resp = e.submitConsent(t, allow(nil), e.url)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)
	loc, err := url.Parse(resp.Header.Get("Location"))
	require.NoError(t, err)
	require.NotEmpty(t, loc.Query().Get("code"))

	// A browser that sends no Origin is judged by its Referer.
	req, err := http.NewRequest(http.MethodPost, e.issuer()+"/authorize", strings.NewReader(allow(nil).Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Referer", e.issuer()+"/authorize?"+q.Encode())
	resp, err = noRedirects.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusFound, resp.StatusCode)

	// The form expires.
	e.clock.Advance(11 * time.Minute)
	resp = e.submitConsent(t, allow(nil), e.url)
	resp.Body.Close()
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
}
