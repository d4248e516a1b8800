package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/service"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// boot runs the real service on :0 the way `mockmcp serve` does and returns
// its base URL and a function that stops it and reports Run's result.
func boot(t *testing.T, dsn string) (string, func() error) {
	t.Helper()
	cfg := configFor(t, dsn)
	cfg.ListenAddr, cfg.BcryptCost = "127.0.0.1:0", 4
	cfg.ShutdownTimeout = 5 * time.Second
	svc, err := service.New(context.Background(), cfg, discard())
	require.NoError(t, err)
	require.NoError(t, svc.Listen())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	var once bool
	stop := func() error {
		if once {
			return nil
		}
		once = true
		cancel()
		select {
		case err := <-done:
			_ = svc.Close()
			return err
		case <-time.After(10 * time.Second):
			return context.DeadlineExceeded
		}
	}
	t.Cleanup(func() { _ = stop() })
	return "http://" + svc.Addr(), stop
}

type session struct {
	t    *testing.T
	base string
	http *http.Client
}

func (s *session) call(method, path string, body any, want int) map[string]any {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(s.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	require.NoError(s.t, err)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.http.Do(req)
	require.NoError(s.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(s.t, err)
	require.Equal(s.t, want, resp.StatusCode, "%s %s: %s", method, path, raw)
	require.NotEmpty(s.t, resp.Header.Get("X-Request-Id"))
	var out map[string]any
	if len(raw) > 0 {
		require.NoError(s.t, json.Unmarshal(raw, &out))
	}
	return out
}

// TestReadmeSession walks the README's curl session against the real
// service: sign up, create a server, add a tool with two scenarios, enable
// it, and read it back.
func TestReadmeSession(t *testing.T) {
	t.Parallel()
	base, stop := boot(t, testdb.New(t))
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	s := &session{t: t, base: base, http: &http.Client{Jar: jar}}

	health := s.call("GET", "/api/health", nil, http.StatusOK)
	require.Equal(t, "ok", health["status"])
	require.Equal(t, "ok", health["database"])

	signup := s.call("POST", "/api/auth/signup", map[string]any{
		"email": "ada@example.com", "password": "correct horse battery", "organization_name": "Acme Labs",
	}, http.StatusCreated)
	require.Equal(t, "acme-labs", signup["organization"].(map[string]any)["slug"])

	server := s.call("POST", "/api/servers", map[string]any{
		"name": "Weather", "description": "Forecasts for agents under test", "version": "1.2.0",
	}, http.StatusCreated)
	id := server["id"].(string)
	require.Equal(t, false, server["enabled"])
	require.Equal(t, base+"/api/platform/"+id+"/mcp", server["endpoint_url"])

	tool := s.call("POST", "/api/servers/"+id+"/tools", map[string]any{
		"name":        "get_forecast",
		"description": "Returns the forecast for a city.",
		"input_schema": map[string]any{
			"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}},
			"required": []string{"city"},
		},
		"mock_scenarios": []map[string]any{
			{"name": "atlantis", "condition": map[string]any{"city": "Atlantis"}, "response": map[string]any{"error": "city under water"}},
			{"name": "default", "condition": map[string]any{}, "response": map[string]any{"forecast": "sunny", "temp_c": 21}},
		},
	}, http.StatusCreated)
	scenarios := tool["mock_scenarios"].([]any)
	require.Len(t, scenarios, 2)
	require.Equal(t, "atlantis", scenarios[0].(map[string]any)["name"])

	enabled := s.call("PATCH", "/api/servers/"+id, map[string]any{"enabled": true}, http.StatusOK)
	require.Equal(t, true, enabled["enabled"])

	got := s.call("GET", "/api/servers/"+id, nil, http.StatusOK)
	require.Equal(t, true, got["enabled"])
	require.Equal(t, "1.2.0", got["version"])
	tools := s.call("GET", "/api/servers/"+id+"/tools", nil, http.StatusOK)
	require.Len(t, tools["items"].([]any), 1)

	require.NoError(t, stop())
	_, err = http.Get(base + "/api/health")
	require.Error(t, err, "the listener is closed after shutdown")
}

// TestShutdownFinishesInFlight checks that a request already being served
// when shutdown starts is answered, not cut off.
func TestShutdownFinishesInFlight(t *testing.T) {
	base, stop := boot(t, testdb.New(t))
	// A request whose body arrives slowly is in flight while shutdown begins.
	pr, pw := io.Pipe()
	req, err := http.NewRequest("POST", base+"/api/auth/login", pr)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	result := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			result <- -1
			return
		}
		resp.Body.Close()
		result <- resp.StatusCode
	}()
	_, err = pw.Write([]byte(`{"email":"nobody@example.com",`))
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond)
	stopped := make(chan error, 1)
	go func() { stopped <- stop() }()
	time.Sleep(100 * time.Millisecond)
	_, err = pw.Write([]byte(`"password":"wrong password"}`))
	require.NoError(t, err)
	require.NoError(t, pw.Close())
	require.Equal(t, http.StatusUnauthorized, <-result, "the in-flight request is answered")
	require.NoError(t, <-stopped)
}

// TestConcurrentStart starts several instances on one empty database at
// once: goose's advisory lock lets one migrate while the others wait.
func TestConcurrentStart(t *testing.T) {
	dsn := testdb.Empty(t)
	cfg := configFor(t, dsn)
	errs := make(chan error, 4)
	for range 4 {
		go func() { errs <- service.Prepare(context.Background(), cfg, discard()) }()
	}
	for range 4 {
		require.NoError(t, <-errs)
	}
	requireHealthy(t, dsn)
}

// TestPrepareCreatesDatabase is what `make run` relies on for a fresh
// machine: a database that does not exist yet is created and migrated.
func TestPrepareCreatesDatabase(t *testing.T) {
	t.Parallel()
	dsn := testdb.Missing(t)
	require.NoError(t, service.Prepare(context.Background(), configFor(t, dsn), discard()))
	requireHealthy(t, dsn)
}

// configFor is the default configuration with the database at dsn.
func configFor(t *testing.T, dsn string) config.Config {
	t.Helper()
	cfg, err := config.Parse(func(string) string { return "" })
	require.NoError(t, err)
	cfg.DatabaseURL = dsn
	cfg.MetricsAddr = ""
	return cfg
}

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// requireHealthy boots the service on the database at dsn and requires its
// health check to answer 200.
func requireHealthy(t *testing.T, dsn string) {
	t.Helper()
	base, _ := boot(t, dsn)
	resp, err := http.Get(base + "/api/health")
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
}

// TestCloseWritesQueuedAuditRecords: records still queued when the service
// is shut down are written before the database pool closes.
func TestCloseWritesQueuedAuditRecords(t *testing.T) {
	dsn := testdb.New(t)
	cfg := configFor(t, dsn)
	cfg.ListenAddr = "127.0.0.1:0"
	svc, err := service.New(context.Background(), cfg, discard())
	require.NoError(t, err)
	const n = 1500 // three batches
	for range n {
		require.True(t, svc.Audit().Record(store.AuditRecord{Route: "spec", Status: 200, ReceivedAt: time.Now()}))
	}
	require.NoError(t, svc.Close())

	conn, err := pgx.Connect(context.Background(), dsn)
	require.NoError(t, err)
	defer conn.Close(context.Background())
	var rows int
	require.NoError(t, conn.QueryRow(context.Background(), `SELECT count(*) FROM policy_api_audit`).Scan(&rows))
	require.Equal(t, n, rows)
}
