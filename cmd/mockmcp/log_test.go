package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/testdb"
)

// mainArgsEnv makes the test binary run main with these arguments instead
// of the tests, so that a test can start mockmcp as a process of its own
// and read its stderr.
const mainArgsEnv = "MOCKMCP_TEST_MAIN_ARGS"

func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(mainArgsEnv); ok {
		os.Args = append([]string{"mockmcp"}, strings.Fields(args)...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// mockmcpProcess starts `mockmcp serve` as a process with env added to
// the test's environment; its stderr is collected in the returned buffer.
func mockmcpProcess(t *testing.T, env ...string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), append([]string{mainArgsEnv + "=serve", "METRICS_ADDR="}, env...)...)
	stderr := &syncBuffer{}
	cmd.Stderr, cmd.Stdout = stderr, io.Discard
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, stderr
}

// requireJSONLines requires every line of out to be one JSON object, and
// returns the lines' messages.
func requireJSONLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		var v map[string]any
		require.NoErrorf(t, json.Unmarshal([]byte(line), &v), "a stderr line is not JSON: %q\nstderr:\n%s", line, out)
		lines = append(lines, v)
	}
	return lines
}

// redisClientLines are the log lines of the Redis client itself.
func redisClientLines(lines []map[string]any) []string {
	var out []string
	for _, l := range lines {
		if l["msg"] == "redis client" {
			out = append(out, l["detail"].(string))
		}
	}
	return out
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}

// TestLogsAreJSONWithUnreachableRedis: whatever Redis does, a serving
// instance writes JSON lines only, the Redis client's own messages
// included.
func TestLogsAreJSONWithUnreachableRedis(t *testing.T) {
	t.Parallel()
	t.Run("unreachable at start", func(t *testing.T) {
		t.Parallel()
		cmd, stderr := mockmcpProcess(t, "DATABASE_URL="+testdb.New(t), "LISTEN_ADDR="+freeAddr(t),
			"REDIS_URL=redis://127.0.0.1:1", "APP_ENV=production")
		err := cmd.Wait()
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit, "start-up must fail")
		require.Equal(t, exitUnreachable, exit.ExitCode())
		lines := requireJSONLines(t, stderr.String())
		require.NotEmpty(t, redisClientLines(lines), "the client's dial failure is logged: %s", stderr)
		last := lines[len(lines)-1]
		require.Equal(t, "ERROR", last["level"])
		require.Contains(t, last["error"], "127.0.0.1:1")
	})

	t.Run("lost while serving", func(t *testing.T) {
		t.Parallel()
		proxy, redisURL := testdb.NewProxy(t, "redis://127.0.0.1:6379/9")
		addr := freeAddr(t)
		cmd, stderr := mockmcpProcess(t, "DATABASE_URL="+testdb.New(t), "LISTEN_ADDR="+addr,
			"REDIS_URL="+redisURL, "APP_ENV=production")
		exchange := "http://" + addr + "/api/exchange/agent-cards"
		deadline := time.Now().Add(20 * time.Second)
		for {
			resp, err := http.Get(exchange)
			if err == nil {
				resp.Body.Close()
				require.NotEmpty(t, resp.Header.Get("X-RateLimit-Limit"), "counted in Redis")
				break
			}
			require.True(t, time.Now().Before(deadline), "serve did not come up: %v\n%s", err, stderr)
			time.Sleep(50 * time.Millisecond)
		}
		proxy.Close()
		// The limiter waits a second after a failure before trying Redis
		// again: calls over three seconds make the client dial again.
		for range 15 {
			resp, err := http.Get(exchange)
			require.NoError(t, err)
			resp.Body.Close()
			require.Less(t, resp.StatusCode, 500)
			time.Sleep(200 * time.Millisecond)
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
		require.NoError(t, cmd.Wait())
		lines := requireJSONLines(t, stderr.String())
		require.NotEmpty(t, redisClientLines(lines), "the client's dial failures are logged: %s", stderr)
	})
}

// syncBuffer is a bytes.Buffer safe for a process's writes and the test's
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// goDuration is a duration as Go prints it ("1.5ms", "2m0s").
var goDuration = regexp.MustCompile(`^-?([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`)

// TestLogsAreJSONThroughASession runs mockmcp serve on a database that does
// not exist yet (created and migrated at start), sends it a request to an
// unknown route, a signup, the probes, and stops it: every stderr line is
// one JSON object, every duration is a number of milliseconds under a key
// ending in _ms, the 404's line names the path without its query string,
// no secret is written, and the probes stay out of the info-level log.
func TestLogsAreJSONThroughASession(t *testing.T) {
	t.Parallel()
	addr := freeAddr(t)
	cmd, stderr := mockmcpProcess(t, "DATABASE_URL="+testdb.Missing(t), "LISTEN_ADDR="+addr, "SHUTDOWN_TIMEOUT=2500ms")
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			require.Equal(t, http.StatusOK, resp.StatusCode)
			break
		}
		require.True(t, time.Now().Before(deadline), "serve did not come up: %v\n%s", err, stderr)
		time.Sleep(50 * time.Millisecond)
	}
	get := func(path string) int {
		t.Helper()
		resp, err := http.Get(base + path)
		require.NoError(t, err)
		resp.Body.Close()
		return resp.StatusCode
	}
	require.Equal(t, http.StatusNotFound, get("/no/such/route?token=qs-secret-7f3a"))
	resp, err := http.Post(base+"/api/auth/signup", "application/json", strings.NewReader(
		`{"email":"logs@example.com","password":"body-secret-9c2e","organization_name":"Logs"}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	require.Equal(t, http.StatusOK, get("/readyz"))
	require.Equal(t, http.StatusOK, get("/api/health"))
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait())

	out := stderr.String()
	require.NotContains(t, out, "qs-secret-7f3a", "query strings stay out of the log")
	require.NotContains(t, out, "body-secret-9c2e", "bodies stay out of the log")
	lines := requireJSONLines(t, out)
	var migrations, requests int
	var notFound map[string]any
	for _, l := range lines {
		requireMilliseconds(t, l, "")
		switch l["msg"] {
		case "migration applied":
			migrations++
			require.IsType(t, float64(0), l["duration_ms"], "%v", l)
		case "request":
			requests++
			require.IsType(t, float64(0), l["duration_ms"], "%v", l)
			require.NotContains(t, []any{"/healthz", "/readyz"}, l["route"], "probes are logged at debug level: %v", l)
			if l["status"] == float64(http.StatusNotFound) {
				notFound = l
			} else {
				require.NotContains(t, l, "path", "only a 404 names its path: %v", l)
			}
		case "shutting down":
			require.Equal(t, float64(2500), l["timeout_ms"], "%v", l)
		}
	}
	require.Positive(t, migrations, "the migrations applied at start are logged:\n%s", out)
	require.Equal(t, 3, requests, "the 404, the signup and /api/health:\n%s", out)
	require.NotNil(t, notFound, "the 404 is logged:\n%s", out)
	require.Equal(t, "/no/such/route", notFound["path"])
}

// requireMilliseconds requires every duration in the log line v (under
// key) to be a number under a key ending in _ms: no Go duration string
// ("1.5ms"), no "duration" in nanoseconds.
func requireMilliseconds(t *testing.T, v any, key string) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			require.NotEqual(t, "duration", k, "durations are logged as duration_ms")
			if strings.HasSuffix(k, "_ms") {
				require.IsType(t, float64(0), e, "%s is a number of milliseconds", k)
			}
			requireMilliseconds(t, e, k)
		}
	case string:
		require.Falsef(t, goDuration.MatchString(v), "%s is a Go duration string: %q", key, v)
	}
}
