package docpage_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/docpage"
)

func TestRoutes(t *testing.T) {
	h := docpage.New()
	for _, tc := range []struct {
		name, method, path string
		status             int
		contentType        string
	}{
		{"the page", http.MethodGet, "/docs", http.StatusOK, "text/html; charset=utf-8"},
		{"the page's head", http.MethodHead, "/docs", http.StatusOK, "text/html; charset=utf-8"},
		{"its script", http.MethodGet, "/docs/init.js", http.StatusOK, "text/javascript; charset=utf-8"},
		{"the viewer", http.MethodGet, "/docs/swagger-ui-bundle.js", http.StatusOK, "text/javascript; charset=utf-8"},
		{"the viewer's styles", http.MethodGet, "/docs/swagger-ui.css", http.StatusOK, "text/css; charset=utf-8"},
		{"the viewer's license", http.MethodGet, "/docs/LICENSE.swagger-ui", http.StatusOK, "text/plain; charset=utf-8"},
		{"a trailing slash", http.MethodGet, "/docs/", http.StatusMovedPermanently, ""},
		{"no such file", http.MethodGet, "/docs/index.html", http.StatusNotFound, "application/problem+json"},
		{"the embedded folder", http.MethodGet, "/docs/page/init.js", http.StatusNotFound, "application/problem+json"},
		{"a name glued to the path", http.MethodGet, "/docsinit.js", http.StatusNotFound, "application/problem+json"},
		{"another path", http.MethodGet, "/api/docs", http.StatusNotFound, "application/problem+json"},
		{"a write", http.MethodPost, "/docs", http.StatusMethodNotAllowed, "application/problem+json"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(tc.method, tc.path, nil))
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			require.Equal(t, tc.contentType, rec.Header().Get("Content-Type"))
			if tc.status == http.StatusOK {
				require.Equal(t, docpage.CSP, rec.Header().Get("Content-Security-Policy"))
				require.Equal(t, "no-cache", rec.Header().Get("Cache-Control"))
				require.NotEmpty(t, rec.Header().Get("ETag"))
			}
		})
	}
}

func TestRevalidation(t *testing.T) {
	h := docpage.New()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/docs/swagger-ui.css", nil))
	etag := rec.Header().Get("ETag")
	require.Greater(t, rec.Body.Len(), 100_000)

	req := httptest.NewRequest(http.MethodGet, "/docs/swagger-ui.css", nil)
	req.Header.Set("If-None-Match", etag)
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusNotModified, rec.Code)
	require.Zero(t, rec.Body.Len())

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/docs/swagger-ui-bundle.js", nil))
	require.NotEqual(t, etag, rec.Header().Get("ETag"), "each file has its own tag")
}
