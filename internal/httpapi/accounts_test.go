package httpapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

const (
	acctCookieName = "mockmcp_session"
	acctPassword   = "s3cret-Passw0rd!"
)

var (
	acctUUIDRE          = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	acctSuffixedSlugRE  = regexp.MustCompile(`^acme-labs-[0-9a-f]{6}$`)
	acctBcryptRE        = regexp.MustCompile(`^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$`)
	acctSessionLifetime = 30 * 24 * time.Hour
)

// signupWithPassword signs up email with password and organization name through a
// fresh anonymous client, requires 201, and returns the signed-in client and
// the signup answer.
func signupWithPassword(t *testing.T, env *apitest.Env, email, password, org string) (*apitest.Client, *apitest.Response) {
	t.Helper()
	c := env.Anonymous(t)
	r := c.Do("POST", "/api/auth/signup", map[string]any{
		"email": email, "password": password, "organization_name": org,
	}).Status(http.StatusCreated)
	c.UserID, c.OrgID, c.Email = r.String("user.id"), r.String("organization.id"), email
	return c, r
}

// sessionSetCookie returns the Set-Cookie named name of r, failing when r sets none.
func sessionSetCookie(t *testing.T, r *apitest.Response, name string) *http.Cookie {
	t.Helper()
	var found *http.Cookie
	for _, line := range r.Hdr.Values("Set-Cookie") {
		c, err := http.ParseSetCookie(line)
		require.NoError(t, err, "Set-Cookie: %s", line)
		if c.Name == name {
			require.Nil(t, found, "cookie %s set twice: %v", name, r.Hdr.Values("Set-Cookie"))
			found = c
		}
	}
	require.NotNil(t, found, "no Set-Cookie %s in %v", name, r.Hdr.Values("Set-Cookie"))
	return found
}

// requireNoSetCookie requires that r sets no cookie at all.
func requireNoSetCookie(t *testing.T, r *apitest.Response) {
	t.Helper()
	require.Empty(t, r.Hdr.Values("Set-Cookie"), "body: %s", r.Raw)
}

// clientWithSessionToken returns a client without a cookie jar session that sends token
// as the session cookie on every request.
func clientWithSessionToken(t *testing.T, env *apitest.Env, token string) *apitest.Client {
	t.Helper()
	c := env.Anonymous(t)
	c.Header.Set("Cookie", acctCookieName+"="+token)
	return c
}

// requireChallenge401 requires a 401 problem with a WWW-Authenticate challenge.
func requireChallenge401(t *testing.T, r *apitest.Response) {
	t.Helper()
	r.Problem(http.StatusUnauthorized)
	require.True(t, strings.HasPrefix(r.Hdr.Get("WWW-Authenticate"), "Bearer "),
		"WWW-Authenticate: %q", r.Hdr.Get("WWW-Authenticate"))
}

// problemWithoutRequestID decodes a problem body and drops its request_id, which
// differs between any two answers.
func problemWithoutRequestID(t *testing.T, r *apitest.Response) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(r.Raw, &m), "body: %s", r.Raw)
	require.NotEmpty(t, m["request_id"], "body: %s", r.Raw)
	delete(m, "request_id")
	return m
}

