package a2aserve_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/apitest"
)

// TestCachedCardFollowsChanges: the service keeps the cards its agents
// serve, yet a changed reply, a renamed organization and an unpublished
// card show at the agent at once (within the notification's delay).
func TestCachedCardFollowsChanges(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Cache Org")
	slug := owner.Do(http.MethodGet, "/api/organizations/"+owner.OrgID, nil).Status(http.StatusOK).String("slug")
	reply := func(text string) []any { return []any{map[string]any{"name": "r", "text": text}} }
	id := owner.Do(http.MethodPost, "/api/agent-cards", map[string]any{"name": "desk", "version": "1.0.0", "description": cardDesc("Desks."),
		"skills":     []any{map[string]any{"name": "book_desk", "description": cardDesc("Books a desk.")}},
		"invocation": map[string]any{"protocol": "mcp", "endpoint": "https://agents.example.com/mcp"},
		"replies":    reply("first")}).Status(http.StatusCreated).String("id")
	owner.Do(http.MethodPost, "/api/agent-cards/"+id+"/publish", nil).Status(http.StatusOK)
	url := env.URL + a2aserve.EndpointPath(slug, "desk")
	text := func(url string) string {
		res := rpc(t, url, "1.0", "SendMessage", msg10("hi", nil))
		return res["message"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"].(string)
	}
	require.Equal(t, "first", text(url))
	require.Equal(t, "first", text(url), "served from the cache")

	owner.Do(http.MethodPatch, "/api/agent-cards/"+id, map[string]any{"replies": reply("second")}).Status(http.StatusOK)
	require.Eventually(t, func() bool { return text(url) == "second" }, 2*time.Second, 10*time.Millisecond)

	owner.Do(http.MethodPost, "/api/agent-cards/"+id+"/unpublish", nil).Status(http.StatusOK)
	require.Eventually(t, func() bool {
		status, _ := post(t, url, "1.0", send10("hi"))
		return status == http.StatusNotFound
	}, 2*time.Second, 10*time.Millisecond)
}
