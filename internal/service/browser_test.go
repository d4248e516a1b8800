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

	// Swagger UI renders once the document has been fetched. A document of
	// 150 tags and operations or more is rendered as the page scrolls (its
	// list is virtualized), so the page is scrolled to its end, noting each
	// operation shown on the way.
	const shown = `Array.from(document.querySelectorAll(".opblock-summary-operation-id")).map(e => e.textContent)`
	const scroll = `(() => { const before = window.scrollY; window.scrollBy(0, window.innerHeight / 2); ` +
		`return window.scrollY > before; })()`
	seen := map[string]int{}
	var summaries string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && len(seen) < len(ids); time.Sleep(100 * time.Millisecond) {
		on := map[string]int{}
		for _, id := range b.Evaluate(t, tab, shown).([]any) {
			on[id.(string)]++
			seen[id.(string)] = 0
		}
		for id, n := range on {
			require.Equalf(t, 1, n, "the page shows %s once", id)
		}
		if len(on) > 0 {
			summaries += b.Evaluate(t, tab, `Array.from(document.querySelectorAll(".opblock-summary-description")).map(e => e.textContent).join("\n")`).(string)
			b.Evaluate(t, tab, scroll)
		}
	}
	for _, id := range ids {
		require.Containsf(t, seen, id, "the page lists %s", id)
	}
	require.Len(t, seen, len(ids), "the page lists the document's operations and no other")
	require.Contains(t, summaries, "Send JSON-RPC messages to a served design", "summaries are rendered")

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