func TestSignup(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)

	t.Run("creates the user, an organization they own and a session", func(t *testing.T) {
		c := env.Anonymous(t)
		r := c.Do("POST", "/api/auth/signup", map[string]any{
			"email": "ada@example.com", "password": acctPassword, "organization_name": "Acme Labs",
		}).Status(http.StatusCreated)

		require.Regexp(t, acctUUIDRE, r.String("user.id"))
		require.Equal(t, "ada@example.com", r.String("user.email"))
		_, err := time.Parse(time.RFC3339, r.String("user.created_at"))
		require.NoError(t, err)
		require.Nil(t, r.Get("user.password_hash"))
		require.Nil(t, r.Get("user.password"))

		require.Regexp(t, acctUUIDRE, r.String("organization.id"))
		require.NotEqual(t, r.String("user.id"), r.String("organization.id"))
		require.Equal(t, "Acme Labs", r.String("organization.name"))
		require.Equal(t, "acme-labs", r.String("organization.slug"))
		require.Equal(t, "owner", r.String("organization.role"))
		require.Nil(t, r.Get("organization.max_public_rate_limit"))
		require.Contains(t, r.Get("organization").(map[string]any), "max_public_rate_limit")

		ck := sessionSetCookie(t, r, acctCookieName)
		require.NotEmpty(t, ck.Value)
		require.True(t, ck.HttpOnly, "HttpOnly")
		require.Equal(t, http.SameSiteLaxMode, ck.SameSite)
		require.Equal(t, "/", ck.Path)
		require.False(t, ck.Secure, "Secure must be off in development (plain http)")
		require.Positive(t, ck.MaxAge)
		require.LessOrEqual(t, ck.MaxAge, int(acctSessionLifetime/time.Second))

		require.NotContains(t, string(r.Raw), acctPassword)
		require.NotContains(t, string(r.Raw), ck.Value)

		// The cookie signs the browser in.
		me := c.Do("GET", "/api/me", nil).Status(http.StatusOK)
		require.Equal(t, r.String("user.id"), me.String("user.id"))
		require.Equal(t, r.String("organization.id"), me.String("current_organization_id"))
	})

	t.Run("a second organization with the same name gets another unique slug", func(t *testing.T) {
		_, r1 := signupWithPassword(t, env, "bob@example.com", acctPassword, "Acme Labs")
		_, r2 := signupWithPassword(t, env, "carol@example.com", acctPassword, "Acme Labs")
		s1, s2 := r1.String("organization.slug"), r2.String("organization.slug")
		require.Regexp(t, acctSuffixedSlugRE, s1)
		require.Regexp(t, acctSuffixedSlugRE, s2)
		require.NotEqual(t, s1, s2)
		require.Equal(t, "Acme Labs", r2.String("organization.name"))
	})

	t.Run("slug derivation", func(t *testing.T) {
		for _, tc := range []struct{ name, org, slug string }{
			{"punctuation and spaces collapse", "  Hello,   World!! ", "hello-world"},
			{"digits are kept", "Team 42", "team-42"},
			{"no ASCII letters at all", "日本語", "org"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				_, r := signupWithPassword(t, env, "slug-"+strings.ReplaceAll(tc.slug, "-", "")+"@example.com", acctPassword, tc.org)
				require.Equal(t, tc.slug, r.String("organization.slug"))
				require.Equal(t, strings.TrimSpace(tc.org), r.String("organization.name"))
			})
		}
	})

	t.Run("duplicate e-mail", func(t *testing.T) {
		signupWithPassword(t, env, "dup@example.com", acctPassword, "Dup Org")
		for _, tc := range []struct{ name, email string }{
			{"same address", "dup@example.com"},
			{"differs only in case", "DUP@Example.COM"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := env.Anonymous(t).Do("POST", "/api/auth/signup", map[string]any{
					"email": tc.email, "password": acctPassword, "organization_name": "Another Org",
				}).Problem(http.StatusConflict)
				require.Equal(t, "an account with this e-mail already exists", r.String("detail"))
				requireNoSetCookie(t, r)
			})
		}
		// The failed signups left no organization behind.
		var n int
		require.NoError(t, env.Service.Store().Pool().QueryRow(context.Background(),
			`SELECT count(*) FROM organizations WHERE name = 'Another Org'`).Scan(&n))
		require.Zero(t, n)
	})

	valid := func(change func(map[string]any)) map[string]any {
		b := map[string]any{"email": "new@example.com", "password": acctPassword, "organization_name": "New Org"}
		change(b)
		return b
	}
	for _, tc := range []struct {
		name   string
		body   any
		ctype  string // overrides application/json when set
		status int
		fields []string
		skip   string
	}{
		{name: "empty object", body: map[string]any{}, status: 422, fields: []string{"email", "password", "organization_name"}},
		{name: "missing e-mail", body: valid(func(b map[string]any) { delete(b, "email") }), status: 422, fields: []string{"email"}},
		{name: "missing password", body: valid(func(b map[string]any) { delete(b, "password") }), status: 422, fields: []string{"password"}},
		{name: "missing organization name", body: valid(func(b map[string]any) { delete(b, "organization_name") }), status: 422, fields: []string{"organization_name"}},
		{name: "e-mail without a dot in the domain", body: valid(func(b map[string]any) { b["email"] = "ada@localhost" }), status: 422, fields: []string{"email"}},
		{name: "e-mail without @", body: valid(func(b map[string]any) { b["email"] = "not-an-email" }), status: 422, fields: []string{"email"}},
		{name: "e-mail with a display name", body: valid(func(b map[string]any) { b["email"] = "Ada <ada@example.com>" }), status: 422, fields: []string{"email"}},
		{name: "e-mail not a string", body: valid(func(b map[string]any) { b["email"] = 42 }), status: 422, fields: []string{"email"}},
		{name: "password of 7 characters", body: valid(func(b map[string]any) { b["password"] = "1234567" }), status: 422, fields: []string{"password"}},
		{name: "password of 73 ASCII characters", body: valid(func(b map[string]any) { b["password"] = strings.Repeat("a", 73) }), status: 422, fields: []string{"password"}},
		{name: "password of 37 two-byte characters (74 bytes)", body: valid(func(b map[string]any) { b["password"] = strings.Repeat("é", 37) }), status: 422, fields: []string{"password"}},
		{name: "password of 25 three-byte characters (75 bytes)", body: valid(func(b map[string]any) { b["password"] = strings.Repeat("€", 25) }), status: 422, fields: []string{"password"}},
		{name: "blank organization name", body: valid(func(b map[string]any) { b["organization_name"] = "   " }), status: 422, fields: []string{"organization_name"}},
		{name: "empty organization name", body: valid(func(b map[string]any) { b["organization_name"] = "" }), status: 422, fields: []string{"organization_name"}},
		{name: "organization name of 201 characters", body: valid(func(b map[string]any) { b["organization_name"] = strings.Repeat("n", 201) }), status: 422, fields: []string{"organization_name"}},
		{name: "several problems at once", body: map[string]any{"email": "ada@localhost", "password": strings.Repeat("é", 37), "organization_name": " "},
			status: 422, fields: []string{"email", "password", "organization_name"}},
		{name: "unknown extra field", body: valid(func(b map[string]any) { b["role"] = "admin" }), status: 422, fields: []string{"role"}},
		{name: "body not JSON", body: `{"email": "new@example.com",`, status: 400, fields: []string{"body"}},
		{name: "body a JSON array", body: `[]`, status: 422, fields: []string{"body"}},
		{name: "wrong content type", body: `{"email":"new@example.com","password":"s3cret-Passw0rd!","organization_name":"New Org"}`,
			ctype: "text/plain", status: 400, fields: []string{"body"}},
		{name: "form-encoded body", body: "email=new%40example.com&password=s3cret-Passw0rd%21&organization_name=New",
			ctype: "application/x-www-form-urlencoded", status: 400, fields: []string{"body"}},
	} {
		t.Run("invalid/"+tc.name, func(t *testing.T) {
			if tc.skip != "" {
				t.Skip(tc.skip)
			}
			c := env.Anonymous(t)
			if tc.ctype != "" {
				c.Header.Set("Content-Type", tc.ctype)
			}
			r := c.Do("POST", "/api/auth/signup", tc.body).Problem(tc.status, tc.fields...)
			requireNoSetCookie(t, r)
			require.NotContains(t, string(r.Raw), acctPassword)
		})
	}

	t.Run("a password of exactly 72 bytes is accepted", func(t *testing.T) {
		pw := strings.Repeat("é", 36) // 36 characters, 72 bytes
		c, _ := signupWithPassword(t, env, "seventy-two@example.com", pw, "Bytes Org")
		c.Do("POST", "/api/auth/logout", nil).Status(http.StatusNoContent)
		env.Anonymous(t).Do("POST", "/api/auth/login", map[string]any{"email": "seventy-two@example.com", "password": pw}).
			Status(http.StatusOK)
	})

	t.Run("nothing was created by the refused signups", func(t *testing.T) {
		var n int
		require.NoError(t, env.Service.Store().Pool().QueryRow(context.Background(),
			`SELECT count(*) FROM users WHERE lower(email) = 'new@example.com'`).Scan(&n))
		require.Zero(t, n)
	})
}

