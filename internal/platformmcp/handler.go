package platformmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/mockmcp/mockmcp/internal/clientip"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/keys"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/problem"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
)

// Path is where the service endpoint is served.
const Path = "/api/platform-mcp/mcp"

// MsgPolicyKey is the exact message a policy-scoped key gets here.
const MsgPolicyKey = "Policy-scoped keys cannot access the data plane"

// Options configure a Handler.
type Options struct {
	MaxBodyBytes int64
	Version      string // reported as serverInfo.version
	// MaxBatchMessages is the longest JSON-RPC batch answered; a longer
	// one is refused whole.
	MaxBatchMessages int
	// RateLimit counts the messages (each member of a batch) of each
	// organization (in production) against PlatformLimit per window, one
	// count shared with the policy routes' requests.
	RateLimit     *ratelimit.Limiter
	PlatformLimit int
	// ClientIP and PublicCeiling count a request without a valid key
	// (401), which has no organization, against the client address's own
	// counter at MAX_PUBLIC_RATE_LIMIT.
	ClientIP      *clientip.Resolver
	PublicCeiling int
	// AllowedHosts, when set, refuses requests for other hosts (403).
	AllowedHosts *mcptransport.HostList
	// Observer watches every message (the service's metrics); the zero
	// value watches none.
	Observer mcptransport.Observer
}

// Handler serves the service endpoint.
type Handler struct {
	tr         mcptransport.Transport
	api        http.Handler // the REST router, which runs every call
	keys       *keys.Authenticator
	log        *slog.Logger
	opts       Options
	tools      map[string]Tool
	toolsList  json.RawMessage
	initialize map[string]json.RawMessage // by protocol version
}

// New derives the tools from spec and returns the endpoint, which runs
// every call through api.
func New(spec *openapi3.T, api http.Handler, ks *keys.Authenticator, log *slog.Logger, opts Options) (*Handler, error) {
	tools, err := Build(spec)
	if err != nil {
		return nil, fmt.Errorf("platform tools: %w", err)
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 1 << 20
	}
	h := &Handler{tr: mcptransport.Transport{MaxBodyBytes: opts.MaxBodyBytes, MaxBatchMessages: opts.MaxBatchMessages, Log: log,
		AllowedHosts: opts.AllowedHosts}.Observed(opts.Observer), api: api, keys: ks, log: log, opts: opts,
		tools: map[string]Tool{}, initialize: map[string]json.RawMessage{}}
	type listedTool struct {
		Name        string          `json:"name"`
		Title       string          `json:"title,omitempty"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"inputSchema"`
		Annotations map[string]any  `json:"annotations"`
	}
	list := make([]listedTool, len(tools))
	for i, t := range tools {
		h.tools[t.Name] = t
		list[i] = listedTool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema,
			Annotations: map[string]any{"title": t.Title, "readOnlyHint": t.ReadOnly, "destructiveHint": t.Destructive,
				"idempotentHint": t.Method != http.MethodPost, "openWorldHint": false}}
	}
	if h.toolsList, err = json.Marshal(map[string]any{"tools": list}); err != nil {
		return nil, err
	}
	for _, v := range protocol.Versions() {
		if h.initialize[v], err = json.Marshal(map[string]any{
			"protocolVersion": v,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]any{"name": "mockmcp", "version": opts.Version},
			"instructions": "Design mock MCP servers: create_server, then create_tool with mock_scenarios " +
				"(tried in order; the first whose condition matches the arguments answers), then update_server " +
				"with enabled: true. The server's endpoint_url then serves the design to any MCP client.",
		}); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// ServeHTTP answers one request to the service endpoint: full-scope keys
