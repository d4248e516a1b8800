package conformance_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The 1x1 PNG and the WAV clip of testdata/sdk-design.json.
const (
	png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
	wav = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA=="
)

// sdkStep is one request testdata/sdkclient.mjs makes.
type sdkStep struct {
	ID       string `json:"id"`
	Method   string `json:"method"`
	Params   any    `json:"params"`
	Progress bool   `json:"progress,omitempty"`
	// Answers are what the client answers the server's requests with
	// during the step, by kind: elicitation, sampling, roots.
	Answers map[string]any `json:"answers,omitempty"`
}

// sdkReport is what the script reports the SDK client received.
type sdkReport struct {
	Fatal           json.RawMessage       `json:"fatal"` // an sdkError
	Server          map[string]any        `json:"server"`
	Capabilities    map[string]any        `json:"capabilities"`
	ProtocolVersion string                `json:"protocolVersion"`
	SetLevel        sdkOutcome            `json:"setLevel"`
	Steps           map[string]sdkOutcome `json:"steps"`
}

type sdkOutcome struct {
	Result   json.RawMessage   `json:"result"`
	Error    json.RawMessage   `json:"error"` // an sdkError
	Logs     []json.RawMessage `json:"logs"`
	Progress []json.RawMessage `json:"progress"`
	Asked    []json.RawMessage `json:"asked"` // the requests the server sent the client
}

type sdkError struct {
	McpError bool            `json:"mcpError"`
	Code     int             `json:"code"`
	Message  string          `json:"message"`
	Data     json.RawMessage `json:"data"`
}

