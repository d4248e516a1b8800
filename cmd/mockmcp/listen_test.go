package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/testdb"
)

// TestServeListenFlags: --listen and --metrics-listen win over LISTEN_ADDR
// and METRICS_ADDR.
func TestServeListenFlags(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t, "v0.0.0-listen")
	envListen, envMetrics := freeAddr(t), freeAddr(t)
	listen, metrics := freeAddr(t), freeAddr(t)
	cmd := exec.Command(bin, "serve", "--listen", listen, "--metrics-listen", metrics)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LOG_LEVEL=error",
		"DATABASE_URL=" + testdb.New(t), "LISTEN_ADDR=" + envListen, "METRICS_ADDR=" + envMetrics}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})

	get := func(url string) int {
		resp, err := http.Get(url)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Eventually(t, func() bool { return get("http://"+listen+"/api/health") == http.StatusOK },
		20*time.Second, 50*time.Millisecond, "the service answers on --listen")
	require.Equal(t, http.StatusOK, get("http://"+metrics+"/metrics"), "the metrics answer on --metrics-listen")
	require.Zero(t, get("http://"+envListen+"/api/health"), "nothing listens on LISTEN_ADDR")
	require.Zero(t, get("http://"+envMetrics+"/metrics"), "nothing listens on METRICS_ADDR")
}

// TestListenFlagsApply: a flag not given leaves the variable's value,
// and an empty --metrics-listen turns the metrics off.
func TestListenFlagsApply(t *testing.T) {
	t.Setenv("LISTEN_ADDR", ":9000")
	t.Setenv("METRICS_ADDR", ":9100")
	for _, tc := range []struct {
		args                  []string
		wantListen, wantMetrs string
	}{
		{nil, ":9000", ":9100"},
		{[]string{"--listen", "127.0.0.1:8081"}, "127.0.0.1:8081", ":9100"},
		{[]string{"--metrics-listen", ""}, ":9000", ""},
		{[]string{"--listen=:1", "--metrics-listen=:2"}, ":1", ":2"},
	} {
		cmd := &cobra.Command{}
		var f listenFlags
		f.add(cmd)
		require.NoError(t, cmd.ParseFlags(tc.args))
		require.NoError(t, f.read(cmd))
		cfg, err := serveConfig("")
		require.NoError(t, err)
		f.apply(&cfg)
		require.Equal(t, tc.wantListen, cfg.ListenAddr, "%v", tc.args)
		require.Equal(t, tc.wantMetrs, cfg.MetricsAddr, "%v", tc.args)
	}
}
