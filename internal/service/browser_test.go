package service_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/testdb"
	"github.com/mockmcp/mockmcp/openapi"
)

// chromium returns the path of Debian's chromium. Without it the test is
// skipped on a developer's machine; under CI (CI=true), which installs it,
// its absence fails the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; under CI it must be (.ci/run installs it)")
	}
	t.Skip("chromium is not installed (apt-get install chromium): the /docs page is not checked in a browser")
	return ""
}

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
	browser := chromium(t)
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
	b := startBrowser(t, ctx, browser)
	tab := b.openTab(t)
	for _, domain := range []string{"Network", "Runtime", "Log", "Page"} {
		b.call(t, tab, domain+".enable", nil)
	}
	b.call(t, tab, "Page.navigate", map[string]any{"url": base + "/docs"})

	// Swagger UI renders once the document has been fetched.
	const rendered = `document.querySelectorAll(".opblock-summary-operation-id").length`
	var count int
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		count = int(b.evaluate(t, tab, rendered).(float64))
		if count >= len(ids) {
			break
		}
	}
	require.Equal(t, len(ids), count, "each operation once")
	dom := b.evaluate(t, tab, "document.documentElement.outerHTML").(string)
	for _, id := range ids {
		require.Containsf(t, dom, `<span class="opblock-summary-operation-id">`+id+`</span>`, "the page lists %s", id)
	}
	require.Contains(t, dom, "Send JSON-RPC messages to a served design", "summaries are rendered")

	requests, console := b.seen(tab)
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

// devtools is a browser driven over the DevTools protocol through the pipe
// of --remote-debugging-pipe: JSON messages ended by a NUL byte, commands
// on the browser's fd 3, answers and events on its fd 4.
type devtools struct {
	w    *os.File
	mu   sync.Mutex
	next int
	// replies awaits the answer to each command by id.
	replies map[int]chan devtoolsMessage
	// requests and console are, by session, the URLs the page requested
	// and what it logged.
	requests map[string][]string
	console  map[string][]string
}

type devtoolsMessage struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
	Error     json.RawMessage `json:"error"`
	SessionID string          `json:"sessionId"`
}

func startBrowser(t *testing.T, ctx context.Context, path string) *devtools {
	t.Helper()
	cmdR, cmdW, err := os.Pipe() // the browser reads commands
	require.NoError(t, err)
	outR, outW, err := os.Pipe() // the browser writes answers
	require.NoError(t, err)
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, path,
		"--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir="+t.TempDir(),
		"--no-first-run", "--no-default-browser-check", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--disable-extensions", "--disable-default-apps",
		"--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW} // fd 3 and fd 4
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	cmdR.Close()
	outW.Close()
	b := &devtools{w: cmdW, replies: map[int]chan devtoolsMessage{}, requests: map[string][]string{}, console: map[string][]string{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.read(bufio.NewReader(outR))
	}()
	t.Cleanup(func() {
		_, _ = b.send("", "Browser.close", nil)
		cmdW.Close()
		waited := make(chan error, 1)
		go func() { waited <- cmd.Wait() }()
		select {
		case <-waited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-waited
		}
		outR.Close()
		<-done
		if t.Failed() {
			t.Logf("chromium's stderr:\n%s", stderr.String())
		}
	})
	return b
}

// read dispatches the browser's messages until the pipe closes.
func (b *devtools) read(r *bufio.Reader) {
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			return
		}
		var m devtoolsMessage
		if json.Unmarshal(raw[:len(raw)-1], &m) != nil {
			continue
		}
		b.mu.Lock()
		switch m.Method {
		case "":
			if ch, ok := b.replies[m.ID]; ok {
				ch <- m
				delete(b.replies, m.ID)
			}
		case "Network.requestWillBeSent":
			var p struct {
				Request struct {
					URL string `json:"url"`
				} `json:"request"`
			}
			_ = json.Unmarshal(m.Params, &p)
			b.requests[m.SessionID] = append(b.requests[m.SessionID], p.Request.URL)
		case "Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded":
			b.console[m.SessionID] = append(b.console[m.SessionID], m.Method+" "+string(m.Params))
		}
		b.mu.Unlock()
	}
}

func (b *devtools) send(session, method string, params any) (chan devtoolsMessage, error) {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan devtoolsMessage, 1)
	b.replies[id] = ch
	b.mu.Unlock()
	msg := map[string]any{"id": id, "method": method}
	if params != nil {
		msg["params"] = params
	}
	if session != "" {
		msg["sessionId"] = session
	}
	raw, err := json.Marshal(msg)
	if err != nil {
		return nil, err
	}
	_, err = b.w.Write(append(raw, 0))
	return ch, err
}

// call sends a command (to the tab's session, or to the browser when
// session is empty) and returns its result.
func (b *devtools) call(t *testing.T, session, method string, params any) json.RawMessage {
	t.Helper()
	ch, err := b.send(session, method, params)
	require.NoError(t, err, method)
	select {
	case m := <-ch:
		require.Empty(t, m.Error, "%s: %s", method, m.Error)
		return m.Result
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no answer from chromium", method)
		return nil
	}
}

// openTab attaches to a new tab and returns its session.
func (b *devtools) openTab(t *testing.T) string {
	t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	require.NoError(t, json.Unmarshal(b.call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}), &target))
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	require.NoError(t, json.Unmarshal(b.call(t, "", "Target.attachToTarget",
		map[string]any{"targetId": target.TargetID, "flatten": true}), &attached))
	return attached.SessionID
}

// evaluate runs expression in the tab and returns its value.
func (b *devtools) evaluate(t *testing.T, session, expression string) any {
	t.Helper()
	var out struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	require.NoError(t, json.Unmarshal(b.call(t, session, "Runtime.evaluate",
		map[string]any{"expression": expression, "returnByValue": true}), &out))
	require.Empty(t, out.ExceptionDetails, "%s: %s", expression, out.ExceptionDetails)
	return out.Result.Value
}

// seen returns the URLs the tab requested and what it logged, so far.
func (b *devtools) seen(session string) (requests, console []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.requests[session]), slices.Clone(b.console[session])
}
