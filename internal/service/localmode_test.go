package service_test

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/localmode"
	"github.com/mockmcp/mockmcp/internal/service"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// lockedBuffer is local mode's output, written by the service and read by
// the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Split(strings.TrimSuffix(b.buf.String(), "\n"), "\n")
}

func TestLocalMode(t *testing.T) {
	dsn := testdb.New(t)
	dir := t.TempDir()
	// Documents no apply accepts: their reports do not depend on what a
	// valid design looks like.
	first := filepath.Join(dir, "a-broken.yaml")
	second := filepath.Join(dir, "b-broken.json")
	require.NoError(t, os.WriteFile(first, []byte("tools: [\n"), 0o644))
	require.NoError(t, os.WriteFile(second, []byte("{"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), []byte("not a design"), 0o644))

	cfg := configFor(t, dsn)
	cfg.ListenAddr, cfg.ShutdownTimeout, cfg.Designs = "127.0.0.1:0", 5*time.Second, dir
	svc, err := service.New(context.Background(), cfg, discard())
	require.NoError(t, err)
	out := &lockedBuffer{}
	svc.SetOutput(out)
	require.NoError(t, svc.Listen())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("Run did not return")
		}
		_ = svc.Close()
	})
	base := "http://" + svc.Addr()
	healthy := func() bool {
		resp, err := http.Get(base + "/api/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	require.Eventually(t, healthy, 10*time.Second, 20*time.Millisecond)

	// Once the service answers, every file has been applied once, in name
	// order, and each broken one reported by its path; neither stopped
	// the other, nor the service.
	lines := out.lines()
	require.Len(t, lines, 2, "%q", lines)
	require.True(t, strings.HasPrefix(lines[0], first+": "), "%q", lines)
	require.True(t, strings.HasPrefix(lines[1], second+": "), "%q", lines)

	var slug, name string
	require.NoError(t, svc.Store().Pool().QueryRow(context.Background(),
		`SELECT slug, name FROM organizations WHERE slug = $1`, localmode.OrgSlug).Scan(&slug, &name))
	require.Equal(t, "Local", name)

	// The folder is watched: a changed file is tried again within a second.
	changed := time.Now()
	require.NoError(t, os.WriteFile(second, []byte("{{"), 0o644))
	require.Eventually(t, func() bool { return len(out.lines()) == 3 }, 2*time.Second, 10*time.Millisecond)
	require.Less(t, time.Since(changed), 1500*time.Millisecond)
	require.True(t, strings.HasPrefix(out.lines()[2], second+": "), "%q", out.lines())
	require.True(t, healthy())
}

func TestLocalModeNeedsTheFolder(t *testing.T) {
	cfg := configFor(t, testdb.Missing(t))
	cfg.Designs = filepath.Join(t.TempDir(), "mocks")
	_, err := service.New(context.Background(), cfg, discard())
	require.ErrorContains(t, err, "MOCKMCP_DESIGNS")
	require.ErrorContains(t, err, "mocks")
}
