package a2aserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// TestOfficialSDKClientWithAPIKey: the official A2A client reads the API
// key scheme a card's agent requires from its A2A card, is refused without
// the key, and is answered with it in the header the scheme names.
func TestOfficialSDKClientWithAPIKey(t *testing.T) {
	t.Parallel()
	node, dir := sdkPackages.Toolchain(t)
	script, err := os.ReadFile(filepath.Join("testdata", "sdkauth.mjs"))
	require.NoError(t, err)

	env := apitest.New(t, nil)
	owner := env.Signup(t, "SDK Keys")
	slug := owner.Do(http.MethodGet, "/api/organizations/"+owner.OrgID, nil).Status(http.StatusOK).String("slug")
	const key = "sdk-agent-key-1"
	id := owner.Do(http.MethodPost, "/api/agent-cards", map[string]any{
		"name": "keyed-agent", "version": "1.0.0", "description": cardDesc("Answers with a key."),
		"skills":     []any{map[string]any{"name": "answer", "description": cardDesc("Answers.")}},
		"invocation": map[string]any{"protocol": "mcp", "endpoint": "https://agents.example.com/mcp"},
		"auth":       map[string]any{"scheme": "api_key", "header": "X-Agent-Key", "key": key},
	}).Status(http.StatusCreated).String("id")
	owner.Do(http.MethodPost, "/api/agent-cards/"+id+"/publish", nil).Status(http.StatusOK)

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--input-type=module", "--eval", string(script))
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(apitest.JSON(t, map[string]any{
		"cardBase": env.URL + "/api/exchange/agent-cards/" + slug + "/keyed-agent/", "key": key}))
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	var got struct {
		Scheme, Header string
		Refused        *string
		Texts          []string
	}
	require.NoError(t, json.Unmarshal(out, &got), "%s", out)
	require.Equal(t, "apiKeySecurityScheme", got.Scheme)
	require.Equal(t, "X-Agent-Key", got.Header)
	require.NotNil(t, got.Refused, "without the key the agent refuses")
	require.Contains(t, *got.Refused, "401")
	require.Equal(t, []string{`keyed-agent (mock agent): skill "answer" received your message.`}, got.Texts)
}