// only.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	tr := h.tr
	if tr.Preflight(w, r) {
		return
	}
	defer tr.RecoverPanic(w, r)

	p, raw, err := h.keys.Request(r.Context(), r)
	f, refused := failure.As(err)
	switch {
	case err != nil && !refused:
		h.log.Error("check API key", "error", err.Error())
		mcptransport.WriteProblem(w, http.StatusInternalServerError, "the key could not be checked")
		return
	case err != nil && f.Kind == failure.KindUnavailable:
		mcptransport.WriteUnavailable(w)
		return
	}
	// A refusal counts as one message: of the key's organization when the
	// key is valid, else of the client address.
	rl := h.opts.RateLimit
	limited := rl != nil && rl.Enabled()
	switch {
	case err != nil || raw == "":
		if limited && h.opts.ClientIP != nil {
			rl.AdmitN(r.Context(), w.Header(), ratelimit.PublicKey("", h.opts.ClientIP.Of(r).String()), h.opts.PublicCeiling, 1)
		}
		if err != nil {
			refuse(w, http.StatusUnauthorized, f.Detail)
		} else {
			refuse(w, http.StatusUnauthorized, "the service endpoint needs an API key: send Authorization: Bearer <key> or X-API-Key: <key>")
		}
		return
	case p.Scope != auth.ScopeFull:
		if limited {
			rl.AdmitN(r.Context(), w.Header(), ratelimit.PlatformKey(p.OrgID.String()), h.opts.PlatformLimit, 1)
		}
		refuse(w, http.StatusForbidden, MsgPolicyKey)
		return
	}
	// The body is read before the rate limit, which counts its messages; a
	// body that cannot be read counts as one, and its refusal carries the
	// headers.
	var body mcptransport.Payload
	if status, detail := tr.ReadBody(r, &body); status != 0 {
		if limited {
			rl.AdmitN(r.Context(), w.Header(), ratelimit.PlatformKey(p.OrgID.String()), h.opts.PlatformLimit, 1)
		}
		mcptransport.WriteProblem(w, status, detail)
		return
	}
	defer body.Release()
	if limited {
		dec := rl.AdmitN(r.Context(), w.Header(), ratelimit.PlatformKey(p.OrgID.String()), h.opts.PlatformLimit, body.Messages())
		if !dec.Allowed {
			tr.WriteRateLimited(w, &body, dec.RetryAfter())
			return
		}
		if dec.Admitted < body.Messages() {
			body.Limit(dec.Admitted, dec.RetryAfter())
		}
	}
	tr.Serve(w, r, &call{h: h, r: r, key: raw, version: r.Header.Get("Mcp-Protocol-Version")}, &body)
}

// refuse answers an HTTP error with a JSON-RPC error body: -32001 whose
// message is the reason.
func refuse(w http.ResponseWriter, status int, msg string) {
	mcptransport.WriteRPCError(w, status, nil, &jsonrpc.Error{Code: jsonrpc.ErrUnauthorized.Code, Message: msg})
}

// call is one HTTP request to the endpoint: the methods it carries run with
// its key.
type call struct {
	h       *Handler
	r       *http.Request
	key     string
	version string // Mcp-Protocol-Version, sent by clients after initialize
}

// methods is the one static table of what the service endpoint answers;
// none of its methods needs a design.
var methods mcptransport.Methods[*call]

func init() {
	methods = mcptransport.Methods[*call]{
		"initialize": {Handle: initialize},
		"ping":       {Handle: ping},
		"tools/list": {Handle: listTools},
		"tools/call": {Handle: callTool, Target: "name"},
	}
}

// Call answers one JSON-RPC method.
func (c *call) Call(ctx context.Context, x *mcptransport.Exchange, method string, params json.RawMessage) (json.RawMessage, error) {
	return methods.Call(ctx, x, c, method, params)
}

// initialize answers in the protocol version the client asked for, or in
// the default one when the service does not speak it.
func initialize(_ context.Context, _ *mcptransport.Exchange, c *call, params json.RawMessage) (json.RawMessage, error) {
	v, err := mcptransport.ParseInitialize(params)
	if err != nil {
		return nil, err
	}
	if res, ok := c.h.initialize[v]; ok {
		return res, nil
	}
	return c.h.initialize[protocol.Default], nil
}

func ping(context.Context, *mcptransport.Exchange, *call, json.RawMessage) (json.RawMessage, error) {
	return json.RawMessage(`{}`), nil
}

func listTools(_ context.Context, _ *mcptransport.Exchange, c *call, _ json.RawMessage) (json.RawMessage, error) {
	return c.h.toolsList, nil
}

