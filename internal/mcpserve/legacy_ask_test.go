//lint:file-ignore SA1019 sampling and roots are deprecated from 2026-07-28 but still defined; clients of the earlier revisions answer them.
package mcpserve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/service"
)

// legacyAskDesign is askDesign served to the revisions before 2026-07-28
// only, at 2025-11-25.
func legacyAskDesign(t *testing.T) serverDesign {
	t.Helper()
	d := askDesign(t)
	var server map[string]any
	require.NoError(t, json.Unmarshal(d.Server, &server))
	server["eras"], server["protocol_version"] = "legacy_only", "2025-11-25"
	d.Server, _ = json.Marshal(server)
	return d
}

// TestAskLegacySDKClient: the official Go SDK, as a client of MCP
// 2025-11-25, is sent the scenarios' questions as requests on the call's
// event stream, answers them with its handlers in POSTs of their own, and
// gets the answer of the branch its answers take.
func TestAskLegacySDKClient(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	id := createDesign(t, env.Signup(t, "Legacy SDK asks"), legacyAskDesign(t))
	var asked []string
	name, action := "Ada", "accept"
	client := mcp.NewClient(&mcp.Implementation{Name: "asked", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, r.Params.Mode+": "+r.Params.Message)
			switch {
			case strings.Contains(r.Params.Message, "color"):
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "green"}}, nil
			case strings.HasPrefix(r.Params.Message, "Step 1"):
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}}, nil
			case strings.Contains(r.Params.Message, "context"):
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"context": "Ada"}}, nil
			case action != "accept":
				return &mcp.ElicitResult{Action: action}, nil
			case name == "":
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"nickname": "A"}}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}, nil
		},
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			asked = append(asked, "sampling: "+r.Params.SystemPrompt)
			return &mcp.CreateMessageResult{Role: "assistant", Model: "sdk-model", Content: &mcp.TextContent{Text: "Paris"}}, nil
		},
	})
	client.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: env.URL + "/api/platform/" + id + "/mcp"},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = session.Close() })
	require.Equal(t, "2025-11-25", session.InitializeResult().ProtocolVersion)

	call := func(tool string) *mcp.CallToolResult {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{}})
		require.NoError(t, err, tool)
		return res
	}
	text := func(res *mcp.CallToolResult) string {
		t.Helper()
		require.Len(t, res.Content, 1)
		return res.Content[0].(*mcp.TextContent).Text
	}
	for _, tc := range []struct{ tool, want string }{
		{"greet", "Hello, Ada!"},
		{"survey", "Grace likes green"},
		{"capital", "Model sdk-model says Paris; first root file:///work"},
	} {
		res := call(tc.tool)
		require.False(t, res.IsError, tc.tool)
		require.Equal(t, tc.want, text(res), tc.tool)
	}
	require.Equal(t, []string{"form: What is your name?", "form: Step 1: What is your name?", "form: Step 2: What is your favorite color?",
		"sampling: Answer in one word."}, asked)

	name = "Bob Jr"
	require.Equal(t, "Bob again!", text(call("greet")), "the first branch whose conditions hold answers")
	action = "decline"
	require.JSONEq(t, `{"greeting":"none","reason":"declined"}`, text(call("greet")))
	action = "cancel"
	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	requireWireError(t, err, -32603, "the user cancelled", "")
	// Content the requested schema refuses: the SDK answers its own
	// error instead of sending it, which the last branch takes.
	action, name = "accept", ""
	_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: map[string]any{}})
	requireWireError(t, err, -32603, "the user cancelled", "")

	prompt, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "context_prompt", Arguments: map[string]string{"topic": "tides"}})
	require.NoError(t, err)
	require.Equal(t, "Write about tides using this context: Ada", prompt.Messages[0].Content.(*mcp.TextContent).Text)
	require.Equal(t, "form: What context should the prompt use?", asked[len(asked)-1])
}

