package httpapi_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// journaledAgent publishes a card whose agent answers refunds (metadata
// kind "refund") and then Paris (text), and returns its id and its A2A
// endpoint.
func journaledAgent(t *testing.T, env *apitest.Env, c *apitest.Client, name string) (id, endpoint string) {
	t.Helper()
	replies := []any{
		map[string]any{"name": "refund", "condition": map[string]any{"field": "metadata.kind", "operator": "equals", "value": "refund"},
			"text": "Refund started."},
		map[string]any{"name": "paris", "condition": map[string]any{"field": "text", "operator": "contains", "value": "Paris"},
			"text": "Sunny in Paris."},
	}
	id = mkCard(t, c, with(validCard(name), "replies", replies))
	c.Do("POST", cardsPath+"/"+id+"/publish", nil).Status(http.StatusOK)
	return id, env.URL + exchangePath + "/" + orgSlug(t, c) + "/" + name + "/a2a"
}

// agentJournal lists a card's journal with query, waiting (the journal is
// written in the background) until it holds want entries.
func agentJournal(t *testing.T, c *apitest.Client, card, query string, want int) *apitest.Response {
	t.Helper()
	var r *apitest.Response
	require.Eventually(t, func() bool {
		r = c.Do("GET", cardsPath+"/"+card+"/journal"+query, nil).Status(http.StatusOK)
		return r.Len("items") >= want
	}, 10*time.Second, 20*time.Millisecond, "journal%s never held %d entries", query, want)
	require.Equal(t, want, r.Len("items"), "body: %s", r.Raw)
	return r
}

