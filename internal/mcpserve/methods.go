package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"regexp"
	"strings"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// methods is the one static table of what the endpoint answers. Anything
// else is -32601 naming the method; notifications of any method get 202.
// The legacy revisions' session methods do not exist for modern requests,
// server/discover and subscriptions/listen only for them.
var methods mcptransport.Methods[*state]

func init() {
	const legacy, modern = mcptransport.LegacyOnly, mcptransport.ModernOnly
	methods = mcptransport.Methods[*state]{
		"initialize":               {Handle: initialize, Eras: legacy},
		"server/discover":          {Handle: discover, Eras: modern},
		"ping":                     {Handle: constant(empty), Eras: legacy},
		"tools/list":               {Handle: listed(func(d *compiled) []byte { return d.toolsList })},
		"tools/call":               {Handle: callTool, Target: "name"},
		"resources/list":           {Handle: listed(func(d *compiled) []byte { return d.resourcesList })},
		"resources/templates/list": {Handle: listed(func(d *compiled) []byte { return d.templatesList })},
		"resources/read":           {Handle: readResource, Target: "uri"},
		"resources/directory/read": {Handle: readDirectory},
		"skills/list":              {Handle: listSkills},
		"skills/get":               {Handle: getSkill},
		"prompts/list":             {Handle: listed(func(d *compiled) []byte { return d.promptsList })},
		"prompts/get":              {Handle: getPrompt, Target: "name"},
		"logging/setLevel":         {Handle: setLevel, Eras: legacy},
		"resources/subscribe":      {Handle: subscribe, Eras: legacy, Target: "uri"},
		"resources/unsubscribe":    {Handle: subscribe, Eras: legacy, Target: "uri"},
		"completion/complete":      {Handle: complete},
		"subscriptions/listen":     {Handle: listen, Eras: modern},
		"tasks/get":                {Handle: getTask, Eras: modern, Target: "taskId"},
		"tasks/update":             {Handle: updateTask, Eras: modern, Target: "taskId"},
		"tasks/cancel":             {Handle: cancelTask, Eras: modern, Target: "taskId"},
	}
}

func constant(v json.RawMessage) func(context.Context, *Exchange, *state, json.RawMessage) (json.RawMessage, error) {
	return func(context.Context, *Exchange, *state, json.RawMessage) (json.RawMessage, error) { return v, nil }
}

// listed answers a list method from its pre-encoded result. A cursor is
// accepted and ignored: lists are not paginated.
func listed(pick func(*compiled) []byte) func(context.Context, *Exchange, *state, json.RawMessage) (json.RawMessage, error) {
	return func(_ context.Context, _ *Exchange, s *state, _ json.RawMessage) (json.RawMessage, error) {
		return pick(s.view), nil
	}
}

// The params helpers of every endpoint.
var (
	missing       = mcptransport.Missing
	invalidParams = mcptransport.InvalidParams
	decodeParams  = mcptransport.DecodeParams
)

func initialize(_ context.Context, _ *Exchange, s *state, params json.RawMessage) (json.RawMessage, error) {
	d := s.view
	if _, err := mcptransport.ParseInitialize(params); err != nil {
		return nil, err
	}
	return d.initialize, nil
}

// callRequest is a call whose arguments are decoded.
type callRequest = mcptransport.CallParams[map[string]any]

// decodeCall reads the params of tools/call and prompts/get as the
// per-server endpoint uses them.
func decodeCall(params json.RawMessage, noName string) (callRequest, error) {
	return mcptransport.DecodeCallValues(params, noName)
}

// argumentsError turns schema violations into -32602: a missing required
// field names it; anything else lists every violation in data.details.
func argumentsError(toolName string, vs []schema.Violation) error {
	if vs[0].Keyword == "required" {
		return missing(vs[0].Field, "required by the input schema of tool '"+toolName+"'")
	}
	details := make([]map[string]string, len(vs))
	for i, v := range vs {
		field := v.Field
		if field == "" {
			field = "(arguments)"
		}
		details[i] = map[string]string{"field": field, "path": v.Path, "message": v.Message}
	}
	return jsonrpc.WithData(invalidParams("arguments do not match the input schema of tool '%s'", toolName),
		map[string]any{"details": details})
}

// tooCostly is -32602 for arguments whose check against the tool's
// regular expressions (schema patterns and scenario conditions) would take
// more than a call's budget; data.field names the argument at which the
// budget ran out.
func tooCostly(toolName, field string) error {
	if field == "" {
		field = "(arguments)"
	}
	return jsonrpc.WithData(invalidParams("the arguments are too large for the patterns of tool '%s'", toolName),
		map[string]string{"field": field, "reason": fmt.Sprintf(
			"checking the arguments against the tool's regular expressions would take more than the %d units "+
				"(input bytes times pattern instructions) one call may use", regexlimit.CallBudget)})
}