// askCall begins a legacy tools/call of tool on endpoint whose reply is an
// event stream, and returns the stream.
func askCall(t *testing.T, endpoint, tool string) *listener {
	t.Helper()
	return askRequest(t, endpoint, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"`+tool+`","arguments":{}}}`)
}

// askRequest begins a legacy request whose reply is an event stream, and
// returns the stream.
func askRequest(t *testing.T, endpoint, body string) *listener {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req := apitest.JSONRequest(t, http.MethodPost, endpoint, strings.NewReader(body))
	req = req.WithContext(ctx)
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	l := &listener{t: t, resp: resp, cancel: cancel, messages: make(chan string, 64)}
	t.Cleanup(l.close)
	go l.read()
	return l
}

// question reads the next message of l as a request to the client, and
// returns its id and method.
func question(t *testing.T, l *listener) (id, method string) {
	t.Helper()
	var m struct {
		ID     string `json:"id"`
		Method string `json:"method"`
	}
	msg := l.next()
	require.NoError(t, json.Unmarshal([]byte(msg), &m), msg)
	require.NotEmpty(t, m.ID, msg)
	return m.ID, m.Method
}

// answer posts the client's response to request id and returns the status
// and body.
func answer(t *testing.T, endpoint, id, result string) (int, string) {
	t.Helper()
	return mcpCall(t, endpoint, `{"jsonrpc":"2.0","id":"`+id+`","result":`+result+`}`)
}

// TestAskLegacyWire: the exchange as a client sees it: the question on the
// call's stream, the answer accepted with 202 once (a second answer, or one
// to an id never asked, is 400), the call's result after it; a round
// without answers ends in its timeout branch, or in -32603 after
// ASK_TIMEOUT, the questions cancelled; a client that leaves frees its
// questions; the bound of a server's waiting questions holds.
func TestAskLegacyWire(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		c.AskTimeout = 300 * time.Millisecond
		c.MaxPendingQuestions = 2
	}})
	owner := env.Signup(t, "Legacy asks")
	d := legacyAskDesign(t)
	d.Tools = append(d.Tools, json.RawMessage(`{"name":"patient","description":"Waits for an answer, a while.","input_schema":{"type":"object"},
		"mock_scenarios":[{"name":"wait","ask":{"ok":{"elicitation":{"message":"Proceed?","requested_schema":{"type":"object","properties":{}}}}},
		"then":[{"when":{"ok.action":"accept"},"response":{"went":"ahead"}},{"timeout_ms":200,"response":{"answered":"{{ok.action}}","late":true}}]}]}`))
	id := createDesign(t, owner, d)
	endpoint := env.URL + "/api/platform/" + id + "/mcp"

	t.Run("answered", func(t *testing.T) {
		l := askCall(t, endpoint, "greet")
		qid, method := question(t, l)
		require.Equal(t, "elicitation/create", method)
		require.Regexp(t, `^mockmcp\.[0-9a-f]{12}\.[0-9a-f]{32}$`, qid)
		code, body := answer(t, endpoint, qid, `{"action":"accept","content":{"name":"Ada"}}`)
		require.Equal(t, http.StatusAccepted, code, body)
		require.Empty(t, body)
		require.JSONEq(t, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"Hello, Ada!"}]}}`, l.next())
		require.Empty(t, l.next(), "the stream ends with the result")

		code, body = answer(t, endpoint, qid, `{"action":"accept","content":{"name":"Eve"}}`)
		require.Equal(t, http.StatusBadRequest, code)
		require.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid request: no question of this server `+
			`waits for an answer with id \"`+qid+`\" (it was answered already, timed out, or was never asked)"}}`, body)
	})
	t.Run("a resource", func(t *testing.T) {
		for name, want := range map[string]string{"Ada": "For Ada: the key is under the mat.", "Eve": "The note is sealed."} {
			l := askRequest(t, endpoint, `{"jsonrpc":"2.0","id":9,"method":"resources/read","params":{"uri":"secret://note"}}`)
			qid, method := question(t, l)
			require.Equal(t, "elicitation/create", method)
			code, _ := answer(t, endpoint, qid, `{"action":"accept","content":{"name":"`+name+`"}}`)
			require.Equal(t, http.StatusAccepted, code)
			require.JSONEq(t, `{"jsonrpc":"2.0","id":9,"result":{"contents":[{"uri":"secret://note","mimeType":"text/plain","text":"`+want+`"}]}}`, l.next())
		}
	})
	t.Run("an error for an answer", func(t *testing.T) {
		l := askCall(t, endpoint, "greet")
		qid, _ := question(t, l)
		code, _ := mcpCall(t, endpoint, `{"jsonrpc":"2.0","id":"`+qid+`","error":{"code":-32601,"message":"Method not found"}}`)
		require.Equal(t, http.StatusAccepted, code)
		// No branch reads an error but the last, which has no condition.
		require.JSONEq(t, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"the user cancelled"}}`, l.next())
	})
	t.Run("content the requested schema refuses", func(t *testing.T) {
		l := askCall(t, endpoint, "greet")
		qid, _ := question(t, l)
		code, _ := answer(t, endpoint, qid, `{"action":"accept","content":{"nickname":"A"}}`)
		require.Equal(t, http.StatusAccepted, code)
		var got struct {
			Error struct {
				Code    int               `json:"code"`
				Message string            `json:"message"`
				Data    map[string]string `json:"data"`
			} `json:"error"`
		}
		require.NoError(t, json.Unmarshal([]byte(l.next()), &got))
		require.Equal(t, -32602, got.Error.Code)
		require.Contains(t, got.Error.Message, "the client's answer to question 'user_name' (elicitation/create): content.name does not satisfy the requested schema: Required property 'name' is missing")
		require.Equal(t, map[string]string{"field": "user_name.content.name"}, got.Error.Data)
	})
	t.Run("an answer for another server", func(t *testing.T) {
		other := createDesign(t, owner, legacyAskDesign(t))
		l := askCall(t, endpoint, "greet")
		qid, _ := question(t, l)
		code, _ := answer(t, env.URL+"/api/platform/"+other+"/mcp", qid, `{"action":"accept","content":{"name":"Mallory"}}`)
		require.Equal(t, http.StatusBadRequest, code)
		code, _ = answer(t, endpoint, qid, `{"action":"accept","content":{"name":"Ada"}}`)
		require.Equal(t, http.StatusAccepted, code)
		require.Contains(t, l.next(), "Hello, Ada!")
	})
	t.Run("the timeout branch", func(t *testing.T) {
		l := askCall(t, endpoint, "patient")
		qid, _ := question(t, l)
		require.JSONEq(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"`+qid+`","reason":"no answer within 200ms"}}`, l.next())
		require.JSONEq(t, `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"{\"answered\":\"\",\"late\":true}"}]}}`, l.next())
		code, _ := answer(t, endpoint, qid, `{"action":"accept"}`)
		require.Equal(t, http.StatusBadRequest, code, "too late")
	})
	t.Run("no timeout branch", func(t *testing.T) {
		l := askCall(t, endpoint, "greet")
		qid, _ := question(t, l)
		require.Contains(t, l.next(), `"requestId":"`+qid+`"`)
		require.JSONEq(t, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"The client did not answer question user_name `+
			`of mock scenario 'ask name' within 300ms"}}`, l.next())
	})
	t.Run("the client leaves; the bound", func(t *testing.T) {
		serverID := uuid.MustParse(id)
		first, second := askCall(t, endpoint, "patient"), askCall(t, endpoint, "patient")
		question(t, first)
		question(t, second)
		require.Equal(t, 2, env.Service.MCP().PendingQuestions(serverID))
		third := askCall(t, endpoint, "patient")
		require.JSONEq(t, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Too many questions of this server are waiting `+
			`for clients' answers; try again once some are answered"}}`, third.next())
		first.close()
		second.close()
		apitest.Eventually(t, "the questions of the clients that left are freed", func() bool { return env.Service.MCP().PendingQuestions(serverID) == 0 })
	})
}

