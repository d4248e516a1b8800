//lint:file-ignore SA1019 sampling and roots are deprecated from 2026-07-28 but still defined; the SDK answers the scenarios that ask for them with these handlers.
package mcpserve_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/testclock"
)

// askDesign is the design of testdata/modern_ask.txtar: tools whose
// scenarios ask the client.
func askDesign(t *testing.T) serverDesign {
	t.Helper()
	ar, err := txtar.ParseFile("testdata/modern_ask.txtar")
	require.NoError(t, err)
	var df designFile
	require.NoError(t, json.Unmarshal(ar.Files[0].Data, &df))
	return df.Servers[0]
}

// TestAskSDKClient: the official Go SDK, as a client of MCP 2026-07-28,
// answers the questions of a scenario with its handlers and retries on its
// own until the result is complete.
func TestAskSDKClient(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	id := createDesign(t, env.Signup(t, "SDK asks"), askDesign(t))
	var asked []string
	client := mcp.NewClient(&mcp.Implementation{Name: "asked", Version: "1.0.0"}, &mcp.ClientOptions{
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			asked = append(asked, r.Params.Message)
			switch {
			case strings.Contains(r.Params.Message, "color"):
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "green"}}, nil
			case strings.HasPrefix(r.Params.Message, "Step 1"):
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}}, nil
			}
			if strings.Contains(r.Params.Message, "context") {
				return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"context": "Ada"}}, nil
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		},
		CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			asked = append(asked, "sampling: "+r.Params.SystemPrompt)
			return &mcp.CreateMessageResult{Role: "assistant", Model: "sdk-model", Content: &mcp.TextContent{Text: "Paris"}}, nil
		},
	})
	client.AddRoots(&mcp.Root{URI: "file:///work", Name: "work"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: env.URL + "/api/platform/" + id + "/mcp"}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = session.Close() })
	require.Equal(t, "2026-07-28", session.InitializeResult().ProtocolVersion)

	for _, tc := range []struct{ tool, want string }{
		{"greet", "Hello, Ada!"},
		{"survey", "Grace likes green"},
		{"capital", "Model sdk-model says Paris; first root file:///work"},
	} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: map[string]any{}})
		require.NoError(t, err, tc.tool)
		require.False(t, res.IsError, tc.tool)
		require.Len(t, res.Content, 1)
		require.Equal(t, tc.want, res.Content[0].(*mcp.TextContent).Text, tc.tool)
	}
	require.Equal(t, []string{"What is your name?", "Step 1: What is your name?", "Step 2: What is your favorite color?",
		"sampling: Answer in one word."}, asked)

	prompt, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "context_prompt", Arguments: map[string]string{"topic": "tides"}})
	require.NoError(t, err)
	require.Len(t, prompt.Messages, 2)
	require.Equal(t, "Write about tides using this context: Ada", prompt.Messages[0].Content.(*mcp.TextContent).Text)
	require.Equal(t, "What context should the prompt use?", asked[len(asked)-1])
}

// surveyCaller calls the tool survey of the design at endpoint as a
// modern client that declares elicitation; extra is appended to the
// params (inputResponses, requestState).
func surveyCaller(t *testing.T, endpoint string) func(extra string) string {
	hdr := http.Header{"Mcp-Protocol-Version": {"2026-07-28"}, "Mcp-Method": {"tools/call"}, "Mcp-Name": {"survey"}}
	return func(extra string) string {
		t.Helper()
		_, body := post(t, endpoint, hdr, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{`+
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}},`+
			`"name":"survey","arguments":{}`+extra+`}}`)
		return body
	}
}

// TestAskStateExpires: a requestState is refused once RequestStateTTL has
// passed, and accepted just before.
func TestAskStateExpires(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC))
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.Clock = clock.Now }})
	id := createDesign(t, env.Signup(t, "Expiry"), askDesign(t))
	call := surveyCaller(t, env.URL+"/api/platform/"+id+"/mcp")
	stateOf := regexp.MustCompile(`"requestState":"([^"]+)"`)
	state := stateOf.FindStringSubmatch(call(""))[1]
	answer := `,"inputResponses":{"step1":{"action":"accept","content":{"name":"Alice"}}},"requestState":"`

	clock.Advance(mcpserve.RequestStateTTL - time.Second)
	require.Contains(t, call(answer+state+`"`), "Step 2", "accepted just before it expires")
	clock.Advance(2 * time.Second)
	require.Contains(t, call(answer+state+`"`), `"error":{"code":-32602,"message":"Invalid params: invalid requestState: it has expired`)
}

// TestInvokeAsk: run outside the MCP endpoint, where no client can answer,
// a scenario that asks gives a tool error result saying so.
func TestInvokeAsk(t *testing.T) {
	t.Parallel()
	var greet struct {
		Name        string              `json:"name"`
		InputSchema json.RawMessage     `json:"input_schema"`
		Scenarios   []mockspec.Scenario `json:"mock_scenarios"`
	}
	require.NoError(t, json.Unmarshal(askDesign(t).Tools[0], &greet))
	inv, vs, err := mcpserve.Invoke(design.Tool{Name: greet.Name, InputSchema: greet.InputSchema, Scenarios: greet.Scenarios}, nil)
	require.NoError(t, err)
	require.Empty(t, vs)
	require.Equal(t, "ask name", inv.Scenario)
	require.Contains(t, string(inv.Output), `"isError":true`)
	require.Contains(t, string(inv.Output), "asks the client questions")
}

// TestAskStateOfAChangedDesign: a requestState that reaches a round the
// design no longer has is refused, not followed.
func TestAskStateOfAChangedDesign(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Changes")
	id := createDesign(t, owner, askDesign(t))
	call := surveyCaller(t, env.URL+"/api/platform/"+id+"/mcp")
	round2 := call(`,"inputResponses":{"step1":{"action":"accept","content":{"name":"Alice"}}}`)
	require.Contains(t, round2, "Step 2")
	state := regexp.MustCompile(`"requestState":"([^"]+)"`).FindStringSubmatch(round2)[1]

	tools := owner.Do("GET", "/api/servers/"+id+"/tools", nil).Status(http.StatusOK)
	var survey string
	for i := range tools.Len("items") {
		if tools.String(fmt.Sprintf("items.%d.name", i)) == "survey" {
			survey = tools.String(fmt.Sprintf("items.%d.id", i))
		}
	}
	owner.Do("PATCH", "/api/servers/"+id+"/tools/"+survey, map[string]any{"mock_scenarios": []any{map[string]any{
		"name": "one round", "ask": map[string]any{"step1": map[string]any{"roots": map[string]any{}}},
		"then": []any{map[string]any{"response": map[string]any{"done": true}}}}}}).Status(http.StatusOK)
	// The endpoint serves the change once its notification has arrived.
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(call(""), `"requiredCapabilities":{"roots":{}}`) { // the new round asks for roots
		require.True(t, time.Now().Before(deadline), "the changed design is not served")
		time.Sleep(20 * time.Millisecond)
	}

	got := call(`,"inputResponses":{"step2":{"action":"accept","content":{"color":"blue"}}},"requestState":"` + state + `"`)
	require.Contains(t, got, `"message":"Invalid params: invalid requestState: the design has changed since it was issued"`)
}