func TestSignupCookieIsSecureInProduction(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.Env = "production" }})
	c := env.Anonymous(t)
	r := c.Do("POST", "/api/auth/signup", map[string]any{
		"email": "prod@example.com", "password": acctPassword, "organization_name": "Prod",
	}).Status(http.StatusCreated)
	ck := sessionSetCookie(t, r, acctCookieName)
	require.True(t, ck.Secure, "Secure in production")
	require.True(t, ck.HttpOnly)
	require.Equal(t, http.SameSiteLaxMode, ck.SameSite)
	require.Equal(t, "/", ck.Path)

	login := env.Anonymous(t).Do("POST", "/api/auth/login", map[string]any{
		"email": "prod@example.com", "password": acctPassword,
	}).Status(http.StatusOK)
	token := sessionSetCookie(t, login, acctCookieName)
	require.True(t, token.Secure, "Secure on login too")

	// The jar keeps Secure cookies away from plain http; send the token by hand.
	c = clientWithSessionToken(t, env, token.Value)
	c.Do("GET", "/api/me", nil).Status(http.StatusOK)
	out := c.Do("POST", "/api/auth/logout", nil).Status(http.StatusNoContent)
	cleared := sessionSetCookie(t, out, acctCookieName)
	require.Empty(t, cleared.Value)
	require.True(t, cleared.Secure, "the clearing cookie matches the one it replaces")
	require.Less(t, cleared.MaxAge, 0)
	requireChallenge401(t, c.Do("GET", "/api/me", nil))
}

