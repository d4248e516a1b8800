package oauthas_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/oauthas"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
)

// limiter is an enabled in-memory limiter, as the service makes in every
// mode.
func limiter(t testing.TB) *ratelimit.Limiter {
	t.Helper()
	l, err := ratelimit.New(context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil)), ratelimit.Options{Enabled: true})
	require.NoError(t, err)
	return l
}

func (e *env) clients(t testing.TB) int {
	t.Helper()
	var n int
	require.NoError(t, e.st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM oauth_clients WHERE server_id = $1`, e.design.ServerID).Scan(&n))
	return n
}

// registerPublic registers a public client with a bare request (safe to
// call from any goroutine) and returns the answer's status and
// Retry-After.
func registerPublic(issuer string) (status int, retryAfter string, err error) {
	body := `{"redirect_uris":["` + redirect + `"],"token_endpoint_auth_method":"none"}`
	resp, err := http.Post(issuer+"/register", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), nil
}

// TestRegisterFloodIsLimited is a bounded loopback load test: an
// unauthenticated flood of registrations from one address is refused with
// 429 and Retry-After past the limit, quickly, and leaves the design's
// client table with only the admitted ones.
func TestRegisterFloodIsLimited(t *testing.T) {
	e := newEnv(t, envOptions{limiter: limiter(t), registerLimit: 20, requestLimit: 30})
	const flood, workers = 1000, 16
	var created, refused, other atomic.Int64
	var next atomic.Int64
	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for next.Add(1) <= flood {
				// A failed request has status 0: other.
				status, retryAfter, _ := registerPublic(e.issuer())
				wait, _ := strconv.Atoi(retryAfter)
				switch {
				case status == http.StatusCreated:
					created.Add(1)
				case status == http.StatusTooManyRequests && wait >= 1:
					refused.Add(1)
				default:
					other.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d registrations in %v (%.0f/s): %d created, %d refused", flood, elapsed, flood/elapsed.Seconds(), created.Load(), refused.Load())
	require.Equal(t, int64(20), created.Load())
	require.Equal(t, int64(flood-20), refused.Load())
	require.Zero(t, other.Load())
	require.Equal(t, 20, e.clients(t))
	journaled := 0
	e.journal.mu.Lock()
	for _, x := range e.journal.all {
		if x.Method == "oauth/register" {
			journaled++
		}
	}
	e.journal.mu.Unlock()
	require.Equal(t, 20, journaled, "refused registrations leave the journal alone")
	require.Less(t, elapsed, 30*time.Second)

	// The refusal is an OAuth error; the token, authorization and
	// revocation endpoints share their own limit.
	status, out := postJSON(t, e.issuer()+"/register", map[string]any{"redirect_uris": []string{redirect}})
	require.Equal(t, http.StatusTooManyRequests, status)
	require.Equal(t, "temporarily_unavailable", out["error"])
	require.Contains(t, out["error_description"], "too many requests")
	for i := range 30 {
		status, _ := postForm(t, e.issuer()+"/token", url.Values{"grant_type": {"client_credentials"}})
		require.Equal(t, http.StatusUnauthorized, status, i)
	}
	status, out = postForm(t, e.issuer()+"/revoke", url.Values{"token": {"x"}})
	require.Equal(t, http.StatusTooManyRequests, status)
	require.Equal(t, "temporarily_unavailable", out["error"])
	resp, err := noRedirects.Get(e.issuer() + "/authorize?client_id=x")
	require.NoError(t, err)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusTooManyRequests, resp.StatusCode)
	require.NotEmpty(t, resp.Header.Get("Retry-After"))
	require.True(t, strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html"))
	require.Contains(t, string(page), "too many requests")
}

// TestConcurrentRegistrationsHoldTheCap: registrations racing for the
// last free places of the cap never overshoot it.
func TestConcurrentRegistrationsHoldTheCap(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	const free, racers = 5, 100
	_, err := e.st.Pool().Exec(context.Background(), `INSERT INTO oauth_clients (client_id, organization_id, server_id, auth_method)
		SELECT 'filler-' || i, $1, $2, 'none' FROM generate_series(1, $3::int) AS i`, e.design.OrgID, e.design.ServerID, oauthas.MaxClients-free)
	require.NoError(t, err)
	var created, full atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for range racers {
		wg.Go(func() {
			<-start
			switch status, _, _ := registerPublic(e.issuer()); status {
			case http.StatusCreated:
				created.Add(1)
			case http.StatusBadRequest:
				full.Add(1)
			}
		})
	}
	close(start)
	wg.Wait()
	require.Equal(t, int64(free), created.Load())
	require.Equal(t, int64(racers-free), full.Load())
	require.Equal(t, oauthas.MaxClients, e.clients(t))
}
