package a2aserve_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/apitest"
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