// TestAskAnswerOnAnotherInstance: with Redis, a client's answer that lands
// on another instance than the one whose call waits for it reaches it.
func TestAskAnswerOnAnotherInstance(t *testing.T) {
	t.Parallel()
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
	id := createDesign(t, env.Signup(t, "Two instances"), legacyAskDesign(t))
	first, other := env.URL+"/api/platform/"+id+"/mcp", srv2.URL+"/api/platform/"+id+"/mcp"

	for i, name := range []string{"Ada", "Grace"} {
		l := askCall(t, first, "greet")
		qid, _ := question(t, l)
		code, body := answer(t, other, qid, fmt.Sprintf(`{"action":"accept","content":{"name":%q}}`, name))
		require.Equal(t, http.StatusAccepted, code, "answer %d: %s", i, body)
		require.Contains(t, l.next(), "Hello, "+name+"!")
	}
	code, _ := answer(t, other, "mockmcp.000000000000.00", `{"action":"accept"}`)
	require.Equal(t, http.StatusBadRequest, code, "no instance waits for it")
}

// TestAskRoundsJournaled: the rounds a call plays reach the journal, in
// both eras, and verification asks who was asked what and what they
// answered.
func TestAskRoundsJournaled(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Journaled asks")
	id := createDesign(t, owner, askDesign(t))
	endpoint := env.URL + "/api/platform/" + id + "/mcp"

	// A legacy call, asked on its stream.
	l := askCall(t, endpoint, "greet")
	qid, _ := question(t, l)
	code, _ := answer(t, endpoint, qid, `{"action":"accept","content":{"name":"Ada"}}`)
	require.Equal(t, http.StatusAccepted, code)
	require.Contains(t, l.next(), "Hello, Ada!")
	// A modern one: asked in a first request, answered in a second.
	hdr := http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"greet"}}
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}`
	_, body := post(t, endpoint, hdr, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{`+meta+`,"name":"greet"}}`)
	require.Contains(t, body, `"input_required"`)
	_, body = post(t, endpoint, hdr, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{`+meta+`,"name":"greet",`+
		`"inputResponses":{"user_name":{"action":"decline"}}}}`)
	require.Contains(t, body, `declined`)

	verify := func(q map[string]any) float64 {
		t.Helper()
		q["tool"] = "greet"
		return owner.Do("POST", "/api/servers/"+id+"/journal/verify", q).Status(http.StatusOK).Get("count").(float64)
	}
	require.Equal(t, 2.0, verify(map[string]any{"asked": "user_name"}), "the legacy call and the modern call's first request")
	require.Equal(t, 1.0, verify(map[string]any{"answers": map[string]any{"user_name.content.name": "Ada"}}))
	require.Equal(t, 1.0, verify(map[string]any{"asked": "user_name", "answers": map[string]any{"user_name.action": "accept"}}))
	require.Equal(t, 1.0, verify(map[string]any{"answers": map[string]any{"user_name.action": "decline"}}))
	require.Equal(t, 0.0, verify(map[string]any{"asked": "step2"}))

	items := owner.Do("GET", "/api/servers/"+id+"/journal?tool=greet", nil).Status(http.StatusOK).Get("items").([]any)
	require.Len(t, items, 3)
	var rounds []string
	for _, it := range items {
		b, err := json.Marshal(it.(map[string]any)["rounds"])
		require.NoError(t, err)
		rounds = append(rounds, string(b))
	}
	asked := `{"user_name":{"method":"elicitation/create","params":{"message":"What is your name?","requestedSchema":` +
		`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}`
	modernAsked := strings.Replace(asked, `"params":{`, `"params":{"mode":"form",`, 1)
	// Newest first: the modern answer (the decline branch is the third),
	// the modern question, the legacy call.
	require.JSONEq(t, `[{"asked":`+modernAsked+`,"sent":false,"answers":{"user_name":{"action":"decline"}},"branch":2,"timed_out":false}]`, rounds[0])
	require.JSONEq(t, `[{"asked":`+modernAsked+`,"sent":true,"answers":{},"branch":null,"timed_out":false}]`, rounds[1])
	require.JSONEq(t, `[{"asked":`+asked+`,"sent":true,"answers":{"user_name":{"action":"accept","content":{"name":"Ada"}}},"branch":1,"timed_out":false}]`, rounds[2])
}
