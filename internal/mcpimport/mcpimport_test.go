package mcpimport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mcpimport"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/outbound"
)

type forecastIn struct {
	City  string `json:"city" jsonschema:"the city"`
	Units string `json:"units,omitempty" jsonschema:"metric or imperial"`
}

type forecastOut struct {
	Forecast string  `json:"forecast"`
	TempC    float64 `json:"temp_c"`
}

type echoIn struct {
	Text string `json:"text"`
}

// weatherServer is a small MCP server built with the official SDK: a tool
// with an output schema answering structuredContent, a tool answering plain
// text, one answering a JSON object as text, one whose input schema this
// service cannot compile; a text resource, a binary one, a resource
// template; a prompt with arguments and one with an image message. Pages
// hold two items, so every list takes several pages.
func weatherServer() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "weather", Title: "Weather Service", Version: "2.3.4"},
		&mcp.ServerOptions{PageSize: 2})
	mcp.AddTool(s, &mcp.Tool{Name: "get_forecast", Description: "Returns the forecast for a city."},
		func(_ context.Context, _ *mcp.CallToolRequest, in forecastIn) (*mcp.CallToolResult, forecastOut, error) {
			switch in.City {
			case "Paris":
				return nil, forecastOut{Forecast: "sunny", TempC: 21}, nil
			case "Oslo":
				return nil, forecastOut{Forecast: "snow", TempC: -3}, nil
			}
			return nil, forecastOut{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "no forecast for " + in.City}
		})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echoes its text."},
		func(_ context.Context, _ *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "lookup", Description: "Looks a record up.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"integer"}}}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"id": 7, "name": "<seven>"}`}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "exotic", Description: "Its schema is in a dialect this service does not know.",
		InputSchema: json.RawMessage(`{"$schema":"https://example.com/my-dialect","type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})

	s.AddResource(&mcp.Resource{Name: "guide", URI: "docs://guide", Description: "The user guide", MIMEType: "text/markdown"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# Guide\nWelcome <b>here</b>."}}}, nil
		})
	s.AddResource(&mcp.Resource{Name: "logo", URI: "images://logo"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "image/png", Blob: []byte{0x89, 'P', 'N', 'G'}}}}, nil
		})
	s.AddResourceTemplate(&mcp.ResourceTemplate{Name: "current weather", URITemplate: "weather://{city}/now", MIMEType: "application/json",
		Description: "The weather in a city now"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: `{"forecast":"sunny"}`}}}, nil
		})

	s.AddPrompt(&mcp.Prompt{Name: "summarize", Description: "Summarize a text", Arguments: []*mcp.PromptArgument{
		{Name: "text", Description: "The text", Required: true},
		{Name: "style", Description: "The tone"},
	}}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		a := req.Params.Arguments
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
			{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Summarize in a %s style: %s", a["style"], a["text"])}},
			{Role: "assistant", Content: &mcp.TextContent{Text: fmt.Sprintf("Summary of %s:", a["text"])}},
		}}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "describe_image", Description: "Describe an image"},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.ImageContent{MIMEType: "image/png", Data: []byte{1, 2, 3}}},
				{Role: "user", Content: &mcp.TextContent{Text: "Describe this image."}},
			}}, nil
		})
	return s
}

// serve starts s over Streamable HTTP, counting requests.
func serve(t *testing.T, h http.Handler) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func streamable(s *mcp.Server) http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

func sse(s *mcp.Server) http.Handler {
	return mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
}

// privateClient is the guarded client with private targets allowed, as
// every test server is on loopback.
func privateClient() *http.Client {
	return outbound.NewClient(outbound.Options{AllowPrivate: true})
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

var recordCalls = []mcpimport.Call{
	{Tool: "get_forecast", Arguments: map[string]any{"city": "Paris"}},
	{Tool: "get_forecast", Arguments: map[string]any{"city": "Oslo", "units": "metric"}},
	{Tool: "get_forecast", Arguments: map[string]any{"city": "Paris"}},    // a repeat
	{Tool: "get_forecast", Arguments: map[string]any{"city": "Atlantis"}}, // a protocol error
	{Tool: "echo", Arguments: map[string]any{"text": "hello"}},
	{Tool: "lookup"},
}

// listed is what an SDK client of its own lists on srv.
func listed(t *testing.T, endpoint string) []*mcp.Tool {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "reference", Version: "1"}, nil)
	cs, err := client.Connect(ctx(t), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	require.NoError(t, err)
	defer cs.Close()
	var tools []*mcp.Tool
	for tool, err := range cs.Tools(ctx(t), nil) {
		require.NoError(t, err)
		tools = append(tools, tool)
	}
	return tools
}

// requireValid asserts that every element passes the checks a design made
// by hand passes.
func requireValid(t *testing.T, d design.Design) {
	t.Helper()
	require.NoError(t, design.CheckServer(d.Server))
	for _, tool := range d.Tools {
		require.NoError(t, design.CheckTool(tool), tool.Name)
	}
	for _, r := range d.Resources {
		require.NoError(t, design.CheckResource(r), r.URI)
	}
	for _, p := range d.Prompts {
		require.NoError(t, design.CheckPrompt(p), p.Name)
	}
}

func toolNamed(t *testing.T, d design.Design, name string) design.Tool {
	t.Helper()
	for _, tool := range d.Tools {
		if tool.Name == name {
			return tool
		}
	}
	require.Failf(t, "no tool", "%q", name)
	return design.Tool{}
}

func warningsWith(ws []string, part string) []string {
	var out []string
	for _, w := range ws {
		if strings.Contains(w, part) {
			out = append(out, w)
		}
	}
	return out
}

func TestImportStreamable(t *testing.T) {
	srv, _ := serve(t, streamable(weatherServer()))
	res, err := mcpimport.Import(ctx(t), mcpimport.Options{URL: srv.URL, Client: privateClient(), RecordCalls: recordCalls})
	require.NoError(t, err)
	d := res.Design
	requireValid(t, d)

	assert.Equal(t, mcpimport.TransportStreamable, res.Transport)
	assert.Equal(t, "weather", res.ServerInfo.Name)
	assert.Equal(t, "2.3.4", res.ServerInfo.Version)
	assert.Equal(t, "weather", d.Server.Name)
	assert.Equal(t, "Weather Service", d.Server.Description)
	assert.Equal(t, "2.3.4", d.Server.Version)
	assert.Equal(t, "mock", d.Server.Type)
	assert.Equal(t, "none", d.Server.AuthMode)
	assert.Equal(t, "2025-11-25", d.Server.ProtocolVersion)
	assert.Equal(t, "modern_and_legacy", d.Server.Eras)
	assert.Equal(t, 60000, d.Server.CacheTTLMs)
	assert.Equal(t, "private", d.Server.CacheScope)

	t.Run("tools", func(t *testing.T) {
		var names []string
		for _, tool := range d.Tools {
			names = append(names, tool.Name)
		}
		// Listed in name order by the SDK, over two pages; "exotic" is
		// dropped.
		assert.Equal(t, []string{"echo", "get_forecast", "lookup"}, names)
		require.Len(t, warningsWith(res.Warnings, `tool "exotic" is not imported: input_schema: `), 1, res.Warnings)

		byName := map[string]*mcp.Tool{}
		for _, tool := range listed(t, srv.URL) {
			byName[tool.Name] = tool
		}
		for _, tool := range d.Tools {
			want := byName[tool.Name]
			assert.Equal(t, want.Description, tool.Description, tool.Name)
			assert.JSONEq(t, string(apitest.JSON(t, want.InputSchema)), string(tool.InputSchema), tool.Name)
			if want.OutputSchema == nil {
				assert.Nil(t, tool.OutputSchema, tool.Name)
			} else {
				assert.JSONEq(t, string(apitest.JSON(t, want.OutputSchema)), string(tool.OutputSchema), tool.Name)
			}
		}
		assert.NotNil(t, toolNamed(t, d, "get_forecast").OutputSchema)
	})

	t.Run("recorded calls", func(t *testing.T) {
		forecast := toolNamed(t, d, "get_forecast")
		require.Len(t, forecast.Scenarios, 2)
		assert.Equal(t, "recorded_1", forecast.Scenarios[0].Name)
		assert.JSONEq(t, `{"city":"Paris"}`, string(forecast.Scenarios[0].Condition))
		assert.JSONEq(t, `{"forecast":"sunny","temp_c":21}`, string(forecast.Scenarios[0].Response))
		assert.Equal(t, "recorded_2", forecast.Scenarios[1].Name)
		assert.JSONEq(t, `{"city":"Oslo","units":"metric"}`, string(forecast.Scenarios[1].Condition))
		assert.JSONEq(t, `{"forecast":"snow","temp_c":-3}`, string(forecast.Scenarios[1].Response))
		assert.Len(t, warningsWith(res.Warnings, "record_calls[2] repeats the arguments of record_calls[0]"), 1, res.Warnings)
		assert.Contains(t, res.Warnings, `record_calls[3]: calling tool "get_forecast" failed, so no scenario is recorded: no forecast for Atlantis`)

		// The mock answers the recorded arguments with the recorded answers.
		for i, args := range []map[string]any{{"city": "Paris"}, {"city": "Oslo", "units": "metric"}} {
			inv, violations, err := mcpserve.Invoke(forecast, args)
			require.NoError(t, err)
			require.Empty(t, violations)
			assert.Equal(t, forecast.Scenarios[i].Name, inv.Scenario)
			assert.JSONEq(t, string(forecast.Scenarios[i].Response), string(inv.Output))
		}

		// Plain text is stored as the content array, with a warning.
		echo := toolNamed(t, d, "echo")
		require.Len(t, echo.Scenarios, 1)
		assert.JSONEq(t, `{"content":[{"type":"text","text":"hello"}],"isError":false}`, string(echo.Scenarios[0].Response))
		assert.Len(t, warningsWith(res.Warnings, `record_calls[4]: tool "echo" (scenario recorded_1): the answer is not a JSON object`), 1, res.Warnings)

		// One text item holding a JSON object is that object; no
		// arguments is the condition {}.
		lookup := toolNamed(t, d, "lookup")
		require.Len(t, lookup.Scenarios, 1)
		assert.JSONEq(t, `{}`, string(lookup.Scenarios[0].Condition))
		assert.JSONEq(t, `{"id":7,"name":"<seven>"}`, string(lookup.Scenarios[0].Response))
		inv, _, err := mcpserve.Invoke(lookup, nil)
		require.NoError(t, err)
		assert.Equal(t, "recorded_1", inv.Scenario)
	})

	t.Run("resources", func(t *testing.T) {
		require.Len(t, d.Resources, 3)
		guide := d.Resources[0]
		assert.Equal(t, "docs://guide", guide.URI)
		assert.Equal(t, "guide", guide.Name)
		assert.Equal(t, "The user guide", guide.Description)
		require.NotNil(t, guide.MimeType)
		assert.Equal(t, "text/markdown", *guide.MimeType)
		assert.Equal(t, `"# Guide\nWelcome <b>here</b>."`, string(guide.Content))

		logo := d.Resources[1]
		assert.Equal(t, "images://logo", logo.URI)
		assert.Equal(t, `""`, string(logo.Content))
		require.NotNil(t, logo.MimeType)
		assert.Equal(t, "image/png", *logo.MimeType, "the media type of the contents, the listing having none")
		assert.Len(t, warningsWith(res.Warnings, `resource "images://logo" is kept without its content: binary`), 1, res.Warnings)

		tmpl := d.Resources[2]
		assert.Equal(t, "weather://{city}/now", tmpl.URI)
		assert.Equal(t, "current weather", tmpl.Name)
		assert.Equal(t, "The weather in a city now", tmpl.Description)
		assert.Equal(t, `""`, string(tmpl.Content))
		assert.Len(t, warningsWith(res.Warnings, `resource template "weather://{city}/now" is imported with empty content`), 1, res.Warnings)
	})

	t.Run("prompts", func(t *testing.T) {
		require.Len(t, d.Prompts, 2)
		img, sum := d.Prompts[0], d.Prompts[1]
		assert.Equal(t, "summarize", sum.Name)
		assert.Equal(t, "Summarize a text", sum.Description)
		assert.Equal(t, []design.PromptArgument{
			{Name: "text", Description: "The text", Required: true},
			{Name: "style", Description: "The tone"},
		}, sum.Arguments)
		assert.Equal(t, []design.PromptMessage{
			{Role: "user", Text: "Summarize in a {{style}} style: {{text}}"},
			{Role: "assistant", Text: "Summary of {{text}}:"},
		}, sum.Messages)

		assert.Equal(t, "describe_image", img.Name)
		assert.Equal(t, []design.PromptMessage{{Role: "user", Text: "Describe this image."}}, img.Messages)
		assert.Len(t, warningsWith(res.Warnings, `prompt "describe_image": message 0 is skipped: only text content is supported, not image content`), 1, res.Warnings)
	})
}

func TestImportFallsBackToSSE(t *testing.T) {
	srv, _ := serve(t, sse(weatherServer()))
	res, err := mcpimport.Import(ctx(t), mcpimport.Options{URL: srv.URL, Client: privateClient(), Name: "Old weather",
		RecordCalls: []mcpimport.Call{{Tool: "get_forecast", Arguments: map[string]any{"city": "Paris"}}}})
	require.NoError(t, err)
	requireValid(t, res.Design)
	assert.Equal(t, mcpimport.TransportSSE, res.Transport)
	assert.Equal(t, "Old weather", res.Design.Server.Name)
	assert.Equal(t, "weather", res.ServerInfo.Name)
	assert.Len(t, res.Design.Tools, 3)
	assert.Len(t, res.Design.Resources, 3)
	assert.Len(t, res.Design.Prompts, 2)
	forecast := toolNamed(t, res.Design, "get_forecast")
	require.Len(t, forecast.Scenarios, 1)
	assert.JSONEq(t, `{"forecast":"sunny","temp_c":21}`, string(forecast.Scenarios[0].Response))
}

func TestImportHeaders(t *testing.T) {
	const token = "t0k"
	auth := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+token {
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	for name, h := range map[string]http.Handler{"streamable": streamable(weatherServer()), "sse": sse(weatherServer())} {
		t.Run(name, func(t *testing.T) {
			srv, _ := serve(t, auth(h))

			_, err := mcpimport.Import(ctx(t), mcpimport.Options{URL: srv.URL, Client: privateClient()})
			requireFieldFailure(t, err, "url", "POST answered 401 Unauthorized", "GET answered 401 Unauthorized", "send them in headers")

			headers := map[string]string{"Authorization": "Bearer " + token}
			res, err := mcpimport.Import(ctx(t), mcpimport.Options{URL: srv.URL, Client: privateClient(), Headers: headers,
				RecordCalls: recordCalls})
			require.NoError(t, err)
			assert.Len(t, res.Design.Tools, 3)
			assert.NotContains(t, fmt.Sprintf("%+v", res), token)
			assert.NotContains(t, string(apitest.JSON(t, res)), token)

			// A wrong token: the error names the problem, not the token.
			_, err = mcpimport.Import(ctx(t), mcpimport.Options{URL: srv.URL, Client: privateClient(),
				Headers: map[string]string{"Authorization": "Bearer wrong-" + token}})
			requireFieldFailure(t, err, "url", "check the credentials sent in headers")
			assert.NotContains(t, err.Error(), token)
			f, _ := failure.As(err)
			assert.NotContains(t, string(apitest.JSON(t, f)), token)
		})
	}
}

// hang is a handler that never answers. It reads the request body first:
// the server notices a client hanging up only once the body is consumed.
func hang() http.Handler {
	return http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		<-r.Context().Done()
	})
}

// requireFieldFailure asserts that err is a 422 failure naming field, whose
// message holds every part.
func requireFieldFailure(t *testing.T, err error, field string, parts ...string) {
	t.Helper()
	require.Error(t, err)
	f, ok := failure.As(err)
	require.True(t, ok, "not a failure: %v", err)
	require.Equal(t, failure.KindInvalid, f.Kind)
	require.Len(t, f.Fields, 1, "%v", f.Fields)
	assert.Equal(t, field, f.Fields[0].Field)
	for _, p := range parts {
		assert.Contains(t, f.Fields[0].Message, p)
	}
}

func TestImportFailures(t *testing.T) {
	t.Run("closed port", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := l.Addr().String()
		require.NoError(t, l.Close())
		start := time.Now()
		_, err = mcpimport.Import(ctx(t), mcpimport.Options{URL: "http://" + addr + "/mcp?key=s3cret", Client: privateClient()})
		requireFieldFailure(t, err, "url", "the MCP server did not answer: Streamable HTTP: the server could not be reached (connection refused)")
		assert.NotContains(t, err.Error(), "s3cret")
		f, _ := failure.As(err)
		assert.NotContains(t, f.Fields[0].Message, addr, "the message names no address the service dialed")
		assert.NotContains(t, f.Fields[0].Message, "dial tcp")
		assert.Less(t, time.Since(start), 5*time.Second)
	})

	t.Run("404 to everything", func(t *testing.T) {
		srv, hits := serve(t, http.NotFoundHandler())
		_, err := mcpimport.Import(ctx(t), mcpimport.Options{URL: srv.URL + "/mcp", Client: privateClient()})
		requireFieldFailure(t, err, "url",
			"the MCP server did not answer: Streamable HTTP: POST answered 404 Not Found; HTTP+SSE: GET answered 404 Not Found")
		assert.Equal(t, int32(2), hits.Load())
	})

	t.Run("private target refused", func(t *testing.T) {
		srv, hits := serve(t, streamable(weatherServer()))
		_, err := mcpimport.Import(ctx(t), mcpimport.Options{URL: srv.URL, Client: outbound.NewClient(outbound.Options{})})
		requireFieldFailure(t, err, "url", "the server's address is refused: loopback addresses are not allowed")
		f, _ := failure.As(err)
		assert.NotContains(t, f.Fields[0].Message, "127.0.0.1", "the message names no address the service dialed")
		assert.Equal(t, int32(0), hits.Load(), "no request may reach a refused target")
	})

	t.Run("server that hangs", func(t *testing.T) {
		srv, _ := serve(t, hang())
		start := time.Now()
		_, err := mcpimport.Import(ctx(t), mcpimport.Options{URL: srv.URL, Client: privateClient(), Timeout: 500 * time.Millisecond})
		requireFieldFailure(t, err, "url", "the MCP server did not answer within 500ms (connecting)")
		assert.Less(t, time.Since(start), 3*time.Second)
	})

	t.Run("caller gives up", func(t *testing.T) {
		srv, _ := serve(t, hang())
		c, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		_, err := mcpimport.Import(c, mcpimport.Options{URL: srv.URL, Client: privateClient()})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		_, isFailure := failure.As(err)
		assert.False(t, isFailure)
	})

	t.Run("record_calls naming an unknown tool", func(t *testing.T) {
		var calls atomic.Int32
		s := weatherServer()
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/call" {
					calls.Add(1)
				}
				return next(ctx, method, req)
			}
		})
		srv, _ := serve(t, streamable(s))
		_, err := mcpimport.Import(ctx(t), mcpimport.Options{URL: srv.URL, Client: privateClient(), RecordCalls: []mcpimport.Call{
			{Tool: "get_forecast", Arguments: map[string]any{"city": "Paris"}},
			{Tool: "get_weather", Arguments: map[string]any{"city": "Paris"}},
		}})
		requireFieldFailure(t, err, "record_calls[1].tool", `the MCP server lists no tool named "get_weather"`)
		assert.True(t, failure.Is(err, failure.ErrInvalid))
		assert.Equal(t, int32(0), calls.Load(), "no tool is called when a record call is refused")
	})

	t.Run("bad options", func(t *testing.T) {
		_, err := mcpimport.Import(ctx(t), mcpimport.Options{URL: "ftp://example.com", Client: privateClient()})
		requireFieldFailure(t, err, "url", `URL scheme must be http or https, not "ftp"`)
		_, err = mcpimport.Import(ctx(t), mcpimport.Options{URL: "http://example.com", Client: privateClient(),
			RecordCalls: []mcpimport.Call{{Tool: " "}}})
		requireFieldFailure(t, err, "record_calls[0].tool", "must not be blank")
		_, err = mcpimport.Import(ctx(t), mcpimport.Options{URL: "http://example.com", Client: privateClient(),
			Headers: map[string]string{"X-Key": "a\r\nInjected: yes"}})
		requireFieldFailure(t, err, "headers", "X-Key")
		_, err = mcpimport.Import(ctx(t), mcpimport.Options{URL: "http://example.com"})
		require.Error(t, err)
	})
}

// textResource adds a resource whose text is n bytes of 'x'.
func textResource(s *mcp.Server, uri string, n int) {
	s.AddResource(&mcp.Resource{Name: uri, URI: uri, MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: strings.Repeat("x", n)}}}, nil
		})
}

func TestImportResourceSizes(t *testing.T) {
	contentOf := func(t *testing.T, d design.Design, uri string) string {
		t.Helper()
		for _, r := range d.Resources {
			if r.URI == uri {
				var text string
				require.NoError(t, json.Unmarshal(r.Content, &text))
				return text
			}
		}
		require.Failf(t, "no resource", "%q", uri)
		return ""
	}

	t.Run("per resource and in all", func(t *testing.T) {
		s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
		textResource(s, "file://a-huge", 300<<10) // over the default 256 KiB
		textResource(s, "file://b-small", 100)
		textResource(s, "file://c-large", 200<<10)
		textResource(s, "file://d-large", 200<<10) // over 256 KiB in all with c
		srv, _ := serve(t, streamable(s))
		res, err := mcpimport.Import(ctx(t), mcpimport.Options{URL: srv.URL, Client: privateClient(), MaxTotalBytes: 256 << 10})
		require.NoError(t, err)
		requireValid(t, res.Design)
		require.Len(t, res.Design.Resources, 4)
		assert.Equal(t, "", contentOf(t, res.Design, "file://a-huge"))
		assert.Len(t, contentOf(t, res.Design, "file://b-small"), 100)
		assert.Len(t, contentOf(t, res.Design, "file://c-large"), 200<<10)
		assert.Equal(t, "", contentOf(t, res.Design, "file://d-large"))
		assert.Equal(t, []string{
			`resource "file://a-huge" is kept without its content: its text is 300 KiB, more than the 256 KiB kept of one resource`,
			`resource "file://d-large" is kept without its content: its text (200 KiB) would pass the 256 KiB kept of all resources`,
		}, res.Warnings)
	})

	t.Run("an answer past the client's body limit", func(t *testing.T) {
		// The guarded client keeps at most 1 MiB of an answer: reading a
		// larger resource breaks the connection, which is made anew for
		// the rest of the import.
		s := mcp.NewServer(&mcp.Implementation{Name: "files", Version: "1"}, nil)
		textResource(s, "file://a-giant", 2<<20)
		textResource(s, "file://b-after", 10)
		srv, _ := serve(t, streamable(s))
		res, err := mcpimport.Import(ctx(t), mcpimport.Options{URL: srv.URL, Client: privateClient()})
		require.NoError(t, err)
		require.Len(t, res.Design.Resources, 2)
		assert.Equal(t, "", contentOf(t, res.Design, "file://a-giant"))
		assert.Equal(t, "xxxxxxxxxx", contentOf(t, res.Design, "file://b-after"))
		assert.Equal(t, []string{`resource "file://a-giant" is kept without its content: reading it failed: ` +
			`an answer of the server is larger than the HTTP client accepts (response body too large: more than 1048576 bytes)`}, res.Warnings)
	})
}

func TestImportRecordedScenarioChecks(t *testing.T) {
	srv, _ := serve(t, streamable(weatherServer()))
	res, err := mcpimport.Import(ctx(t), mcpimport.Options{URL: srv.URL, Client: privateClient(), RecordCalls: []mcpimport.Call{
		{Tool: "lookup", Arguments: map[string]any{}},
		{Tool: "lookup", Arguments: map[string]any{"id": 3}},
		{Tool: "lookup", Arguments: map[string]any{"field": "id", "operator": "equals"}},
		{Tool: "lookup", Arguments: map[string]any{"id": "three"}},
		{Tool: "exotic"},
	}})
	require.NoError(t, err)
	requireValid(t, res.Design)
	lookup := toolNamed(t, res.Design, "lookup")
	require.Len(t, lookup.Scenarios, 3)
	assert.Equal(t, []string{
		`record_calls[2]: tool "lookup" is not called: arguments named "field" and "operator" (or a misspelling of one) cannot be a scenario condition`,
		`record_calls[4]: tool "exotic" was not imported, so it is not called`,
		`record_calls[1]: tool "lookup" (scenario recorded_2) is never served for its arguments: the earlier scenario recorded_1 matches them first; reorder the scenarios to change that`,
		`record_calls[3]: tool "lookup" (scenario recorded_3): the arguments do not satisfy the tool's input schema as this service reads it (id: Value is string but should be integer), so the mock refuses them`,
	}, res.Warnings[4:], "after the warnings of TestImportStreamable on tools, resources and prompts")
}

