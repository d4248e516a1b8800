package httpapi_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// The exact 403 messages of the key-scope table.
const (
	msgDataPlane = "Policy-scoped keys cannot access the data plane"
	msgNotBound  = "Key not bound to this asset"
)

var rawKeyShape = regexp.MustCompile(`^mmcp_[A-Za-z0-9_-]{43}$`)

// mkKey generates a key as c and returns its id and raw value.
func mkKey(t *testing.T, c *apitest.Client, body map[string]any) (id, raw string) {
	t.Helper()
	r := c.Do("POST", "/api/keys", body).Status(http.StatusCreated)
	return r.String("key.id"), r.String("raw_key")
}

// withKey is an anonymous client sending raw in header: "X-API-Key" or
// "Authorization" (as a bearer token).
func withKey(t *testing.T, env *apitest.Env, header, raw string) *apitest.Client {
	t.Helper()
	c := env.Anonymous(t)
	if header == "Authorization" {
		c.Header.Set("Authorization", "Bearer "+raw)
	} else {
		c.Header.Set(header, raw)
	}
	return c
}

var keyHeaders = []string{"X-API-Key", "Authorization"}

func requireDetail(t *testing.T, r *apitest.Response, code int, detail string) {
	t.Helper()
	r.Problem(code)
	require.Equal(t, detail, r.String("detail"))
}

