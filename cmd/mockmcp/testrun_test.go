package main

import (
	"encoding/xml"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// TestTestRunCommand runs suites on a live service as a CI step would: a
// passing suite exits cleanly and writes JUnit XML; a failing one returns
// an error (exit status 1) and says which test failed.
func TestTestRunCommand(t *testing.T) {
	env := apitest.New(t, nil)
	c := env.Signup(t, "CI Org")
	key := c.Do("POST", "/api/keys", map[string]any{"name": "ci"}).Status(http.StatusCreated).String("raw_key")

	// The tests call the service's own health route, which runs in process.
	mkTest := func(name, want string) string {
		return c.Do("POST", "/api/tests", map[string]any{
			"name": name, "base_url": env.URL,
			"scopes": []any{map[string]any{"method": "GET", "path": "/api/health"}},
			"input": map[string]any{"expectations": map[string]any{"GET /api/health": map[string]any{
				"expected_status": 200,
				"conditions":      []any{map[string]any{"path": "status", "operation": "eq", "value": want}},
			}}},
		}).Status(http.StatusCreated).String("id")
	}
	good, bad := mkTest("health is ok", "ok"), mkTest("health is down", "down")
	c.Do("POST", "/api/suites", map[string]any{"name": "smoke", "test_ids": []any{good}}).Status(http.StatusCreated)
	broken := c.Do("POST", "/api/suites", map[string]any{"name": "broken", "test_ids": []any{good, bad}}).
		Status(http.StatusCreated).String("id")

	t.Run("a passing suite by name writes JUnit", func(t *testing.T) {
		junit := filepath.Join(t.TempDir(), "out.xml")
		out, err := runOut(t, "test", "run", "--suite", "smoke", "--junit", junit, "--url", env.URL, "--api-key", key)
		require.NoError(t, err, out)
		require.Contains(t, out, "suite smoke: 1 passed, 0 failed, 0 skipped of 1")
		raw, err := os.ReadFile(junit)
		require.NoError(t, err)
		var doc struct {
			Tests    int `xml:"tests,attr"`
			Failures int `xml:"failures,attr"`
		}
		require.NoError(t, xml.Unmarshal(raw, &doc))
		require.Equal(t, 1, doc.Tests)
		require.Equal(t, 0, doc.Failures)
	})
	t.Run("a failing suite by id fails the command", func(t *testing.T) {
		t.Setenv("MOCKMCP_URL", env.URL)
		t.Setenv("MOCKMCP_API_KEY", key)
		out, err := runOut(t, "test", "run", "--suite", broken)
		require.ErrorContains(t, err, "failed")
		require.Equal(t, exitFailed, exitCode(err))
		require.Contains(t, out, "1 passed, 1 failed")
		require.Contains(t, out, "failed: health is down")
	})
	t.Run("an unknown suite", func(t *testing.T) {
		_, err := runOut(t, "test", "run", "--suite", "nope", "--url", env.URL, "--key", key)
		require.ErrorContains(t, err, `no suite named "nope"`)
	})
	t.Run("a bad key", func(t *testing.T) {
		_, err := runOut(t, "test", "run", "--suite", "smoke", "--url", env.URL, "--key", "mmcp_wrong")
		require.ErrorContains(t, err, "401")
		require.Equal(t, exitFailed, exitCode(err))
	})
	t.Run("usage", func(t *testing.T) {
		_, err := runOut(t, "test")
		require.ErrorContains(t, err, "needs a command: run")
		require.Equal(t, exitUsage, exitCode(err))
		_, err = runOut(t, "test", "run", "--url", env.URL, "--key", key)
		require.ErrorContains(t, err, "--suite is required")
		require.Equal(t, exitUsage, exitCode(err))
	})
}
