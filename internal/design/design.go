// Package design checks MCP server designs when they are saved: schemas that
// compile, scenario conditions that can be evaluated, resource URIs that can
// be read, prompt templates that can be filled, and the per-server limits.
// Every check reports all problems at once, each naming the field at fault.
package design

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"strings"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/pgtext"
	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/schema"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Limits per server and per tool; past one, a save is refused with 422.
const (
	MaxTools     = 1000
	MaxResources = 1000
	MaxPrompts   = 1000
	MaxScenarios = 200
)

// DefaultInputSchema is the input schema of a tool saved without one: any
// arguments object.
var DefaultInputSchema = json.RawMessage(`{"type":"object"}`)

// CheckServer checks the fields of a server design that the OpenAPI
// document cannot express.
func CheckServer(s store.Server) error {
	var f failure.Fields
	if s.ProviderURL != nil {
		if msg := httpURLProblem(*s.ProviderURL); msg != "" {
			f.Add("provider_url", "%s", msg)
		}
	}
	if strings.TrimSpace(s.Name) == "" {
		f.Add("name", "must not be blank")
	}
	noNUL(&f, "name", s.Name)
	noNUL(&f, "description", s.Description)
	noNUL(&f, "version", s.Version)
	if s.ProviderName != nil {
		noNUL(&f, "provider_name", *s.ProviderName)
	}
	return f.Err()
}

// CheckTool checks a tool's schemas and scenarios.
func CheckTool(t store.Tool) error {
	var f failure.Fields
	noNUL(&f, "name", t.Name)
	noNUL(&f, "description", t.Description)
	if _, err := schema.Compile(t.InputSchema, schema.RequireObject); err != nil {
		f.Add("input_schema", "%s", err.Error())
	} else {
		noNULJSON(&f, "input_schema", t.InputSchema)
	}
	if len(t.OutputSchema) > 0 {
		if _, err := schema.Compile(t.OutputSchema, schema.RequireObject); err != nil {
			f.Add("output_schema", "%s", err.Error())
		} else {
			noNULJSON(&f, "output_schema", t.OutputSchema)
		}
	}
	if len(t.Scenarios) > MaxScenarios {
		f.Add("mock_scenarios", "at most %d scenarios per tool (the limit), got %d", MaxScenarios, len(t.Scenarios))
	}
	for i, sc := range t.Scenarios {
		at := fmt.Sprintf("mock_scenarios[%d]", i)
		if strings.TrimSpace(sc.Name) == "" {
			f.Add(at+".name", "must not be blank")
		}
		noNUL(&f, at+".name", sc.Name)
		errs := scenario.Check(sc.Condition)
		for _, e := range errs {
			f.Add(at+"."+e.Field, "%s", e.Message)
		}
		if len(errs) == 0 {
			noNULJSON(&f, at+".condition", sc.Condition)
		}
		if !isObject(sc.Response) {
			f.Add(at+".response", "must be a JSON object")
		} else {
			noNULJSON(&f, at+".response", sc.Response)
		}
	}
	return f.Err()
}

// CheckResource checks a resource's URI, media type and content.
func CheckResource(r store.Resource) error {
	var f failure.Fields
	if msg := uriProblem(r.URI); msg != "" {
		f.Add("uri", "%s", msg)
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
	if v := bytes.TrimSpace(r.Content); len(v) == 0 || string(v) == "null" {
		f.Add("content", "is required: text or a JSON value")
	} else {
		noNULJSON(&f, "content", r.Content)
	}
	noNUL(&f, "name", r.Name)
	noNUL(&f, "description", r.Description)
	return f.Err()
}

var placeholder = regexp.MustCompile(`\{\{\s*([^{}\s]*)\s*\}\}`)

// CheckPrompt checks that argument names are unique and that every
// {{placeholder}} of a message names a declared argument.
func CheckPrompt(p store.Prompt) error {
	var f failure.Fields
	noNUL(&f, "name", p.Name)
	noNUL(&f, "description", p.Description)
	declared := make(map[string]bool, len(p.Arguments))
	for i, a := range p.Arguments {
		name := strings.TrimSpace(a.Name)
		switch {
		case name == "":
			f.Add(fmt.Sprintf("arguments[%d].name", i), "must not be blank")
		case declared[name]:
			f.Add(fmt.Sprintf("arguments[%d].name", i), "argument %q is declared twice", name)
		}
		declared[name] = true
		noNUL(&f, fmt.Sprintf("arguments[%d].name", i), a.Name)
		noNUL(&f, fmt.Sprintf("arguments[%d].description", i), a.Description)
	}
	for i, m := range p.Messages {
		switch m.Role {
		case "user", "assistant", "system":
		default:
			f.Add(fmt.Sprintf("messages[%d].role", i), "must be user, assistant or system")
		}
		for _, match := range placeholder.FindAllStringSubmatch(m.Text, -1) {
			if !declared[match[1]] {
				f.Add(fmt.Sprintf("messages[%d].text", i), "placeholder {{%s}} names no declared argument", match[1])
			}
		}
		noNUL(&f, fmt.Sprintf("messages[%d].text", i), m.Text)
	}
	return f.Err()
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

func isObject(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{' && json.Valid(v)
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
