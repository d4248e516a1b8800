package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/credential"
)

// TestCredentialsAreMaskedInRunsAndSessions: every well-known credential
// header, and credential query parameters, reach the target but are stored
// masked in a test run and in a session entry, request and response alike;
// headers that carry none are stored as sent.
func TestCredentialsAreMaskedInRunsAndSessions(t *testing.T) {
	t.Parallel()
	env := rtPrivateEnv(t)
	ada := env.Signup(t, "Masks")
	var got http.Header
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		for _, name := range credential.Headers {
			w.Header().Set(name, "answer-"+name)
		}
		w.Header().Set("X-Request-Id", "resp-1")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	t.Cleanup(target.Close)

	headers := map[string]any{"Accept": "application/json", "X-Request-Id": "req-1"}
	for _, name := range credential.Headers {
		headers[name] = "secret-" + name
	}
	query := map[string]any{"api_key": "secret-q1", "access_token": "secret-q2", "X-Amz-Signature": "secret-q3",
		"sig": "secret-q4", "page": "2"}
	requireMasked := func(t *testing.T, r map[string]any, raw []byte) {
		t.Helper()
		for _, name := range credential.Headers {
			require.Equal(t, "secret-"+name, got.Get(name), "the target gets %s", name)
		}
		req, _ := r["request"].(map[string]any)
		resp, _ := r["response"].(map[string]any)
		reqH, _ := req["headers"].(map[string]any)
		respH, _ := resp["headers"].(map[string]any)
		for _, name := range credential.Headers {
			canon := http.CanonicalHeaderKey(name)
			require.Equal(t, "****", reqH[canon], "request header %s", name)
			require.Equal(t, "****", respH[canon], "response header %s", name)
		}
		require.Equal(t, "application/json", reqH["Accept"])
		require.Equal(t, "req-1", reqH["X-Request-Id"])
		require.Equal(t, "resp-1", respH["X-Request-Id"])
		require.Equal(t, "application/json", respH["Content-Type"])
		require.Equal(t, target.URL+"/x?X-Amz-Signature=%2A%2A%2A%2A&access_token=%2A%2A%2A%2A&api_key=%2A%2A%2A%2A&page=2&sig=%2A%2A%2A%2A",
			req["url"])
		require.NotContains(t, string(raw), "secret-")
		require.NotContains(t, string(raw), "answer-")
	}

	t.Run("test run", func(t *testing.T) {
		ada := ada.For(t)
		id := ada.Do("POST", "/api/tests", map[string]any{"name": "masks", "base_url": target.URL,
			"scopes": []any{map[string]any{"method": "GET", "path": "/x"}},
			"input":  map[string]any{"headers": headers, "query_params": query}}).Status(http.StatusCreated).String("id")
		run := ada.Do("POST", "/api/tests/"+id+"/run", nil).Status(http.StatusCreated)
		result, _ := run.Get("results.0").(map[string]any)
		requireMasked(t, result, run.Raw)
		runs := ada.Do("GET", "/api/tests/"+id+"/runs", nil).Status(http.StatusOK)
		stored, _ := runs.Get("items.0.results.0").(map[string]any)
		requireMasked(t, stored, runs.Raw)
	})

	t.Run("session entry", func(t *testing.T) {
		ada := ada.For(t)
		s := ada.Do("POST", "/api/sessions", map[string]any{"name": "masks", "base_url": target.URL}).
			Status(http.StatusCreated).String("id")
		e := ada.Do("POST", "/api/sessions/"+s+"/requests", map[string]any{"method": "GET", "path": "/x",
			"headers": headers, "query_params": query}).Status(http.StatusCreated)
		entry, _ := e.JSON.(map[string]any)
		requireMasked(t, entry, e.Raw)
		stored := ada.Do("GET", "/api/sessions/"+s, nil).Status(http.StatusOK)
		logged, _ := stored.Get("entries.0").(map[string]any)
		requireMasked(t, logged, stored.Raw)
	})
}
