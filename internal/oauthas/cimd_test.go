package oauthas_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// countedDocument serves a client ID metadata document with the given
// Cache-Control ("" for none) and counts its fetches.
func countedDocument(t testing.TB, cacheControl string) (string, *atomic.Int64) {
	t.Helper()
	var fetches atomic.Int64
	var self string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fetches.Add(1)
		if cacheControl != "" {
			w.Header().Set("Cache-Control", cacheControl)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": self, "client_name": "cached",
			"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "none"})
	}))
	t.Cleanup(srv.Close)
	self = srv.URL + "/client.json"
	return self, &fetches
}

// TestMetadataDocumentsAreCached: a client ID metadata document is
// fetched again only when its caching headers say so, and kept an hour at
// most.
func TestMetadataDocumentsAreCached(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{allowPrivate: true})
	_, challenge := pkce()
	authorize := func(client string) {
		t.Helper()
		status, loc := e.authorize(t, authorizeQuery(client, challenge))
		require.Equal(t, http.StatusFound, status)
		require.NotEmpty(t, loc.Query().Get("code"))
	}
	for _, tc := range []struct {
		cacheControl string
		fresh, stale time.Duration // still cached after fresh; fetched again after stale
	}{
		{"max-age=60", 50 * time.Second, 61 * time.Second},
		{"public, max-age=86400", 59 * time.Minute, 61 * time.Minute}, // capped at an hour
		{"", 4 * time.Minute, 6 * time.Minute},                        // the default
	} {
		t.Run(fmt.Sprintf("%q", tc.cacheControl), func(t *testing.T) {
			client, fetches := countedDocument(t, tc.cacheControl)
			for range 5 {
				authorize(client)
			}
			require.Equal(t, int64(1), fetches.Load())
			e.clock.Advance(tc.fresh)
			authorize(client)
			require.Equal(t, int64(1), fetches.Load())
			e.clock.Advance(tc.stale - tc.fresh)
			authorize(client)
			require.Equal(t, int64(2), fetches.Load())
		})
	}
	for _, cc := range []string{"no-store", "no-cache", "max-age=0"} {
		t.Run(cc, func(t *testing.T) {
			client, fetches := countedDocument(t, cc)
			for range 3 {
				authorize(client)
			}
			require.Equal(t, int64(3), fetches.Load())
		})
	}
}

// TestMetadataErrorsSpeakJSON: registration and metadata document errors
// name the field and what it must be, never Go's types.
func TestMetadataErrorsSpeakJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for body, want := range map[string]string{
		`{"redirect_uris": [1]}`:         "redirect_uris must be an array of strings",
		`{"redirect_uris": "https://x"}`: "redirect_uris must be an array of strings",
		`{"client_name": 3}`:             "client_name must be a string",
		`[1]`:                            "the body must be a JSON object of client metadata",
		`{"client_name": `:               "the body must be a JSON object",
		`{"client_name": "x",}`:          "the body is not valid JSON",
	} {
		resp, err := http.Post(e.issuer()+"/register", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		status, out := decode(t, resp)
		require.Equal(t, http.StatusBadRequest, status, body)
		require.Equal(t, "invalid_client_metadata", out["error"], body)
		desc, _ := out["error_description"].(string)
		require.Contains(t, desc, want, body)
		require.NotContains(t, desc, "Go ", body)
		require.NotContains(t, desc, "json:", body)
	}
}

// TestFormErrorsSpeakPlainly: a form that does not parse is described
// without Go's wording.
func TestFormErrorsSpeakPlainly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, envOptions{})
	for _, body := range []string{"grant_type=%zz", "a=" + strings.Repeat("x", 70<<10)} {
		resp, err := http.Post(e.issuer()+"/token", "application/x-www-form-urlencoded", strings.NewReader(body))
		require.NoError(t, err)
		status, out := decode(t, resp)
		require.Equal(t, http.StatusBadRequest, status)
		desc, _ := out["error_description"].(string)
		require.NotContains(t, desc, "http:", desc)
		require.NotContains(t, desc, "invalid URL escape", desc)
	}
}
