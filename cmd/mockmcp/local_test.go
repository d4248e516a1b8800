package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/testdb"
)

// localDesign is a design file whose one tool answers answer.
func localDesign(answer string) string {
	return fmt.Sprintf(`apiVersion: mockmcp/v1
kind: MCPServer
name: Local weather
tools:
  - name: get_forecast
    description: The forecast for a city.
    input_schema:
      type: object
      properties:
        city: { type: string }
      required: [city]
    mock_scenarios:
      - name: any city
        response: { sky: %s }
`, answer)
}

// lines collects a process's standard output line by line.
type lines struct {
	mu  sync.Mutex
	all []string
}

func (l *lines) read(r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		l.mu.Lock()
		l.all = append(l.all, sc.Text())
		l.mu.Unlock()
	}
}

// find returns the first line with prefix.
func (l *lines) find(prefix string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.all {
		if strings.HasPrefix(s, prefix) {
			return s, true
		}
	}
	return "", false
}

// waitFor returns the first line with prefix, failing after 10 seconds.
func (l *lines) waitFor(t *testing.T, prefix string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if s, ok := l.find(prefix); ok {
			return s
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	t.Fatalf("no line %q; stdout: %q", prefix, l.all)
	return ""
}

// TestLocalModeBinary runs `mockmcp serve --designs DIR` as CI would: on a
// fresh database, with no signup and no key, a file's design is served at
// the printed endpoint; an edited file is served within 5 seconds; a
// broken edit is reported by path and field while the last good version
// keeps serving.
func TestLocalModeBinary(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "v0.0.0-local")
	dsn := testdb.New(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "weather.yaml")
	require.NoError(t, os.WriteFile(file, []byte(localDesign("sunny")), 0o644))

	cmd := exec.Command(bin, "serve", "--designs", dir)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LOG_LEVEL=error",
		"DATABASE_URL=" + dsn, "LISTEN_ADDR=" + freeAddr(t), "METRICS_ADDR="}
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = io.Discard
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	out := &lines{}
	go out.read(stdout)

	line := out.waitFor(t, "Local weather  ")
	endpoint := strings.TrimPrefix(line, "Local weather  ")
	require.Regexp(t, `^http://127\.0\.0\.1:\d+/api/platform/[0-9a-f-]{36}/mcp$`, endpoint)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sky := func() string {
		client := mcp.NewClient(&mcp.Implementation{Name: "local-test", Version: "1.0.0"}, nil)
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		require.NoError(t, err)
		defer session.Close()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: map[string]any{"city": "Paris"}})
		require.NoError(t, err)
		require.False(t, res.IsError)
		text := res.Content[0].(*mcp.TextContent).Text
		return text
	}
	require.JSONEq(t, `{"sky":"sunny"}`, sky())

	// An edit is served within 5 seconds, at the same endpoint.
	edited := time.Now()
	require.NoError(t, os.WriteFile(file, []byte(localDesign("rainy")), 0o644))
	require.Eventually(t, func() bool { return strings.Contains(sky(), "rainy") }, 5*time.Second, 50*time.Millisecond)
	t.Logf("edit served after %v", time.Since(edited).Round(time.Millisecond))

	// A broken edit is reported, naming the file and the field, and the last
	// good version keeps serving.
	broken := strings.Replace(localDesign("snowy"), "type: object", "type: string", 1)
	require.NoError(t, os.WriteFile(file, []byte(broken), 0o644))
	out.waitFor(t, file+": tools[0].input_schema: ")
	require.JSONEq(t, `{"sky":"rainy"}`, sky())
}
