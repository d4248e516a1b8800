package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// seen is one request the fake service received.
type seen struct {
	method, path, query, auth, accept, contentType, body string
}

// fakeService answers export and apply as their contract says, and keeps
// the requests for the test to check. Apply answers by the body: a body
// holding "invalid" is refused with field errors, "down" is a 503, any
// other is a plan naming the server "name: X" of the body.
func fakeService(t *testing.T, exported map[string]string) (*httptest.Server, func() []seen) {
	t.Helper()
	var (
		mu   sync.Mutex
		reqs []seen
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		reqs = append(reqs, seen{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Get("Authorization"),
			r.Header.Get("Accept"), r.Header.Get("Content-Type"), string(body)})
		mu.Unlock()
		problem := func(status int, v map[string]any) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(status)
			v["status"] = status
			v["title"] = http.StatusText(status)
			_ = json.NewEncoder(w).Encode(v)
		}
		switch {
		case r.Header.Get("Authorization") != "Bearer mmcp_test":
			problem(http.StatusUnauthorized, map[string]any{"detail": "the API key is not valid"})
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/export"):
			format := r.URL.Query().Get("format")
			doc, ok := exported[format]
			if !ok {
				problem(http.StatusNotFound, map[string]any{"detail": "server not found"})
				return
			}
			w.Header().Set("Content-Type", "application/"+format)
			_, _ = w.Write([]byte(doc))
		case r.Method == http.MethodPost && r.URL.Path == "/api/servers/apply":
			dry := r.URL.Query().Get("dry_run") == "true"
			switch {
			case strings.Contains(string(body), "invalid"):
				problem(http.StatusUnprocessableEntity, map[string]any{"detail": "the design is not valid",
					"errors": []any{map[string]any{"field": "tools[0].name", "message": "must be snake_case"},
						map[string]any{"field": "server.version", "message": "must not be blank"}}})
				return
			case strings.Contains(string(body), "down"):
				problem(http.StatusServiceUnavailable, map[string]any{"detail": "the database cannot be reached; try again shortly"})
				return
			}
			name := strings.TrimSpace(strings.SplitN(strings.SplitN(string(body), "name:", 2)[1], "\n", 2)[0])
			var id any = uuid.NewString()
			if dry {
				id = nil
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"dry_run": dry, "changed": true,
				"server": map[string]any{"id": id, "name": name, "action": "created", "endpoint_url": "http://mock/api/platform/x/mcp"},
				"tools": []any{map[string]any{"name": "get_forecast", "action": "created"},
					map[string]any{"name": "get_alerts", "action": "unchanged"}},
				"resources": []any{map[string]any{"name": "guide", "uri": "docs://guide", "action": "updated"}},
				"prompts":   []any{map[string]any{"name": "greet", "action": "deleted"}},
			})
		default:
			problem(http.StatusNotFound, map[string]any{"detail": "no route"})
		}
	}))
	t.Cleanup(srv.Close)
	return srv, func() []seen {
		mu.Lock()
		defer mu.Unlock()
		return append([]seen(nil), reqs...)
	}
}

func TestExportCommand(t *testing.T) {
	docs := map[string]string{"yaml": "server:\n  name: Weather\n", "json": `{"server":{"name":"Weather"}}`}
	srv, requests := fakeService(t, docs)
	t.Setenv(envURL, srv.URL)
	t.Setenv(envAPIKey, "mmcp_test")
	id := uuid.NewString()

	out, err := runOut(t, "export", id)
	require.NoError(t, err)
	require.Equal(t, docs["yaml"], out, "YAML by default, as sent")

	file := filepath.Join(t.TempDir(), "weather.json")
	out, err = runOut(t, "export", id, "--format", "json", "-o", file)
	require.NoError(t, err)
	require.Empty(t, out)
	got, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, docs["json"], string(got))

	reqs := requests()
	require.Len(t, reqs, 2)
	require.Equal(t, seen{method: "GET", path: "/api/servers/" + id + "/export", query: "format=yaml",
		auth: "Bearer mmcp_test", accept: "application/yaml"}, reqs[0])
	require.Equal(t, "format=json", reqs[1].query)
	require.Equal(t, "application/json", reqs[1].accept)

	t.Run("refusals", func(t *testing.T) {
		srv, _ := fakeService(t, nil)
		missing := filepath.Join(t.TempDir(), "missing.yaml")
		_, err := runOut(t, "export", id, "--url", srv.URL, "-o", missing)
		require.ErrorContains(t, err, "404 Not Found: server not found")
		require.Equal(t, exitFailed, exitCode(err))
		require.NoFileExists(t, missing, "nothing written on failure")

		_, err = runOut(t, "export", id, "--api-key", "mmcp_wrong")
		require.ErrorContains(t, err, "401 Unauthorized: the API key is not valid")
		require.Equal(t, exitFailed, exitCode(err))
	})
}

