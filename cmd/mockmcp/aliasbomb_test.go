package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/testdb"
)

// vmRSS is a process's resident set in bytes, read from /proc.
func vmRSS(pid int) (int64, error) {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// TestAliasBombsAgainstTheBinary applies YAML alias bombs to a running
// mockmcp: the 67-byte document whose anchor contains itself (which once
// recursed until the process died) and a 100 KB string aliased 2,000 times
// (which once took 27 s and 1.5 GB), and 50,000 aliases (which got the
// instance killed for its memory). Each is answered 4xx within a second,
// and the process's resident memory grows by less than 50 MiB.
func TestAliasBombsAgainstTheBinary(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc")
	}
	t.Parallel()
	bin := buildBinary(t, "v0.0.0-aliases")
	addr := freeAddr(t)
	cmd := exec.Command(bin, "serve")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LOG_LEVEL=error",
		"DATABASE_URL=" + testdb.New(t), "LISTEN_ADDR=" + addr, "METRICS_ADDR="}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	})
	base := "http://" + addr
	require.Eventually(t, func() bool {
		resp, err := http.Get(base + "/api/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 30*time.Second, 50*time.Millisecond)

	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	client := &http.Client{Jar: jar, Timeout: 30 * time.Second}
	resp, err := client.Post(base+"/api/auth/signup", "application/json",
		strings.NewReader(`{"email":"bombs@example.com","password":"correct horse battery","organization_name":"Bombs"}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)

	head := "apiVersion: mockmcp/v1\nkind: MCPServer\nname: Bomb\n"
	var aliases strings.Builder
	aliases.WriteString(head + "description: &s " + strings.Repeat("x", 100_000) + "\ntools:\n")
	for range 2_000 {
		aliases.WriteString("  - *s\n")
	}
	var many strings.Builder
	many.WriteString(head + "description: &s " + strings.Repeat("y", 4_000) + "\ntools:\n")
	for range 50_000 {
		many.WriteString("- *s\n")
	}
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"an anchor that contains itself", "apiVersion: mockmcp/v1\nkind: MCPServer\nname: x\ntools: &t [ *t ]\n", "anchor 't' contains itself"},
		{"2,000 aliases of a 100 KB string", aliases.String(), "more than 1048576 bytes of JSON"},
		{"50,000 aliases", many.String(), "more than 1048576 bytes of JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := vmRSS(cmd.Process.Pid)
			require.NoError(t, err)
			var peak int64
			var mu sync.Mutex
			stop := make(chan struct{})
			sampled := make(chan struct{})
			go func() {
				defer close(sampled)
				for {
					rss, _ := vmRSS(cmd.Process.Pid) // a process gone is the request's error
					mu.Lock()
					peak = max(peak, rss)
					mu.Unlock()
					select {
					case <-stop:
						return
					case <-time.After(2 * time.Millisecond):
					}
				}
			}()
			start := time.Now()
			resp, err := client.Post(base+"/api/servers/apply", "application/yaml", strings.NewReader(tc.doc))
			took := time.Since(start)
			require.NoError(t, err)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			close(stop)
			<-sampled
			after, err := vmRSS(cmd.Process.Pid)
			require.NoError(t, err, "the process is still there")
			peak = max(peak, after)

			require.GreaterOrEqual(t, resp.StatusCode, 400, "%s", body)
			require.Less(t, resp.StatusCode, 500, "%s", body)
			require.True(t, bytes.Contains(body, []byte(tc.want)), "%s", body)
			require.Less(t, took, time.Second)
			growth := peak - before
			require.Less(t, growth, int64(50<<20), "resident memory grew by %d bytes", growth)
			t.Logf("%d bytes: %d in %v, resident memory %.1f MiB before, grew by %.1f MiB at most",
				len(tc.doc), resp.StatusCode, took.Round(time.Millisecond), float64(before)/(1<<20), float64(growth)/(1<<20))
		})
	}
}