func TestLogin(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	_, signup := signupWithPassword(t, env, "Ada.Lovelace@Example.com", acctPassword, "Acme Labs")
	userID, orgID := signup.String("user.id"), signup.String("organization.id")

	for _, tc := range []struct{ name, email string }{
		{"e-mail as signed up", "Ada.Lovelace@Example.com"},
		{"e-mail in lower case", "ada.lovelace@example.com"},
		{"e-mail in upper case", "ADA.LOVELACE@EXAMPLE.COM"},
		{"e-mail with surrounding spaces", "  ada.lovelace@example.com "},
	} {
		t.Run("right credentials/"+tc.name, func(t *testing.T) {
			c := env.Anonymous(t)
			r := c.Do("POST", "/api/auth/login", map[string]any{"email": tc.email, "password": acctPassword}).
				Status(http.StatusOK)
			require.Equal(t, userID, r.String("user.id"))
			require.Equal(t, "Ada.Lovelace@Example.com", r.String("user.email"))

			ck := sessionSetCookie(t, r, acctCookieName)
			require.True(t, ck.HttpOnly)
			require.Equal(t, http.SameSiteLaxMode, ck.SameSite)
			require.Equal(t, "/", ck.Path)
			require.False(t, ck.Secure)
			require.Positive(t, ck.MaxAge)
			require.NotContains(t, string(r.Raw), ck.Value)
			require.NotContains(t, string(r.Raw), acctPassword)

			// Both the jar and the raw cookie value work.
			require.Equal(t, userID, c.Do("GET", "/api/me", nil).Status(http.StatusOK).String("user.id"))
			me := clientWithSessionToken(t, env, ck.Value).Do("GET", "/api/me", nil).Status(http.StatusOK)
			require.Equal(t, userID, me.String("user.id"))
			require.Equal(t, orgID, me.String("current_organization_id"))
			require.NotContains(t, string(me.Raw), ck.Value)
		})
	}

	t.Run("each login is a new session", func(t *testing.T) {
		body := map[string]any{"email": "ada.lovelace@example.com", "password": acctPassword}
		a := sessionSetCookie(t, env.Anonymous(t).Do("POST", "/api/auth/login", body).Status(http.StatusOK), acctCookieName)
		b := sessionSetCookie(t, env.Anonymous(t).Do("POST", "/api/auth/login", body).Status(http.StatusOK), acctCookieName)
		require.NotEqual(t, a.Value, b.Value)
	})

	t.Run("wrong password and unknown e-mail are indistinguishable", func(t *testing.T) {
		wrongPassword := env.Anonymous(t).Do("POST", "/api/auth/login",
			map[string]any{"email": "ada.lovelace@example.com", "password": "not-the-password"})
		unknownEmail := env.Anonymous(t).Do("POST", "/api/auth/login",
			map[string]any{"email": "nobody@example.com", "password": acctPassword})
		for _, r := range []*apitest.Response{wrongPassword, unknownEmail} {
			requireChallenge401(t, r)
			requireNoSetCookie(t, r)
			require.Equal(t, "the e-mail or the password is wrong", r.String("detail"))
			require.NotContains(t, string(r.Raw), acctPassword)
		}
		require.Equal(t, problemWithoutRequestID(t, wrongPassword), problemWithoutRequestID(t, unknownEmail))
		require.Equal(t, wrongPassword.Hdr.Get("WWW-Authenticate"), unknownEmail.Hdr.Get("WWW-Authenticate"))
	})

	t.Run("wrong password and unknown e-mail take about as long", func(t *testing.T) {
		// Each bcrypt comparison must run at the configured cost (4 in
		// tests): an unknown e-mail compared against a hash of another cost
		// answers measurably faster or slower, which tells accounts apart.
		minOf := func(body map[string]any) time.Duration {
			best := time.Duration(1 << 62)
			for range 5 {
				start := time.Now()
				requireChallenge401(t, env.Anonymous(t).Do("POST", "/api/auth/login", body))
				best = min(best, time.Since(start))
			}
			return best
		}
		wrong := minOf(map[string]any{"email": "ada.lovelace@example.com", "password": "not-the-password"})
		unknown := minOf(map[string]any{"email": "nobody@example.com", "password": "not-the-password"})
		const slack = 25 * time.Millisecond
		require.Less(t, unknown, 3*wrong+slack, "unknown e-mail %v, wrong password %v", unknown, wrong)
		require.Less(t, wrong, 3*unknown+slack, "unknown e-mail %v, wrong password %v", unknown, wrong)
	})

	t.Run("password is case-sensitive", func(t *testing.T) {
		r := env.Anonymous(t).Do("POST", "/api/auth/login",
			map[string]any{"email": "ada.lovelace@example.com", "password": strings.ToUpper(acctPassword)})
		requireChallenge401(t, r)
	})

	for _, tc := range []struct {
		name   string
		body   any
		status int
		fields []string
	}{
		{"missing password", map[string]any{"email": "ada.lovelace@example.com"}, 422, []string{"password"}},
		{"missing e-mail", map[string]any{"password": acctPassword}, 422, []string{"email"}},
		{"unknown field", map[string]any{"email": "ada.lovelace@example.com", "password": acctPassword, "remember": true}, 422, []string{"remember"}},
		{"password not a string", map[string]any{"email": "ada.lovelace@example.com", "password": 12345678}, 422, []string{"password"}},
		{"body not JSON", "email=ada", 400, []string{"body"}},
	} {
		t.Run("invalid/"+tc.name, func(t *testing.T) {
			r := env.Anonymous(t).Do("POST", "/api/auth/login", tc.body).Problem(tc.status, tc.fields...)
			requireNoSetCookie(t, r)
		})
	}
}

