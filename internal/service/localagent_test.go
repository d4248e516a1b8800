package service_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// agentDoc is an agent card document that passes the publishing rules,
// with one scripted reply.
const agentDoc = `apiVersion: mockmcp/v1
kind: A2AAgent
name: travel-agent
version: 1.0.0
description: >-
  Plans trips for people who travel for work and for pleasure: flights, hotels and trains, with
  prices compared across providers and the itinerary written out day by day, ready to book and share with the rest of the team.
skills:
  - name: plan_trip
    description: Plans a whole trip from a destination and dates, day by day, with prices.
invocation:
  protocol: mcp
  endpoint: https://agents.example.com/travel/mcp
replies:
  - name: rome
    condition: {field: text, operator: contains, value: Rome}
    text: "Rome in three days: {{args.text}}"
`

// TestLocalModeServesAgentCards: a card document in the designs folder is
// published, its agent answers its replies at the A2A endpoint printed,
// and the exchange serves its A2A card; a changed file is applied again.
func TestLocalModeServesAgentCards(t *testing.T) {
	dsn := testdb.New(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "travel.yaml")
	require.NoError(t, os.WriteFile(path, []byte(agentDoc), 0o644))

	svc, out := runLocal(t, dsn, dir, discard())
	lines := out.Lines()
	require.Len(t, lines, 1, "%q", lines)
	endpoint := "http://" + svc.Addr() + "/api/exchange/agent-cards/local/travel-agent/a2a"
	require.Equal(t, "travel-agent  "+endpoint, lines[0])

	send := func(text string) string {
		t.Helper()
		body := apitest.JSON(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
			"params": map[string]any{"message": map[string]any{"messageId": "m1", "role": "ROLE_USER",
				"parts": []any{map[string]any{"text": text}}}}})
		status, raw := apitest.PostJSONRPCWith(t, endpoint, http.Header{"A2a-Version": {"1.0"}}, bytes.NewReader(body))
		require.Equal(t, http.StatusOK, status, "%s", raw)
		var v struct {
			Result struct {
				Message struct {
					Parts []struct{ Text string } `json:"parts"`
				} `json:"message"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal(raw, &v), "%s", raw)
		require.Len(t, v.Result.Message.Parts, 1, "%s", raw)
		return v.Result.Message.Parts[0].Text
	}
	require.Equal(t, "Rome in three days: Rome please", send("Rome please"))

	resp, err := http.Get("http://" + svc.Addr() + "/api/exchange/agent-cards/local/travel-agent/.well-known/agent-card.json")
	require.NoError(t, err)
	card, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", card)
	require.Contains(t, string(card), `"url":"`+endpoint+`"`)

	// The file changes: the new reply answers within a second or two.
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(agentDoc, "Rome in three days", "Roma", 1)), 0o644))
	require.Eventually(t, func() bool { return send("Rome now") == "Roma: Rome now" }, 5*time.Second, 50*time.Millisecond)

	// published: false takes it off the exchange: its agent is 404.
	require.NoError(t, os.WriteFile(path, []byte(agentDoc+"published: false\n"), 0o644))
	require.Eventually(t, func() bool {
		status, _ := apitest.PostJSONRPCWith(t, endpoint, nil, strings.NewReader(`{}`))
		return status == http.StatusNotFound
	}, 5*time.Second, 50*time.Millisecond)
}
