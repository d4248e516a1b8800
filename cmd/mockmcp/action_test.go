package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/testdb"
)

// actionScript is the step of the GitHub Action .github/actions/mockmcp.
var actionScript = filepath.Join("..", "..", ".github", "actions", "mockmcp", "start.sh")

// actionRun is what one run of the action's script left behind.
type actionRun struct {
	code         int
	stdout       string
	outputs, env map[string]string
	path         string
}

// runAction runs the action's script as GitHub would run its step, with
// inputs as INPUT_* variables, and stops the service it started when the
// test ends.
func runAction(t *testing.T, designs string, inputs map[string]string) actionRun {
	t.Helper()
	runnerTemp := t.TempDir()
	files := map[string]string{}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "RUNNER_TEMP=" + runnerTemp,
		"LOG_LEVEL=error", "INPUT_DESIGNS=" + designs}
	for _, name := range []string{"GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH"} {
		files[name] = filepath.Join(runnerTemp, strings.ToLower(name))
		env = append(env, name+"="+files[name])
	}
	for k, v := range inputs {
		env = append(env, "INPUT_"+k+"="+v)
	}
	// Go's caches, for the build from source.
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", actionScript)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	require.NoError(t, ctx.Err(), "the action did not end: %s", out)
	run := actionRun{stdout: string(out), outputs: readKeyValues(t, files["GITHUB_OUTPUT"]),
		env: readKeyValues(t, files["GITHUB_ENV"])}
	if err != nil {
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		run.code = exit.ExitCode()
	}
	if b, err := os.ReadFile(files["GITHUB_PATH"]); err == nil {
		run.path = strings.TrimSpace(string(b))
	}
	if pid, err := strconv.Atoi(run.outputs["pid"]); err == nil {
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGTERM) })
	}
	return run
}

// readKeyValues reads a GITHUB_OUTPUT or GITHUB_ENV file: NAME=VALUE lines.
func readKeyValues(t *testing.T, path string) map[string]string {
	t.Helper()
	kv := map[string]string{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return kv
	}
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		require.True(t, ok, "line %q of %s", sc.Text(), path)
		kv[k] = v
	}
	require.NoError(t, sc.Err())
	return kv
}

// callForecast calls get_forecast at endpoint with the official MCP client
// and returns the text it answers.
func callForecast(t *testing.T, endpoint string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "action-test", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	require.NoError(t, err)
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: map[string]any{"city": "Paris"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	return res.Content[0].(*mcp.TextContent).Text
}

// freePort is a TCP port nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	_, port, ok := strings.Cut(freeAddr(t), ":")
	require.True(t, ok)
	return port
}