func TestLogout(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	c, signup := signupWithPassword(t, env, "ada@example.com", acctPassword, "Acme Labs")
	token := sessionSetCookie(t, signup, acctCookieName).Value

	t.Run("ends the session and clears the cookie", func(t *testing.T) {
		c := c.For(t)
		// A second session of the same user survives the logout of the first.
		other := env.Anonymous(t)
		other.Do("POST", "/api/auth/login", map[string]any{"email": "ada@example.com", "password": acctPassword}).
			Status(http.StatusOK)

		c.Do("GET", "/api/me", nil).Status(http.StatusOK)
		r := c.Do("POST", "/api/auth/logout", nil).Status(http.StatusNoContent)
		require.Empty(t, r.Raw)
		ck := sessionSetCookie(t, r, acctCookieName)
		require.Empty(t, ck.Value)
		require.LessOrEqual(t, ck.MaxAge, -1, "Max-Age=0 parses as MaxAge -1: delete now")
		require.Equal(t, "/", ck.Path)
		require.True(t, ck.HttpOnly)

		// The jar dropped the cookie, and the old token no longer works.
		requireChallenge401(t, c.Do("GET", "/api/me", nil))
		requireChallenge401(t, clientWithSessionToken(t, env, token).Do("GET", "/api/me", nil))
		requireChallenge401(t, clientWithSessionToken(t, env, token).Do("GET", "/api/organizations", nil))

		var n int
		require.NoError(t, env.Service.Store().Pool().QueryRow(context.Background(),
			`SELECT count(*) FROM user_sessions WHERE token_hash = $1`, tokenSHA256(token)).Scan(&n))
		require.Zero(t, n)

		other.Do("GET", "/api/me", nil).Status(http.StatusOK)
	})

	t.Run("logging out again with the ended session's token", func(t *testing.T) {
		r := clientWithSessionToken(t, env, token).Do("POST", "/api/auth/logout", nil).Status(http.StatusNoContent)
		require.Empty(t, sessionSetCookie(t, r, acctCookieName).Value)
	})

	t.Run("without a cookie", func(t *testing.T) {
		r := env.Anonymous(t).Do("POST", "/api/auth/logout", nil).Status(http.StatusNoContent)
		require.Empty(t, sessionSetCookie(t, r, acctCookieName).Value)
	})

	t.Run("with a token that never existed", func(t *testing.T) {
		clientWithSessionToken(t, env, "bm90LWEtcmVhbC10b2tlbg").Do("POST", "/api/auth/logout", nil).Status(http.StatusNoContent)
	})

	t.Run("logging in again after logout works", func(t *testing.T) {
		c := c.For(t)
		c.Do("POST", "/api/auth/login", map[string]any{"email": "ada@example.com", "password": acctPassword}).
			Status(http.StatusOK)
		require.Equal(t, c.UserID, c.Do("GET", "/api/me", nil).Status(http.StatusOK).String("user.id"))
	})
}

func tokenSHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestSecretsAreStoredHashed(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	ctx := context.Background()
	pool := env.Service.Store().Pool()
	_, signup := signupWithPassword(t, env, "ada@example.com", acctPassword, "Acme Labs")
	login := env.Anonymous(t).Do("POST", "/api/auth/login",
		map[string]any{"email": "ada@example.com", "password": acctPassword}).Status(http.StatusOK)
	userID := signup.String("user.id")

	for name, r := range map[string]*apitest.Response{"signup": signup, "login": login} {
		t.Run("session token of "+name, func(t *testing.T) {
			token := sessionSetCookie(t, r, acctCookieName).Value
			require.Len(t, token, 43, "32 random bytes, base64url without padding")

			var hash, owner string
			var expires time.Time
			require.NoError(t, pool.QueryRow(ctx,
				`SELECT token_hash, user_id::text, expires_at FROM user_sessions WHERE token_hash = $1`, tokenSHA256(token)).
				Scan(&hash, &owner, &expires))
			require.Equal(t, tokenSHA256(token), hash)
			require.Equal(t, userID, owner)
			require.WithinDuration(t, time.Now().Add(acctSessionLifetime), expires, time.Minute)

			var raw int
			require.NoError(t, pool.QueryRow(ctx,
				`SELECT count(*) FROM user_sessions s WHERE strpos(s::text, $1) > 0`, token).Scan(&raw))
			require.Zero(t, raw, "the raw token is stored somewhere in user_sessions")
		})
	}

	t.Run("two sessions, two hashes", func(t *testing.T) {
		var n int
		require.NoError(t, pool.QueryRow(ctx,
			`SELECT count(DISTINCT token_hash) FROM user_sessions WHERE user_id = $1`, userID).Scan(&n))
		require.Equal(t, 2, n)
	})

	t.Run("password", func(t *testing.T) {
		var hash string
		require.NoError(t, pool.QueryRow(ctx, `SELECT password_hash FROM users WHERE id = $1`, userID).Scan(&hash))
		require.NotEqual(t, acctPassword, hash)
		require.NotContains(t, hash, acctPassword)
		require.Regexp(t, acctBcryptRE, hash)
		require.NoError(t, bcrypt.CompareHashAndPassword([]byte(hash), []byte(acctPassword)))
		require.Error(t, bcrypt.CompareHashAndPassword([]byte(hash), []byte("wrong")))

		var raw int
		require.NoError(t, pool.QueryRow(ctx,
			`SELECT count(*) FROM users u WHERE strpos(u::text, $1) > 0`, acctPassword).Scan(&raw))
		require.Zero(t, raw)
	})
}

