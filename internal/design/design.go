// Package design holds the domain model of an MCP server design (the
// server, its tools with their scenarios, resources and prompts, and the
// whole design as served) and checks designs when they are saved: schemas
// that compile, scenario conditions that can be evaluated and answers that
// can be served (see mockspec), resource URIs and contents that can be read,
// prompt templates that can be filled, and the per-server limits.
// Every check reports all problems at once, each naming the field at fault.
// The store converts database rows to and from these types.
package design

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"maps"
	"mime"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/pgtext"
	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// Limits per server and per tool; past one, a save is refused with 422.
const (
	MaxTools     = 1000
	MaxResources = 1000
	MaxPrompts   = 1000
	MaxScenarios = 200
	// MaxCompletions bounds the completion values of one prompt argument
	// or URI-template parameter.
	MaxCompletions = 1000
)

// Lengths of text fields, in characters, as the OpenAPI document states
// them; importers, which bypass the HTTP validator, keep within them too.
const (
	// MaxName bounds the names of servers, scenarios, resources, prompts
	// and prompt arguments.
	MaxName = 200
	// MaxToolName bounds a tool name, which also matches ToolNamePattern.
	MaxToolName            = 128
	MaxDescription         = 10000
	MaxArgumentDescription = 2000
	MaxVersion             = 100
	MaxProviderName        = 200
	MaxProviderURL         = 2000
	MaxURI                 = 2000
	MaxMimeType            = 200
	// MaxBlob bounds the base64 text of a binary resource.
	MaxBlob = 1_000_000
	// MaxCompletion bounds one completion value.
	MaxCompletion      = 1000
	MaxPromptArguments = 100
	MaxPromptMessages  = 100
	MaxPromptText      = 100_000
)

// ToolNamePattern is what a tool name is made of.
var ToolNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// Server types, authentication modes, protocol eras and cache scopes; the
// zero value stands for the first, the default.
var (
	ServerTypes = []string{"mock", "openapi"}
	AuthModes   = []string{AuthModeNone, AuthModeAPIKey, AuthModeOAuth}
	ErasValues  = []string{ErasModernAndLegacy, ErasLegacyOnly, ErasModernOnly}
	CacheScopes = []string{CacheScopePrivate, CacheScopePublic}
)

// Protocol eras a server design answers (Server.Eras): the modern
// revisions (protocol.ModernFrom on, stateless, with per-request _meta),
// the legacy ones (an initialize handshake), or both.
const (
	// ErasModernAndLegacy answers modern and legacy clients alike.
	ErasModernAndLegacy = "modern_and_legacy"
	// ErasLegacyOnly answers as a server from before the modern
	// revisions would.
	ErasLegacyOnly = "legacy_only"
	// ErasModernOnly answers as a server that knows only the modern
	// revisions would.
	ErasModernOnly = "modern_only"
)

// Cache scopes of a server design's caching hints (Server.CacheScope).
const (
	CacheScopePrivate = "private"
	CacheScopePublic  = "public"
)

// Defaults and bounds of a server design's protocol settings.
const (
	DefaultEras       = ErasModernAndLegacy
	DefaultCacheScope = CacheScopePrivate
	// DefaultCacheTTLMs is a minute.
	DefaultCacheTTLMs = 60_000
	// MaxCacheTTLMs is a day.
	MaxCacheTTLMs = 86_400_000
)

// ServerDefaults is a server with the defaults of the protocol settings a
// new server gets when its maker leaves them out: a create body without
// them, an importer. A setting with a default is given it here alone.
func ServerDefaults() Server {
	return Server{Eras: DefaultEras, CacheTTLMs: DefaultCacheTTLMs, CacheScope: DefaultCacheScope}
}

// Client capabilities a tool may require of a modern request
// (Tool.RequiredClientCapabilities).
const (
	ClientCapabilityRoots       = "roots"
	ClientCapabilitySampling    = "sampling"
	ClientCapabilityElicitation = "elicitation"
)