func TestAgentJournalRecordsMessages(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Agent Journal")
	card, endpoint := journaledAgent(t, env, c, "journaled-agent")

	before := time.Now().UTC()
	status, raw := sendAgentMessage(t, endpoint, "Weather in Oslo?")
	require.Equal(t, http.StatusOK, status, "%s", raw)
	body := apitest.JSON(t, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "message/send",
		"params": map[string]any{"message": map[string]any{"kind": "message", "messageId": "m2", "contextId": "trip-9",
			"role": "user", "parts": []any{map[string]any{"kind": "text", "text": "Paris in May"},
				map[string]any{"kind": "data", "data": map[string]any{"nights": 3}}},
			"metadata": map[string]any{"kind": "travel"}}}})
	status, raw = apitest.PostJSONRPCWith(t, endpoint, nil, bytes.NewReader(body))
	require.Equal(t, http.StatusOK, status, "%s", raw)
	require.Contains(t, string(raw), "Sunny in Paris.")
	status, raw = apitest.PostJSONRPCWith(t, endpoint, http.Header{"A2a-Version": {"2.0"}}, bytes.NewReader(body))
	require.Equal(t, http.StatusOK, status, "%s", raw)
	require.Contains(t, string(raw), `"code":-32009`)

	page := agentJournal(t, c, card, "", 3)
	// Newest first: the refused version, the Paris reply, the default one.
	require.Equal(t, "error", page.String("items.0.outcome"))
	require.Equal(t, float64(-32009), page.Get("items.0.error_code"))
	require.Equal(t, "2.0", page.String("items.0.a2a_version"))
	require.Nil(t, page.Get("items.0.reply"))
	require.Nil(t, page.Get("items.0.message"), "the message is not read once the version is refused")

	require.Equal(t, "result", page.String("items.1.outcome"))
	require.Equal(t, "message/send", page.String("items.1.method"))
	require.Equal(t, "JSONRPC", page.String("items.1.binding"))
	require.Equal(t, "0.3", page.String("items.1.a2a_version"), "no A2A-Version header: 0.3")
	require.Equal(t, "paris", page.String("items.1.reply"))
	require.Equal(t, "get_forecast", page.String("items.1.skill"))
	require.Equal(t, map[string]any{"text": "Paris in May", "data": map[string]any{"nights": float64(3)},
		"metadata": map[string]any{"kind": "travel"}, "contextId": "trip-9"}, page.Get("items.1.message"))
	require.Equal(t, []any{map[string]any{"scenario": "refund", "field": "metadata.kind", "operator": "equals",
		"reason": `metadata.kind: equals "refund" but was "travel"`}}, page.Get("items.1.mismatches"))
	require.Contains(t, page.String("items.1.response"), "Sunny in Paris.")
	require.Nil(t, page.Get("items.1.error_code"))

	require.Equal(t, "default", page.String("items.2.reply"))
	require.Equal(t, "SendMessage", page.String("items.2.method"))
	require.Equal(t, "1.0", page.String("items.2.a2a_version"))
	require.Len(t, page.Get("items.2.mismatches"), 2, "no reply matched: both explained")
	require.Equal(t, `text: contains "Paris" but was "Weather in Oslo?"`, page.String("items.2.mismatches.1.reason"))
	received, err := time.Parse(time.RFC3339Nano, page.String("items.2.received_at"))
	require.NoError(t, err)
	require.False(t, received.Before(before.Add(-time.Second)))
	require.NotEmpty(t, page.String("items.2.client_address"))

	t.Run("filters and pages", func(t *testing.T) {
		require.Equal(t, "paris", agentJournal(t, c, card, "?reply=paris", 1).String("items.0.reply"))
		require.Equal(t, "error", agentJournal(t, c, card, "?outcome=error", 1).String("items.0.outcome"))
		agentJournal(t, c, card, "?method=SendMessage", 1)
		agentJournal(t, c, card, "?since="+time.Now().Add(time.Hour).UTC().Format(time.RFC3339), 0)
		first := agentJournal(t, c, card, "?limit=2", 2)
		next := first.String("next_cursor")
		require.NotEmpty(t, next)
		rest := agentJournal(t, c, card, "?limit=2&cursor="+next, 1)
		require.Equal(t, "default", rest.String("items.0.reply"))
		require.Nil(t, rest.Get("next_cursor"))
		c.Do("GET", cardsPath+"/"+card+"/journal?outcome=bogus", nil).Problem(http.StatusBadRequest, "outcome")
	})

	t.Run("verify", func(t *testing.T) {
		verify := func(body map[string]any) *apitest.Response {
			t.Helper()
			return c.Do("POST", cardsPath+"/"+card+"/verify", body).Status(http.StatusOK)
		}
		v := verify(map[string]any{"reply": "paris", "exactly": 1})
		require.Equal(t, true, v.Get("verified"), "%s", v.Raw)
		require.Equal(t, true, v.Get("complete"))
		require.Equal(t, "exactly 1", v.String("expected"))
		require.Equal(t, `the agent received 1 message answered by reply "paris", as expected (exactly 1)`, v.String("message"))
		v = verify(map[string]any{"message": map[string]any{"field": "text", "operator": "contains", "value": "Oslo"}})
		require.Equal(t, float64(1), v.Get("count"))
		require.Equal(t, true, v.Get("verified"))
		v = verify(map[string]any{"message": map[string]any{"data.nights": 3}, "skill": "get_forecast", "at_least": 2})
		require.Equal(t, float64(1), v.Get("count"))
		require.Equal(t, false, v.Get("verified"))
		require.Equal(t, "at least 2", v.String("expected"))
		v = verify(map[string]any{"reply": "default", "at_least": 0, "at_most": 1})
		require.Equal(t, true, v.Get("verified"))
		require.Equal(t, "at least 0 and at most 1", v.String("expected"))
		require.Equal(t, float64(3), verify(map[string]any{}).Get("count")) // every message, the error's included
		require.Equal(t, false, verify(map[string]any{"reply": "refund"}).Get("verified"))

		c.Do("POST", cardsPath+"/"+card+"/verify", map[string]any{"at_least": 2, "at_most": 1}).
			Problem(http.StatusUnprocessableEntity, "at_most")
		c.Do("POST", cardsPath+"/"+card+"/verify", map[string]any{"exactly": 1, "at_most": 1}).
			Problem(http.StatusUnprocessableEntity, "exactly")
		c.Do("POST", cardsPath+"/"+card+"/verify", map[string]any{"message": map[string]any{"field": "text", "operator": "nope", "value": 1}}).
			Problem(http.StatusUnprocessableEntity, "message.operator")
		c.Do("POST", cardsPath+"/"+card+"/verify", map[string]any{"exactly": -1}).
			Problem(http.StatusUnprocessableEntity, "exactly")
	})
}