func TestExpiredSession(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	c, signup := signupWithPassword(t, env, "ada@example.com", acctPassword, "Acme Labs")
	token := sessionSetCookie(t, signup, acctCookieName).Value
	c.Do("GET", "/api/me", nil).Status(http.StatusOK)

	tag, err := env.Service.Store().Pool().Exec(context.Background(),
		`UPDATE user_sessions SET expires_at = now() - interval '1 minute' WHERE token_hash = $1`, tokenSHA256(token))
	require.NoError(t, err)
	require.EqualValues(t, 1, tag.RowsAffected())

	for _, tc := range []struct {
		name, method, path string
		body               any
	}{
		{"me", "GET", "/api/me", nil},
		{"organizations", "GET", "/api/organizations", nil},
		{"organization", "GET", "/api/organizations/" + c.OrgID, nil},
		{"create organization", "POST", "/api/organizations", map[string]any{"name": "Late Org"}},
		{"servers", "GET", "/api/servers", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := c.For(t)
			requireChallenge401(t, c.Do(tc.method, tc.path, tc.body))
		})
	}

	t.Run("public routes still answer", func(t *testing.T) {
		c := c.For(t)
		c.Do("GET", "/api/health", nil).Status(http.StatusOK)
		c.Do("POST", "/api/auth/login", map[string]any{"email": "ada@example.com", "password": acctPassword}).
			Status(http.StatusOK)
		c.Do("GET", "/api/me", nil).Status(http.StatusOK)
	})
}