// ClientCapabilities lists the client capabilities a tool may require.
var ClientCapabilities = []string{ClientCapabilityRoots, ClientCapabilitySampling, ClientCapabilityElicitation}

// DefaultInputSchema is the input schema of a tool saved without one: any
// arguments object.
var DefaultInputSchema = json.RawMessage(`{"type":"object"}`)

// CheckServer checks the fields of a server design that the OpenAPI
// document cannot express.
func CheckServer(s Server) error {
	var f failure.Fields
	if s.ProviderURL != nil {
		if msg := httpURLProblem(*s.ProviderURL); msg != "" {
			f.Add("provider_url", "%s", msg)
		}
		maxLen(&f, "provider_url", *s.ProviderURL, MaxProviderURL)
	}
	if strings.TrimSpace(s.Name) == "" {
		f.Add("name", "must not be blank")
	}
	maxLen(&f, "name", s.Name, MaxName)
	noNUL(&f, "name", s.Name)
	maxLen(&f, "description", s.Description, MaxDescription)
	noNUL(&f, "description", s.Description)
	maxLen(&f, "version", s.Version, MaxVersion)
	noNUL(&f, "version", s.Version)
	if s.ProviderName != nil {
		maxLen(&f, "provider_name", *s.ProviderName, MaxProviderName)
		noNUL(&f, "provider_name", *s.ProviderName)
	}
	oneOf(&f, "type", s.Type, ServerTypes)
	oneOf(&f, "auth_mode", s.AuthMode, AuthModes)
	checkOAuth(&f, "oauth", s.OAuth)
	oneOf(&f, "eras", s.Eras, ErasValues)
	oneOf(&f, "cache_scope", s.CacheScope, CacheScopes)
	if s.CacheTTLMs < 0 || s.CacheTTLMs > MaxCacheTTLMs {
		f.Add("cache_ttl_ms", "must be from 0 to %d (a day), got %d", MaxCacheTTLMs, s.CacheTTLMs)
	}
	checkFault(&f, "fault", s.Fault)
	if len(s.State) > 0 {
		for _, e := range mockspec.CheckState("state", s.State) {
			f.Add(e.Field, "%s", e.Message)
		}
	}
	checkSkills(&f, "skills", s.Skills)
	if u := s.Upstream; u != nil {
		if msg := httpURLProblem(u.URL); msg != "" {
			f.Add("upstream.url", "%s", msg)
		}
		maxLen(&f, "upstream.url", u.URL, MaxUpstreamURL)
		oneOf(&f, "upstream.mode", u.Mode, UpstreamModes)
	}
	return f.Err()
}

// checkFault checks a server's or a tool's fault, at field; nil is none.
func checkFault(f *failure.Fields, field string, fault *mockspec.Fault) {
	errs := mockspec.CheckFault(fault)
	for _, e := range errs {
		f.Add(field+"."+e.Field, "%s", e.Message)
	}
	if len(errs) == 0 && fault != nil && fault.Error != nil {
		rpcErrorNUL(f, field+".error", fault.Error)
	}
}

// Limits of an upstream's headers.
const (
	MaxUpstreamURL         = 2000
	MaxUpstreamHeaders     = 20
	MaxUpstreamHeaderValue = 4096
)

// CheckUpstreamHeaders checks the headers an upstream is given (names and
// values in clear, before they are sealed), naming each problem under
// field (e.g. "upstream.headers"). Messages never quote a value.
func CheckUpstreamHeaders(field string, headers map[string]string) error {
	var f failure.Fields
	if len(headers) > MaxUpstreamHeaders {
		f.Add(field, "at most %d headers, got %d", MaxUpstreamHeaders, len(headers))
	}
	for _, name := range slices.Sorted(maps.Keys(headers)) {
		v := headers[name]
		switch {
		case !isHeaderToken(name):
			f.Add(field, "%q is not a valid header name", name)
		case forbiddenUpstreamHeader(name):
			f.Add(field+"."+name, "is set by the client itself")
		case len(v) > MaxUpstreamHeaderValue:
			f.Add(field+"."+name, "must be at most %d bytes", MaxUpstreamHeaderValue)
		case strings.ContainsAny(v, "\r\n\x00"):
			f.Add(field+"."+name, "must not contain line breaks or NUL")
		}
	}
	return f.Err()
}

