package service_test

import (
	"io"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/docpage"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// fetch GETs url (with the headers given as name, value pairs) and
// requires the status want; it returns the response, its body read.
func fetch(t *testing.T, method, url string, want int, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, want, resp.StatusCode, "%s %s: %s", method, url, body)
	return resp, body
}

func TestServedOpenAPIDocument(t *testing.T) {
	t.Parallel()
	base, _ := boot(t, testdb.New(t))

	resp, body := fetch(t, http.MethodGet, base+"/api/openapi.yaml", http.StatusOK)
	require.Equal(t, "application/yaml", resp.Header.Get("Content-Type"))
	onDisk, err := os.ReadFile("../../openapi/openapi.yaml")
	require.NoError(t, err)
	require.Equal(t, string(onDisk), string(body), "the repository's openapi/openapi.yaml, byte for byte")

	resp, body = fetch(t, http.MethodGet, base+"/api/openapi.json", http.StatusOK)
	require.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	doc, err := openapi3.NewLoader().LoadFromData(body)
	require.NoError(t, err)
	require.Equal(t, "mockmcp", doc.Info.Title)
	for _, path := range []string{"/api/platform/{server_id}/mcp", "/api/platform-mcp/mcp"} {
		item := doc.Paths.Find(path)
		require.NotNil(t, item, "the served document describes %s", path)
		require.NotNil(t, item.Post, path)
		require.Contains(t, item.Post.Responses.Value("200").Value.Content, "text/event-stream", path)
	}
	require.NotNil(t, doc.Paths.Find("/api/servers").Get, "and the REST operations")
}

func TestDocsPage(t *testing.T) {
	t.Parallel()
	base, _ := boot(t, testdb.New(t))

	resp, page := fetch(t, http.MethodGet, base+"/docs", http.StatusOK)
	require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	require.Equal(t, "nosniff", resp.Header.Get("X-Content-Type-Options"))
	require.Equal(t, docpage.CSP, resp.Header.Get("Content-Security-Policy"))
	requireSelfOnlyCSP(t, resp.Header.Get("Content-Security-Policy"))
	require.Contains(t, string(page), `<div id="swagger-ui">`)
	require.Contains(t, string(page), `<script src="docs/swagger-ui-bundle.js">`)

	_, init := fetch(t, http.MethodGet, base+"/docs/init.js", http.StatusOK)
	require.Contains(t, string(init), `"api/openapi.json"`)
	require.Contains(t, string(init), "validatorUrl: null", "no validator badge from another host")
	for name, text := range map[string][]byte{"page": page, "init.js": init} {
		require.NotContains(t, string(text), "http://", "%s names no other host", name)
		require.NotContains(t, string(text), "https://", "%s names no other host", name)
	}

	for name, contentType := range map[string]string{
		"swagger-ui-bundle.js": "text/javascript; charset=utf-8",
		"swagger-ui.css":       "text/css; charset=utf-8",
		"LICENSE.swagger-ui":   "text/plain; charset=utf-8",
	} {
		want, err := os.ReadFile("../../gen/docs/" + name)
		require.NoError(t, err)
		resp, body := fetch(t, http.MethodGet, base+"/docs/"+name, http.StatusOK)
		require.Equal(t, contentType, resp.Header.Get("Content-Type"), name)
		require.Equal(t, len(want), len(body), "%s is the pinned file", name)
		etag := resp.Header.Get("ETag")
		require.NotEmpty(t, etag, name)
		fetch(t, http.MethodGet, base+"/docs/"+name, http.StatusNotModified, "If-None-Match", etag)
	}

	resp, _ = fetch(t, http.MethodGet, base+"/docs/", http.StatusMovedPermanently)
	require.Equal(t, "../docs", resp.Header.Get("Location"))
	fetch(t, http.MethodGet, base+"/docs/swagger-ui-bundle.js.map", http.StatusNotFound)
	fetch(t, http.MethodGet, base+"/docs/page/index.html", http.StatusNotFound)
	resp, body := fetch(t, http.MethodHead, base+"/docs", http.StatusOK)
	require.Empty(t, body)
	require.NotEmpty(t, resp.Header.Get("Content-Security-Policy"))
}

// requireSelfOnlyCSP requires a policy that loads everything from the
// page's own origin only: no other host, no inline script or style, no
// eval, no framing.
func requireSelfOnlyCSP(t *testing.T, csp string) {
	t.Helper()
	directives := map[string][]string{}
	for _, d := range strings.Split(csp, ";") {
		fields := strings.Fields(d)
		require.NotEmpty(t, fields, "an empty directive in %q", csp)
		directives[fields[0]] = fields[1:]
	}
	require.Equal(t, []string{"'none'"}, directives["default-src"], "what is not named is refused")
	require.Equal(t, []string{"'none'"}, directives["frame-ancestors"])
	require.Equal(t, []string{"'self'"}, directives["script-src"])
	require.Equal(t, []string{"'self'"}, directives["style-src"])
	for name, sources := range directives {
		for _, s := range sources {
			ok := s == "'self'" || s == "'none'" || (name == "img-src" && s == "data:")
			require.Truef(t, ok, "%s allows %s", name, s)
		}
	}
}
