package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// sdkDesign is the design the official MCP Go SDK client talks to, served
// under protocolVersion ("" for the default).
func sdkDesign(t *testing.T, protocolVersion string) serverDesign {
	t.Helper()
	server := map[string]any{"name": "SDK Weather", "version": "4.5.6"}
	if protocolVersion != "" {
		server["protocol_version"] = protocolVersion
	}
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return b
	}
	return serverDesign{
		Server: raw(server),
		Tools: []json.RawMessage{raw(map[string]any{
			"name":        "get_forecast",
			"description": "Returns the forecast for a city.",
			"input_schema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"city": map[string]any{"type": "string"}},
				"required":   []string{"city"},
			},
			"output_schema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"forecast": map[string]any{"type": "string"}, "temp_c": map[string]any{"type": "number"}},
			},
			"mock_scenarios": []map[string]any{
				{"name": "paris", "condition": map[string]any{"city": "Paris"}, "response": map[string]any{"forecast": "sunny", "temp_c": 21}},
				{"name": "storm", "condition": map[string]any{"field": "city", "operator": "starts_with", "value": "Atl"}, "response": map[string]any{"forecast": "storm"}},
			},
		})},
		Resources: []json.RawMessage{
			raw(map[string]any{"name": "guide", "uri": "docs://guide", "description": "The user guide", "content": "Welcome."}),
			raw(map[string]any{"name": "current weather", "uri": "weather://{city}/now", "content": map[string]any{"city": "{city}", "forecast": "sunny"}}),
		},
		Prompts: []json.RawMessage{raw(map[string]any{
			"name": "summarize", "description": "Summarize a text",
			"arguments": []map[string]any{
				{"name": "text", "description": "The text", "required": true},
				{"name": "style", "description": "The tone", "required": false},
			},
			"messages": []map[string]any{
				{"role": "system", "text": "You are concise."},
				{"role": "user", "text": "Summarize in a {{style}} style: {{text}}"},
				{"role": "assistant", "text": "Summary of {{text}}:"},
			},
		})},
		Enabled: true,
	}
}

// TestSDKClient drives served designs with the official MCP Go SDK client
// over Streamable HTTP, under the default protocol version and under
// 2025-06-18, where the tool's output schema is listed and its results carry
// structuredContent.
func TestSDKClient(t *testing.T) {
	env := apitest.New(t, nil)
	owner := env.Signup(t, "SDK")

	cases := []struct {
		name            string
		protocolVersion string // of the design; "" for the default
		clientVersion   string // what the client asks for; "" for its default (modern)
		wantVersion     string // what the session speaks
		structured      bool   // outputSchema listed, structuredContent sent
		exchanges       []string
	}{
		{name: "modern client, default design", wantVersion: "2026-07-28", structured: true,
			exchanges: []string{"POST server/discover -> 200"}},
		{name: "legacy client, default 2024-11-05", clientVersion: "2025-11-25", wantVersion: "2024-11-05",
			exchanges: legacyHandshake},
		{name: "legacy client, 2025-06-18 with an output schema", protocolVersion: "2025-06-18", clientVersion: "2025-11-25",
			wantVersion: "2025-06-18", structured: true, exchanges: legacyHandshake},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			id := createDesign(t, owner, sdkDesign(t, tc.protocolVersion))
			// The client first tries server/discover: a slow answer to it
			// would show up here as a timeout.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()

			rec := &recorder{}
			client := mcp.NewClient(&mcp.Implementation{Name: "conformance", Version: "1.0.0"}, nil)
			start := time.Now()
			session, err := client.Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint:   env.URL + "/api/platform/" + id + "/mcp",
				HTTPClient: &http.Client{Transport: rec},
			}, &mcp.ClientSessionOptions{ProtocolVersion: tc.clientVersion})
			require.NoError(t, err)
			require.Less(t, time.Since(start), 5*time.Second, "connecting took too long")
			t.Cleanup(func() { _ = session.Close() })
			require.Equal(t, tc.exchanges, rec.exchanges())

			init := session.InitializeResult()
			require.Equal(t, "SDK Weather", init.ServerInfo.Name)
			require.Equal(t, "4.5.6", init.ServerInfo.Version)
			require.Equal(t, tc.wantVersion, init.ProtocolVersion)
			require.NotNil(t, init.Capabilities.Tools)
			require.NotNil(t, init.Capabilities.Resources)
			require.NotNil(t, init.Capabilities.Prompts)
			if tc.clientVersion != "" { // ping is gone from the modern revision
				require.NoError(t, session.Ping(ctx, nil))
			}

			checkTools(ctx, t, session, tc.structured, tc.clientVersion == "")
			checkResources(ctx, t, session, tc.clientVersion == "")
			checkPrompts(ctx, t, session)
		})
	}
}