// forbiddenUpstreamHeader reports headers the MCP client sets itself.
func forbiddenUpstreamHeader(name string) bool {
	switch strings.ToLower(name) {
	case "host", "content-length", "content-type", "accept", "connection", "transfer-encoding",
		"mcp-session-id", "mcp-protocol-version":
		return true
	}
	return false
}

// isHeaderToken reports whether s is an HTTP header name (an RFC 9110 token).
func isHeaderToken(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, r := range s {
		if r > 0x7e || r <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return true
}

// CheckTool checks a tool's schemas (with their x-mcp-header annotations)
// and scenarios.
func CheckTool(t Tool) error {
	var f failure.Fields
	switch {
	case t.Name == "":
		f.Add("name", "is required")
	case utf8.RuneCountInString(t.Name) > MaxToolName:
		f.Add("name", "at most %d characters, got %d", MaxToolName, utf8.RuneCountInString(t.Name))
	case !ToolNamePattern.MatchString(t.Name):
		f.Add("name", "only letters, digits, '_', '-' and '.'")
	}
	maxLen(&f, "description", t.Description, MaxDescription)
	noNUL(&f, "description", t.Description)
	if _, err := schema.Compile(t.InputSchema, schema.RequireObject); err != nil {
		addSchemaError(&f, "input_schema", err)
	} else {
		noNULJSON(&f, "input_schema", t.InputSchema)
		checkMCPHeaders(&f, "input_schema", t.InputSchema)
	}
	// output stays nil when the output schema does not compile: that is
	// reported once, not again for every result.
	var output *schema.Schema
	if len(t.OutputSchema) > 0 {
		if s, err := schema.Compile(t.OutputSchema, schema.RequireObject); err != nil {
			addSchemaError(&f, "output_schema", err)
		} else {
			output = s
			noNULJSON(&f, "output_schema", t.OutputSchema)
		}
	}
	checkCapabilities(&f, "required_client_capabilities", t.RequiredClientCapabilities)
	checkScopes(&f, "required_scopes", t.RequiredScopes)
	checkFault(&f, "fault", t.Fault)
	checkToolMeta(&f, t.Meta)
	if len(t.Scenarios) > MaxScenarios {
		f.Add("mock_scenarios", "at most %d scenarios per tool (the limit), got %d", MaxScenarios, len(t.Scenarios))
	}
	for i, sc := range t.Scenarios {
		at := fmt.Sprintf("mock_scenarios[%d]", i)
		if strings.TrimSpace(sc.Name) == "" {
			f.Add(at+".name", "must not be blank")
		}
		maxLen(&f, at+".name", sc.Name, MaxName)
		noNUL(&f, at+".name", sc.Name)
		errs := scenario.Check(sc.Condition)
		for _, e := range errs {
			f.Add(at+"."+e.Field, "%s", e.Message)
		}
		if len(errs) == 0 {
			noNULJSON(&f, at+".condition", sc.Condition)
		}
		checkStateScenario(&f, at, sc)
		answerErrs := mockspec.CheckScenario(sc, output)
		for _, e := range answerErrs {
			f.Add(at+"."+e.Field, "%s", e.Message)
		}
		if len(answerErrs) == 0 {
			scenarioNUL(&f, at, sc)
		}
	}
	return f.Err()
}

// checkCapabilities reports a list of client capabilities that holds one
// that is not of ClientCapabilities, or one twice.
func checkCapabilities(f *failure.Fields, field string, caps []string) {
	if len(caps) > len(ClientCapabilities) {
		f.Add(field, "at most %d capabilities, got %d", len(ClientCapabilities), len(caps))
	}
	for i, c := range caps {
		at := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case !slices.Contains(ClientCapabilities, c):
			f.Add(at, "must be one of %s", strings.Join(ClientCapabilities, ", "))
		case slices.Contains(caps[:i], c):
			f.Add(at, "capability %q is listed twice", c)
		}
	}
}