// TestSDKClient serves testdata/sdk-design.json and checks what the official
// TypeScript SDK client makes of the rich answers: a JSON-RPC error, a tool
// error, every content type, log and progress notifications, a binary
// resource, prompt content and completions.
func TestSDKClient(t *testing.T) {
	node, cli := toolchain(t)
	owner := serve(t)
	endpoint := createDesign(t, owner, filepath.Join("testdata", "sdk-design.json"))
	call := func(id, tool string, progress bool) sdkStep {
		return sdkStep{ID: id, Method: "tools/call", Params: map[string]any{"name": tool, "arguments": map[string]any{}}, Progress: progress}
	}
	ask := func(id, tool string, answers map[string]any) sdkStep {
		s := call(id, tool, false)
		s.Answers = answers
		return s
	}
	report := runSDKClient(t, node, packagesDir(t, cli), endpoint, []sdkStep{
		call("fault", "upstream_timeout", false),
		call("tool error", "lookup_order", false),
		call("content", "every_content", false),
		call("notified", "slow_report", true),
		call("no progress token", "slow_report", false),
		call("plain response", "get_weather", false),
		{ID: "blob", Method: "resources/read", Params: map[string]any{"uri": "file:///logo.png"}},
		{ID: "template", Method: "resources/read", Params: map[string]any{"uri": "orders://1002"}},
		{ID: "prompt", Method: "prompts/get", Params: map[string]any{"name": "describe_image", "arguments": map[string]string{"subject": "cat"}}},
		{ID: "complete prompt", Method: "completion/complete", Params: map[string]any{
			"ref": map[string]string{"type": "ref/prompt", "name": "describe_image"}, "argument": map[string]string{"name": "subject", "value": "cat"}}},
		{ID: "complete template", Method: "completion/complete", Params: map[string]any{
			"ref": map[string]string{"type": "ref/resource", "uri": "orders://{id}"}, "argument": map[string]string{"name": "id", "value": "10"}}},
		ask("elicitation accepted", "ask_name", map[string]any{"elicitation": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}}}),
		ask("elicitation declined", "ask_name", map[string]any{"elicitation": map[string]any{"action": "decline"}}),
		ask("elicitation cancelled", "ask_name", map[string]any{"elicitation": map[string]any{"action": "cancel"}}),
		ask("elicitation refused", "ask_name", nil),
		ask("elicitation with wrong content", "ask_name", map[string]any{"elicitation": map[string]any{"action": "accept", "content": map[string]any{"name": ""}}}),
		ask("sampling and roots", "ask_model", map[string]any{
			"sampling": map[string]any{"role": "assistant", "model": "ts-model", "content": map[string]any{"type": "text", "text": "Paris"}},
			"roots":    []map[string]string{{"uri": "file:///project", "name": "project"}}}),
	})
	require.Empty(t, string(report.Fatal), "the client failed")

	t.Run("initialize", func(t *testing.T) {
		require.Equal(t, "2025-11-25", report.ProtocolVersion)
		require.Equal(t, map[string]any{"name": "SDK check", "version": "2.3.4"}, report.Server)
		for _, c := range []string{"tools", "resources", "prompts", "logging", "completions"} {
			require.Contains(t, report.Capabilities, c)
		}
		require.Empty(t, string(report.SetLevel.Error), "logging/setLevel")
		require.JSONEq(t, `{}`, string(report.SetLevel.Result))
	})
	t.Run("fault is an McpError", func(t *testing.T) {
		got := step(t, report, "fault")
		require.NotEmpty(t, string(got.Error), "result: %s", got.Result)
		var e sdkError
		require.NoError(t, json.Unmarshal(got.Error, &e))
		require.True(t, e.McpError, "%s", got.Error)
		require.Equal(t, -32050, e.Code)
		require.Equal(t, "MCP error -32050: Upstream timeout", e.Message)
		require.JSONEq(t, `{"upstream":"billing","timeout_ms":30000}`, string(e.Data))
	})
	t.Run("tool error is a result", func(t *testing.T) {
		requireResult(t, step(t, report, "tool error"),
			`{"isError":true,"content":[{"type":"text","text":"Order 42 not found"}]}`)
	})
	t.Run("every content type", func(t *testing.T) {
		requireResult(t, step(t, report, "content"), `{"content":[
			{"type":"text","text":"hello"},
			{"type":"image","data":"`+png+`","mimeType":"image/png"},
			{"type":"audio","data":"`+wav+`","mimeType":"audio/wav"},
			{"type":"resource","resource":{"uri":"file:///notes.txt","mimeType":"text/plain","text":"notes"}},
			{"type":"resource","resource":{"uri":"file:///logo.png","mimeType":"image/png","blob":"`+png+`"}},
			{"type":"resource_link","uri":"file:///report.pdf","name":"report.pdf","description":"The monthly report","mimeType":"application/pdf"}]}`)
	})
	wantLogs := []string{
		`{"level":"info","logger":"reports","data":{"step":"start"}}`,
		`{"level":"warning","data":"slow upstream"}`,
	}
	t.Run("log and progress notifications", func(t *testing.T) {
		got := step(t, report, "notified")
		requireResult(t, got, `{"content":[{"type":"text","text":"report ready"}]}`)
		requireJSONs(t, wantLogs, got.Logs)
		requireJSONs(t, []string{
			`{"progress":1,"total":3,"message":"fetching"}`,
			`{"progress":2,"total":3}`,
			`{"progress":3,"total":3,"message":"done"}`,
		}, got.Progress)
	})
	t.Run("progress needs a progress token", func(t *testing.T) {
		got := step(t, report, "no progress token")
		requireResult(t, got, `{"content":[{"type":"text","text":"report ready"}]}`)
		requireJSONs(t, wantLogs, got.Logs)
		require.Empty(t, got.Progress)
	})
	t.Run("plain response", func(t *testing.T) {
		requireResult(t, step(t, report, "plain response"),
			`{"content":[{"type":"text","text":"{\"city\":\"Paris\",\"temperature\":21}"}]}`)
	})
	t.Run("binary resource", func(t *testing.T) {
		requireResult(t, step(t, report, "blob"),
			`{"contents":[{"uri":"file:///logo.png","mimeType":"image/png","blob":"`+png+`"}]}`)
	})
	t.Run("template resource", func(t *testing.T) {
		requireResult(t, step(t, report, "template"),
			`{"contents":[{"uri":"orders://1002","mimeType":"application/json","text":"{\"id\":\"1002\"}"}]}`)
	})
	t.Run("prompt content", func(t *testing.T) {
		requireResult(t, step(t, report, "prompt"), `{"description":"Asks for a description of an image.","messages":[
			{"role":"user","content":{"type":"image","data":"`+png+`","mimeType":"image/png"}},
			{"role":"user","content":{"type":"text","text":"Describe the cat in this image."}}]}`)
	})
	t.Run("elicitation: the branch of each answer", func(t *testing.T) {
		askedName := `{"method":"elicitation/create","params":{"mode":"form","message":"What is your name?",` +
			`"requestedSchema":{"type":"object","properties":{"name":{"type":"string","minLength":1}},"required":["name"]}}}`
		for _, tc := range []struct{ id, want string }{
			{"elicitation accepted", `{"content":[{"type":"text","text":"Hello, Ada!"}]}`},
			{"elicitation declined", `{"content":[{"type":"text","text":"{\"greeting\":\"none\"}"}]}`},
			{"elicitation refused", `{"isError":true,"content":[{"type":"text","text":"The client refused: MCP error -32603: this step does not answer elicitation"}]}`},
		} {
			got := step(t, report, tc.id)
			requireResult(t, got, tc.want)
			requireJSONs(t, []string{askedName}, got.Asked)
		}
		var e sdkError
		require.NoError(t, json.Unmarshal(step(t, report, "elicitation cancelled").Error, &e))
		require.Equal(t, -32001, e.Code)
		require.Equal(t, "MCP error -32001: The user cancelled", e.Message)
		// Accepted content the requested schema refuses ends the call.
		e = sdkError{}
		require.NoError(t, json.Unmarshal(step(t, report, "elicitation with wrong content").Error, &e))
		require.Equal(t, -32602, e.Code)
		require.Contains(t, e.Message, "the client's answer to question 'who' (elicitation/create): content.name does not satisfy the requested schema")
		require.JSONEq(t, `{"field":"who.content.name"}`, string(e.Data))
	})
	t.Run("sampling and roots", func(t *testing.T) {
		got := step(t, report, "sampling and roots")
		requireResult(t, got, `{"content":[{"type":"text","text":"ts-model says Paris; first root file:///project"}]}`)
		require.Len(t, got.Asked, 2)
	})
	t.Run("completions", func(t *testing.T) {
		requireResult(t, step(t, report, "complete prompt"),
			`{"completion":{"values":["cat","cathedral"],"total":2,"hasMore":false}}`)
		requireResult(t, step(t, report, "complete template"),
			`{"completion":{"values":["1001","1002"],"total":2,"hasMore":false}}`)
	})
}

