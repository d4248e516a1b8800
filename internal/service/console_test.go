package service_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/browsertest"
	"github.com/mockmcp/mockmcp/internal/console"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// consoleDesign is the document the test types into the console's editor.
const consoleDesign = `apiVersion: mockmcp/v1
kind: MCPServer
name: Console Weather
description: Forecasts for agents under test.
version: 1.0.0
tools:
  - name: get_forecast
    description: The forecast for a city.
    input_schema:
      type: object
      properties:
        city: { type: string }
    mock_scenarios:
      - name: paris
        condition: { city: Paris }
        response: { city: Paris, temperature_c: 18 }
      - name: fallback
        response: { conditions: unknown }
`

// brokenDesign has two mistakes: an input schema that is not an object
// (line 9) and a regular expression that does not compile (line 18).
const brokenDesign = `apiVersion: mockmcp/v1
kind: MCPServer
name: Console Weather
version: 1.0.0
tools:
  - name: get_forecast
    description: The forecast for a city.

    input_schema: { type: string }
    mock_scenarios:
      - name: paris
        condition: { city: Paris }
        response: { city: Paris }
      - name: other
        # a condition whose pattern is cut short
        condition:
          field: city
          value: "("
          operator: matches
        response: {}
`

// brokenJSONDesign is brokenDesign's first mistake in JSON, at line 9.
const brokenJSONDesign = `{
  "apiVersion": "mockmcp/v1",
  "kind": "MCPServer",
  "name": "Console Weather",
  "tools": [
    {"name": "lookup", "input_schema": {"type": "object"}},
    {
      "name": "get_forecast",
      "input_schema": {"type": "string"}
    }
  ]
}
`

// screenshotDir is where the console test writes its screenshots:
// $MOCKMCP_SCREENSHOTS, else a folder of the system's temporary directory.
// The screenshots of an earlier run are removed first.
func screenshotDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MOCKMCP_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "mockmcp-console-screenshots")
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	old, err := filepath.Glob(filepath.Join(dir, "[0-9][0-9]-*-[0-9]*.png"))
	require.NoError(t, err)
	for _, f := range old {
		require.NoError(t, os.Remove(f))
	}
	return dir
}

// page drives one tab of the console.
type page struct {
	t    *testing.T
	b    *browsertest.Browser
	tab  string
	dir  string
	shot int
}

// eval runs expression in the page and returns its value.
func (p *page) eval(expression string) any {
	p.t.Helper()
	return p.b.Evaluate(p.t, p.tab, expression)
}

// waitFor polls expression until it is truthy, and returns its value.
func (p *page) waitFor(what, expression string, timeout time.Duration) any {
	p.t.Helper()
	for deadline := time.Now().Add(timeout); ; time.Sleep(50 * time.Millisecond) {
		v := p.eval(expression)
		if v != nil && v != false && v != "" && v != float64(0) {
			return v
		}
		if time.Now().After(deadline) {
			dom := p.eval(`document.querySelector("main") ? document.querySelector("main").innerText : document.body.innerText`)
			p.t.Fatalf("%s: not seen within %s; the page shows:\n%v", what, timeout, dom)
		}
	}
}

// fill sets an input's value as typing does (an input event).
func (p *page) fill(selector, value string) {
	p.t.Helper()
	sel, _ := json.Marshal(selector)
	val, _ := json.Marshal(value)
	p.eval(fmt.Sprintf(`(() => { const el = document.querySelector(%s); el.value = %s;
		el.dispatchEvent(new Event("input", {bubbles: true})); el.dispatchEvent(new Event("change", {bubbles: true})); })()`, sel, val))
}

func (p *page) click(selector string) {
	p.t.Helper()
	sel, _ := json.Marshal(selector)
	p.eval(fmt.Sprintf(`document.querySelector(%s).click()`, sel))
}

