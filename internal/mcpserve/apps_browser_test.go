package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/browsertest"
)

// hostBridgeEntry is bundled (esbuild) into the host page's script: the
// host side of the MCP Apps SDK, AppBridge and its postMessage transport.
const hostBridgeEntry = `import * as extApps from "@modelcontextprotocol/ext-apps/app-bridge";
window.extApps = extApps;`

// hostPage is a minimal MCP Apps host: it finds the tool linked to a view
// in the design's tools/list, reads the view, calls the tool, renders the
// view in a sandboxed iframe (an opaque origin, as a host's sandbox is)
// with the SDK's AppBridge, hands it the call's input and result, and
// relays the view's tools/call to the design. window.host records what
// happened. ENDPOINT is replaced with the design's endpoint URL (JSON).
const hostPage = `<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>host</title></head>
<body>
<iframe id="view" sandbox="allow-scripts" style="width:600px;height:300px"></iframe>
<script src="/bridge.js"></script>
<script>
const { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, getToolUiResourceUri } = window.extApps;
const endpoint = ENDPOINT;
window.host = { initialized: false, calls: [], errors: [] };
let nextId = 0;
async function rpc(method, params) {
  const r = await fetch(endpoint, { method: "POST",
    headers: { "Content-Type": "application/json", "Accept": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: ++nextId, method, params }) });
  const m = await r.json();
  if (m.error) throw new Error(method + ": " + m.error.message);
  return m.result;
}
async function main() {
  const tool = (await rpc("tools/list", {})).tools.find((t) => getToolUiResourceUri(t));
  const view = (await rpc("resources/read", { uri: getToolUiResourceUri(tool) })).contents[0];
  if (view.mimeType !== RESOURCE_MIME_TYPE) throw new Error("the view is served as " + view.mimeType);
  const args = { city: "Paris" };
  const result = await rpc("tools/call", { name: tool.name, arguments: args });
  const iframe = document.getElementById("view");
  const bridge = new AppBridge(null, { name: "mockmcp-test-host", version: "1.0.0" }, { serverTools: {} },
    { hostContext: { toolInfo: { tool }, theme: "light", displayMode: "inline" } });
  bridge.oncalltool = async (params) => {
    const r = await rpc("tools/call", params);
    window.host.calls.push({ params, result: r });
    return r;
  };
  bridge.oninitialized = async () => {
    window.host.initialized = true;
    await bridge.sendToolInput({ arguments: args });
    await bridge.sendToolResult(result);
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = view.text;
}
main().catch((e) => window.host.errors.push(String(e)));
</script>
</body></html>`

// bundleHostBridge bundles hostBridgeEntry for the browser with the
// esbuild pinned in .ci/apps, from the packages there.
func bundleHostBridge(t *testing.T, dir string) []byte {
	t.Helper()
	esbuild := appPackages.Bin(t, dir, "esbuild", "the host page cannot be built")
	cmd := exec.CommandContext(t.Context(), esbuild, "--bundle", "--format=iife", "--platform=browser", "--log-level=error")
	cmd.Dir = dir // imports resolve from its node_modules
	cmd.Stdin = strings.NewReader(hostBridgeEntry)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "esbuild: %s", stderr.String())
	return out
}

// TestAppRendersInChromium: the example app's view, served by the design,
// runs in headless Chromium inside a host built on the MCP Apps SDK's
// AppBridge: it initializes with the host, shows the result of the call
// that opened it, and a click in the view calls get_forecast through the
// host, whose scripted answer the view then shows.
func TestAppRendersInChromium(t *testing.T) {
	t.Parallel()
	browser := browsertest.Chromium(t, "the example MCP App is not run in a browser")
	_, dir := appPackages.Toolchain(t)
	bundle := bundleHostBridge(t, dir)

	env := apitest.New(t, nil)
	owner := env.Signup(t, "Apps in Chromium")
	endpoint := env.URL + "/api/platform/" + applyDocument(t, owner, appExample) + "/mcp"
	endpointJSON, err := json.Marshal(endpoint)
	require.NoError(t, err)
	page := strings.Replace(hostPage, "ENDPOINT", string(endpointJSON), 1)
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(page))
		case "/bridge.js":
			w.Header().Set("Content-Type", "text/javascript")
			_, _ = w.Write(bundle)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(host.Close)

	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	b := browsertest.Start(t, ctx, browser)
	tab := b.OpenTab(t)
	for _, domain := range []string{"Runtime", "Page"} {
		b.Call(t, tab, domain+".enable", nil)
	}
	b.Call(t, tab, "Page.navigate", map[string]any{"url": host.URL + "/"})

	hostState := func() map[string]any {
		v, _ := b.Evaluate(t, tab, "JSON.parse(JSON.stringify(window.host || {}))").(map[string]any)
		return v
	}
	waitFor(t, "the view to initialize with the host", func() bool {
		s := hostState()
		require.Empty(t, s["errors"], "the host page failed")
		return s["initialized"] == true
	})

	// The view's document is another origin's: it is read through a
	// session of its own.
	view := viewSession(t, b)
	out := func() string {
		s, _ := b.Evaluate(t, view, `document.getElementById("out").textContent`).(string)
		return s
	}
	waitFor(t, "the view to show the tool result the host sent it", func() bool { return out() == "Paris: sunny, 24 °C" })

	b.Evaluate(t, view, `document.getElementById("city").value = "Rome"; document.getElementById("ask").click(); true`)
	waitFor(t, "the view to show the answer to the call it made through the host", func() bool { return out() == "Rome: cloudy, 17 °C" })
	calls, _ := hostState()["calls"].([]any)
	require.Len(t, calls, 1, "the host relayed one tools/call of the view")
	require.Equal(t, map[string]any{"name": "get_forecast", "arguments": map[string]any{"city": "Rome"}},
		calls[0].(map[string]any)["params"])
}

// viewSession attaches to the view's frame, which Chromium runs apart from
// the host page (an opaque origin, isolated from it), and returns its
// session.
func viewSession(t *testing.T, b *browsertest.Browser) string {
	t.Helper()
	var targets struct {
		TargetInfos []struct {
			TargetID string `json:"targetId"`
			Type     string `json:"type"`
		} `json:"targetInfos"`
	}
	var frame string
	waitFor(t, "the view's frame", func() bool {
		require.NoError(t, json.Unmarshal(b.Call(t, "", "Target.getTargets", nil), &targets))
		for _, ti := range targets.TargetInfos {
			if ti.Type == "iframe" {
				frame = ti.TargetID
			}
		}
		return frame != ""
	})
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	require.NoError(t, json.Unmarshal(b.Call(t, "", "Target.attachToTarget",
		map[string]any{"targetId": frame, "flatten": true}), &attached))
	return attached.SessionID
}

// waitFor polls cond for up to 30 seconds, failing the test naming what
// it waited for.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
