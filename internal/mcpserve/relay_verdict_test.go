package mcpserve_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/service"
)

// TestRelayedAnswerVerdict: an answer posted to another instance than the
// one whose call waits for it gets that instance's verdict: 400 for an id
// it never issued or for another server's question, 202 once taken, and
// 503 with Retry-After when the instance the id names cannot say in time.
func TestRelayedAnswerVerdict(t *testing.T) {
	redisURL := os.Getenv("REDIS_URL")
	if redisURL == "" {
		redisURL = "redis://127.0.0.1:6379/0"
	}
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.RedisURL = redisURL }})
	second, err := service.New(context.Background(), env.Config, slog.New(slog.NewTextHandler(io.Discard, nil)))
	require.NoError(t, err)
	srv2 := httptest.NewServer(second.Handler())
	t.Cleanup(func() { second.MCP().CloseStreams(); srv2.Close(); _ = second.Close() })
	for _, h := range []interface{ AnswersRelayed() <-chan struct{} }{env.Service.MCP(), second.MCP()} {
		select {
		case <-h.AnswersRelayed():
		case <-time.After(5 * time.Second):
			t.Fatal("the instance did not subscribe to its answers within 5s")
		}
	}
	owner := env.Signup(t, "Verdicts")
	id := createDesign(t, owner, legacyAskDesign(t))
	otherID := createDesign(t, owner, legacyAskDesign(t))
	first, relayed := env.URL+"/api/platform/"+id+"/mcp", srv2.URL+"/api/platform/"+id+"/mcp"
	foreign := srv2.URL + "/api/platform/" + otherID + "/mcp"

	l := askCall(t, first, "greet")
	qid, _ := question(t, l)
	forged := qid[:len(qid)-32] + strings.Repeat("0", 32) // the waiting instance's name, an id it never issued
	code, body := answer(t, relayed, forged, `{"action":"accept","content":{"name":"Mallory"}}`)
	require.Equal(t, http.StatusBadRequest, code, "a forged id: %s", body)
	require.Contains(t, body, "no question of this server waits for an answer with id")
	code, body = answer(t, foreign, qid, `{"action":"accept","content":{"name":"Mallory"}}`)
	require.Equal(t, http.StatusBadRequest, code, "another server's question: %s", body)
	code, body = answer(t, relayed, qid, `{"action":"accept","content":{"name":"Ada"}}`)
	require.Equal(t, http.StatusAccepted, code, body)
	require.Contains(t, l.next(), "Hello, Ada!")
	code, _ = answer(t, relayed, qid, `{"action":"accept","content":{"name":"Eve"}}`)
	require.Equal(t, http.StatusBadRequest, code, "answered already")

	// An instance that listens on its channel but never gives a verdict
	// (stuck, or of an earlier version): the client is told to try again.
	opts, err := redis.ParseURL(redisURL)
	require.NoError(t, err)
	rc := redis.NewClient(opts)
	t.Cleanup(func() { _ = rc.Close() })
	mute := "f00dfeedbeef"
	sub := rc.Subscribe(context.Background(), "mockmcp:answers:"+mute)
	t.Cleanup(func() { _ = sub.Close() })
	_, err = sub.Receive(context.Background()) // the subscription is confirmed
	require.NoError(t, err)
	start := time.Now()
	req := apitest.JSONRequest(t, http.MethodPost, relayed,
		strings.NewReader(`{"jsonrpc":"2.0","id":"mockmcp.`+mute+`.00","result":{"action":"accept"}}`))
	resp, raw := apitest.Send(t, req)
	require.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "%s", raw)
	require.Equal(t, "5", resp.Header.Get("Retry-After"))
	require.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
	var p map[string]any
	require.NoError(t, json.Unmarshal(raw, &p))
	require.Contains(t, p["detail"], "the instance waiting for this answer could not be reached in time")
	require.Less(t, time.Since(start), 5*time.Second)
}