func (p *page) text(selector string) string {
	p.t.Helper()
	sel, _ := json.Marshal(selector)
	v, _ := p.eval(fmt.Sprintf(`(document.querySelector(%s) || {}).innerText || ""`, sel)).(string)
	return v
}

// screenshots saves the page at 1280×800 and at a phone's 390×844.
func (p *page) screenshots(name string) {
	p.t.Helper()
	p.shot++
	for _, size := range []struct {
		width, height int
		mobile        bool
	}{{390, 844, true}, {1280, 800, false}} {
		p.b.Call(p.t, p.tab, "Emulation.setDeviceMetricsOverride", map[string]any{
			"width": size.width, "height": size.height, "deviceScaleFactor": 1, "mobile": size.mobile})
		// A page laid out for the width (the next frame) is the one shot.
		p.eval(`new Promise((ok) => requestAnimationFrame(() => requestAnimationFrame(ok)))`)
		overflow := p.eval(`document.documentElement.scrollWidth - document.documentElement.clientWidth`).(float64)
		require.LessOrEqualf(p.t, overflow, 0.0, "%s at %d px: the page scrolls sideways", name, size.width)
		var shot struct {
			Data string `json:"data"`
		}
		require.NoError(p.t, json.Unmarshal(p.b.Call(p.t, p.tab, "Page.captureScreenshot", map[string]any{"format": "png"}), &shot))
		png, err := base64.StdEncoding.DecodeString(shot.Data)
		require.NoError(p.t, err)
		file := filepath.Join(p.dir, fmt.Sprintf("%02d-%s-%d.png", p.shot, name, size.width))
		require.NoError(p.t, os.WriteFile(file, png, 0o644))
	}
}