func TestApplyCommand(t *testing.T) {
	srv, requests := fakeService(t, nil)
	t.Setenv(envURL, srv.URL)
	t.Setenv(envAPIKey, "mmcp_test")
	dir := t.TempDir()
	files := map[string]string{
		"b-broken.json":  `{"server":{"name":"invalid"}}`,
		"a-weather.yaml": "server:\n  name: Weather\n",
		"c-pets.yml":     "server:\n  name: Pets\n",
		"notes.txt":      "not a design",
	}
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "nested.yaml"), 0o755))

	t.Run("one file", func(t *testing.T) {
		before := len(requests())
		file := filepath.Join(dir, "a-weather.yaml")
		out, stderr, err := runOutErr(t, "apply", "-f", file)
		require.NoError(t, err, stderr)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.Len(t, lines, 5, out)
		require.Regexp(t, `^`+file+`: server "Weather" created \(id [0-9a-f-]{36}\)$`, lines[0])
		require.Equal(t, []string{"  tool get_forecast: created", "  resource guide docs://guide: updated",
			"  prompt greet: deleted", "  endpoint: http://mock/api/platform/x/mcp"}, lines[1:], "unchanged parts are not listed")
		reqs := requests()[before:]
		require.Len(t, reqs, 1)
		require.Equal(t, seen{method: "POST", path: "/api/servers/apply", auth: "Bearer mmcp_test",
			accept: "application/json", contentType: "application/yaml", body: files["a-weather.yaml"]}, reqs[0])
	})

	t.Run("a directory, in name order, dry run", func(t *testing.T) {
		before := len(requests())
		out, stderr, err := runOutErr(t, "apply", "-f", dir, "--dry-run")
		require.ErrorContains(t, err, "1 of 3 design files not applied")
		require.Equal(t, exitFailed, exitCode(err))
		require.Equal(t,
			filepath.Join(dir, "b-broken.json")+": tools[0].name: must be snake_case\n"+
				filepath.Join(dir, "b-broken.json")+": server.version: must not be blank\n", stderr)
		require.Contains(t, out, filepath.Join(dir, "a-weather.yaml")+`: server "Weather" created (dry run: nothing changed)`)
		require.Contains(t, out, filepath.Join(dir, "c-pets.yml")+`: server "Pets" created (dry run: nothing changed)`)
		require.Less(t, strings.Index(out, "a-weather"), strings.Index(out, "c-pets"))
		require.NotContains(t, out, "endpoint:", "a dry run serves nothing")

		reqs := requests()[before:]
		require.Len(t, reqs, 3, "every design file, and only those")
		for i, want := range []struct{ body, contentType string }{
			{files["a-weather.yaml"], "application/yaml"},
			{files["b-broken.json"], "application/json"},
			{files["c-pets.yml"], "application/yaml"},
		} {
			require.Equal(t, "dry_run=true", reqs[i].query)
			require.Equal(t, want.body, reqs[i].body)
			require.Equal(t, want.contentType, reqs[i].contentType)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		down := filepath.Join(t.TempDir(), "down.yaml")
		require.NoError(t, os.WriteFile(down, []byte("server:\n  name: down\n"), 0o644))
		_, _, err := runOutErr(t, "apply", "-f", down)
		require.Equal(t, exitUnreachable, exitCode(err), "503: the service cannot reach its database: %v", err)

		before := len(requests())
		_, stderr, err := runOutErr(t, "apply", "-f", dir, "--api-key", "mmcp_wrong")
		require.ErrorContains(t, err, "401")
		require.Equal(t, exitFailed, exitCode(err))
		require.Empty(t, stderr)
		require.Len(t, requests()[before:], 1, "a bad key stops at the first file")

		for _, args := range [][]string{
			{"apply"},
			{"apply", "-f", filepath.Join(dir, "notes.txt")},
			{"apply", "-f", dir, "extra"},
		} {
			_, _, err := runOutErr(t, args...)
			require.Equal(t, exitUsage, exitCode(err), "%v: %v", args, err)
		}
		_, _, err = runOutErr(t, "apply", "-f", t.TempDir())
		require.ErrorContains(t, err, "holds no .yaml, .yml or .json files")
		_, _, err = runOutErr(t, "apply", "-f", filepath.Join(dir, "absent.yaml"))
		require.ErrorContains(t, err, "no such file")
	})
}

// TestExportApplyEndToEnd exports a design from a running service and
// applies it back.
func TestExportApplyEndToEnd(t *testing.T) {
	env := apitest.New(t, nil)
	c := env.Signup(t, "Designs in Git")
	key := c.Do("POST", "/api/keys", map[string]any{"name": "ci"}).Status(http.StatusCreated).String("raw_key")
	t.Setenv(envURL, env.URL)
	t.Setenv(envAPIKey, key)
	id := c.CreateServer(json.RawMessage(`{"name":"Weather"}`), []json.RawMessage{json.RawMessage(`{
		"name": "get_forecast", "description": "Forecast for a city.",
		"input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
		"mock_scenarios": [{"name": "any", "response": {"temp": 18}}]}`)},
		[]json.RawMessage{json.RawMessage(`{"name": "guide", "uri": "docs://guide", "content": "Read me."}`)},
		[]json.RawMessage{json.RawMessage(`{"name": "greet", "messages": [{"role": "user", "text": "Hello!"}]}`)})

	dir := t.TempDir()
	for _, format := range []string{"yaml", "json"} {
		file := filepath.Join(dir, "weather."+format)
		out, err := runOut(t, "export", id, "--format", format, "-o", file)
		require.NoError(t, err, out)
		doc, err := os.ReadFile(file)
		require.NoError(t, err)
		require.Contains(t, string(doc), "get_forecast")

		// A design applied as exported changes nothing.
		for _, dry := range []bool{true, false} {
			args := []string{"apply", "-f", file}
			if dry {
				args = append(args, "--dry-run")
			}
			out, stderr, err := runOutErr(t, args...)
			require.NoError(t, err, stderr)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.True(t, strings.HasPrefix(lines[0], file+`: server "Weather" unchanged`), out)
			for _, l := range lines[1:] {
				require.True(t, strings.HasPrefix(l, "  endpoint: "), "no part changes: %s", out)
			}
		}
	}
}
