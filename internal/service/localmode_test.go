package service_test

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/localmode"
	"github.com/mockmcp/mockmcp/internal/service"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// runLocal runs the service in local mode on :0, serving the designs in
// dir, until t ends (when Run must return cleanly), and waits until it
// answers; out is what it prints.
func runLocal(t *testing.T, dsn, dir string, log *slog.Logger) (svc *service.Service, out *apitest.Buffer) {
	t.Helper()
	cfg := configFor(t, dsn)
	cfg.ListenAddr, cfg.ShutdownTimeout, cfg.Designs = "127.0.0.1:0", 5*time.Second, dir
	svc, err := service.New(context.Background(), cfg, log)
	require.NoError(t, err)
	out = &apitest.Buffer{}
	svc.SetOutput(out)
	require.NoError(t, svc.Listen())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	t.Cleanup(func() {
		apitest.Stops(t, "Run", 10*time.Second, cancel, done)
		_ = svc.Close()
	})
	require.Eventually(t, func() bool { return healthy(svc) }, 10*time.Second, 20*time.Millisecond)
	return svc, out
}

// healthy reports whether svc answers its health check.
func healthy(svc *service.Service) bool {
	resp, err := http.Get("http://" + svc.Addr() + "/api/health")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
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

	svc, out := runLocal(t, dsn, dir, discard())

	// Once the service answers, every file has been applied once, in name
	// order, and each broken one reported by its path; neither stopped
	// the other, nor the service.
	lines := out.Lines()
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
	require.Eventually(t, func() bool { return len(out.Lines()) == 3 }, 2*time.Second, 10*time.Millisecond)
	require.Less(t, time.Since(changed), 1500*time.Millisecond)
	require.True(t, strings.HasPrefix(out.Lines()[2], second+": "), "%q", out.Lines())
	require.True(t, healthy(svc))
}

func TestLocalModeNeedsTheFolder(t *testing.T) {
	cfg := configFor(t, testdb.Missing(t))
	cfg.Designs = filepath.Join(t.TempDir(), "mocks")
	_, err := service.New(context.Background(), cfg, discard())
	require.ErrorContains(t, err, "MOCKMCP_DESIGNS")
	require.ErrorContains(t, err, "mocks")
}

// TestLocalModeQuotesNoContent: a design file that leads out of the folder
// is refused by name, and a broken file is reported by its name, line and
// field; neither's content reaches the output or the log, and the service
// keeps serving.
func TestLocalModeQuotesNoContent(t *testing.T) {
	dsn := testdb.New(t)
	parent := t.TempDir()
	shadow := filepath.Join(parent, "shadow")
	require.NoError(t, os.WriteFile(shadow, []byte("root:$6$s3cr3t0$hash:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n"), 0o600))
	dir := filepath.Join(parent, "mocks")
	require.NoError(t, os.Mkdir(dir, 0o755))
	require.NoError(t, os.Symlink(shadow, filepath.Join(dir, "a-shadow.yaml")))
	head := "apiVersion: mockmcp/v1\nkind: MCPServer\n"
	files := map[string]string{
		"b-syntax.yaml":    head + "name: x\ntools: [s3cr3t1\n",
		"c-tag.yaml":       head + "name: x\nversion: !!int s3cr3t2\n",
		"d-syntax.json":    `{"apiVersion": "mockmcp/v1", "name": s3cr3t3}`,
		"e-duplicate.json": `{"apiVersion": "mockmcp/v1", "kind": "MCPServer", "name": "s3cr3t4", "name": "s3cr3t5"}`,
		"f-alias.yaml":     head + "name: x\ntools: &t [ *t ]\n",
		"g-kind.yaml":      "apiVersion: mockmcp/v1\nkind: s3cr3t6\nname: x\n",
	}
	for name, doc := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(doc), 0o644))
	}

	logs := &apitest.Buffer{}
	_, out := runLocal(t, dsn, dir, slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})))

	report := strings.Join(out.Lines(), "\n")
	for _, want := range []string{
		filepath.Join(dir, "a-shadow.yaml") + ": refused: it leads out of the designs folder",
		filepath.Join(dir, "b-syntax.yaml") + ": body: line 3: did not find expected ',' or ']'",
		filepath.Join(dir, "c-tag.yaml") + ": version: line 4: is not an integer",
		filepath.Join(dir, "d-syntax.json") + ": body: line 1, column ",
		filepath.Join(dir, "e-duplicate.json") + ": name: line 1: the key appears twice",
		filepath.Join(dir, "f-alias.yaml") + ": tools[0]: line 4: anchor 't' contains itself",
		filepath.Join(dir, "g-kind.yaml") + ": kind: ",
	} {
		require.Contains(t, report, want)
	}
	require.NotContains(t, report, "s3cr3t")
	require.NotContains(t, logs.String(), "s3cr3t")
	require.NotContains(t, report, "19000")
}
