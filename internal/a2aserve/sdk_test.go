package a2aserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/apitest"
)

// sdkToolchain is the node binary and the directory whose node_modules
// holds the A2A SDK pinned in .ci/a2a (MOCKMCP_A2A_NODE and
// MOCKMCP_A2A_PACKAGES override them). Without them the test is skipped on
// a developer's machine; under CI (CI=true), which installs them, their
// absence fails it.
func sdkToolchain(t *testing.T) (node, dir string) {
	t.Helper()
	dir = os.Getenv("MOCKMCP_A2A_PACKAGES")
	if dir == "" {
		dir, _ = filepath.Abs("../../.ci/a2a")
	}
	node = os.Getenv("MOCKMCP_A2A_NODE")
	if node == "" {
		node, _ = exec.LookPath("node")
	}
	_, err := os.Stat(filepath.Join(dir, "node_modules", "@a2a-js", "sdk", "package.json"))
	switch {
	case node != "" && err == nil:
		return node, dir
	case os.Getenv("CI") == "true":
		t.Fatalf("node (>= 20) and the A2A SDK in %s are needed under CI: run `make a2a-packages`", dir)
	}
	t.Skipf("no node, or no A2A SDK in %s (`make a2a-packages` installs it)", dir)
	return "", ""
}

func cardDesc(s string) string { return s + strings.Repeat(" Mock agent for tests.", 12) }

// TestOfficialSDKClient: the official A2A client (@a2a-js/sdk 1.3.0)
// resolves a published card from its .well-known path, picks the mock agent
// among its interfaces, sends messages and reads the default and the
// scripted reply; and reads an
// unsupported A2A-Version as VersionNotSupportedError.
func TestOfficialSDKClient(t *testing.T) {
	t.Parallel()
	node, dir := sdkToolchain(t)
	script, err := os.ReadFile(filepath.Join("testdata", "sdkclient.mjs"))
	require.NoError(t, err)

	env := apitest.New(t, nil)
	owner := env.Signup(t, "SDK Agents")
	slug := owner.Do(http.MethodGet, "/api/organizations/"+owner.OrgID, nil).Status(http.StatusOK).String("slug")
	skill := func(name string) map[string]any {
		return map[string]any{"name": name, "description": cardDesc("Skill " + name + ".")}
	}
	id := owner.Do(http.MethodPost, "/api/agent-cards", map[string]any{
		"name": "travel-agent", "version": "1.0.0", "description": cardDesc("Plans trips."),
		"skills":     []any{skill("search_flights"), skill("book_hotel")},
		"invocation": map[string]any{"protocol": "mcp", "endpoint": "https://agents.example.com/mcp"},
		"replies": []any{map[string]any{"name": "rome", "condition": map[string]any{"field": "text", "operator": "contains", "value": "Rome"},
			"text": "Three hotels in Rome for {{args.contextId}}."}},
	}).Status(http.StatusCreated).String("id")
	owner.Do(http.MethodPost, "/api/agent-cards/"+id+"/publish", nil).Status(http.StatusOK)

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--input-type=module", "--eval", string(script))
	cmd.Dir = dir // the script's imports resolve from here
	cmd.Stdin = bytes.NewReader(apitest.JSON(t, map[string]any{
		"cardBase": env.URL + "/api/exchange/agent-cards/" + slug + "/travel-agent/",
		"texts":    []string{"Please book hotel rooms in Oslo.", "Please book hotel rooms in Rome."},
	}))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)

	var got struct {
		Interfaces []map[string]string `json:"interfaces"`
		Replies    []struct {
			Role      int            `json:"role"`
			ContextID string         `json:"contextId"`
			Texts     []string       `json:"texts"`
			Metadata  map[string]any `json:"metadata"`
		} `json:"replies"`
		VersionError map[string]any `json:"versionError"`
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	require.Equal(t, []map[string]string{
		{"url": env.URL + a2aserve.EndpointPath(slug, "travel-agent"), "protocolBinding": "JSONRPC"},
		{"url": "https://agents.example.com/mcp", "protocolBinding": "MCP"},
	}, got.Interfaces)
	require.Len(t, got.Replies, 2)
	for _, r := range got.Replies {
		require.Equal(t, 2, r.Role, "ROLE_AGENT")
		require.Equal(t, "sdk-context", r.ContextID)
	}
	// No reply matches Oslo: the default reply; Rome's scripted reply.
	require.Equal(t, []string{`travel-agent (mock agent): skill "book_hotel" received your message.`}, got.Replies[0].Texts)
	require.Equal(t, map[string]any{"skill": "book_hotel"}, got.Replies[0].Metadata)
	require.Equal(t, []string{"Three hotels in Rome for sdk-context."}, got.Replies[1].Texts)
	require.Equal(t, map[string]any{"skill": "book_hotel", "reply": "rome"}, got.Replies[1].Metadata)
	require.Equal(t, map[string]any{"name": "VersionNotSupportedError", "code": float64(-32009)}, got.VersionError)
}
