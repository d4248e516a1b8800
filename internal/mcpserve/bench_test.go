package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// benchInputSchema is the input schema of the benchmarked tool.
const benchInputSchema = `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`

// benchCall is a tools/call whose arguments match the third of the
// tool's five scenarios, so the matcher tries two conditions first.
const benchCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Oslo","days":3}}}`

// benchScenarios are the tool's scenarios: a plain condition, an operator
// condition, the plain condition that matches benchCall, an operator
// condition on another field, and the fallback.
func benchScenarios(o benchOptions) []map[string]any {
	oslo := map[string]any{"city": "Oslo", "forecast": "light snow", "temp_c": -4, "wind_kph": 12}
	if o.templated {
		// The same answer, its city and days from the call.
		oslo = map[string]any{"city": "{{args.city}}", "forecast": "light snow for {{args.days}} days", "temp_c": -4, "wind_kph": 12}
	}
	osloScenario := map[string]any{"name": "oslo", "condition": map[string]any{"city": "Oslo"}, "response": oslo}
	if o.stateful {
		osloScenario["when_state"] = map[string]any{"mode": "live"}
	}
	return []map[string]any{
		{"name": "atlantis", "condition": map[string]any{"city": "Atlantis"},
			"response": map[string]any{"error": "city under water"}},
		{"name": "paris", "condition": map[string]any{"field": "city", "operator": "equals", "value": "Paris"},
			"response": map[string]any{"city": "Paris", "forecast": "rain", "temp_c": 14}},
		osloScenario,
		{"name": "long_range", "condition": map[string]any{"field": "days", "operator": "gt", "value": 3},
			"response": map[string]any{"error": "forecasts reach three days ahead"}},
		{"name": "default", "condition": map[string]any{},
			"response": map[string]any{"forecast": "sunny", "temp_c": 21}},
	}
}

// benchBody is a request body that can be replayed without allocating.
type benchBody struct{ bytes.Reader }

func (*benchBody) Close() error { return nil }

// BenchmarkToolsCall measures a warm tools/call through Handler.ServeHTTP:
// read the body, parse the JSON-RPC request, decode and validate the
// arguments, match the third of five scenarios, and frame the SSE reply;
// with the call journal off, and on (its writer's work, in the background,
// counts in the figures: allocations are counted process-wide).
//
// The modern revision's request (era=modern) adds reading params._meta and
// checking the Mcp-Protocol-Version, Mcp-Method and Mcp-Name headers, and
// its reply carries resultType and the server's identity.
//
// metrics=off and metrics=on (journal off) call the endpoint as the service
// routes it, with its request metrics and its message counters when on.
func BenchmarkToolsCall(b *testing.B) {
	b.Run("journal=off", func(b *testing.B) { benchToolsCall(b, benchOptions{}) })
	b.Run("journal=on", func(b *testing.B) { benchToolsCall(b, benchOptions{journal: true}) })
	b.Run("era=modern/journal=off", func(b *testing.B) { benchToolsCall(b, benchOptions{modern: true}) })
	b.Run("auth=oauth/journal=off", func(b *testing.B) { benchToolsCall(b, benchOptions{oauth: true}) })
	b.Run("metrics=off", func(b *testing.B) { benchToolsCall(b, benchOptions{routed: true}) })
	b.Run("metrics=on", func(b *testing.B) { benchToolsCall(b, benchOptions{routed: true, metrics: true}) })
	b.Run("answer=templated", func(b *testing.B) { benchToolsCall(b, benchOptions{templated: true}) })
	b.Run("scenario=when_state", func(b *testing.B) { benchToolsCall(b, benchOptions{stateful: true}) })
	b.Run("limits=memory", func(b *testing.B) { benchToolsCall(b, benchOptions{limits: "memory"}) })
	b.Run("limits=redis", func(b *testing.B) { benchToolsCall(b, benchOptions{limits: "redis"}) })
}