// TestConsoleInChromium uses the console at / as a tester would, in
// headless Chromium: signs up, creates a design from YAML (after a broken
// document whose errors are marked at their lines), enables it, calls its
// tool with the official MCP Go SDK client, sees the call in the journal
// with its matched scenario within 2 s, and verifies it. Every request
// of the page goes to the service, and its console stays silent but for
// the failed requests the steps provoke (the 401 of /api/me before sign
// up, the 422 of the broken document). A screenshot of each page, at two
// widths, is written to screenshotDir.
func TestConsoleInChromium(t *testing.T) {
	browser := browsertest.Chromium(t, "the console at / is not checked in a browser")
	base, _ := boot(t, testdb.New(t))
	service, err := url.Parse(base)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := browsertest.Start(t, ctx, browser)
	p := &page{t: t, b: b, tab: b.OpenTab(t), dir: screenshotDir(t)}
	t.Logf("screenshots of the console: %s", p.dir)
	for _, domain := range []string{"Network", "Runtime", "Log", "Page"} {
		b.Call(t, p.tab, domain+".enable", nil)
	}
	b.Call(t, p.tab, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": false})
	b.Call(t, p.tab, "Page.navigate", map[string]any{"url": base + "/"})

	// Sign up.
	p.waitFor("the sign-in form", `document.querySelector("#tab-signup")`, 15*time.Second)
	p.screenshots("sign-in")
	p.click("#tab-signup")
	p.waitFor("the sign-up form", `document.querySelector("#organization")`, 5*time.Second)
	p.fill("#email", "ada@example.com")
	p.fill("#password", "correct horse battery")
	p.fill("#organization", "Acme Labs")
	p.click("#auth-submit")
	p.waitFor("the designs page", `document.querySelector("#designs-title")`, 10*time.Second)
	require.Contains(t, p.text(".who"), "ada@example.com")
	require.Equal(t, "Acme Labs", p.eval(`document.querySelector("#org").selectedOptions[0].textContent`))

	// A broken document: each error is marked at its line.
	p.eval(`location.hash = "#/new"`)
	p.waitFor("the editor", `document.querySelector("#document")`, 5*time.Second)
	p.fill("#document", brokenDesign)
	p.click("#apply")
	p.waitFor("the errors", `document.querySelectorAll("#errors li").length >= 2`, 10*time.Second)
	lines := p.eval(`[...document.querySelectorAll("#errors li")].map((li) => li.dataset.line + " " + li.innerText)`).([]any)
	require.Len(t, lines, 2, "%v", lines)
	require.Regexp(t, `^9 line 9\s*tools\[0\]\.input_schema`, lines[0])
	require.Regexp(t, `^18 line 18\s*tools\[0\]\.mock_scenarios\[1\]\.condition\.value`, lines[1])
	require.Equal(t, []any{"9", "18"}, p.eval(`[...document.querySelectorAll(".gutter .bad")].map((d) => d.dataset.line)`))
	p.click("#errors li button")
	require.Equal(t, "    input_schema: { type: string }",
		p.eval(`(() => { const a = document.querySelector("#document"); return a.value.slice(a.selectionStart, a.selectionEnd); })()`),
		"the error's line is selected in the editor")
	p.screenshots("editor-errors")
	p.fill("#document", brokenJSONDesign)
	p.click("#dry-run")
	p.waitFor("the JSON document's error", `document.querySelector("#errors li") && document.querySelector("#errors li").innerText.includes("tools[1]")`, 10*time.Second)
	require.Equal(t, []any{"9"}, p.eval(`[...document.querySelectorAll(".gutter .bad")].map((d) => d.dataset.line)`))

	// The plan of a dry run, then the design applied.
	p.fill("#document", consoleDesign)
	p.click("#dry-run")
	p.waitFor("the plan", `document.querySelector("#plan") && document.querySelector("#plan").innerText.includes("dry run")`, 10*time.Second)
	require.NotContains(t, p.text("#errors"), "line")
	plan := p.text("#plan")
	require.Contains(t, plan, "Console Weather")
	require.Contains(t, plan, "get_forecast")
	require.Contains(t, plan, "created")
	p.screenshots("dry-run-plan")
	p.click("#apply")
	p.waitFor("the applied design", `document.querySelector("#plan a")`, 10*time.Second)
	href := p.eval(`document.querySelector("#plan a").getAttribute("href")`).(string)
	serverID := strings.TrimPrefix(href, "#/designs/")
	require.Len(t, serverID, 36, href)

	// The list: the endpoint URL, and the design enabled.
	p.eval(`location.hash = "#/designs"`)
	card := fmt.Sprintf(`document.querySelector('.design[data-id=%q]')`, serverID)
	p.waitFor("the design in the list", card, 5*time.Second)
	endpoint := base + "/api/platform/" + serverID + "/mcp"
	require.Equal(t, endpoint, p.eval(card+`.querySelector(".url").innerText`))
	require.Equal(t, "draft", p.eval(card+`.querySelector(".badge").innerText`))
	p.eval(card + `.querySelector(".toggle").click()`)
	p.waitFor("the design enabled", card+`.querySelector(".badge").innerText === "enabled"`, 5*time.Second)
	p.screenshots("designs")

	// The journal, open while the official SDK client calls the tool.
	p.eval(fmt.Sprintf(`location.hash = "#/designs/%s/journal"`, serverID))
	p.waitFor("the empty journal", `document.querySelector("#journal") && document.querySelector("#journal").innerText.includes("No call")`, 5*time.Second)
	client := mcp.NewClient(&mcp.Implementation{Name: "console-test", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: http.DefaultClient}, nil)
	require.NoError(t, err)
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: map[string]any{"city": "Paris"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	called := time.Now()
	p.waitFor("the call in the journal", `[...document.querySelectorAll("#journal .entry")].some((e) => e.querySelector(".method").innerText === "get_forecast")`, 2*time.Second)
	t.Logf("the call was in the journal %s after its answer", time.Since(called).Round(time.Millisecond))
	entry := `[...document.querySelectorAll("#journal .entry")].find((e) => e.querySelector(".method").innerText === "get_forecast")`
	require.Equal(t, "paris", p.eval(entry+`.querySelector(".scenario").innerText`))
	require.Equal(t, "result", p.eval(entry+`.querySelector(".badge").innerText`))
	p.eval(entry + `.querySelector("summary").click()`)
	details := p.eval(entry + `.innerText`).(string)
	require.Contains(t, details, `"city": "Paris"`, "the arguments")
	require.Contains(t, details, "temperature_c", "the answer")

	// Filters: no call of the tool missed.
	p.fill("#filter-outcome", "no_match")
	p.waitFor("the filtered journal", `document.querySelector("#journal").innerText.includes("No call")`, 3*time.Second)
	p.fill("#filter-outcome", "")
	p.waitFor("the journal again", entry, 3*time.Second)
	p.eval(entry + `.querySelector("summary").click()`)

	// Verify: once for Paris, and not for London.
	p.fill("#verify-arguments", `{"city": "Paris"}`)
	p.fill("#verify-times", "1")
	p.click("#verify-submit")
	p.waitFor("the verification", `document.querySelector("#verify-result")`, 5*time.Second)
	require.Contains(t, p.text("#verify-result"), "✓ verified")
	p.screenshots("journal-verify")
	dark := func(on bool) {
		scheme := "light"
		if on {
			scheme = "dark"
		}
		b.Call(t, p.tab, "Emulation.setEmulatedMedia", map[string]any{
			"features": []map[string]string{{"name": "prefers-color-scheme", "value": scheme}}})
	}
	dark(true)
	require.Equal(t, "rgb(21, 22, 26)", p.eval(`getComputedStyle(document.body).backgroundColor`), "the dark scheme")
	p.screenshots("journal-dark")
	dark(false)
	p.fill("#verify-arguments", `{"city": "London"}`)
	p.click("#verify-submit")
	p.waitFor("the failed verification", `document.querySelector("#verify-result") && document.querySelector("#verify-result").innerText.includes("not verified")`, 5*time.Second)

	// The other pages of a design, and the agent cards.
	for _, view := range []struct{ hash, ready, name string }{
		{"#/designs/" + serverID, `document.querySelector("#design-title")`, "design"},
		{"#/designs/" + serverID + "/tasks", `document.querySelector("#tasks") && document.querySelector("#tasks").innerText.includes("No task")`, "tasks"},
		{"#/designs/" + serverID + "/state", `document.querySelector("#state pre") && document.querySelector("#state pre").innerText.startsWith("{")`, "state"},
		{"#/designs/" + serverID + "/oauth", `document.querySelector("#oauth-clients") && document.querySelector("#oauth-clients").innerText.includes("No client registered")`, "oauth"},
		{"#/designs/" + serverID + "/edit", `document.querySelector("#document") && document.querySelector("#document").value.includes("get_forecast")`, "edit"},
		{"#/cards", `document.querySelector("#cards-title") && !document.querySelector("main").innerText.includes("Loading")`, "agent-cards"},
	} {
		p.eval(fmt.Sprintf(`location.hash = %q`, view.hash))
		p.waitFor(view.name, view.ready, 5*time.Second)
		p.screenshots(view.name)
	}

	// A new organization, switched to, then back.
	p.fill("#org", "+")
	p.waitFor("the new organization's form", `document.querySelector("#new-org-name")`, 5*time.Second)
	p.fill("#new-org-name", "Beta Team")
	p.click("#new-org button")
	p.waitFor("the new organization's designs", `document.querySelector("#designs-title") && document.querySelector("main").innerText.includes("No design yet")`, 5*time.Second)
	require.Equal(t, "Beta Team", p.eval(`document.querySelector("#org").selectedOptions[0].textContent`))
	acme := p.eval(`[...document.querySelectorAll("#org option")].find((o) => o.textContent === "Acme Labs").value`).(string)
	p.fill("#org", acme)
	p.waitFor("Acme Labs' designs again", card, 5*time.Second)

	// Signed out, then in again.
	p.click(".who button")
	p.waitFor("the sign-in form again", `document.querySelector("#tab-signin")`, 5*time.Second)
	p.fill("#email", "ada@example.com")
	p.fill("#password", "correct horse battery")
	p.click("#auth-submit")
	p.waitFor("the designs after signing in", card, 10*time.Second)

	requests, console := b.Seen(p.tab)
	for _, raw := range requests {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		require.Equal(t, service.Host, u.Host, "the console loads nothing from another host: %s", raw)
	}
	var unexpected []string
	for _, line := range console {
		// Chromium logs each answer of 4xx as a network error; the two the
		// steps provoke are expected.
		if strings.HasPrefix(line, "Log.entryAdded ") {
			var e struct {
				Entry struct {
					Source, URL, Text string
				} `json:"entry"`
			}
			require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(line, "Log.entryAdded ")), &e))
			if e.Entry.Source == "network" &&
				(e.Entry.URL == base+"/api/me" && strings.Contains(e.Entry.Text, "status of 401") ||
					strings.HasPrefix(e.Entry.URL, base+"/api/servers/apply?") && strings.Contains(e.Entry.Text, "status of 422")) {
				continue
			}
		}
		unexpected = append(unexpected, line)
	}
	require.Empty(t, unexpected, "the console logs nothing: no refusal by its Content-Security-Policy, no error")
}