// addSchemaError reports why the schema at field does not compile; a
// refused regular expression is reported at its own place in the schema.
func addSchemaError(f *failure.Fields, field string, err error) {
	var pe *schema.PatternError
	if errors.As(err, &pe) {
		if pe.Field != "" && pe.Field[0] != '[' {
			field += "."
		}
		f.Add(field+pe.Field, "%s", pe.Message)
		return
	}
	f.Add(field, "%s", err.Error())
}

// scenarioNUL checks what jsonb refuses in a scenario's answers and
// notifications, which are valid JSON by then.
func scenarioNUL(f *failure.Fields, at string, sc Scenario) {
	answerNUL(f, at, sc.Response, sc.Result, sc.Error)
	if sc.Sequence != nil {
		for j, st := range sc.Sequence.Steps {
			answerNUL(f, fmt.Sprintf("%s.sequence.steps[%d]", at, j), st.Response, st.Result, st.Error)
		}
	}
	if sc.Fault != nil && sc.Fault.Error != nil {
		rpcErrorNUL(f, at+".fault.error", sc.Fault.Error)
	}
	for j, n := range sc.Notifications {
		nat := fmt.Sprintf("%s.notifications[%d]", at, j)
		noNUL(f, nat+".logger", n.Logger)
		noNUL(f, nat+".message", n.Message)
		if len(n.Data) > 0 {
			noNULJSON(f, nat+".data", n.Data)
		}
	}
}

func answerNUL(f *failure.Fields, at string, response, result json.RawMessage, e *mockspec.RPCError) {
	if len(response) > 0 {
		noNULJSON(f, at+".response", response)
	}
	if len(result) > 0 {
		noNULJSON(f, at+".result", result)
	}
	if e != nil {
		rpcErrorNUL(f, at+".error", e)
	}
}

func rpcErrorNUL(f *failure.Fields, at string, e *mockspec.RPCError) {
	noNUL(f, at+".message", e.Message)
	if len(e.Data) > 0 {
		noNULJSON(f, at+".data", e.Data)
	}
}

// CheckResource checks a resource's URI, media type, content (text or JSON,
// or base64 when Binary) and completion values.
func CheckResource(r Resource) error {
	var f failure.Fields
	if msg := uriProblem(r.URI); msg != "" {
		f.Add("uri", "%s", msg)
	} else {
		maxLen(&f, "uri", r.URI, MaxURI)
	}
	if r.MimeType != nil {
		maxLen(&f, "mime_type", *r.MimeType, MaxMimeType)
	}
	if r.MimeType != nil && *r.MimeType != "" {
		// ParseMediaType accepts a lone token ("markdown"); a media type
		// is type/subtype.
		if mt, _, err := mime.ParseMediaType(*r.MimeType); err != nil {
			f.Add("mime_type", "not a media type such as application/json: %v", err)
		} else if !strings.Contains(mt, "/") {
			f.Add("mime_type", "not a media type such as application/json: want type/subtype, got %q", mt)
		}
	}
	switch {
	case r.Binary:
		// A binary resource's content is its blob as a JSON string.
		var blob string
		if err := json.Unmarshal(r.Content, &blob); err != nil || !bytes.HasPrefix(bytes.TrimSpace(r.Content), []byte(`"`)) {
			f.Add("blob", "must be a string of base64")
		} else if msg := mockspec.Base64Problem(blob); msg != "" {
			f.Add("blob", "%s", msg)
		} else {
			maxLen(&f, "blob", blob, MaxBlob)
		}
	case absent(r.Content):
		f.Add("content", "is required: text or a JSON value (or give blob, base64, for binary content)")
	default:
		noNULJSON(&f, "content", r.Content)
	}
	checkCompletions(&f, r)
	checkResourceMeta(&f, r)
	if r.Ask != nil || r.Then != nil {
		for _, e := range mockspec.CheckAskTree(r.Ask, r.Then, "content", func(b mockspec.Branch, ids []string) []failure.FieldError {
			return branchContent(b.Content, r.Binary, ids)
		}) {
			f.Add(e.Field, "%s", e.Message)
		}
	}
	requiredName(&f, "name", r.Name)
	noNUL(&f, "name", r.Name)
	maxLen(&f, "description", r.Description, MaxDescription)
	noNUL(&f, "description", r.Description)
	return f.Err()
}