// TestAction runs the GitHub Action's script as a job would: it gets a
// binary (built from this checkout, or a release downloaded and checked
// against SHA256SUMS), serves a designs folder, and exports endpoints that
// answer a tools/call.
func TestAction(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("the action needs curl")
	}
	designs := func(t *testing.T, files map[string]string) string {
		dir := t.TempDir()
		for name, content := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644))
		}
		return dir
	}

	t.Run("built from the checkout", func(t *testing.T) {
		t.Parallel()
		port := freePort(t)
		run := runAction(t, designs(t, map[string]string{"weather.yaml": localDesign("sunny")}),
			map[string]string{"DATABASE_URL": testdb.Missing(t), "PORT": port})
		require.Equal(t, 0, run.code, run.stdout)
		require.Contains(t, run.stdout, "Building mockmcp from ")

		base := "http://127.0.0.1:" + port
		require.Equal(t, base, run.outputs["url"])
		require.Equal(t, base, run.env["MOCKMCP_URL"])
		endpoint := run.env["MOCKMCP_ENDPOINT_LOCAL_WEATHER"]
		require.Regexp(t, `^`+base+`/api/platform/[0-9a-f-]{36}/mcp$`, endpoint)
		var endpoints map[string]string
		require.NoError(t, json.Unmarshal([]byte(run.outputs["endpoints"]), &endpoints), run.outputs["endpoints"])
		require.Equal(t, map[string]string{"Local weather": endpoint}, endpoints)
		require.FileExists(t, run.outputs["log"])
		require.FileExists(t, filepath.Join(run.path, "mockmcp"), "the binary's folder is added to PATH")

		require.JSONEq(t, `{"sky":"sunny"}`, callForecast(t, endpoint))
	})

	t.Run("a release", func(t *testing.T) {
		t.Parallel()
		if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
			t.Skip("releases are downloaded on Linux and macOS runners")
		}
		const version = "v9.9.9-action"
		bin := buildBinary(t, version)
		data, err := os.ReadFile(bin)
		require.NoError(t, err)
		name := fmt.Sprintf("mockmcp_%s_%s_%s", version, runtime.GOOS, runtime.GOARCH)
		sum := sha256.Sum256(data)
		sums := hex.EncodeToString(sum[:]) + "  " + name + "\n"
		mux := http.NewServeMux()
		mux.HandleFunc("GET /releases/"+version+"/"+name, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(data) })
		mux.HandleFunc("GET /releases/"+version+"/SHA256SUMS", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(sums)) })
		mux.HandleFunc("GET /tampered/"+version+"/"+name, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(append(data, 0)) })
		mux.HandleFunc("GET /tampered/"+version+"/SHA256SUMS", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(sums)) })
		releases := httptest.NewServer(mux)
		t.Cleanup(releases.Close)
		folder := designs(t, map[string]string{"weather.yaml": localDesign("cloudy")})

		port := freePort(t)
		run := runAction(t, folder, map[string]string{"DATABASE_URL": testdb.Missing(t), "PORT": port,
			"VERSION": version, "RELEASES_URL": releases.URL + "/releases"})
		require.Equal(t, 0, run.code, run.stdout)
		require.Contains(t, run.stdout, "\n"+version+"\n", "the downloaded binary's version")
		require.JSONEq(t, `{"sky":"cloudy"}`, callForecast(t, run.env["MOCKMCP_ENDPOINT_LOCAL_WEATHER"]))

		// A binary that does not match its sum is not run.
		run = runAction(t, folder, map[string]string{"DATABASE_URL": testdb.Missing(t), "PORT": freePort(t),
			"VERSION": version, "RELEASES_URL": releases.URL + "/tampered"})
		require.Equal(t, 1, run.code, run.stdout)
		require.Contains(t, run.stdout, "::error title=mockmcp::"+name+" does not match its SHA-256 in SHA256SUMS")
		require.Empty(t, run.outputs)
	})

	t.Run("a broken design file fails the step", func(t *testing.T) {
		t.Parallel()
		broken := strings.Replace(localDesign("snowy"), "type: object", "type: string", 1)
		folder := designs(t, map[string]string{"a-weather.yaml": localDesign("sunny"), "b-broken.yaml": broken})
		port := freePort(t)
		run := runAction(t, folder, map[string]string{"DATABASE_URL": testdb.Missing(t), "PORT": port})
		require.Equal(t, 1, run.code, run.stdout)
		require.Contains(t, run.stdout, "::error title=mockmcp design::"+filepath.Join(folder, "b-broken.yaml")+": tools[0].input_schema: ")
		require.Contains(t, run.stdout, "::error title=mockmcp::1 fault(s) in the design files of "+folder)
		require.Empty(t, run.outputs)
		// The service it started is stopped.
		_, err := http.Get("http://127.0.0.1:" + port + "/api/health")
		require.Error(t, err)

		// With fail-on-invalid false the good file is served all the same.
		port = freePort(t)
		run = runAction(t, folder, map[string]string{"DATABASE_URL": testdb.Missing(t), "PORT": port,
			"FAIL_ON_INVALID": "false"})
		require.Equal(t, 0, run.code, run.stdout)
		require.Contains(t, run.stdout, "::error title=mockmcp design::")
		require.JSONEq(t, `{"sky":"sunny"}`, callForecast(t, run.env["MOCKMCP_ENDPOINT_LOCAL_WEATHER"]))
	})
}
