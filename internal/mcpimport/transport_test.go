package mcpimport

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An SSE server names the endpoint its messages go to, which may be on
// another origin: the import's headers go to the endpoint's origin only,
// and never replace a header the protocol set.
func TestHeadersGoToTheEndpointOriginOnly(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]http.Header{}
	h := http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen[r.Host+r.URL.Path] = r.Header.Clone()
	})
	endpoint, other := httptest.NewServer(h), httptest.NewServer(h)
	defer endpoint.Close()
	defer other.Close()

	imp := newImporter(Options{URL: endpoint.URL + "/mcp", Client: &http.Client{},
		Headers: map[string]string{"Authorization": "Bearer k", "Content-Type": "text/plain"}})
	imp.ctx = context.Background()
	client := imp.httpClient(&observer{})
	for _, u := range []string{endpoint.URL + "/messages", other.URL + "/messages"} {
		req, err := http.NewRequest(http.MethodPost, u, strings.NewReader("{}"))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
	}
	mu.Lock()
	defer mu.Unlock()
	at := func(srv *httptest.Server) http.Header {
		return seen[strings.TrimPrefix(srv.URL, "http://")+"/messages"]
	}
	assert.Equal(t, "Bearer k", at(endpoint).Get("Authorization"))
	assert.Equal(t, "application/json", at(endpoint).Get("Content-Type"))
	assert.Empty(t, at(other).Get("Authorization"))
}

func TestRedact(t *testing.T) {
	imp := newImporter(Options{Headers: map[string]string{"Authorization": "Bearer s3cr3t-token"}})
	assert.Equal(t, `Post "https://example.com": bad [redacted] and [redacted]`,
		imp.hideSecrets(imp.redact(`Post "https://example.com/mcp?api_key=k1": bad Bearer s3cr3t-token and s3cr3t-token`)))
}