// benchOptions are the dimensions of BenchmarkToolsCall.
type benchOptions struct {
	journal, modern bool
	// oauth: the design's auth_mode is oauth, with a required scope and a
	// scope on the tool; the call's token holds both.
	oauth bool
	// routed calls Service.ServerEndpoint, with metrics on or off, rather
	// than the handler alone.
	routed, metrics bool
	// templated: the matching scenario's answer fills two placeholders
	// from the call's arguments.
	templated bool
	// stateful: the matching scenario also has a when_state, so each call
	// reads the design's live state (one query by key).
	stateful bool
	// limits, when set, runs in production mode, so each call is counted
	// against a limit it never reaches, in "memory" or in "redis" (leased).
	limits string
}

// benchModernCall is benchCall as a modern client sends it.
const benchModernCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Oslo","days":3},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
	`"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"}}}}`

func benchToolsCall(b *testing.B, o benchOptions) {
	b.ReportAllocs()
	serve, size := toolsCall(b, o)
	b.SetBytes(int64(size))
	for b.Loop() {
		serve()
	}
}

// toolsCall boots the service as o says, creates the benchmarked design, and
// returns what answers one call, checked once, and the call's size.
func toolsCall(tb testing.TB, o benchOptions) (func() *benchWriter, int) {
	journal, modern := o.journal, o.modern
	env := apitest.New(tb, &apitest.Options{Configure: func(c *config.Config) {
		c.JournalEnabled = journal
		c.OAuthVerifier = benchVerifier{}
		if o.metrics {
			c.MetricsAddr = "127.0.0.1:0"
		}
		if o.limits != "" {
			c.Env = "production"
			c.MaxPublicRateLimit, c.PlatformRateLimit = math.MaxInt32, math.MaxInt32
		}
		if o.limits == "redis" {
			c.RedisURL = benchRedisURL()
		}
	}})
	b := tb
	c := env.Signup(b, "Bench Org")
	server := map[string]any{"name": "Weather", "version": "1.0.0"}
	if o.stateful {
		server["state"] = map[string]any{"mode": "live"}
	}
	scopes := []string{}
	if o.oauth {
		server["auth_mode"] = "oauth"
		server["oauth"] = map[string]any{"required_scopes": []string{"mcp"}}
		scopes = []string{"weather:read"}
	}
	id := c.Do("POST", "/api/servers", server).Status(http.StatusCreated).String("id")
	c.Do("POST", "/api/servers/"+id+"/tools", map[string]any{
		"required_scopes": scopes,
		"name":            "get_forecast",
		"description":     "Returns the forecast for a city.",
		"input_schema":    json.RawMessage(benchInputSchema),
		"mock_scenarios":  benchScenarios(o),
	}).Status(http.StatusCreated)
	c.Do("PATCH", "/api/servers/"+id, map[string]any{"enabled": true}).Status(http.StatusOK)

	var h http.Handler = env.Service.MCP()
	if o.routed {
		h = env.Service.ServerEndpoint()
	}
	body := &benchBody{}
	req := httptest.NewRequest(http.MethodPost, "/api/platform/"+id+"/mcp", nil)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if o.oauth {
		req.Header.Set("Authorization", "Bearer bench-token")
	}
	call := benchCall
	if modern {
		call = benchModernCall
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", "tools/call")
		req.Header.Set("Mcp-Name", "get_forecast")
	}
	req.ContentLength = int64(len(call))
	w := &benchWriter{header: http.Header{}}
	serve := func() *benchWriter {
		body.Reset([]byte(call))
		req.Body = body
		w.reset()
		h.ServeHTTP(w, req)
		return w
	}

	// The first call compiles the design into the cache; check the answer.
	serve()
	if w.code != http.StatusOK || !bytes.Contains(w.body, []byte("light snow")) {
		b.Fatalf("warm-up call: %d %s", w.code, w.body)
	}
	if modern && !bytes.Contains(w.body, []byte(`"resultType":"complete"`)) {
		b.Fatalf("warm-up call answered as legacy: %s", w.body)
	}
	if ct := w.Header().Get("Content-Type"); ct != "text/event-stream" {
		b.Fatalf("Content-Type %q, want text/event-stream", ct)
	}
	if o.limits != "" && w.Header().Get("X-RateLimit-Remaining") == "" {
		b.Fatalf("warm-up call not counted: %v", w.Header())
	}
	return serve, len(call)
}