// callTool runs the tool's REST operation in process, as the key.
func callTool(ctx context.Context, _ *mcptransport.Exchange, c *call, params json.RawMessage) (json.RawMessage, error) {
	p, err := mcptransport.DecodeCall[map[string]json.RawMessage](params, "tools/call needs the name of the tool")
	if err != nil {
		return nil, err
	}
	t, ok := c.h.tools[p.Name]
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.ErrMethodNotFound.Code, Message: "Tool not found: " + p.Name}
	}
	req, fields := c.request(ctx, t, p.Arguments)
	if len(fields) > 0 {
		return toolError(invalid("the arguments are invalid", fields))
	}
	rec := &recorder{header: http.Header{}}
	c.h.api.ServeHTTP(rec, req)
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	body := bytes.TrimSpace(rec.body.Bytes())
	switch {
	case status == http.StatusServiceUnavailable:
		// The database cannot be reached for now: the caller may retry, so
		// it is told so, as the REST route's problem says, not a fault.
		return toolError(body)
	case status >= 500:
		return nil, jsonrpc.WithData(fmt.Errorf("%w: the operation failed (HTTP %d)", jsonrpc.ErrInternal, status),
			map[string]any{"status": status, "request_id": rec.header.Get("X-Request-Id")})
	case status >= 400:
		return toolError(body)
	}
	if len(body) == 0 {
		body = []byte(`{"status":` + strconv.Itoa(status) + `}`)
	}
	return c.toolResult(body)
}

// request builds the REST request of a call: path parameters into the path,
// query parameters into the query, everything else into the JSON body. It
// returns the problems it can see before the router would.
func (c *call) request(ctx context.Context, t Tool, args map[string]json.RawMessage) (*http.Request, []failure.FieldError) {
	var fields []failure.FieldError
	path := t.Path
	taken := map[string]bool{}
	for _, name := range t.PathParams {
		taken[name] = true
		var v string
		raw, present := args[name]
		if !present {
			fields = append(fields, failure.Field(name, "is required"))
			continue
		}
		if err := json.Unmarshal(raw, &v); err != nil || v == "" {
			fields = append(fields, failure.Field(name, "must be a non-empty string"))
			continue
		}
		path = strings.Replace(path, "{"+name+"}", url.PathEscape(v), 1)
	}
	query := url.Values{}
	for _, name := range t.QueryParams {
		taken[name] = true
		raw, present := args[name]
		if !present || string(raw) == "null" {
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err == nil {
			query.Set(name, s)
		} else {
			query.Set(name, string(raw)) // numbers and booleans as written
		}
	}
	body := map[string]json.RawMessage{}
	for k, v := range args {
		if !taken[k] {
			body[k] = v
		}
	}
	if !t.HasBody && len(body) > 0 {
		for _, k := range slices.Sorted(maps.Keys(body)) {
			fields = append(fields, failure.Field(k, "is not an input of %s", t.Name))
		}
	}
	if len(fields) > 0 {
		return nil, fields
	}
	target := path
	if len(query) > 0 {
		target += "?" + query.Encode()
	}
	withBody := t.HasBody && (t.BodyRequired || len(body) > 0)
	var rd io.Reader = http.NoBody
	if withBody {
		raw, _ := json.Marshal(body) // raw JSON values always marshal
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, t.Method, target, rd)
	if err != nil {
		return nil, []failure.FieldError{failure.Field(t.PathParams[0], "cannot be part of a URL path: %v", err)}
	}
	if withBody {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Host = c.r.Host
	req.RemoteAddr = c.r.RemoteAddr
	req.Header.Set("X-API-Key", c.key)
	req.Header.Set("Accept", "application/json")
	if ua := c.r.UserAgent(); ua != "" {
		req.Header.Set("User-Agent", ua)
	}
	return req, nil
}

// toolResult is a successful call: the answer's JSON as a text item, and as
// structuredContent where the client's protocol version has it.
func (c *call) toolResult(body []byte) (json.RawMessage, error) {
	res := map[string]any{"content": []textItem{{"text", string(body)}}}
	if protocol.HasStructuredContent(c.version) && len(body) > 0 && body[0] == '{' {
		res["structuredContent"] = json.RawMessage(body)
	}
	return json.Marshal(res)
}

// toolError is a refused call: a result with isError carrying the problem.
func toolError(problem []byte) (json.RawMessage, error) {
	return json.Marshal(map[string]any{
		"content": []textItem{{"text", string(problem)}},
		"isError": true,
	})
}

// textItem is a text content item.
type textItem struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// invalid is the problem document of arguments refused before the REST
// route is reached, in the form of the MCP endpoints.
func invalid(detail string, fields []failure.FieldError) []byte {
	p := problem.New(http.StatusUnprocessableEntity, detail)
	p.Errors = fields
	return p.Sorted().JSON()
}

// recorder collects the REST router's answer.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// MethodNames are the names of the methods the endpoint answers.
func MethodNames() []string { return methods.Names() }
