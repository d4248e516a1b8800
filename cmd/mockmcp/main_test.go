package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/service"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

func TestVersionAndUnknownCommand(t *testing.T) {
	out, err := runOut(t, "version")
	require.NoError(t, err)
	require.Equal(t, service.Version+"\n", out)
	out, err = runOut(t, "--version")
	require.NoError(t, err)
	require.Equal(t, service.Version+"\n", out)
	// A release build is stamped with its commit and date too; both
	// forms print them.
	defer func(c, d string) { service.Commit, service.Date = c, d }(service.Commit, service.Date)
	service.Commit, service.Date = "0b6f2c1", "2026-11-27T17:31:48Z"
	for _, args := range []string{"version", "--version"} {
		out, err = runOut(t, args)
		require.NoError(t, err)
		require.Equal(t, service.Version+" (commit 0b6f2c1, 2026-11-27T17:31:48Z)\n", out, args)
	}
	service.Commit, service.Date = "", ""

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate" for "mockmcp"`},
		{[]string{"migrat"}, `(did you mean "migrate"?)`},
		{[]string{"--frobnicate"}, "unknown flag: --frobnicate"},
		{[]string{"serve", "--frobnicate"}, "unknown flag: --frobnicate"},
		{[]string{"serve", "extra"}, "takes no arguments"},
		{[]string{"import", "swagger"}, `unknown command "swagger" for "mockmcp import"`},
		{[]string{"help", "frobnicate"}, "unknown command"},
		{[]string{"export"}, "takes one SERVER (a name or an id), got 0 argument(s)"},
		{[]string{"serve", "--listen", ""}, "--listen: want an address"},
		{[]string{"export", uuid.NewString(), "--format", "xml"}, "--format: want yaml or json"},
	} {
		_, err := runOut(t, tc.args...)
		require.ErrorContains(t, err, tc.want, "%v", tc.args)
		require.Equal(t, exitUsage, exitCode(err), "%v: %v", tc.args, err)
	}
}

// TestServeDesigns: --designs overrides MOCKMCP_DESIGNS.
func TestServeDesigns(t *testing.T) {
	t.Setenv("MOCKMCP_DESIGNS", "/from/env")
	cfg, err := serveConfig("")
	require.NoError(t, err)
	require.Equal(t, "/from/env", cfg.Designs)
	cfg, err = serveConfig("./designs")
	require.NoError(t, err)
	require.Equal(t, "./designs", cfg.Designs)
}

// TestExitCodes classifies the errors the commands meet.
func TestExitCodes(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, tc := range []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, exitOK},
		{"a failed suite", suiteFailed{"smoke"}, exitFailed},
		{"a usage error", usagef("--suite is required"), exitUsage},
		{"a wrapped usage error", fmt.Errorf("x: %w", usagef("y")), exitUsage},
		{"connection refused", fmt.Errorf("GET /x: %w", refused), exitUnreachable},
		{"no such host", &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}, exitUnreachable},
		{"the database down behind the API", &apiError{Status: http.StatusServiceUnavailable}, exitUnreachable},
		{"a refusal of the API", &apiError{Status: http.StatusUnprocessableEntity}, exitFailed},
		{"a refusal of the database", &pgconn.PgError{Code: "28P01"}, exitFailed},
		{"a logged error", loggedError{refused}, exitUnreachable},
		{"anything else", errors.New("boom"), exitFailed},
	} {
		require.Equal(t, tc.want, exitCode(tc.err), tc.name)
	}
}

// TestMigrate runs `mockmcp migrate` on a database that does not exist yet.
func TestMigrate(t *testing.T) {
	dsn := testdb.Missing(t)
	t.Setenv("DATABASE_URL", dsn)
	require.NoError(t, run([]string{"migrate"}))

	conn, err := pgx.Connect(t.Context(), dsn)
	require.NoError(t, err)
	defer conn.Close(t.Context())
	var tables int
	require.NoError(t, conn.QueryRow(t.Context(),
		`SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'mcp_%'`).Scan(&tables))
	require.Equal(t, 7, tables)
}

// TestServeStopsOnSIGTERM runs `mockmcp serve` and sends the process
// SIGTERM: serving stops and run returns without error.
func TestServeStopsOnSIGTERM(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	t.Setenv("DATABASE_URL", testdb.New(t))
	t.Setenv("LISTEN_ADDR", addr)
	t.Setenv("METRICS_ADDR", "")
	t.Setenv("LOG_LEVEL", "error")

	done := make(chan error, 1)
	go func() { done <- run([]string{"serve"}) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/api/health")
		if err == nil {
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			break
		}
		require.True(t, time.Now().Before(deadline), "serve did not come up: %v", err)
		time.Sleep(20 * time.Millisecond)
	}
	// run's signal.NotifyContext catches the signal, so the test process lives on.
	require.NoError(t, syscall.Kill(syscall.Getpid(), syscall.SIGTERM))
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop on SIGTERM")
	}
	_, err = http.Get("http://" + addr + "/api/health")
	require.Error(t, err, "nothing listens after shutdown")
}
