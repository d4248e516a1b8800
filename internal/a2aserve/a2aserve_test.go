package a2aserve_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/failure"
)

func testCard() agentcard.Card {
	return agentcard.Card{
		Name: "travel-planner", Version: "1.0.0", Description: "Plans trips.",
		Skills: []agentcard.Skill{
			{Name: "search_flights", Description: "Finds flights."},
			{Name: "book_hotel", Description: "Books hotels.",
				Examples: []json.RawMessage{json.RawMessage(`"A room in Rome"`)}},
		},
	}
}

// agent serves testCard as the card "travel-planner" of the organization
// "acme"; every other card is not found.
func agent(t *testing.T) string {
	t.Helper()
	lookup := func(_ context.Context, slug, name string) (agentcard.Card, error) {
		if slug == "acme" && name == "travel-planner" {
			return testCard(), nil
		}
		return agentcard.Card{}, failure.NotFound("agent card")
	}
	var n atomic.Int64
	newID := func() string { return "id-" + strconv.FormatInt(n.Add(1), 10) }
	mux := http.NewServeMux()
	mux.Handle(a2aserve.Route, a2aserve.New(lookupAgent(lookup), nil, slog.New(slog.NewTextHandler(io.Discard, nil)), newID))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + a2aserve.EndpointPath("acme", "travel-planner")
}

func post(t *testing.T, url, version, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if version != "" {
		req.Header.Set(a2aserve.VersionHeader, version)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var v map[string]any
	if len(raw) > 0 {
		require.NoError(t, json.Unmarshal(raw, &v), string(raw))
	}
	return resp.StatusCode, v
}

func send10(text string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"message":{"messageId":"m1","contextId":"ctx-1","role":"ROLE_USER","parts":[{"text":` +
		strconv.Quote(text) + `}]}}}`
}

func TestSendMessageDefaultReply(t *testing.T) {
	for _, tc := range []struct {
		name, text, skill string
	}{
		{"the skill named", "please search flights to Rome", "search_flights"},
		{"the skill's example", "I need a room in Rome tonight", "book_hotel"},
		{"the skill named as written", "run book_hotel", "book_hotel"},
		{"no skill named: the first", "hello", "search_flights"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := agent(t)
			status, v := post(t, url, "1.0", send10(tc.text))
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, float64(7), v["id"])
			require.Equal(t, map[string]any{"message": map[string]any{
				"messageId": "id-1", "contextId": "ctx-1", "role": "ROLE_AGENT",
				"parts":    []any{map[string]any{"text": `travel-planner (mock agent): skill "` + tc.skill + `" received your message.`}},
				"metadata": map[string]any{"skill": tc.skill},
			}}, v["result"])
		})
	}
}

func TestMessageSendV03(t *testing.T) {
	url := agent(t)
	// No A2A-Version header: 0.3, whose method and shapes these are.
	status, v := post(t, url, "", `{"jsonrpc":"2.0","id":"a","method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"book hotel"}]}}}`)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "a", v["id"])
	require.Equal(t, map[string]any{
		"kind": "message", "messageId": "id-1", "contextId": "id-2", "role": "agent",
		"parts":    []any{map[string]any{"kind": "text", "text": `travel-planner (mock agent): skill "book_hotel" received your message.`}},
		"metadata": map[string]any{"skill": "book_hotel"},
	}, v["result"])
}

func TestJSONRPCErrors(t *testing.T) {
	url := agent(t)
	for _, tc := range []struct {
		name, version, body string
		code                float64
	}{
		{"not JSON", "1.0", `{"jsonrpc":`, -32700},
		{"not a request", "1.0", `{"jsonrpc":"1.0","id":1,"method":"SendMessage"}`, -32600},
		{"a batch", "1.0", `[` + send10("hi") + `]`, -32600},
		{"unknown method", "1.0", `{"jsonrpc":"2.0","id":1,"method":"tasks/list","params":{}}`, -32601},
		{"a task method without an id", "1.0", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{}}`, -32602},
		{"a negative history length", "1.0", `{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"id":"x","historyLength":-1}}`, -32602},
		{"no extended card", "1.0", `{"jsonrpc":"2.0","id":1,"method":"GetExtendedAgentCard","params":{}}`, -32007},
		{"an MCP method", "1.0", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}`, -32601},
		{"no params", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage"}`, -32602},
		{"no message", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}`, -32602},
		{"no messageId", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"role":"ROLE_USER","parts":[{"text":"x"}]}}}`, -32602},
		{"no parts", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[]}}}`, -32602},
		{"a 0.3 role in 1.0", "1.0", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"user","parts":[{"text":"x"}]}}}`, -32602},
		{"an unsupported version", "2.0", send10("hi"), -32009},
		{"a version that is no version", "latest", send10("hi"), -32009},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, v := post(t, url, tc.version, tc.body)
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, "2.0", v["jsonrpc"])
			require.NotContains(t, v, "result")
			e, ok := v["error"].(map[string]any)
			require.True(t, ok, "an error: %v", v)
			require.Equal(t, tc.code, e["code"], "%v", e)
		})
	}

	t.Run("the version error names the versions served", func(t *testing.T) {
		_, v := post(t, url, "2.0", send10("hi"))
		require.Equal(t, map[string]any{"code": float64(-32009), "message": "Version not supported",
			"data": map[string]any{"requested": "2.0", "supported": []any{"0.3", "1.0"}}}, v["error"])
		require.Equal(t, float64(7), v["id"])
	})
}

