// Package browsertest drives headless Chromium over the DevTools protocol
// for tests that check pages in a real browser.
package browsertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Chromium returns the path of Debian's chromium. Without it the test is
// skipped on a developer's machine (saying what goes unchecked: what);
// under CI (CI=true), which installs it, its absence fails the test.
func Chromium(t *testing.T, what string) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed; under CI it must be (.ci/run installs it)")
	}
	t.Skipf("chromium is not installed (apt-get install chromium): %s", what)
	return ""
}

// Browser is a Chromium driven over the DevTools protocol through the pipe
// of --remote-debugging-pipe: JSON messages ended by a NUL byte, commands
// on the browser's fd 3, answers and events on its fd 4.
type Browser struct {
	w    *os.File
	mu   sync.Mutex
	next int
	// replies awaits the answer to each command by id.
	replies map[int]chan message
	// requests and console are, by session, the URLs the page requested
	// and what it logged.
	requests map[string][]string
	console  map[string][]string
}

type message struct {
	ID        int             `json:"id"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
	Error     json.RawMessage `json:"error"`
	SessionID string          `json:"sessionId"`
}

// Start runs the Chromium at path, headless, until t ends (or ctx).
func Start(t *testing.T, ctx context.Context, path string) *Browser {
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
	b := &Browser{w: cmdW, replies: map[int]chan message{}, requests: map[string][]string{}, console: map[string][]string{}}
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
func (b *Browser) read(r *bufio.Reader) {
	for {
		raw, err := r.ReadBytes(0)
		if err != nil {
			return
		}
		var m message
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

func (b *Browser) send(session, method string, params any) (chan message, error) {
	b.mu.Lock()
	b.next++
	id := b.next
	ch := make(chan message, 1)
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

// Call sends a command (to the tab's session, or to the browser when
// session is empty) and returns its result.
func (b *Browser) Call(t *testing.T, session, method string, params any) json.RawMessage {
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

// OpenTab attaches to a new tab and returns its session.
func (b *Browser) OpenTab(t *testing.T) string {
	t.Helper()
	var target struct {
		TargetID string `json:"targetId"`
	}
	require.NoError(t, json.Unmarshal(b.Call(t, "", "Target.createTarget", map[string]any{"url": "about:blank"}), &target))
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	require.NoError(t, json.Unmarshal(b.Call(t, "", "Target.attachToTarget",
		map[string]any{"targetId": target.TargetID, "flatten": true}), &attached))
	return attached.SessionID
}

// Evaluate runs expression in the session's page and returns its value,
// awaited when it is a promise.
func (b *Browser) Evaluate(t *testing.T, session, expression string) any {
	t.Helper()
	var out struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		ExceptionDetails json.RawMessage `json:"exceptionDetails"`
	}
	params := map[string]any{"expression": expression, "returnByValue": true, "awaitPromise": true}
	require.NoError(t, json.Unmarshal(b.Call(t, session, "Runtime.evaluate", params), &out))
	require.Empty(t, out.ExceptionDetails, "%s: %s", expression, out.ExceptionDetails)
	return out.Result.Value
}

// Seen returns the URLs the tab requested and what it logged, so far.
func (b *Browser) Seen(session string) (requests, console []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.requests[session]), slices.Clone(b.console[session])
}