// branchContent checks the content of a resource's branch: absent (the
// resource's own content answers), or text or a JSON value, for a
// resource that is not binary. Its {{id.path}} placeholders are filled
// with the answers.
func branchContent(content json.RawMessage, binary bool, ids []string) []failure.FieldError {
	var f failure.Fields
	switch {
	case absent(content):
		return nil
	case binary:
		f.Add("content", "a binary resource answers its blob after the questions: its branches give no content")
	case len(content) > MaxBlob:
		f.Add("content", "at most %d bytes, got %d", MaxBlob, len(content))
	}
	known := make(map[string]bool, len(ids))
	for _, id := range ids {
		known[id+"."] = true
	}
	var v any
	_ = json.Unmarshal(content, &v) // valid JSON: the request was decoded
	contentPlaceholders(&f, "content", v, known)
	noNULJSON(&f, "content", content)
	return f
}

// checkCompletions checks that a resource's completion values are keyed by
// parameters of its URI template.
func checkCompletions(f *failure.Fields, r Resource) {
	if len(r.Completions) == 0 {
		return
	}
	params := map[string]bool{}
	for _, m := range uriParam.FindAllStringSubmatch(r.URI, -1) {
		params[m[1]] = true
	}
	if len(params) == 0 {
		f.Add("completions", "only a URI template has parameters to complete, and %q has none: "+
			`completions are {"param": ["value", ...]} for a URI such as weather://{city}/now`, r.URI)
		return
	}
	for _, k := range slices.Sorted(maps.Keys(r.Completions)) {
		at := "completions." + k
		if !params[k] {
			f.Add(at, "names no parameter of the URI template %s", r.URI)
		}
		noNUL(f, at, k)
		completionValues(f, at, r.Completions[k])
	}
}

// completionValues checks the values offered for one parameter or
// argument.
func completionValues(f *failure.Fields, at string, values []string) {
	if len(values) > MaxCompletions {
		f.Add(at, "at most %d values, got %d", MaxCompletions, len(values))
	}
	for j, v := range values {
		maxLen(f, fmt.Sprintf("%s[%d]", at, j), v, MaxCompletion)
		noNUL(f, fmt.Sprintf("%s[%d]", at, j), v)
	}
}

