package service_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/browsertest"
	"github.com/mockmcp/mockmcp/internal/testdb"
	"github.com/mockmcp/mockmcp/openapi"
)

// TestDocsRenderInChromium loads /docs in headless Chromium, driven over
// the DevTools protocol, and requires the rendered page to list every
// operation of the document, every request the page made (as the browser's
// network layer reports them) to go to the service, and the page's console
// to be silent: no refusal by its Content-Security-Policy, no error.
//
// The page's own requests are told apart from the browser's background
// traffic (update checks and the like, which a proxy would see too) by the
// DevTools session of the page's tab.
func TestDocsRenderInChromium(t *testing.T) {
	browser := browsertest.Chromium(t, "the /docs page is not checked in a browser")
	base, _ := boot(t, testdb.New(t))
	service, err := url.Parse(base)
	require.NoError(t, err)

	doc, err := openapi3.NewLoader().LoadFromData(openapi.JSON())
	require.NoError(t, err)
	var ids []string
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			ids = append(ids, op.OperationID)
		}
	}
	require.Greater(t, len(ids), 90)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := browsertest.Start(t, ctx, browser)
	tab := b.OpenTab(t)
	for _, domain := range []string{"Network", "Runtime", "Log", "Page"} {
		b.Call(t, tab, domain+".enable", nil)
	}
	b.Call(t, tab, "Page.navigate", map[string]any{"url": base + "/docs"})

	// Swagger UI renders once the document has been fetched.
	const rendered = `document.querySelectorAll(".opblock-summary-operation-id").length`
	var count int
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		count = int(b.Evaluate(t, tab, rendered).(float64))
		if count >= len(ids) {
			break
		}
	}
	require.Equal(t, len(ids), count, "each operation once")
	dom := b.Evaluate(t, tab, "document.documentElement.outerHTML").(string)
	for _, id := range ids {
		require.Containsf(t, dom, `<span class="opblock-summary-operation-id">`+id+`</span>`, "the page lists %s", id)
	}
	require.Contains(t, dom, "Send JSON-RPC messages to a served design", "summaries are rendered")

	requests, console := b.Seen(tab)
	var paths []string
	for _, raw := range requests {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		if u.Scheme == "data" { // the stylesheet's icons, inline
			continue
		}
		require.Equal(t, service.Host, u.Host, "the page loads nothing from another host: %s", raw)
		paths = append(paths, u.Path)
	}
	for _, want := range []string{"/docs", "/docs/swagger-ui.css", "/docs/swagger-ui-bundle.js", "/docs/init.js", "/api/openapi.json"} {
		require.Contains(t, paths, want, "the page's requests were seen")
	}
	require.Empty(t, console, "the page logs nothing: no refusal by its Content-Security-Policy, no error")
}