func TestKeysLifecycle(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Keyed Org")
	server := mkServer(t, c, "bound")

	r := c.Do("POST", "/api/keys", map[string]any{"name": "  ci pipeline  "}).Status(http.StatusCreated)
	full, raw := r.String("key.id"), r.String("raw_key")
	require.Regexp(t, rawKeyShape, raw)
	require.Equal(t, "ci pipeline", r.String("key.name"))
	require.Equal(t, "full", r.String("key.scope"))
	require.Empty(t, r.Get("key.bound_asset_ids"))
	require.Equal(t, c.UserID, r.String("key.created_by"))
	require.Nil(t, r.Get("key.expires_at"))
	require.Nil(t, r.Get("key.last_used_at"))

	p := c.Do("POST", "/api/keys", map[string]any{"name": "policy engine", "bound_server_id": server}).Status(http.StatusCreated)
	require.Equal(t, "policy", p.String("key.scope"))
	require.Equal(t, []any{server}, p.Get("key.bound_asset_ids"))
	policyRaw := p.String("raw_key")
	require.NotEqual(t, raw, policyRaw)

	t.Run("only the SHA-256 hex is stored", func(t *testing.T) {
		sum := sha256.Sum256([]byte(raw))
		var stored string
		require.NoError(t, env.Service.Store().Pool().QueryRow(context.Background(),
			`SELECT key_hash FROM api_keys WHERE id = $1`, full).Scan(&stored))
		require.Equal(t, hex.EncodeToString(sum[:]), stored)
		var rows int
		require.NoError(t, env.Service.Store().Pool().QueryRow(context.Background(),
			`SELECT count(*) FROM api_keys k WHERE k::text LIKE '%' || $1 || '%'`, raw[len("mmcp_"):]).Scan(&rows))
		require.Zero(t, rows, "the raw key appears in a stored row")
	})

	t.Run("listing never shows a raw key or hash", func(t *testing.T) {
		l := c.For(t).Do("GET", "/api/keys", nil).Status(http.StatusOK)
		require.Equal(t, 2, l.Len("items"))
		require.Equal(t, p.String("key.id"), l.String("items.0.id"), "newest first")
		body := string(l.Raw)
		for _, secret := range []string{raw, policyRaw, raw[len("mmcp_"):]} {
			require.NotContains(t, body, secret)
		}
		sum := sha256.Sum256([]byte(raw))
		require.NotContains(t, body, hex.EncodeToString(sum[:]))
		require.NotContains(t, body, "hash")
	})

	t.Run("revoke", func(t *testing.T) {
		c := c.For(t)
		k := withKey(t, env, "X-API-Key", raw)
		k.Do("GET", "/api/servers", nil).Status(http.StatusOK)
		c.Do("DELETE", "/api/keys/"+full, nil).Status(http.StatusNoContent)
		c.Do("DELETE", "/api/keys/"+full, nil).Problem(http.StatusNotFound)
		require.Equal(t, 1, c.Do("GET", "/api/keys", nil).Status(http.StatusOK).Len("items"))
		requireChallenge401(t, k.Do("GET", "/api/servers", nil))
	})

	t.Run("expiry", func(t *testing.T) {
		c := c.For(t)
		r := c.Do("POST", "/api/keys", map[string]any{"name": "short", "expires_at": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}).
			Status(http.StatusCreated)
		require.NotNil(t, r.Get("key.expires_at"))
		k := withKey(t, env, "Authorization", r.String("raw_key"))
		k.Do("GET", "/api/servers", nil).Status(http.StatusOK)
		_, err := env.Service.Store().Pool().Exec(context.Background(),
			`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, r.String("key.id"))
		require.NoError(t, err)
		requireEventually401(t, k, "GET", "/api/servers")
	})

	t.Run("last use is recorded", func(t *testing.T) {
		k := withKey(t, env, "X-API-Key", policyRaw)
		k.Do("GET", "/api/platform/"+server+"/mcp/spec", nil).Status(http.StatusOK)
		env.Service.Keys().FlushTouches(context.Background())
		l := c.For(t).Do("GET", "/api/keys", nil).Status(http.StatusOK)
		for i := 0; i < l.Len("items"); i++ {
			if l.String(fmt.Sprintf("items.%d.id", i)) == p.String("key.id") {
				used, err := time.Parse(time.RFC3339Nano, l.String(fmt.Sprintf("items.%d.last_used_at", i)))
				require.NoError(t, err)
				require.WithinDuration(t, time.Now(), used, 10*time.Second)
				return
			}
		}
		t.Fatal("the policy key is not listed")
	})
}

// requireEventually401 polls until the request is refused with 401, for
// changes that reach the key cache through a notification.
func requireEventually401(t *testing.T, c *apitest.Client, method, path string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		r := c.Do(method, path, nil)
		if r.Code == http.StatusUnauthorized || time.Now().After(deadline) {
			requireChallenge401(t, r)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCreateKeyValidation(t *testing.T) {
	t.Parallel()
	env, c, other := apitest.Rivals(t, "Validating Org", "Other Org")
	foreign := mkServer(t, other, "not yours")
	mine := mkServer(t, c, "mine")
	ids := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		}
		return out
	}

	for _, tc := range []struct {
		name   string
		body   any
		status int
		fields []string
	}{
		{"no name", map[string]any{}, 422, []string{"name"}},
		{"blank name", map[string]any{"name": "   "}, 422, []string{"name"}},
		{"name too long", map[string]any{"name": strings.Repeat("n", 201)}, 422, []string{"name"}},
		{"unknown field", map[string]any{"name": "k", "scope": "full"}, 422, []string{"scope"}},
		{"expiry in the past", map[string]any{"name": "k", "expires_at": "2020-01-01T00:00:00Z"}, 422, []string{"expires_at"}},
		{"expiry not a time", map[string]any{"name": "k", "expires_at": "tomorrow"}, 422, []string{"expires_at"}},
		{"bound id not a UUID", map[string]any{"name": "k", "bound_server_id": "abc"}, 422, []string{"bound_server_id"}},
		{"bound to another organization's server", map[string]any{"name": "k", "bound_server_id": foreign}, 422, []string{"bound_server_id"}},
		{"bound to no server", map[string]any{"name": "k", "bound_server_ids": []string{mine, ids(1)[0]}}, 422, []string{"bound_server_ids"}},
		{"empty binding list", map[string]any{"name": "k", "bound_server_ids": []string{}}, 422, []string{"bound_server_ids"}},
		{"101 bound ids in the list", map[string]any{"name": "k", "bound_server_ids": ids(101)}, 422, []string{"bound_server_ids"}},
		{"101 bound ids in all", map[string]any{"name": "k", "bound_server_id": mine, "bound_server_ids": ids(100)}, 422, []string{"bound_server_ids"}},
		{"not JSON", "{", 400, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.For(t).Do("POST", "/api/keys", tc.body).Problem(tc.status, tc.fields...)
		})
	}
	require.Zero(t, c.Do("GET", "/api/keys", nil).Status(http.StatusOK).Len("items"), "no key was created")

	t.Run("100 bound servers, duplicates counted once", func(t *testing.T) {
		c := c.For(t)
		bound := []string{mine}
		for i := 1; i < 100; i++ {
			bound = append(bound, mkServer(t, c, fmt.Sprintf("s%d", i)))
		}
		r := c.Do("POST", "/api/keys", map[string]any{"name": "wide", "bound_server_id": mine, "bound_server_ids": bound}).
			Status(http.StatusCreated)
		require.Equal(t, "policy", r.String("key.scope"))
		require.Equal(t, 100, r.Len("key.bound_asset_ids"))
		k := withKey(t, env, "X-API-Key", r.String("raw_key"))
		k.Do("GET", "/api/platform/"+bound[99]+"/mcp/spec", nil).Status(http.StatusOK)
	})
}

// TestKeyScopeTable walks the spec's scope table, with the key in each of
// the two headers.
func TestKeyScopeTable(t *testing.T) {
	t.Parallel()
	env, a, b := apitest.Rivals(t, "Scope A", "Scope B")
	bound := mkServer(t, a, "bound")
	unbound := mkServer(t, a, "unbound")
	foreign := mkServer(t, b, "foreign")
	_, fullRaw := mkKey(t, a, map[string]any{"name": "full"})
	fullID, _ := mkKey(t, a, map[string]any{"name": "another full"})
	_, policyRaw := mkKey(t, a, map[string]any{"name": "policy", "bound_server_id": bound})
	missing := "00000000-0000-4000-8000-000000000000"

	policyRoutes := []struct{ method, suffix string }{
		{"GET", "/mcp/spec"}, {"POST", "/mcp/validate"}, {"GET", "/mcp/evidence"},
	}
	for _, header := range keyHeaders {
		t.Run(header, func(t *testing.T) {
			full := withKey(t, env, header, fullRaw)
			policy := withKey(t, env, header, policyRaw)

			t.Run("full key: REST CRUD", func(t *testing.T) {
				full.For(t).Do("GET", "/api/servers", nil).Status(http.StatusOK)
				r := full.For(t).Do("POST", "/api/servers", map[string]any{"name": "by key"}).Status(http.StatusCreated)
				require.True(t, strings.HasPrefix(r.String("created_by"), "key:"), "created_by %q", r.String("created_by"))
				full.For(t).Do("GET", "/api/servers/"+bound+"/tools", nil).Status(http.StatusOK)
				full.For(t).Do("GET", "/api/servers/"+foreign, nil).Problem(http.StatusNotFound)
				full.For(t).Do("GET", "/api/audit/policy", nil).Status(http.StatusOK)
			})
			t.Run("full key: policy routes of every server of its organization", func(t *testing.T) {
				for _, rt := range policyRoutes {
					for _, id := range []string{bound, unbound} {
						full.For(t).Do(rt.method, "/api/platform/"+id+rt.suffix, nil).Status(http.StatusOK)
					}
					full.For(t).Do(rt.method, "/api/platform/"+foreign+rt.suffix, nil).Problem(http.StatusNotFound)
					full.For(t).Do(rt.method, "/api/platform/"+missing+rt.suffix, nil).Problem(http.StatusNotFound)
				}
			})
			t.Run("policy key: bound assets only", func(t *testing.T) {
				for _, rt := range policyRoutes {
					policy.For(t).Do(rt.method, "/api/platform/"+bound+rt.suffix, nil).Status(http.StatusOK)
					requireDetail(t, policy.For(t).Do(rt.method, "/api/platform/"+unbound+rt.suffix, nil), 403, msgNotBound)
					policy.For(t).Do(rt.method, "/api/platform/"+foreign+rt.suffix, nil).Problem(http.StatusNotFound)
					policy.For(t).Do(rt.method, "/api/platform/"+missing+rt.suffix, nil).Problem(http.StatusNotFound)
				}
			})
			t.Run("policy key: no data plane", func(t *testing.T) {
				for _, rt := range []struct {
					method, path string
					body         any
				}{
					{"GET", "/api/servers", nil},
					{"POST", "/api/servers", map[string]any{"name": "x"}},
					{"GET", "/api/servers/" + bound, nil},
					{"PATCH", "/api/servers/" + bound, map[string]any{"name": "renamed"}},
					{"DELETE", "/api/servers/" + bound, nil},
					{"GET", "/api/servers/" + bound + "/tools", nil},
					{"GET", "/api/audit/policy", nil},
				} {
					requireDetail(t, policy.For(t).Do(rt.method, rt.path, rt.body), 403, msgDataPlane)
				}
				a.For(t).Do("GET", "/api/servers/"+bound, nil).Status(http.StatusOK)
			})
			t.Run("keys cannot act as users", func(t *testing.T) {
				for _, k := range []*apitest.Client{full, policy} {
					for _, rt := range []struct{ method, path string }{
						{"GET", "/api/me"}, {"GET", "/api/keys"}, {"DELETE", "/api/keys/" + fullID},
						{"GET", "/api/organizations"}, {"GET", "/api/organizations/" + a.OrgID},
					} {
						k.For(t).Do(rt.method, rt.path, nil).Problem(http.StatusForbidden)
					}
					k.For(t).Do("POST", "/api/keys", map[string]any{"name": "minted by a key"}).Problem(http.StatusForbidden)
				}
			})
			t.Run("unknown, malformed and empty keys", func(t *testing.T) {
				for _, raw := range []string{
					"mmcp_" + strings.Repeat("A", 43), // well-formed, unknown
					fullRaw + "x", fullRaw[:len(fullRaw)-1], "not-a-key", strings.ToUpper(fullRaw),
				} {
					k := withKey(t, env, header, raw)
					requireChallenge401(t, k.Do("GET", "/api/servers", nil))
					requireChallenge401(t, k.Do("GET", "/api/platform/"+bound+"/mcp/spec", nil))
				}
			})
		})
	}

	t.Run("both headers with one key", func(t *testing.T) {
		k := withKey(t, env, "X-API-Key", fullRaw)
		k.Header.Set("Authorization", "Bearer "+fullRaw)
		k.Do("GET", "/api/servers", nil).Status(http.StatusOK)
	})
	t.Run("both headers with different keys", func(t *testing.T) {
		k := withKey(t, env, "X-API-Key", fullRaw)
		k.Header.Set("Authorization", "Bearer "+policyRaw)
		k.Do("GET", "/api/servers", nil).Problem(http.StatusBadRequest)
	})
	t.Run("bearer scheme is case-insensitive", func(t *testing.T) {
		k := env.Anonymous(t)
		k.Header.Set("Authorization", "bEaReR "+fullRaw)
		k.Do("GET", "/api/servers", nil).Status(http.StatusOK)
	})
	t.Run("other Authorization schemes are not keys", func(t *testing.T) {
		k := env.Anonymous(t)
		k.Header.Set("Authorization", "Basic "+fullRaw)
		requireChallenge401(t, k.Do("GET", "/api/servers", nil))
	})
	t.Run("policy routes need a key, not a session", func(t *testing.T) {
		for _, rt := range policyRoutes {
			requireChallenge401(t, a.For(t).Do(rt.method, "/api/platform/"+bound+rt.suffix, nil))
			requireChallenge401(t, env.Anonymous(t).Do(rt.method, "/api/platform/"+bound+rt.suffix, nil))
		}
	})
	t.Run("public routes ignore keys", func(t *testing.T) {
		k := withKey(t, env, "X-API-Key", "junk")
		k.Do("GET", "/api/health", nil).Status(http.StatusOK)
	})
}

// TestRevocationReachesEveryInstance: a key checked (and so cached) on a
// second instance is refused there within a second of its revocation on the
// first.
func TestRevocationReachesEveryInstance(t *testing.T) {
	t.Parallel()
	one := apitest.New(t, nil)
	two := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.DatabaseURL = one.Config.DatabaseURL }})
	owner := one.Signup(t, "Two Instances")
	server := mkServer(t, owner, "s")
	id, raw := mkKey(t, owner, map[string]any{"name": "k", "bound_server_id": server})

	for _, header := range keyHeaders {
		k := withKey(t, two, header, raw)
		for range 3 {
			k.Do("GET", "/api/platform/"+server+"/mcp/spec", nil).Status(http.StatusOK)
		}
	}
	require.GreaterOrEqual(t, two.Service.Keys().Cached(), 1, "the second instance caches the check")

	owner.Do("DELETE", "/api/keys/"+id, nil).Status(http.StatusNoContent)
	revoked := time.Now()
	k := withKey(t, two, "X-API-Key", raw)
	for {
		r := k.Do("GET", "/api/platform/"+server+"/mcp/spec", nil)
		if r.Code == http.StatusUnauthorized {
			break
		}
		r.Status(http.StatusOK)
		require.Less(t, time.Since(revoked), time.Second, "the second instance still accepts the revoked key")
		time.Sleep(5 * time.Millisecond)
	}
	t.Logf("revocation seen by the second instance after %v", time.Since(revoked))
	requireChallenge401(t, withKey(t, two, "Authorization", raw).Do("GET", "/api/platform/"+server+"/mcp/spec", nil))
}

// TestKeyUseIsCoalesced: however often a key is used, last_used_at costs
// one write per organization per flush.
func TestKeyUseIsCoalesced(t *testing.T) {
	t.Parallel()
	// No background flush during the test: it flushes by hand.
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.KeyTouchInterval = time.Hour }})
	c := env.Signup(t, "Busy Org")
	_, raw1 := mkKey(t, c, map[string]any{"name": "one"})
	_, raw2 := mkKey(t, c, map[string]any{"name": "two"})
	ks := env.Service.Keys()
	ks.FlushTouches(context.Background())
	before := ks.TouchWrites()
	for range 25 {
		withKey(t, env, "X-API-Key", raw1).Do("GET", "/api/servers", nil).Status(http.StatusOK)
		withKey(t, env, "X-API-Key", raw2).Do("GET", "/api/servers", nil).Status(http.StatusOK)
	}
	ks.FlushTouches(context.Background())
	require.Equal(t, before+1, ks.TouchWrites(), "50 uses of two keys of one organization: one write")
	l := c.Do("GET", "/api/keys", nil).Status(http.StatusOK)
	for i := range 2 {
		require.NotNil(t, l.Get(fmt.Sprintf("items.%d.last_used_at", i)))
	}
	ks.FlushTouches(context.Background())
	require.Equal(t, before+1, ks.TouchWrites(), "nothing pending: no write")
}

// TestAPIKeyServers: a server with auth_mode api_key answers its MCP
// endpoint only to keys of its organization, full scope or bound to it;
// everyone else gets HTTP 401 with JSON-RPC error -32001.
func TestAPIKeyServers(t *testing.T) {
	t.Parallel()
	env, a, b := apitest.Rivals(t, "Guarded Org", "Outsider Org")
	guarded := a.Do("POST", "/api/servers", map[string]any{"name": "guarded", "auth_mode": "api_key"}).
		Status(http.StatusCreated).String("id")
	a.Do("PATCH", "/api/servers/"+guarded, map[string]any{"enabled": true}).Status(http.StatusOK)
	other := mkServer(t, a, "other")
	_, fullRaw := mkKey(t, a, map[string]any{"name": "full"})
	_, boundRaw := mkKey(t, a, map[string]any{"name": "bound", "bound_server_id": guarded})
	_, elsewhereRaw := mkKey(t, a, map[string]any{"name": "bound elsewhere", "bound_server_id": other})
	revokedID, revokedRaw := mkKey(t, a, map[string]any{"name": "revoked"})
	a.Do("DELETE", "/api/keys/"+revokedID, nil).Status(http.StatusNoContent)
	_, outsiderRaw := mkKey(t, b, map[string]any{"name": "outsider"})

	ping := map[string]any{"jsonrpc": "2.0", "id": 7, "method": "ping"}
	call := func(t *testing.T, c *apitest.Client) *apitest.Response {
		c.Header.Set("Accept", "application/json, text/event-stream")
		return c.Do("POST", "/api/platform/"+guarded+"/mcp", ping)
	}
	for _, header := range keyHeaders {
		t.Run(header, func(t *testing.T) {
			for _, raw := range []string{fullRaw, boundRaw} {
				r := call(t, withKey(t, env, header, raw))
				require.Equal(t, http.StatusOK, r.Code, "%s", r.Raw)
				require.Contains(t, string(r.Raw), `"result":{}`)
			}
			for name, raw := range map[string]string{
				"bound to another server": elsewhereRaw, "revoked": revokedRaw,
				"another organization's": outsiderRaw, "unknown": "mmcp_" + strings.Repeat("Z", 43),
			} {
				r := call(t, withKey(t, env, header, raw))
				require.Equal(t, http.StatusUnauthorized, r.Code, "%s key: %s", name, r.Raw)
				require.Contains(t, string(r.Raw), `"code":-32001`, "%s key", name)
			}
		})
	}
	r := call(t, env.Anonymous(t))
	require.Equal(t, http.StatusUnauthorized, r.Code)
	require.Contains(t, string(r.Raw), `"code":-32001`)
	r = call(t, a.For(t))
	require.Equal(t, http.StatusUnauthorized, r.Code, "a browser session is not a key")
}

// TestRevocationIsImmediateOnTheRevokingInstance: the instance that answers
// DELETE /api/keys/{id} refuses the key from its very next request, without
// waiting for the change notification, every time.
func TestRevocationIsImmediateOnTheRevokingInstance(t *testing.T) {
	t.Parallel()
	env, owner := apitest.SignedUp(t, "Revoking Org")
	select {
	case <-env.Service.Keys().Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("the key change subscription did not come up")
	}
	for trial := range 10 {
		id, raw := mkKey(t, owner, map[string]any{"name": fmt.Sprintf("trial %d", trial)})
		k := withKey(t, env, "X-API-Key", raw)
		// The key's creation is announced too, and that notification empties
		// the cache when it lands: use the key until its check stays cached.
		require.Eventually(t, func() bool {
			k.Do("GET", "/api/servers", nil).Status(http.StatusOK)
			return env.Service.Keys().Cached() >= 1
		}, 5*time.Second, 10*time.Millisecond, "the check is cached")
		owner.Do("DELETE", "/api/keys/"+id, nil).Status(http.StatusNoContent)
		r := k.Do("GET", "/api/servers", nil)
		require.Equalf(t, http.StatusUnauthorized, r.Code, "trial %d: the revoked key was accepted right after DELETE: %s", trial, r.Raw)
		requireChallenge401(t, r)
	}
}
