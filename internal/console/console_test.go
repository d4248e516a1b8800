package console_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/console"
)

func TestRoutes(t *testing.T) {
	h := console.New()
	for _, tc := range []struct {
		name, method, path string
		status             int
		contentType        string
	}{
		{"the page", http.MethodGet, "/", http.StatusOK, "text/html; charset=utf-8"},
		{"the page's head", http.MethodHead, "/", http.StatusOK, "text/html; charset=utf-8"},
		{"its script", http.MethodGet, "/console/app.js", http.StatusOK, "text/javascript; charset=utf-8"},
		{"its styles", http.MethodGet, "/console/app.css", http.StatusOK, "text/css; charset=utf-8"},
		{"its icon", http.MethodGet, "/console/icon.svg", http.StatusOK, "image/svg+xml"},
		{"a license", http.MethodGet, "/console/LICENSE.preact", http.StatusOK, "text/plain; charset=utf-8"},
		{"the folder", http.MethodGet, "/console/", http.StatusNotFound, "application/problem+json"},
		{"the page by name", http.MethodGet, "/console/index.html", http.StatusNotFound, "application/problem+json"},
		{"no such file", http.MethodGet, "/console/app.ts", http.StatusNotFound, "application/problem+json"},
		{"a write", http.MethodPost, "/console/app.js", http.StatusMethodNotAllowed, "application/problem+json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			require.Equal(t, tc.contentType, rec.Header().Get("Content-Type"))
			if tc.status == http.StatusOK {
				require.Equal(t, console.CSP, rec.Header().Get("Content-Security-Policy"))
				require.NotEmpty(t, rec.Header().Get("ETag"))
			}
		})
	}
}

// TestForBrowsers: a browser's navigation to / gets the page, an API
// client's request the REST API's answer.
func TestForBrowsers(t *testing.T) {
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusNotFound)
	})
	h := console.ForBrowsers(console.New(), api)
	for _, tc := range []struct {
		name, accept string
		status       int
	}{
		{"a browser", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", http.StatusOK},
		{"curl", "*/*", http.StatusNotFound},
		{"a JSON client", "application/json", http.StatusNotFound},
		{"no Accept", "", http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, "/", nil)
			if tc.accept != "" {
				req.Header.Set("Accept", tc.accept)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			require.Equal(t, tc.status, rec.Code)
			require.Equal(t, "Accept", rec.Header().Get("Vary"))
		})
	}
}