// benchRedisURL is the Redis of limits=redis.
func benchRedisURL() string {
	if v := os.Getenv("REDIS_URL"); v != "" {
		return v
	}
	return "redis://127.0.0.1:6379/0"
}

// benchWriter is a ResponseWriter reused from call to call, as a server
// reuses its connection's buffers, so that the figures count the
// endpoint's own allocations.
type benchWriter struct {
	header http.Header
	code   int
	body   []byte
}

func (w *benchWriter) reset() {
	clear(w.header)
	w.code, w.body = 0, w.body[:0]
}

func (w *benchWriter) Header() http.Header { return w.header }

func (w *benchWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *benchWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.body = append(w.body, b...)
	return len(b), nil
}

// benchVerifier accepts the token "bench-token" for any design, with the
// scopes of the benchmarked one, as a verifier that knows its key does:
// without touching a database.
type benchVerifier struct{}

func (benchVerifier) VerifyToken(_ context.Context, token, issuer, resource string) (oauthcfg.Claims, error) {
	if token != "bench-token" {
		return oauthcfg.Claims{}, oauthcfg.ErrInvalidToken
	}
	now := time.Now()
	return oauthcfg.Claims{Issuer: issuer, Audience: resource, Scopes: benchScopes, IssuedAt: now, Expiry: now.Add(time.Hour)}, nil
}

var benchScopes = []string{"mcp", "weather:read"}

// BenchmarkAppendResult measures encoding a response around a pre-encoded
// tools/call result into a reused buffer, as the endpoint does.
func BenchmarkAppendResult(b *testing.B) {
	result := json.RawMessage(`{"content":[{"type":"text","text":"{\"city\":\"Oslo\",\"forecast\":\"light snow\",\"temp_c\":-4,\"wind_kph\":12}"}]}`)
	id := json.RawMessage(`1`)
	dst := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		dst = jsonrpc.AppendResult(dst[:0], id, result)
	}
	if !json.Valid(dst) {
		b.Fatalf("invalid response: %s", dst)
	}
}

// BenchmarkParseRequest measures reading the JSON-RPC envelope of a
// tools/call.
func BenchmarkParseRequest(b *testing.B) {
	msg := []byte(benchCall)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := jsonrpc.Parse(msg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkValidateArguments measures checking decoded tools/call arguments
// against a compiled input schema, the way the endpoint does on every call.
func BenchmarkValidateArguments(b *testing.B) {
	s, err := schema.Compile([]byte(benchInputSchema), schema.RequireObject)
	if err != nil {
		b.Fatal(err)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(`{"city":"Oslo","days":3}`), &args); err != nil {
		b.Fatal(err)
	}
	if vs := s.Validate(args); len(vs) > 0 {
		b.Fatalf("unexpected violations: %v", vs)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Validate(args)
	}
}

// BenchmarkDecodeAndValidateArguments adds decoding the raw arguments into
// a map, as tools/call does before validating them.
func BenchmarkDecodeAndValidateArguments(b *testing.B) {
	s, err := schema.Compile([]byte(benchInputSchema), schema.RequireObject)
	if err != nil {
		b.Fatal(err)
	}
	raw := []byte(`{"city":"Oslo","days":3}`)
	b.ReportAllocs()
	for b.Loop() {
		args := map[string]any{}
		if err := json.Unmarshal(raw, &args); err != nil {
			b.Fatal(err)
		}
		if vs := s.Validate(args); len(vs) > 0 {
			b.Fatalf("unexpected violations: %v", vs)
		}
	}
}

// BenchmarkCompileSchema measures compiling one small input schema, which
// happens once per tool when a design is loaded into the cache.
func BenchmarkCompileSchema(b *testing.B) {
	raw := []byte(benchInputSchema)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := schema.Compile(raw, schema.RequireObject); err != nil {
			b.Fatal(err)
		}
	}
}
