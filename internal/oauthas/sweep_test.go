package oauthas_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/oauthas"
	"github.com/mockmcp/mockmcp/internal/store"
)

func (e *env) count(t testing.TB, query string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, e.st.Pool().QueryRow(context.Background(), query, args...).Scan(&n))
	return n
}

// TestSweep: the OAuth sweep deletes expired and long-spent refresh tokens
// and idle clients, under the application role, and keeps the rest; a
// client in use records it, at most once an hour.
func TestSweep(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	idle, _ := e.register(t, "none", "authorization_code", "refresh_token")
	used, _ := e.register(t, "none", "authorization_code", "refresh_token")
	verifier, challenge := pkce()
	status, tok := e.exchange(t, used, e.code(t, used, challenge), verifier)
	require.Equal(t, http.StatusOK, status, tok)
	refresh := tok["refresh_token"].(string)

	pool := e.st.Pool()
	_, err := pool.Exec(ctx, `UPDATE oauth_clients SET last_used_at = now() - interval '31 days' WHERE client_id = $1`, idle)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO oauth_refresh_tokens (token_hash, organization_id, server_id, client_id, subject, expires_at, spent_at)
		SELECT 'old-' || i, $1, $2, $3, 's', CASE WHEN i <= 3 THEN now() - interval '1 minute' ELSE now() + interval '1 day' END,
			CASE WHEN i BETWEEN 4 AND 5 THEN now() - interval '2 days' WHEN i = 6 THEN now() - interval '1 hour' END
		FROM generate_series(1, 6) AS i`, e.design.OrgID, e.design.ServerID, used)
	require.NoError(t, err)

	sw := oauthas.NewSweeper(e.st, slog.New(slog.NewTextHandler(io.Discard, nil)), oauthas.SweeperOptions{ClientIdleTTL: 30 * 24 * time.Hour})
	n, err := sw.Sweep(ctx)
	require.NoError(t, err)
	require.Equal(t, store.OAuthSwept{RefreshTokens: 5, Clients: 1}, n)
	require.Equal(t, 0, e.count(t, `SELECT count(*) FROM oauth_clients WHERE client_id = $1`, idle))
	require.Equal(t, 1, e.count(t, `SELECT count(*) FROM oauth_clients WHERE client_id = $1`, used))
	require.Equal(t, 1, e.count(t, `SELECT count(*) FROM oauth_refresh_tokens WHERE token_hash = 'old-6'`))

	// The live refresh token still works, and using the client records it.
	_, err = pool.Exec(ctx, `UPDATE oauth_clients SET last_used_at = now() - interval '2 hours' WHERE client_id = $1`, used)
	require.NoError(t, err)
	status, tok = postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {used}, "refresh_token": {refresh}})
	require.Equal(t, http.StatusOK, status, tok)
	require.Equal(t, 1, e.count(t, `SELECT count(*) FROM oauth_clients WHERE client_id = $1 AND last_used_at > now() - interval '1 minute'`, used))
}

// TestRefreshLookupIsAnIndexProbe: with many refresh tokens, finding one
// probes the primary key, and issuing one deletes nothing: the token path
// never scans a server's tokens (the sweep prunes them).
func TestRefreshLookupIsAnIndexProbe(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	ctx := context.Background()
	client, _ := e.register(t, "none", "authorization_code", "refresh_token")
	_, err := e.st.Pool().Exec(ctx, `INSERT INTO oauth_refresh_tokens (token_hash, organization_id, server_id, client_id, subject, expires_at, spent_at)
		SELECT md5(i::text), $1, $2, $3, 's', now() + CASE WHEN i % 2 = 0 THEN interval '1 day' ELSE interval '-1 day' END,
			CASE WHEN i % 3 = 0 THEN now() - interval '2 days' END
		FROM generate_series(1, 50000) AS i`, e.design.OrgID, e.design.ServerID, client)
	require.NoError(t, err)
	_, err = e.st.Pool().Exec(ctx, `ANALYZE oauth_refresh_tokens`)
	require.NoError(t, err)

	rows, err := e.st.Pool().Query(ctx, `EXPLAIN UPDATE oauth_refresh_tokens SET spent_at = now()
		WHERE token_hash = $1 AND server_id = $2 AND client_id = $3 AND spent_at IS NULL RETURNING *`,
		"x", e.design.ServerID, client)
	require.NoError(t, err)
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	text := strings.Join(plan, "\n")
	require.Contains(t, text, "Index Scan using oauth_refresh_tokens_pkey", text)
	require.NotContains(t, text, "Seq Scan", text)

	verifier, challenge := pkce()
	status, tok := e.exchange(t, client, e.code(t, client, challenge), verifier)
	require.Equal(t, http.StatusOK, status, tok)
	start := time.Now()
	status, tok = postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {tok["refresh_token"].(string)}})
	require.Equal(t, http.StatusOK, status, tok)
	t.Logf("refresh grant with 50,000 refresh tokens stored: %v", time.Since(start))
	require.Equal(t, 50002, e.count(t, `SELECT count(*) FROM oauth_refresh_tokens`), "issuing deletes nothing")
}