func readResource(ctx context.Context, x *Exchange, s *state, params json.RawMessage) (json.RawMessage, error) {
	d := s.view
	var p struct {
		URI *string `json:"uri"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	if p.URI == nil {
		return nil, missing("uri", "resources/read needs the URI of the resource")
	}
	uri := *p.URI
	if d.skills != nil {
		if f, ok := d.skills.files[uri]; ok {
			return readSkillFile(d, uri, f)
		}
	}
	text, r, ok := d.read(uri)
	if d.forwards(ok) {
		return forward(ctx, x, s, d, "resources/read", params)
	}
	if !ok {
		return nil, x.Era().NotFound(mcptransport.Resource, uri)
	}
	if r.ask != nil {
		var out json.RawMessage
		var err error
		if text, r, out, err = askResource(ctx, x, s, d, uri, r, text, params); r == nil {
			return out, err
		}
	}
	type content struct {
		URI      string  `json:"uri"`
		MimeType string  `json:"mimeType"`
		Text     *string `json:"text,omitempty"`
		Blob     *string `json:"blob,omitempty"`
	}
	c := content{URI: uri, MimeType: r.mimeType, Text: &text}
	if r.binary {
		c.Text, c.Blob = nil, &text
	}
	out, err := json.Marshal(map[string][]content{"contents": {c}})
	if err == nil && !r.binary {
		out, err = renderText(out, r.uriParams(uri))
	}
	if err == nil && r.meta != nil {
		out = withContentMeta(out, r.meta)
	}
	if err != nil || d.readHints == nil {
		return out, err
	}
	return withHints(out, d.readHints), nil
}

// withContentMeta puts meta as the _meta of the one content item of out,
// a resources/read result {"contents":[{...}]}. It is added after the
// content's answer templates are rendered: _meta is served as designed.
func withContentMeta(out, meta []byte) []byte {
	const end = "}]}"
	if !bytes.HasSuffix(out, []byte(end)) {
		return out
	}
	b := make([]byte, 0, len(out)+len(meta)+len(`,"_meta":`))
	b = append(b, out[:len(out)-len(end)]...)
	b = append(b, `,"_meta":`...)
	b = append(b, meta...)
	return append(b, end...)
}

// uriParams are the values of the template parameters in uri, which the
// answer templates of the resource's content read as {{args.NAME}}; none
// for a resource that is no template.
func (r *resource) uriParams(uri string) map[string]string {
	if r.pattern == nil {
		return nil
	}
	m := r.pattern.FindStringSubmatch(uri)
	if m == nil {
		return nil
	}
	params := make(map[string]string, len(r.params))
	for i, name := range r.params {
		params[name] = m[i+1]
	}
	return params
}

// read finds the resource at uri: an exact URI first, then the templates in
// order, whose {param} values are substituted into text content.
func (d *compiled) read(uri string) (text string, r *resource, ok bool) {
	if r, ok := d.resources[uri]; ok {
		return r.text, r, true
	}
	for _, r := range d.templates {
		m := r.pattern.FindStringSubmatch(uri)
		if m == nil {
			continue
		}
		if r.binary {
			return r.text, r, true
		}
		return r.substitute(r.text, r.jsonContent, m), r, true
	}
	return "", nil, false
}

// substitute puts the template parameters' values matched in m into text,
// escaped for JSON content.
func (r *resource) substitute(text string, jsonContent bool, m []string) string {
	pairs := make([]string, 0, 2*len(r.params))
	for i, name := range r.params {
		v := m[i+1]
		if jsonContent {
			// In JSON content a placeholder can only sit inside a
			// string: the value must not end it.
			v = jsonStringBody(v)
		}
		pairs = append(pairs, "{"+name+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// jsonStringBody is s encoded as the inside of a JSON string.
func jsonStringBody(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	out := b.String()
	return out[1 : len(out)-2] // the quotes and the newline Encode adds
}

func getPrompt(ctx context.Context, x *Exchange, s *state, params json.RawMessage) (json.RawMessage, error) {
	d := s.view
	p, err := decodeCall(params, "prompts/get needs the name of the prompt")
	if err != nil {
		return nil, err
	}
	name, args := p.Name, p.Arguments
	pr, ok := d.prompts[name]
	if d.forwards(ok) {
		return forward(ctx, x, s, d, "prompts/get", params)
	}
	if !ok {
		return nil, x.Era().NotFound(mcptransport.Prompt, name)
	}
	values := make(map[string]string, len(pr.arguments))
	for _, a := range pr.arguments {
		v, present := args[a.Name]
		if !present || v == nil {
			if a.Required {
				return nil, jsonrpc.WithData(invalidParams("missing required argument '%s'", a.Name),
					map[string]string{"field": "arguments." + a.Name, "reason": "required by prompt '" + name + "'"})
			}
			continue
		}
		text, isString := v.(string)
		if !isString {
			return nil, invalidParams("argument '%s' must be a string", a.Name)
		}
		values[a.Name] = text
	}
	source := pr.messages
	if pr.ask != nil {
		b, out, err := askPrompt(ctx, x, s, d, name, pr, params, args, values)
		if b == nil {
			return out, err
		}
		source = b.messages
	}
	type message struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	msgs := make([]message, len(source))
	for i, m := range source {
		msgs[i].Role = m.Role
		if len(m.Content) == 0 {
			msgs[i].Content, err = json.Marshal(textBlock{Type: "text", Text: fill(m.Text, values)})
		} else {
			msgs[i].Content, err = fillContent(m.Content, values, d.version)
		}
		if err != nil {
			return nil, fmt.Errorf("prompt %q message %d: %w", name, i, err)
		}
	}
	out, err := json.Marshal(struct {
		Description string    `json:"description,omitempty"`
		Messages    []message `json:"messages"`
	}{pr.description, msgs})
	if err != nil {
		return nil, err
	}
	return renderText(out, values)
}

var placeholder = regexp.MustCompile(`\{\{\s*[^{}\s]*\s*\}\}`)

// fill replaces each {{argument}} with its value; an optional argument that
// was not given becomes empty.
func fill(text string, values map[string]string) string {
	return placeholder.ReplaceAllStringFunc(text, func(m string) string {
		name := strings.TrimSpace(m[2 : len(m)-2])
		if answertmpl.NamesHelper(name) {
			return m // an answer template's, rendered after
		}
		return values[name]
	})
}

// textBlock is a text content block.
type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// MethodNames are the names of the methods the endpoint answers.
func MethodNames() []string { return methods.Names() }