func TestCrossSiteRequests(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	c, _ := signupWithPassword(t, env, "ada@example.com", acctPassword, "Acme Labs")
	orgCount := func(c *apitest.Client) int {
		return c.Do("GET", "/api/organizations", nil).Status(http.StatusOK).Len("items")
	}
	sameOrigin := env.URL // http://127.0.0.1:port, the Host the requests carry

	for i, tc := range []struct {
		name    string
		headers map[string]string
		allowed bool
	}{
		{"Sec-Fetch-Site cross-site", map[string]string{"Sec-Fetch-Site": "cross-site"}, false},
		{"Sec-Fetch-Site same-site", map[string]string{"Sec-Fetch-Site": "same-site"}, false},
		{"Sec-Fetch-Site cross-site with a same Origin", map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": sameOrigin}, false},
		{"foreign Origin without Sec-Fetch-Site", map[string]string{"Origin": "https://evil.example"}, false},
		{"Sec-Fetch-Site same-origin", map[string]string{"Sec-Fetch-Site": "same-origin"}, true},
		{"Sec-Fetch-Site none (typed by the user)", map[string]string{"Sec-Fetch-Site": "none"}, true},
		{"own Origin without Sec-Fetch-Site", map[string]string{"Origin": sameOrigin}, true},
		{"neither header (curl)", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plain, headed := c.For(t), c.For(t)
			before := orgCount(plain)
			for k, v := range tc.headers {
				headed.Header.Set(k, v)
			}
			r := headed.Do("POST", "/api/organizations", map[string]any{"name": "Org " + strconv.Itoa(i)})
			if tc.allowed {
				r.Status(http.StatusCreated)
				require.Equal(t, before+1, orgCount(plain))
				return
			}
			r.Problem(http.StatusForbidden)
			require.True(t, strings.HasPrefix(r.String("detail"), "cross-site request refused"), "detail: %s", r.String("detail"))
			require.Equal(t, before, orgCount(plain), "a refused request changed nothing")
		})
	}

	// A key header, when sent, is what authenticates: a junk key beside the
	// cookie is refused as a key, and the cookie counts for nothing.
	for _, h := range []map[string]string{{"X-API-Key": "junk"}, {"Authorization": "Bearer junk"}} {
		t.Run(fmt.Sprintf("cross-site with a junk key beside the cookie %v", h), func(t *testing.T) {
			plain, headed := c.For(t), c.For(t)
			before := orgCount(plain)
			headed.Header.Set("Sec-Fetch-Site", "cross-site")
			for k, v := range h {
				headed.Header.Set(k, v)
			}
			requireChallenge401(t, headed.Do("POST", "/api/organizations", map[string]any{"name": "Junk keyed"}))
			require.Equal(t, before, orgCount(plain), "a refused request changed nothing")
		})
	}

	t.Run("a cross-site request with a key and no cookie is left to authentication", func(t *testing.T) {
		a := env.Anonymous(t)
		a.Header.Set("Sec-Fetch-Site", "cross-site")
		a.Header.Set("X-API-Key", "mmcp_not-a-real-key")
		requireChallenge401(t, a.Do("POST", "/api/organizations", map[string]any{"name": "Keyed"}))
	})

	t.Run("safe methods are not checked", func(t *testing.T) {
		c := c.For(t)
		c.Header.Set("Sec-Fetch-Site", "cross-site")
		c.Do("GET", "/api/me", nil).Status(http.StatusOK)
	})

	for _, tc := range []struct {
		name, method, path string
		body               any
	}{
		{"PATCH organization", "PATCH", "/api/organizations/" + c.OrgID, map[string]any{"name": "Pwned"}},
		{"PUT current organization", "PUT", "/api/me/current-organization", map[string]any{"organization_id": c.OrgID}},
		{"DELETE member", "DELETE", "/api/organizations/" + c.OrgID + "/members/" + c.UserID, nil},
		{"logout", "POST", "/api/auth/logout", nil},
	} {
		t.Run("cross-site "+tc.name, func(t *testing.T) {
			c := c.For(t)
			c.Header.Set("Sec-Fetch-Site", "cross-site")
			r := c.Do(tc.method, tc.path, tc.body).Problem(http.StatusForbidden)
			requireNoSetCookie(t, r)
		})
	}
	t.Run("the refused requests changed nothing", func(t *testing.T) {
		c := c.For(t)
		require.Equal(t, "Acme Labs", c.Do("GET", "/api/organizations/"+c.OrgID, nil).Status(http.StatusOK).String("name"))
		c.Do("GET", "/api/me", nil).Status(http.StatusOK)
	})

	for _, tc := range []struct {
		name, path string
		body       map[string]any
	}{
		{"signup", "/api/auth/signup", map[string]any{"email": "eve@example.com", "password": acctPassword, "organization_name": "Eve"}},
		{"login", "/api/auth/login", map[string]any{"email": "ada@example.com", "password": acctPassword}},
	} {
		t.Run("cross-site "+tc.name, func(t *testing.T) {
			a := env.Anonymous(t)
			a.Header.Set("Sec-Fetch-Site", "cross-site")
			r := a.Do("POST", tc.path, tc.body).Problem(http.StatusForbidden)
			requireNoSetCookie(t, r)
			a.Header.Del("Sec-Fetch-Site")
			a.Header.Set("Origin", "https://evil.example")
			r = a.Do("POST", tc.path, tc.body).Problem(http.StatusForbidden)
			requireNoSetCookie(t, r)
		})
	}
	t.Run("the cross-site signup created no account", func(t *testing.T) {
		env.Anonymous(t).Do("POST", "/api/auth/login", map[string]any{"email": "eve@example.com", "password": acctPassword}).
			Problem(http.StatusUnauthorized)
	})
}

func TestMe(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)

	t.Run("anonymous", func(t *testing.T) {
		r := env.Anonymous(t).Do("GET", "/api/me", nil)
		requireChallenge401(t, r)
		require.Equal(t, "Unauthorized", r.String("title"))
		require.NotEmpty(t, r.String("detail"))
	})
	t.Run("garbage cookie is anonymous", func(t *testing.T) {
		requireChallenge401(t, clientWithSessionToken(t, env, "garbage").Do("GET", "/api/me", nil))
	})

	ada, signup := signupWithPassword(t, env, "ada@example.com", acctPassword, "Acme Labs")
	bob := env.Signup(t, "Bob Corp")
	ada.Do("POST", "/api/organizations/"+ada.OrgID+"/members", map[string]any{"email": bob.Email}).
		Status(http.StatusCreated)
	second := ada.Do("POST", "/api/organizations", map[string]any{"name": "Second"}).Status(http.StatusCreated).String("id")
	createdAt := signup.String("user.created_at")

	t.Run("owner of two organizations", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("GET", "/api/me", nil).Status(http.StatusOK)
		require.Equal(t, ada.UserID, r.String("user.id"))
		require.Equal(t, "ada@example.com", r.String("user.email"))
		require.Equal(t, createdAt, r.String("user.created_at"))
		require.Equal(t, ada.OrgID, r.String("current_organization_id"))
		require.Equal(t, 2, r.Len("organizations"))
		require.Equal(t, ada.OrgID, r.String("organizations.0.id"))
		require.Equal(t, "Acme Labs", r.String("organizations.0.name"))
		require.Equal(t, "acme-labs", r.String("organizations.0.slug"))
		require.Equal(t, "owner", r.String("organizations.0.role"))
		require.Equal(t, second, r.String("organizations.1.id"))
		require.Equal(t, "owner", r.String("organizations.1.role"))
	})
	t.Run("member of another organization", func(t *testing.T) {
		ada := ada.For(t)
		bob := bob.For(t)
		r := bob.Do("GET", "/api/me", nil).Status(http.StatusOK)
		require.Equal(t, bob.UserID, r.String("user.id"))
		require.Equal(t, bob.OrgID, r.String("current_organization_id"))
		require.Equal(t, 2, r.Len("organizations"))
		roles := map[string]string{}
		for i := range 2 {
			p := "organizations." + strconv.Itoa(i)
			roles[r.String(p+".id")] = r.String(p + ".role")
		}
		require.Equal(t, map[string]string{bob.OrgID: "owner", ada.OrgID: "member"}, roles)
	})
}

