package main

import (
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/testdb"
)

func TestVersionAndUnknownCommand(t *testing.T) {
	require.NoError(t, run([]string{"version"}))
	require.ErrorContains(t, run([]string{"frobnicate"}), `unknown command "frobnicate"`)
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
	require.Equal(t, 6, tables)
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