// legacyHandshake is how a client asking for a legacy revision opens: it
// initializes; its standalone SSE stream is refused with 405, which it
// accepts.
var legacyHandshake = []string{
	"POST initialize -> 200",
	"GET -> 405",
	"POST notifications/initialized -> 202",
}

// checkTools lists and calls the design's tools; a modern session gets
// -32602 for an unknown tool (the method exists), a legacy one -32601.
func checkTools(ctx context.Context, t *testing.T, session *mcp.ClientSession, structured, modern bool) {
	t.Helper()
	tools, err := session.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 1)
	tool := tools.Tools[0]
	require.Equal(t, "get_forecast", tool.Name)
	require.Equal(t, "Returns the forecast for a city.", tool.Description)
	require.Equal(t, map[string]any{
		"type":       "object",
		"properties": map[string]any{"city": map[string]any{"type": "string"}},
		"required":   []any{"city"},
	}, tool.InputSchema)
	var output *jsonschema.Resolved
	if structured {
		require.NotNil(t, tool.OutputSchema, "a 2025-06-18 server lists the output schema")
		output = resolveSchema(t, tool.OutputSchema)
	} else {
		require.Nil(t, tool.OutputSchema, "a 2024-11-05 server does not list the output schema")
	}

	cases := []struct {
		name string
		args map[string]any
		want string // the text of the single content item
	}{
		{name: "a plain condition", args: map[string]any{"city": "Paris"}, want: `{"temp_c":21,"forecast":"sunny"}`},
		{name: "an operator condition", args: map[string]any{"city": "Atlantis"}, want: `{"forecast":"storm"}`},
		{name: "no scenario matches", args: map[string]any{"city": "Lyon"},
			want: `{"message":"No mock scenario matched the arguments for tool 'get_forecast'"}`},
	}
	for _, tc := range cases {
		t.Run("CallTool "+tc.name, func(t *testing.T) {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: tc.args})
			require.NoError(t, err)
			require.False(t, res.IsError)
			require.Len(t, res.Content, 1)
			text, ok := res.Content[0].(*mcp.TextContent)
			require.True(t, ok, "content is %T", res.Content[0])
			require.JSONEq(t, tc.want, text.Text)
			if !structured {
				require.Nil(t, res.StructuredContent)
				return
			}
			// The SDK client does not check structuredContent against the
			// listed output schema (the TypeScript client does): check it
			// here with the SDK's own schema library.
			require.NotNil(t, res.StructuredContent, "every result of a tool with an output schema is structured")
			got, err := json.Marshal(res.StructuredContent)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(got))
			require.NoError(t, output.Validate(res.StructuredContent))
		})
	}

	t.Run("CallTool without a required field", func(t *testing.T) {
		// The SDK sends absent arguments as {}.
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast"})
		require.Nil(t, res)
		requireWireError(t, err, jsonrpc.CodeInvalidParams, "Invalid params: missing required field 'city'",
			`{"field":"city","reason":"required by the input schema of tool 'get_forecast'"}`)
	})
	t.Run("CallTool with a field of the wrong type", func(t *testing.T) {
		_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "get_forecast", Arguments: map[string]any{"city": 42}})
		requireWireError(t, err, jsonrpc.CodeInvalidParams, "Invalid params: arguments do not match the input schema of tool 'get_forecast'",
			`{"details":[{"field":"city","path":"/city","message":"Value is integer but should be string"}]}`)
	})
	t.Run("CallTool of an unknown tool", func(t *testing.T) {
		_, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "x"})
		code := int64(jsonrpc.CodeMethodNotFound)
		if modern {
			code = jsonrpc.CodeInvalidParams
		}
		requireWireError(t, err, code, "Tool not found: x", "")
	})
}