// TestImportListOnly: a listing-only snapshot keeps what the server lists
// and reads, fetches and calls nothing.
func TestImportListOnly(t *testing.T) {
	var reads, gets, calls atomic.Int32
	s := mcp.NewServer(&mcp.Implementation{Name: "counted", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "get_forecast", Description: "The forecast."},
		func(_ context.Context, _ *mcp.CallToolRequest, _ forecastIn) (*mcp.CallToolResult, forecastOut, error) {
			calls.Add(1)
			return nil, forecastOut{Forecast: "sunny"}, nil
		})
	s.AddResource(&mcp.Resource{Name: "guide", URI: "docs://guide", MIMEType: "text/markdown"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			reads.Add(1)
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "# Guide"}}}, nil
		})
	s.AddPrompt(&mcp.Prompt{Name: "summarize", Arguments: []*mcp.PromptArgument{{Name: "text", Required: true}}},
		func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			gets.Add(1)
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "Sum up."}}}}, nil
		})
	srv, _ := serve(t, streamable(s))
	opts := mcpimport.Options{URL: srv.URL, Client: privateClient(), ListOnly: true,
		RecordCalls: []mcpimport.Call{{Tool: "get_forecast", Arguments: map[string]any{"city": "Paris"}}}}
	res, err := mcpimport.Import(ctx(t), opts)
	require.NoError(t, err)
	requireValid(t, res.Design)
	require.Zero(t, reads.Load()+gets.Load()+calls.Load(), "nothing read, fetched or called")
	require.Len(t, res.Design.Tools, 1)
	require.Empty(t, res.Design.Tools[0].Scenarios)
	require.NotEmpty(t, res.Design.Tools[0].OutputSchema)
	require.Len(t, res.Design.Resources, 1)
	require.Equal(t, "text/markdown", *res.Design.Resources[0].MimeType)
	require.JSONEq(t, `""`, string(res.Design.Resources[0].Content))
	require.Len(t, res.Design.Prompts, 1)
	require.Empty(t, res.Design.Prompts[0].Messages)
	require.Equal(t, "text", res.Design.Prompts[0].Arguments[0].Name)

	opts.ListOnly = false
	_, err = mcpimport.Import(ctx(t), opts)
	require.NoError(t, err)
	require.Equal(t, []int32{1, 1, 1}, []int32{reads.Load(), gets.Load(), calls.Load()}, "a full import does all three")
}
