package conformance_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

// authorizationTimeout bounds the authorization server scenarios: a few
// requests and one browser round trip.
const authorizationTimeout = time.Minute

// TestOfficialAuthorizationServerSuite runs the suite's authorization
// server scenarios (metadata, authorization code grant) against the
// authorization server of an OAuth design, playing the browser: it follows
// the authorization URL the suite prints to the suite's callback. Every
// check must pass.
func TestOfficialAuthorizationServerSuite(t *testing.T) {
	node, cli := toolchain(t)
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Authorization")
	id := owner.CreateServer(json.RawMessage(`{"name": "OAuth", "version": "1.0.0", "protocol_version": "2025-11-25",
		"auth_mode": "oauth", "oauth": {"scopes_supported": ["mcp:read"]}}`), nil, nil, nil)
	owner.EnableServer(id)
	server := uuid.MustParse(id)
	issuer, resource := oauthcfg.Issuer(env.URL, server), oauthcfg.Resource(env.URL, server)

	// The suite authenticates with "none" whenever the metadata offers it,
	// so its client is a public one.
	port := freePort(t)
	client := registered(t, issuer, fmt.Sprintf("http://127.0.0.1:%d/callback", port), "none")
	results := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), authorizationTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, cli, "authorization", "--url", issuer, "--client-id", client.ID,
		"--resource", resource, "--port", fmt.Sprint(port), "-o", results)
	cmd.Dir = t.TempDir()
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	var out strings.Builder
	lines := bufio.NewScanner(io.TeeReader(stdout, &out))
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	// The browser: consent is automatic and the redirect reaches the
	// suite's callback server. The suite may print the authorization URL
	// before that server listens, so the URL is followed only once the
	// suite has said the server started.
	var listening bool
	var authorize string
	for lines.Scan() {
		line := strings.TrimSpace(lines.Text())
		switch {
		case strings.HasPrefix(line, "Callback server started:"):
			listening = true
		case strings.HasPrefix(line, issuer+"/authorize?"):
			authorize = line
		}
		if listening && authorize != "" {
			resp, err := http.Get(authorize)
			require.NoError(t, err)
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			listening, authorize = false, ""
		}
	}
	err = cmd.Wait()
	t.Logf("conformance authorization --url %s\n%s\n%s", issuer, ansiColor.ReplaceAllString(out.String(), ""), stderr.String())
	require.NoError(t, ctx.Err(), "the suite did not finish within %s", authorizationTimeout)
	require.NoError(t, err, "unmet checks:\n%s", unlisted(unmetChecks(t, results), nil))
	require.Empty(t, unlisted(unmetChecks(t, results), nil), "every check passes, none warns")
	files, err := filepath.Glob(filepath.Join(results, "*", "checks.json"))
	require.NoError(t, err)
	require.Len(t, files, 2, "both authorization server scenarios ran")
}

type client struct{ ID, Secret string }

// registered registers a client with redirect URI callback.
func registered(t *testing.T, issuer, callback, method string) client {
	t.Helper()
	body := fmt.Sprintf(`{"client_name": "conformance", "redirect_uris": [%q], "token_endpoint_auth_method": %q}`, callback, method)
	resp, err := http.Post(issuer+"/register", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	var out struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return client{ID: out.ClientID, Secret: out.ClientSecret}
}

// freePort is a loopback port free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