// checkResources reads the design's resources; a modern session gets
// -32602 for an unknown URI, a legacy one -32002.
func checkResources(ctx context.Context, t *testing.T, session *mcp.ClientSession, modern bool) {
	t.Helper()
	list, err := session.ListResources(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, []*mcp.Resource{{URI: "docs://guide", Name: "guide", Description: "The user guide", MIMEType: "text/plain"}}, list.Resources)

	templates, err := session.ListResourceTemplates(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, []*mcp.ResourceTemplate{{URITemplate: "weather://{city}/now", Name: "current weather", MIMEType: "application/json"}},
		templates.ResourceTemplates)

	cases := []struct {
		name, uri, mime, text string
	}{
		{name: "plain", uri: "docs://guide", mime: "text/plain", text: "Welcome."},
		{name: "templated", uri: "weather://oslo/now", mime: "application/json", text: `{"city":"oslo","forecast":"sunny"}`},
	}
	for _, tc := range cases {
		t.Run("ReadResource "+tc.name, func(t *testing.T) {
			res, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: tc.uri})
			require.NoError(t, err)
			require.Equal(t, []*mcp.ResourceContents{{URI: tc.uri, MIMEType: tc.mime, Text: tc.text}}, res.Contents)
		})
	}
	t.Run("ReadResource of an unknown URI", func(t *testing.T) {
		_, err := session.ReadResource(ctx, &mcp.ReadResourceParams{URI: "docs://missing"})
		code := int64(-32002)
		if modern {
			code = -32602
		}
		requireWireError(t, err, code, "Resource not found: docs://missing", `{"uri":"docs://missing"}`)
	})
}

func checkPrompts(ctx context.Context, t *testing.T, session *mcp.ClientSession) {
	t.Helper()
	list, err := session.ListPrompts(ctx, nil)
	require.NoError(t, err)
	require.Equal(t, []*mcp.Prompt{{
		Name: "summarize", Description: "Summarize a text",
		Arguments: []*mcp.PromptArgument{
			{Name: "text", Description: "The text", Required: true},
			{Name: "style", Description: "The tone"},
		},
	}}, list.Prompts)

	text := func(role mcp.Role, s string) *mcp.PromptMessage {
		return &mcp.PromptMessage{Role: role, Content: &mcp.TextContent{Text: s}}
	}
	cases := []struct {
		name string
		args map[string]string
		want []*mcp.PromptMessage
	}{
		{name: "with every argument", args: map[string]string{"text": "the minutes", "style": "formal"}, want: []*mcp.PromptMessage{
			text("system", "You are concise."),
			text("user", "Summarize in a formal style: the minutes"),
			text("assistant", "Summary of the minutes:"),
		}},
		{name: "without the optional argument", args: map[string]string{"text": "the minutes"}, want: []*mcp.PromptMessage{
			text("system", "You are concise."),
			text("user", "Summarize in a  style: the minutes"),
			text("assistant", "Summary of the minutes:"),
		}},
	}
	for _, tc := range cases {
		t.Run("GetPrompt "+tc.name, func(t *testing.T) {
			res, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: tc.args})
			require.NoError(t, err)
			require.Equal(t, "Summarize a text", res.Description)
			require.Equal(t, tc.want, res.Messages)
		})
	}
	t.Run("GetPrompt without a required argument", func(t *testing.T) {
		_, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "summarize", Arguments: map[string]string{"style": "formal"}})
		requireWireError(t, err, jsonrpc.CodeInvalidParams, "Invalid params: missing required argument 'text'",
			`{"field":"arguments.text","reason":"required by prompt 'summarize'"}`)
	})
	t.Run("GetPrompt of an unknown prompt", func(t *testing.T) {
		_, err := session.GetPrompt(ctx, &mcp.GetPromptParams{Name: "translate"})
		requireWireError(t, err, jsonrpc.CodeInvalidParams, "Prompt not found: translate", "")
	})
}

// requireWireError requires err to carry the JSON-RPC error the server sent,
// as the SDK surfaces it; data is its JSON, "" for none.
func requireWireError(t *testing.T, err error, code int64, message, data string) {
	t.Helper()
	require.Error(t, err)
	var wire *jsonrpc.Error
	require.True(t, errors.As(err, &wire), "not a JSON-RPC error: %T %v", err, err)
	require.Equal(t, code, wire.Code)
	require.Equal(t, message, wire.Message)
	if data == "" {
		require.Empty(t, wire.Data)
	} else {
		require.JSONEq(t, data, string(wire.Data))
	}
}