// TestConsolePage: a browser's GET / gets the console, with the self-only
// policy of /docs; an API client's GET / still gets the REST API's 404;
// the page's files are the built ones of gen/console.
func TestConsolePage(t *testing.T) {
	t.Parallel()
	base, _ := boot(t, testdb.New(t))

	accept := "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
	resp, page := fetch(t, http.MethodGet, base+"/", http.StatusOK, "Accept", accept)
	require.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	require.Equal(t, console.CSP, resp.Header.Get("Content-Security-Policy"))
	requireSelfOnlyCSP(t, resp.Header.Get("Content-Security-Policy"))
	require.Contains(t, resp.Header.Values("Vary"), "Accept")
	require.Contains(t, string(page), `<script src="console/app.js" defer></script>`)
	require.NotContains(t, string(page), "http://", "the page names no other host")
	require.NotContains(t, string(page), "https://", "the page names no other host")
	fetch(t, http.MethodHead, base+"/", http.StatusOK, "Accept", accept)

	for _, a := range []string{"", "*/*", "application/json"} {
		resp, body := fetch(t, http.MethodGet, base+"/", http.StatusNotFound, "Accept", a)
		require.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"), "Accept: %s", a)
		require.Contains(t, string(body), `"status":404`)
	}
	fetch(t, http.MethodPost, base+"/", http.StatusNotFound, "Accept", accept)

	for name, contentType := range map[string]string{
		"app.js":         "text/javascript; charset=utf-8",
		"app.css":        "text/css; charset=utf-8",
		"icon.svg":       "image/svg+xml",
		"LICENSE.preact": "text/plain; charset=utf-8",
	} {
		want, err := os.ReadFile("../../gen/console/" + name)
		require.NoError(t, err)
		resp, body := fetch(t, http.MethodGet, base+"/console/"+name, http.StatusOK)
		require.Equal(t, contentType, resp.Header.Get("Content-Type"), name)
		require.Equal(t, want, body, "%s is the built file", name)
		etag := resp.Header.Get("ETag")
		require.NotEmpty(t, etag, name)
		fetch(t, http.MethodGet, base+"/console/"+name, http.StatusNotModified, "If-None-Match", etag)
	}
	fetch(t, http.MethodGet, base+"/console/index.html", http.StatusNotFound)
	fetch(t, http.MethodGet, base+"/console/console.go", http.StatusNotFound)
}