func TestUnknownCardIsNotFound(t *testing.T) {
	url := agent(t)
	for _, path := range []string{
		strings.Replace(url, "/acme/", "/other/", 1),
		strings.Replace(url, "/travel-planner/", "/nobody/", 1),
	} {
		status, v := post(t, path, "1.0", send10("hi"))
		require.Equal(t, http.StatusNotFound, status, path)
		require.Equal(t, float64(404), v["status"])
	}
}

func TestOnlyPost(t *testing.T) {
	url := agent(t)
	resp, err := http.Get(url)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	require.Equal(t, "POST", resp.Header.Get("Allow"))
}

func TestNotificationGetsNoAnswer(t *testing.T) {
	url := agent(t)
	status, v := post(t, url, "1.0", `{"jsonrpc":"2.0","method":"SendMessage","params":{}}`)
	require.Equal(t, http.StatusAccepted, status)
	require.Nil(t, v)
}

// scriptedAgent serves testCard with replies as acme's travel-planner.
func scriptedAgent(t testing.TB, replies []agentcard.Reply) string {
	t.Helper()
	card := testCard()
	card.Replies = replies
	lookup := func(_ context.Context, slug, name string) (agentcard.Card, error) {
		if slug == "acme" && name == "travel-planner" {
			return card, nil
		}
		return agentcard.Card{}, failure.NotFound("agent card")
	}
	mux := http.NewServeMux()
	mux.Handle(a2aserve.Route, a2aserve.New(lookupAgent(lookup), nil, slog.New(slog.NewTextHandler(io.Discard, nil)), func() string { return "id" }))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + a2aserve.EndpointPath("acme", "travel-planner")
}

func TestScriptedReplies(t *testing.T) {
	url := scriptedAgent(t, []agentcard.Reply{
		{Name: "city", Condition: json.RawMessage(`{"data.city":"Rome"}`), Text: "Rome is booked for {{args.data.nights}} nights."},
		{Name: "greeting", Condition: json.RawMessage(`{"field":"text","operator":"contains","value":"hello"}`), Text: "Hello! You said: {{args.text}}"},
		{Name: "greeting-too", Condition: json.RawMessage(`{"field":"text","operator":"contains","value":"hello"}`), Text: "never: the first match answers"},
		{Name: "vip", Condition: json.RawMessage(`{"metadata.tier":"gold"}`), Text: "{{args.metadata}}"},
	})
	data := func(d string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","contextId":"c","role":"ROLE_USER","parts":[{"text":"book hotel"},{"data":` + d + `}]}}}`
	}
	for _, tc := range []struct {
		name, body, reply, text string
	}{
		{"a condition on the data part", data(`{"city":"Rome","nights":3}`), "city", "Rome is booked for 3 nights."},
		{"the first match answers", send10("hello there"), "greeting", "Hello! You said: hello there"},
		{"a typed value as JSON", `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":{"tier":"gold"}}}}`,
			"vip", `{"tier":"gold"}`},
		{"no match: the default reply", data(`{"city":"Oslo"}`), "", `travel-planner (mock agent): skill "book_hotel" received your message.`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, v := post(t, url, "1.0", tc.body)
			msg := v["result"].(map[string]any)["message"].(map[string]any)
			require.Equal(t, []any{map[string]any{"text": tc.text}}, msg["parts"])
			md := msg["metadata"].(map[string]any)
			if tc.reply == "" {
				require.NotContains(t, md, "reply")
			} else {
				require.Equal(t, tc.reply, md["reply"])
			}
		})
	}
}

// lookupAgent adapts a card look-up to the agent look-up.
func lookupAgent(lookup func(context.Context, string, string) (agentcard.Card, error)) a2aserve.Lookup {
	return func(ctx context.Context, slug, name string) (a2aserve.Agent, error) {
		c, err := lookup(ctx, slug, name)
		return a2aserve.Agent{Card: c}, err
	}
}
