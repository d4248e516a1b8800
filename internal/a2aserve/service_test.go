package a2aserve_test

import (
	"io"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// TestTaskRepliesThroughTheService: a card's task replies and faults are
// checked when saved (422 naming the field), and its published agent keeps
// its tasks in the card's organization: the same card name under another
// organization does not know them.
func TestTaskRepliesThroughTheService(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	card := func(replies []any) map[string]any {
		return map[string]any{"name": "desk", "version": "1.0.0", "description": cardDesc("Books desks."),
			"skills":     []any{map[string]any{"name": "book_desk", "description": cardDesc("Books a desk.")}},
			"invocation": map[string]any{"protocol": "mcp", "endpoint": "https://agents.example.com/mcp"},
			"replies":    replies}
	}
	ada := env.Signup(t, "Desk Alpha")
	ada.Do(http.MethodPost, "/api/agent-cards", card([]any{map[string]any{"name": "r", "task": map[string]any{
		"steps":   []any{map[string]any{"duration_ms": 10}, map[string]any{"state": "done"}},
		"outcome": map[string]any{"state": "finished"}}}})).
		Problem(http.StatusUnprocessableEntity, "replies[0].task.steps[1].state", "replies[0].task.outcome.state")
	ada.Do(http.MethodPost, "/api/agent-cards", card([]any{map[string]any{"name": "r", "text": "x",
		"fault": map[string]any{"delay_ms": 60000, "error": map[string]any{"code": 0, "message": "x"}}}})).
		Problem(http.StatusUnprocessableEntity, "replies[0].fault.delay_ms", "replies[0].fault.error.code")

	replies := []any{
		map[string]any{"name": "drop", "condition": map[string]any{"text": "drop"}, "fault": map[string]any{"drop": true}},
		map[string]any{"name": "wait", "task": map[string]any{
			"steps":   []any{map[string]any{"state": "input-required", "message": "Which floor?"}},
			"outcome": map[string]any{"state": "completed"}}}}
	agents := map[string]string{}
	for _, org := range []string{"Desk Alpha", "Desk Beta"} {
		owner := ada
		if org != "Desk Alpha" {
			owner = env.Signup(t, org)
		}
		slug := owner.Do(http.MethodGet, "/api/organizations/"+owner.OrgID, nil).Status(http.StatusOK).String("slug")
		id := owner.Do(http.MethodPost, "/api/agent-cards", card(replies)).Status(http.StatusCreated).String("id")
		owner.Do(http.MethodPost, "/api/agent-cards/"+id+"/publish", nil).Status(http.StatusOK)
		agents[org] = env.URL + a2aserve.EndpointPath(slug, "desk")
	}
	task := rpc(t, agents["Desk Alpha"], "1.0", "SendMessage", msg10("a desk", nil))["task"].(map[string]any)
	require.Equal(t, "TASK_STATE_INPUT_REQUIRED", state(task))
	id := task["id"].(string)
	e := rpcError(t, agents["Desk Beta"], "1.0", "GetTask", map[string]any{"id": id})
	require.Equal(t, float64(-32001), e["code"])
	e = rpcError(t, agents["Desk Beta"], "1.0", "CancelTask", map[string]any{"id": id})
	require.Equal(t, float64(-32001), e["code"])
	require.Equal(t, "TASK_STATE_COMPLETED",
		state(rpc(t, agents["Desk Alpha"], "1.0", "SendMessage", msg10("floor 3", map[string]any{"taskId": id}))["task"].(map[string]any)))

	// A dropped message gets no answer, in either binding.
	for _, url := range []string{agents["Desk Alpha"], agents["Desk Alpha"] + "/rest/message:send"} {
		body := `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"drop"}]}}`
		if !strings.HasSuffix(url, ":send") {
			body = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":` + body + `}`
		}
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set(a2aserve.VersionHeader, "1.0")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		require.Error(t, err, url)
	}
}

// TestAgentFloodIsLimited: in production a flood from one address at a
// published agent is answered 429 with Retry-After past the exchange's
// per-address limit, in both bindings (one counter), without reaching the
// agent: its journal holds the messages admitted only. A client behind a
// trusted proxy is counted by its own address.
func TestAgentFloodIsLimited(t *testing.T) {
	t.Parallel()
	const limit = 20
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		c.Env = "production"
		c.MaxPublicRateLimit = limit
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	}})
	owner := env.Signup(t, "Flooded Agents")
	slug := owner.Do(http.MethodGet, "/api/organizations/"+owner.OrgID, nil).Status(http.StatusOK).String("slug")
	id := owner.Do(http.MethodPost, "/api/agent-cards", map[string]any{"name": "flooded", "version": "1.0.0",
		"description": cardDesc("Answers whoever asks."),
		"skills":      []any{map[string]any{"name": "answer", "description": cardDesc("Answers a question.")}},
		"invocation":  map[string]any{"protocol": "mcp", "endpoint": "https://agents.example.com/mcp"},
		"replies":     []any{map[string]any{"name": "hello", "text": "Hello."}}}).Status(http.StatusCreated).String("id")
	owner.Do(http.MethodPost, "/api/agent-cards/"+id+"/publish", nil).Status(http.StatusOK)
	url := env.URL + a2aserve.EndpointPath(slug, "flooded")

	send := func(from string, rest bool) *http.Response {
		body := `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}`
		target := url + "/rest/message:send"
		if !rest {
			body, target = `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":`+body+`}`, url
		}
		req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set(a2aserve.VersionHeader, "1.0")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", from)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	admitted, refused := 0, 0
	for i := range 3 * limit {
		resp := send("198.51.100.7", i%2 == 1)
		switch resp.StatusCode {
		case http.StatusOK:
			admitted++
		case http.StatusTooManyRequests:
			refused++
			require.NotEmpty(t, resp.Header.Get("Retry-After"))
			require.Equal(t, "0", resp.Header.Get("X-RateLimit-Remaining"))
		default:
			t.Fatalf("message %d: status %d", i, resp.StatusCode)
		}
	}
	require.Equal(t, limit, admitted)
	require.Equal(t, 2*limit, refused)
	require.Equal(t, http.StatusOK, send("198.51.100.8", false).StatusCode, "another address has its own counter")

	require.Eventually(t, func() bool {
		r := owner.Do(http.MethodGet, "/api/agent-cards/"+id+"/journal?limit=100", nil).Status(http.StatusOK)
		entries, _ := r.Get("items").([]any)
		return len(entries) == limit+1
	}, 10*time.Second, 50*time.Millisecond, "the journal holds the admitted messages only")
}
