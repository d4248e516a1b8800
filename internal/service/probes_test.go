package service_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// probe is the answer of /healthz or /readyz.
type probe struct {
	code   int
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
	body   string
}

func getProbe(t *testing.T, url string) probe {
	t.Helper()
	r := send(t, http.MethodGet, url, "", "")
	p := probe{code: r.status, body: r.body}
	require.NoError(t, json.Unmarshal([]byte(r.body), &p), "body: %s", r.body)
	require.Equal(t, "application/json", r.hdr.Get("Content-Type"))
	return p
}

var allOK = map[string]string{"database": "ok", "migrations": "ok", "listener": "ok"}

// TestReadinessFollowsTheDatabase cuts the service off its database with a
// TCP proxy that closes every live connection and refuses new ones:
// /readyz turns 503 naming the database and the lost listeners, /healthz
// stays 200 throughout, and once the proxy lets connections through again
// /readyz is 200 as soon as the listeners have subscribed again, without a
// restart.
func TestReadinessFollowsTheDatabase(t *testing.T) {
	t.Parallel()
	var proxy *testdb.Proxy
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		proxy, c.DatabaseURL = testdb.NewProxy(t, c.DatabaseURL)
	}})
	live, ready := env.URL+"/healthz", env.URL+"/readyz"

	p := getProbe(t, live)
	require.Equal(t, http.StatusOK, p.code)
	require.JSONEq(t, `{"status":"ok"}`, p.body)
	p = getProbe(t, ready)
	require.Equal(t, http.StatusOK, p.code, p.body)
	require.Equal(t, "ok", p.Status)
	require.Equal(t, allOK, p.Checks)

	proxy.Cut()
	cut := time.Now()
	var down probe
	// The ping fails at once; each listener notices its closed connection
	// when its next read returns, which under load may be a moment later.
	apitest.Eventually(t, "/readyz answers 503 naming the database and every listener once the database is cut", func() bool {
		require.Equal(t, http.StatusOK, getProbe(t, live).code, "/healthz while the database is cut")
		down = getProbe(t, ready)
		return down.code == http.StatusServiceUnavailable &&
			strings.Count(down.Checks["listener"], "disconnected since") == 3
	})
	t.Logf("unready %v after the cut", time.Since(cut))
	require.Equal(t, "unavailable", down.Status, down.body)
	require.Equal(t, "unreachable", down.Checks["database"], down.body)
	require.Contains(t, down.Checks, "migrations")
	require.NotEqual(t, "ok", down.Checks["migrations"], "the schema version cannot be read: %s", down.body)
	require.Regexp(t, `^design changes: disconnected since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ; key changes: disconnected since .*; revoked OAuth tokens: disconnected since `,
		down.Checks["listener"])
	require.NotContains(t, down.body, "127.0.0.1", "addresses stay in the logs")

	// Long enough for the listeners' reconnection backoff to grow.
	for range 10 {
		require.Equal(t, http.StatusOK, getProbe(t, live).code, "/healthz while the database is cut")
		require.Equal(t, http.StatusServiceUnavailable, getProbe(t, ready).code)
		time.Sleep(200 * time.Millisecond)
	}

	proxy.Restore()
	restored := time.Now()
	deadline := restored.Add(10 * time.Second)
	for {
		require.Equal(t, http.StatusOK, getProbe(t, live).code, "/healthz once the database is back")
		p = getProbe(t, ready)
		if p.code == http.StatusOK {
			break
		}
		require.True(t, time.Now().Before(deadline), "/readyz still 503 10s after the database came back: %s", p.body)
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("ready again %v after the database came back", time.Since(restored))
	require.Equal(t, allOK, p.Checks)
	listening, _ := env.Service.MCP().ListenState()
	require.True(t, listening, "the design cache listens again")
}

// TestReadinessRequiresTheMigrations: a database whose schema is behind
// this build's migrations is not ready; one ahead of it is (an instance of
// the previous release keeps serving while a newer one has migrated).
func TestReadinessRequiresTheMigrations(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	pool := env.Service.Store().Pool()
	ctx := context.Background()
	var latest int64
	require.NoError(t, pool.QueryRow(ctx, `SELECT max(version_id) FROM goose_db_version`).Scan(&latest))

	_, err := pool.Exec(ctx, `UPDATE goose_db_version SET version_id = version_id + 1000 WHERE version_id = $1`, latest)
	require.NoError(t, err)
	p := getProbe(t, env.URL+"/readyz")
	require.Equal(t, http.StatusOK, p.code, "a newer schema: %s", p.body)

	_, err = pool.Exec(ctx, `DELETE FROM goose_db_version WHERE version_id = $1`, latest+1000)
	require.NoError(t, err)
	p = getProbe(t, env.URL+"/readyz")
	require.Equal(t, http.StatusServiceUnavailable, p.code, p.body)
	require.Equal(t, "ok", p.Checks["database"])
	require.Equal(t, "ok", p.Checks["listener"])
	require.Regexp(t, `^pending: the database is at version \d+, this build's latest migration is \d+$`, p.Checks["migrations"])
	require.Contains(t, p.Checks["migrations"], "latest migration is "+jsonInt(latest))
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}