// CheckPrompt checks that argument names are unique, that every message is
// a text or a valid content block, and that every {{placeholder}} of a
// message names a declared argument.
func CheckPrompt(p Prompt) error {
	var f failure.Fields
	requiredName(&f, "name", p.Name)
	noNUL(&f, "name", p.Name)
	maxLen(&f, "description", p.Description, MaxDescription)
	noNUL(&f, "description", p.Description)
	if len(p.Arguments) > MaxPromptArguments {
		f.Add("arguments", "at most %d arguments, got %d", MaxPromptArguments, len(p.Arguments))
	}
	if len(p.Messages) > MaxPromptMessages {
		f.Add("messages", "at most %d messages, got %d", MaxPromptMessages, len(p.Messages))
	}
	declared := make(map[string]bool, len(p.Arguments))
	for i, a := range p.Arguments {
		at := fmt.Sprintf("arguments[%d]", i)
		name := strings.TrimSpace(a.Name)
		switch {
		case name == "":
			f.Add(at+".name", "must not be blank")
		case declared[name]:
			f.Add(at+".name", "argument %q is declared twice", name)
		}
		declared[name] = true
		maxLen(&f, at+".name", a.Name, MaxName)
		noNUL(&f, at+".name", a.Name)
		maxLen(&f, at+".description", a.Description, MaxArgumentDescription)
		noNUL(&f, at+".description", a.Description)
		completionValues(&f, at+".completions", a.Completions)
	}
	checkMessages(&f, "messages", p.Messages, declared)
	if p.Ask != nil || p.Then != nil {
		if len(p.Messages) > 0 {
			f.Add("messages", "with ask, the messages go in the branches of then")
		}
		errs := mockspec.CheckPromptAsk(p.Ask, p.Then, func(raw json.RawMessage, ids []string) []failure.FieldError {
			return branchMessages(raw, ids, declared)
		})
		for _, e := range errs {
			f.Add(e.Field, "%s", e.Message)
		}
	}
	return f.Err()
}

// checkMessages checks prompt messages at field; their placeholders must
// name declared arguments (or, for a branch's, answers: "id." keys).
func checkMessages(f *failure.Fields, field string, msgs []PromptMessage, declared map[string]bool) {
	for i, m := range msgs {
		at := fmt.Sprintf("%s[%d]", field, i)
		switch m.Role {
		case "user", "assistant", "system":
		default:
			f.Add(at+".role", "must be user, assistant or system")
		}
		// The store cannot tell an absent text from an empty one: an empty
		// message says nothing, so it counts as none.
		hasContent := !absent(m.Content)
		switch {
		case m.Text != "" && hasContent:
			f.Add(at, "give text or content, not both")
		case m.Text == "" && !hasContent:
			f.Add(at, "give text (which may hold {{argument}} placeholders) or content (a content block such as an image)")
		}
		undeclaredPlaceholders(f, at+".text", m.Text, declared)
		maxLen(f, at+".text", m.Text, MaxPromptText)
		noNUL(f, at+".text", m.Text)
		if hasContent {
			errs := mockspec.CheckContent(m.Content)
			for _, e := range errs {
				field := at + ".content"
				if e.Field != "" {
					field += "." + e.Field
				}
				f.Add(field, "%s", e.Message)
			}
			if len(errs) == 0 {
				var v any
				_ = json.Unmarshal(m.Content, &v) // valid: it was just checked
				contentPlaceholders(f, at+".content", v, declared)
				noNULJSON(f, at+".content", m.Content)
			}
		}
	}
}

// branchMessages checks the messages of a prompt's branch, raw as saved:
// their placeholders may also name the answers to the questions ids.
// Fields are relative to the messages ("[0].role").
func branchMessages(raw json.RawMessage, ids []string, declared map[string]bool) []failure.FieldError {
	var f failure.Fields
	var msgs []PromptMessage
	if err := json.Unmarshal(raw, &msgs); err != nil {
		f.Add("", "must be a list of prompt messages such as [{\"role\": \"user\", \"text\": \"...\"}]: %v", err)
		return f
	}
	if len(msgs) == 0 || len(msgs) > MaxPromptMessages {
		f.Add("", "must have 1 to %d messages, got %d", MaxPromptMessages, len(msgs))
	}
	known := maps.Clone(declared)
	for _, id := range ids {
		known[id+"."] = true
	}
	checkMessages(&f, "", msgs, known)
	return f
}