// runSDKClient runs testdata/sdkclient.mjs against endpoint and returns its
// report.
func runSDKClient(t *testing.T, node, packages, endpoint string, steps []sdkStep) sdkReport {
	t.Helper()
	var report sdkReport
	runScript(t, node, "sdkclient.mjs", steps, &report, packages, endpoint)
	return report
}

// runScript runs the testdata script with args, steps (as JSON) on its
// standard input, and decodes the report it writes into report.
func runScript(t *testing.T, node, script string, steps any, report any, args ...string) {
	t.Helper()
	in, err := json.Marshal(steps)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join("testdata", script)}, args...)...)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s: %s", script, stderr.Bytes())
	t.Logf("%s reported: %s", script, out)
	require.NoError(t, json.Unmarshal(out, report), "%s", out)
}

// step is the outcome of the step with id, which must have run.
func step(t *testing.T, r sdkReport, id string) sdkOutcome {
	t.Helper()
	got, ok := r.Steps[id]
	require.True(t, ok, "no step %q in the report", id)
	return got
}

// requireResult requires a step to have succeeded with the result want.
func requireResult(t *testing.T, got sdkOutcome, want string) {
	t.Helper()
	require.Empty(t, string(got.Error), "error")
	require.JSONEq(t, want, string(got.Result))
}

// requireJSONs requires got to be the JSON values of want, in order.
func requireJSONs(t *testing.T, want []string, got []json.RawMessage) {
	t.Helper()
	require.Len(t, got, len(want), "got %s", got)
	for i := range want {
		require.JSONEq(t, want[i], string(got[i]), "item %d", i)
	}
}