// resolveSchema compiles a listed schema with the SDK's schema library.
func resolveSchema(t *testing.T, listed any) *jsonschema.Resolved {
	t.Helper()
	raw, err := json.Marshal(listed)
	require.NoError(t, err)
	var s jsonschema.Schema
	require.NoError(t, json.Unmarshal(raw, &s))
	resolved, err := s.Resolve(nil)
	require.NoError(t, err)
	return resolved
}

// recorder is an HTTP transport that notes each exchange as
// "HTTP-METHOD [JSON-RPC method] -> status [JSON-RPC error code]".
type recorder struct {
	mu  sync.Mutex
	log []string
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	var msg struct {
		Method string `json:"method"`
	}
	if req.Body != nil {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		_ = json.Unmarshal(body, &msg)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	entry := fmt.Sprintf("%s -> %d", strings.TrimSpace(req.Method+" "+msg.Method), resp.StatusCode)
	if msg.Method != "" && resp.StatusCode == http.StatusOK {
		// The replies here are short and complete: read the error code, if
		// any, and hand the body on untouched.
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return nil, err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		if i := bytes.Index(body, []byte(`"error":{"code":`)); i >= 0 {
			var code int
			_, _ = fmt.Sscanf(string(body[i+len(`"error":{"code":`):]), "%d", &code)
			entry += fmt.Sprintf(" %d", code)
		}
	}
	r.mu.Lock()
	r.log = append(r.log, entry)
	r.mu.Unlock()
	return resp, nil
}

func (r *recorder) exchanges() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.log...)
}

// TestSDKClientEras: the official Go SDK client against designs pinned to
// one era. Against a legacy-only design it probes server/discover with
// the 2026-07-28 version header, gets HTTP 400 as from a server of
// 2025-06-18 to 2025-11-25 (a version it does not serve), and falls back
// to initialize; against a modern-only design a client asking for a legacy
// revision is refused with UnsupportedProtocolVersion, and the default
// client speaks 2026-07-28.
func TestSDKClientEras(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "SDK eras")
	withEras := func(eras string) serverDesign {
		d := sdkDesign(t, "2025-06-18")
		var server map[string]any
		require.NoError(t, json.Unmarshal(d.Server, &server))
		server["eras"] = eras
		d.Server, _ = json.Marshal(server)
		return d
	}
	connectTo := func(id, clientVersion string, rec *recorder) (*mcp.ClientSession, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		client := mcp.NewClient(&mcp.Implementation{Name: "eras", Version: "1.0.0"}, nil)
		return client.Connect(ctx, &mcp.StreamableClientTransport{
			Endpoint:   env.URL + "/api/platform/" + id + "/mcp",
			HTTPClient: &http.Client{Transport: rec},
		}, &mcp.ClientSessionOptions{ProtocolVersion: clientVersion})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	t.Run("legacy only: the modern client falls back", func(t *testing.T) {
		id := createDesign(t, owner, withEras("legacy_only"))
		rec := &recorder{}
		session, err := connectTo(id, "", rec)
		require.NoError(t, err)
		t.Cleanup(func() { _ = session.Close() })
		require.Equal(t, append([]string{"POST server/discover -> 400"}, legacyHandshake...), rec.exchanges())
		require.Equal(t, "2025-06-18", session.InitializeResult().ProtocolVersion)
		checkTools(ctx, t, session, true, false)
	})
	t.Run("modern only: a legacy client is refused", func(t *testing.T) {
		id := createDesign(t, owner, withEras("modern_only"))
		_, err := connectTo(id, "2025-11-25", &recorder{})
		require.Error(t, err)
		require.Contains(t, err.Error(), "Unsupported protocol version")

		rec := &recorder{}
		session, err := connectTo(id, "", rec)
		require.NoError(t, err)
		t.Cleanup(func() { _ = session.Close() })
		require.Equal(t, []string{"POST server/discover -> 200"}, rec.exchanges())
		require.Equal(t, "2026-07-28", session.InitializeResult().ProtocolVersion)
		checkTools(ctx, t, session, true, true)
	})
}