// undeclaredPlaceholders reports each {{placeholder}} of s that names no
// declared argument.
func undeclaredPlaceholders(f *failure.Fields, at, s string, declared map[string]bool) {
	if answertmpl.IsTemplate(s) {
		// The answer templates of a prompt or a resource ({{args.x}},
		// {{now}}, ...) render after the older placeholders are filled.
		keep := func(name string) bool { return declared[name] || declared[name+"."] }
		_, err := answertmpl.Options{Legacy: true, Keep: keep}.Compile(s)
		for _, e := range answertmpl.Problems(err) {
			f.Add(at, "offset %d: %s", e.Offset, e.Message)
		}
	}
	for _, match := range mockspec.Placeholder.FindAllStringSubmatch(s, -1) {
		if answertmpl.NamesHelper(match[1]) && !declared[match[1]] {
			continue
		}
		if !declared[match[1]] && !declared[answerOf(match[1])] {
			f.Add(at, "placeholder {{%s}} names no declared argument", match[1])
		}
	}
}

// answerOf is the "id." key of a placeholder that reads an answer
// (id.path), "" for one that names no path.
func answerOf(name string) string {
	if i := strings.IndexAny(name, ".["); i > 0 {
		return name[:i] + "."
	}
	return ""
}

// contentPlaceholders checks the placeholders of every string of a
// decoded content block, in member name order. Only text fields and URIs
// are filled in, but a placeholder anywhere else would be as much a
// mistake.
func contentPlaceholders(f *failure.Fields, at string, v any, declared map[string]bool) {
	switch x := v.(type) {
	case string:
		undeclaredPlaceholders(f, at, x, declared)
	case []any:
		for i, e := range x {
			contentPlaceholders(f, fmt.Sprintf("%s[%d]", at, i), e, declared)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			contentPlaceholders(f, at+"."+k, x[k], declared)
		}
	}
}

// CheckDesign checks a whole design before it is created at once (an
// import): the server, every tool, resource and prompt, the per-server
// counts, and the names and URIs that must be unique within a server.
// The server's fields are named as they are; a part's as tools[i].name.
func CheckDesign(d Design) error {
	var f failure.Fields
	add := func(prefix string, err error) {
		if err == nil {
			return
		}
		fe, ok := failure.As(err)
		if !ok {
			f.Add(prefix, "%s", err.Error())
			return
		}
		for _, e := range fe.Fields {
			field := prefix
			if prefix != "" {
				field += "."
			}
			f.Add(field+e.Field, "%s", e.Message)
		}
	}
	count := func(field string, n, max int) {
		if n > max {
			f.Add(field, "at most %d %s per server (the limit), got %d", max, field, n)
		}
	}
	add("", CheckServer(d.Server))
	count("tools", len(d.Tools), MaxTools)
	count("resources", len(d.Resources), MaxResources)
	count("prompts", len(d.Prompts), MaxPrompts)
	checkParts(add, &f, "tools", d.Tools, CheckTool, "name", func(t Tool) string { return t.Name }, "tool %q is named twice")
	checkParts(add, &f, "resources", d.Resources, CheckResource, "uri", func(r Resource) string { return r.URI }, "resource %q is listed twice")
	checkParts(add, &f, "prompts", d.Prompts, CheckPrompt, "name", func(p Prompt) string { return p.Name }, "prompt %q is named twice")
	return f.Err()
}

// checkParts adds, through add, what check finds in each of parts (at
// field[i]), and to f a failure at field[i].keyField, with the message
// twice, for each part whose key an earlier part has.
func checkParts[T any](add func(string, error), f *failure.Fields, field string, parts []T, check func(T) error,
	keyField string, key func(T) string, twice string) {
	seen := make(map[string]bool, len(parts))
	for i, p := range parts {
		at := fmt.Sprintf("%s[%d]", field, i)
		add(at, check(p))
		k := key(p)
		if seen[k] {
			f.Add(at+"."+keyField, twice, k)
		}
		seen[k] = true
	}
}

// Limit reports that a server already holds max items of what.
func Limit(what string, max int) error {
	return failure.Invalid(failure.Field(what, "the server already has %d %s (the limit)", max, what))
}

// PostgreSQL stores neither a NUL character in text nor, in jsonb, the
// escape \u0000 or an unpaired UTF-16 surrogate escape; such input is the
// caller's to fix, not a fault of the service.
// nulMessage is pgtext.NULMessage, named here for brevity.
const nulMessage = pgtext.NULMessage