func TestSwitchOrganization(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	ada, _ := signupWithPassword(t, env, "ada@example.com", acctPassword, "Acme Labs")
	eve := env.Signup(t, "Eve Corp")
	second := ada.Do("POST", "/api/organizations", map[string]any{"name": "Second"}).Status(http.StatusCreated).String("id")

	serverNames := func(t *testing.T, c *apitest.Client) []string {
		t.Helper()
		r := c.Do("GET", "/api/servers", nil).Status(http.StatusOK)
		names := []string{}
		for i := 0; i < r.Len("items"); i++ {
			names = append(names, r.String("items."+strconv.Itoa(i)+".name"))
		}
		return names
	}
	ada.Do("POST", "/api/servers", map[string]any{"name": "In Acme"}).Status(http.StatusCreated)

	t.Run("to an organization of the user", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("PUT", "/api/me/current-organization", map[string]any{"organization_id": second}).Status(http.StatusOK)
		require.Equal(t, second, r.String("current_organization_id"))
		require.Equal(t, ada.UserID, r.String("user.id"))
		require.Equal(t, 2, r.Len("organizations"))
		require.Equal(t, second, ada.Do("GET", "/api/me", nil).Status(http.StatusOK).String("current_organization_id"))

		require.Equal(t, []string{}, serverNames(t, ada))
		srv := ada.Do("POST", "/api/servers", map[string]any{"name": "In Second"}).Status(http.StatusCreated).String("id")
		require.Equal(t, []string{"In Second"}, serverNames(t, ada))
		ada.Do("GET", "/api/servers/"+srv, nil).Status(http.StatusOK)

		// The choice belongs to the user, not to the session.
		again := env.Anonymous(t)
		again.Do("POST", "/api/auth/login", map[string]any{"email": ada.Email, "password": acctPassword}).
			Status(http.StatusOK)
		require.Equal(t, second, again.Do("GET", "/api/me", nil).Status(http.StatusOK).String("current_organization_id"))

		ada.Do("PUT", "/api/me/current-organization", map[string]any{"organization_id": ada.OrgID}).Status(http.StatusOK)
		require.Equal(t, []string{"In Acme"}, serverNames(t, ada))
		ada.Do("GET", "/api/servers/"+srv, nil).Problem(http.StatusNotFound)
	})

	t.Run("to the current organization", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("PUT", "/api/me/current-organization", map[string]any{"organization_id": ada.OrgID}).Status(http.StatusOK)
		require.Equal(t, ada.OrgID, r.String("current_organization_id"))
	})

	for _, tc := range []refusal{
		{name: "another user's organization", body: map[string]any{"organization_id": eve.OrgID}, status: 404, detail: "organization not found"},
		{name: "an organization that does not exist", body: map[string]any{"organization_id": "7b0d7c1e-2f4a-4c1e-9d33-3f2b7a9e0c11"}, status: 404, detail: "organization not found"},
		{name: "not a uuid", body: map[string]any{"organization_id": "acme-labs"}, status: 422, fields: []string{"organization_id"}},
		{name: "missing organization_id", body: map[string]any{}, status: 422, fields: []string{"organization_id"}},
		{name: "unknown field", body: map[string]any{"organization_id": ada.OrgID, "slug": "acme-labs"}, status: 422, fields: []string{"slug"}},
		{name: "body not JSON", body: "{", status: 400, fields: []string{"body"}},
	} {
		t.Run("refused/"+tc.name, func(t *testing.T) {
			ada := ada.For(t)
			r := tc.require(t, ada, "PUT", "/api/me/current-organization")
			if tc.name == "not a uuid" {
				require.Equal(t, "must be a valid uuid", r.String("errors.0.message"))
			}
			require.Equal(t, ada.OrgID, ada.Do("GET", "/api/me", nil).Status(http.StatusOK).String("current_organization_id"))
		})
	}

	t.Run("anonymous", func(t *testing.T) {
		ada := ada.For(t)
		requireChallenge401(t, env.Anonymous(t).Do("PUT", "/api/me/current-organization", map[string]any{"organization_id": ada.OrgID}))
	})
	t.Run("the other user was not affected", func(t *testing.T) {
		eve := eve.For(t)
		require.Equal(t, eve.OrgID, eve.Do("GET", "/api/me", nil).Status(http.StatusOK).String("current_organization_id"))
	})
}
