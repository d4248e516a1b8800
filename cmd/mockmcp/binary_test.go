package main

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/testdb"
)

// buildBinary builds mockmcp, as `make build` does, into a directory of t.
func buildBinary(t *testing.T, version string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mockmcp")
	cmd := exec.Command("go", "build", "-o", bin,
		"-ldflags", "-X github.com/mockmcp/mockmcp/internal/service.Version="+version, ".")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// result is what one run of the binary did.
type result struct {
	stdout, stderr string
	code           int
}

// runBinary runs bin with args and env added to a clean environment, and
// fails the test if it does not end within 30 seconds (a --help that
// serves would not).
func runBinary(t *testing.T, bin string, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LOG_LEVEL=error"}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "mockmcp %v did not end", args)
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return result{stdout.String(), stderr.String(), code}
}

// databaseExists reports whether the database of dsn exists.
func databaseExists(t *testing.T, dsn string) bool {
	t.Helper()
	u, err := url.Parse(dsn)
	require.NoError(t, err)
	conn, err := pgx.Connect(t.Context(), testdb.AdminURL())
	require.NoError(t, err)
	defer conn.Close(t.Context())
	var n int
	require.NoError(t, conn.QueryRow(t.Context(), `SELECT count(*) FROM pg_database WHERE datname = $1`,
		strings.TrimPrefix(u.Path, "/")).Scan(&n))
	return n == 1
}

// commandPaths lists every command of the tree, as argument lists.
func commandPaths() [][]string {
	var paths [][]string
	visit(newRoot(), func(c *cobra.Command) {
		paths = append(paths, strings.Fields(c.CommandPath())[1:])
	})
	return paths
}

// TestBinary runs the built binary as a user would.
func TestBinary(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "v9.8.7-test")

	t.Run("help has no side effects", func(t *testing.T) {
		t.Parallel()
		dsn := testdb.Missing(t)
		env := []string{"DATABASE_URL=" + dsn, "LISTEN_ADDR=" + freeAddr(t), "METRICS_ADDR=",
			envURL + "=http://" + freeAddr(t), envAPIKey + "=mmcp_never_used"}
		paths := commandPaths()
		require.Greater(t, len(paths), 12, "every command: %v", paths)
		for _, path := range paths {
			for _, args := range [][]string{
				append(append([]string{}, path...), "--help"),
				append(append([]string{}, path...), "-h"),
				append([]string{"help"}, path...),
			} {
				r := runBinary(t, bin, env, args...)
				require.Equal(t, exitOK, r.code, "mockmcp %v: %s", args, r.stderr)
				require.Contains(t, r.stdout, "Usage:", "mockmcp %v", args)
				require.Empty(t, r.stderr, "mockmcp %v", args)
			}
		}
		// The bare groups were once run as commands that prepared the
		// database before printing their usage.
		for _, group := range []string{"keys", "import", "test", "servers"} {
			r := runBinary(t, bin, env, group)
			require.Equal(t, exitUsage, r.code, "mockmcp %s: %s", group, r.stderr)
		}
		require.False(t, databaseExists(t, dsn), "a --help created the database")

		// The check above can fail: migrate does create the database.
		r := runBinary(t, bin, env, "migrate")
		require.Equal(t, exitOK, r.code, r.stderr)
		require.True(t, databaseExists(t, dsn))
	})

	t.Run("version", func(t *testing.T) {
		t.Parallel()
		for _, args := range [][]string{{"--version"}, {"version"}} {
			r := runBinary(t, bin, nil, args...)
			require.Equal(t, exitOK, r.code, r.stderr)
			require.Equal(t, "v9.8.7-test\n", r.stdout)
		}
	})

	t.Run("usage errors exit 2", func(t *testing.T) {
		t.Parallel()
		dsn := testdb.Missing(t)
		env := []string{"DATABASE_URL=" + dsn}
		for _, args := range [][]string{
			{"frobnicate"},
			{"--frobnicate"},
			{"serve", "--frobnicate"},
			{"migrate", "--frobnicate"},
			{"keys", "mint"},
			{"keys", "create", "--frobnicate"},
			{"import", "openapi"},
			{"export"},
			{"apply"},
			{"test", "run", "--frobnicate"},
			{"help", "frobnicate"},
		} {
			r := runBinary(t, bin, env, args...)
			require.Equal(t, exitUsage, r.code, "mockmcp %v: %s", args, r.stderr)
			require.Contains(t, r.stderr, "mockmcp: ", "mockmcp %v", args)
			require.Contains(t, r.stderr, "for usage", "mockmcp %v", args)
		}
		require.False(t, databaseExists(t, dsn))
	})

	t.Run("an unreachable service exits 3", func(t *testing.T) {
		t.Parallel()
		design := filepath.Join(t.TempDir(), "weather.yaml")
		require.NoError(t, os.WriteFile(design, []byte("server:\n  name: Weather\n"), 0o644))
		env := []string{envURL + "=http://" + freeAddr(t), envAPIKey + "=mmcp_unused"}
		for _, args := range [][]string{
			{"import", "openapi", "../../internal/oasimport/testdata/petstore-3.0.yaml"},
			{"import", "mcp", "https://mcp.example.com/mcp"},
			{"export", "0b7f9ad4-5f2a-4a8e-9a57-3f0c9a7c1e11"},
			{"apply", "-f", design},
			{"test", "run", "--suite", "smoke"},
		} {
			r := runBinary(t, bin, env, args...)
			require.Equal(t, exitUnreachable, r.code, "mockmcp %v: %s", args, r.stderr)
			require.Contains(t, r.stderr, "connection refused", "mockmcp %v", args)
		}
		// A name that does not resolve.
		r := runBinary(t, bin, []string{envURL + "=http://mockmcp.invalid:8080", envAPIKey + "=mmcp_unused"},
			"export", "0b7f9ad4-5f2a-4a8e-9a57-3f0c9a7c1e11")
		require.Equal(t, exitUnreachable, r.code, r.stderr)
	})

	t.Run("an unreachable database exits 3", func(t *testing.T) {
		t.Parallel()
		env := []string{"DATABASE_URL=postgres://postgres@" + freeAddr(t) + "/mockmcp?sslmode=disable"}
		for _, args := range [][]string{{"migrate"}, {"keys", "create", "--org", "acme", "--name", "ci"}, {"keys", "list", "--org", "acme"}} {
			r := runBinary(t, bin, env, args...)
			require.Equal(t, exitUnreachable, r.code, "mockmcp %v: %s", args, r.stderr)
		}
		r := runBinary(t, bin, env, "serve")
		require.Equal(t, exitUnreachable, r.code, r.stderr)
		requireJSONLines(t, r.stderr)
	})
}