// maxLen reports s when it is longer than max characters.
func maxLen(f *failure.Fields, field, s string, max int) {
	if len(s) <= max { // a byte count bounds the character count
		return
	}
	if n := utf8.RuneCountInString(s); n > max {
		f.Add(field, "at most %d characters, got %d", max, n)
	}
}

// requiredName reports an empty name and one longer than MaxName.
func requiredName(f *failure.Fields, field, s string) {
	if s == "" {
		f.Add(field, "is required")
		return
	}
	maxLen(f, field, s, MaxName)
}

// oneOf reports a value that is set and not one of values.
func oneOf(f *failure.Fields, field, v string, values []string) {
	if v != "" && !slices.Contains(values, v) {
		f.Add(field, "must be one of %s", strings.Join(values, ", "))
	}
}

func noNUL(f *failure.Fields, field, s string) {
	if strings.IndexByte(s, 0) >= 0 {
		f.Add(field, nulMessage)
	}
}

// noNULJSON checks a valid JSON document for what jsonb refuses.
func noNULJSON(f *failure.Fields, field string, raw json.RawMessage) {
	if msg := pgtext.JSONBProblem(raw); msg != "" {
		f.Add(field, "%s", msg)
	}
}

// absent reports whether an optional JSON member was left out or is null.
func absent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// httpURLProblem explains why s is not an absolute http or https URL, or
// returns "".
func httpURLProblem(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "must be an absolute http or https URL"
	}
	return ""
}

var (
	uriParam  = regexp.MustCompile(`\{([^{}]*)\}`)
	paramName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	uriScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)
)

// URIProblem explains why s is neither an absolute URI nor a URI template
// with {param} segments, or returns "". It is the check CheckResource applies
// to a resource's uri, for callers that report problems in their own form.
func URIProblem(s string) string { return uriProblem(s) }

// uriProblem explains why s is neither an absolute URI nor a URI template
// with {param} segments, or returns "".
func uriProblem(s string) string {
	if strings.ContainsAny(s, " \t\r\n") {
		return "must not contain white space"
	}
	seen := map[string]bool{}
	for _, m := range uriParam.FindAllStringSubmatch(s, -1) {
		switch {
		case !paramName.MatchString(m[1]):
			return fmt.Sprintf("template parameter {%s} must be a name of letters, digits and _", m[1])
		case seen[m[1]]:
			return fmt.Sprintf("template parameter {%s} appears twice", m[1])
		}
		seen[m[1]] = true
	}
	plain := uriParam.ReplaceAllString(s, "x")
	if strings.ContainsAny(plain, "{}") {
		return "has an unbalanced { or }"
	}
	if !uriScheme.MatchString(plain) {
		return "must be an absolute URI with a scheme, such as docs://guide or weather://{city}/now"
	}
	if _, err := url.Parse(plain); err != nil {
		return "is not a valid URI: " + strings.TrimPrefix(err.Error(), "parse ")
	}
	return ""
}

// IsTemplate reports whether uri has {param} segments.
func IsTemplate(uri string) bool { return uriParam.MatchString(uri) }

// checkStateScenario checks what a scenario says of the design's state:
// when_state is a condition (over the state instead of the arguments),
// set_state an object whose null values delete their keys.
func checkStateScenario(f *failure.Fields, at string, sc mockspec.Scenario) {
	errs := scenario.Check(sc.WhenState)
	for _, e := range errs {
		f.Add(at+".when_state"+strings.TrimPrefix(e.Field, "condition"), "%s", e.Message)
	}
	if len(errs) == 0 {
		noNULJSON(f, at+".when_state", sc.WhenState)
	}
	for _, e := range mockspec.CheckSetState(at+".set_state", sc.SetState) {
		f.Add(e.Field, "%s", e.Message)
	}
}