// TestAgentJournalTenancy: another organization can neither read, verify
// nor clear a card's journal, through any route or tool.
func TestAgentJournalTenancy(t *testing.T) {
	t.Parallel()
	env, owner := apitest.SignedUp(t, "Journal Owner")
	card, endpoint := journaledAgent(t, env, owner, "private-agent")
	status, _ := sendAgentMessage(t, endpoint, "Weather in Paris?")
	require.Equal(t, http.StatusOK, status)
	agentJournal(t, owner, card, "", 1)

	other := env.Signup(t, "Journal Intruder")
	other.Do("GET", cardsPath+"/"+card+"/journal", nil).Problem(http.StatusNotFound)
	other.Do("DELETE", cardsPath+"/"+card+"/journal", nil).Problem(http.StatusNotFound)
	other.Do("POST", cardsPath+"/"+card+"/verify", map[string]any{}).Problem(http.StatusNotFound)
	raw := other.Do("POST", "/api/keys", map[string]any{"name": "intruder"}).Status(http.StatusCreated).String("raw_key")
	for _, tool := range []string{"get_agent_journal", "clear_agent_journal", "verify_agent"} {
		r := platformCall(t, env, raw, tool, map[string]any{"card_id": card})
		require.Equal(t, true, r.Get("result.isError"), "%s: %s", tool, r.Raw)
		require.Contains(t, r.String("result.content.0.text"), "404", tool)
	}
	agentJournal(t, owner, card, "", 1) // still there
}

// platformCall calls a platform MCP tool with the API key raw.
func platformCall(t *testing.T, env *apitest.Env, raw, name string, args map[string]any) *apitest.Response {
	t.Helper()
	c := env.Anonymous(t)
	c.Header.Set("X-API-Key", raw)
	c.Header.Set("Accept", "application/json")
	return c.Do("POST", "/api/platform-mcp/mcp", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}}).Status(http.StatusOK)
}

// TestAgentJournalAsPlatformTools: the agent journal routes are platform
// MCP tools.
func TestAgentJournalAsPlatformTools(t *testing.T) {
	t.Parallel()
	env, c := apitest.SignedUp(t, "Agent Journal Tools")
	card, endpoint := journaledAgent(t, env, c, "tooled-agent")
	status, _ := sendAgentMessage(t, endpoint, "Weather in Paris?")
	require.Equal(t, http.StatusOK, status)
	raw := c.Do("POST", "/api/keys", map[string]any{"name": "assistant"}).Status(http.StatusCreated).String("raw_key")
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		r := platformCall(t, env, raw, name, args)
		require.NotEqual(t, true, r.Get("result.isError"), "body: %s", r.Raw)
		var out map[string]any
		if text := r.String("result.content.0.text"); text != "" {
			require.NoError(t, json.Unmarshal([]byte(text), &out))
		}
		return out
	}
	v := call("verify_agent", map[string]any{"card_id": card, "reply": "paris", "exactly": 1})
	require.Equal(t, true, v["verified"], "%v", v)
	page := call("get_agent_journal", map[string]any{"card_id": card, "reply": "paris"})
	require.Len(t, page["items"], 1)
	call("clear_agent_journal", map[string]any{"card_id": card})
	require.Equal(t, float64(0), call("verify_agent", map[string]any{"card_id": card})["count"])
	agentJournal(t, c, card, "", 0)
}
