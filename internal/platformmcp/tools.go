// Package platformmcp serves the service endpoint, POST
// /api/platform-mcp/mcp: the service's own REST operations as MCP tools, for
// AI assistants that design mocks. The tools are derived from the OpenAPI
// document at start-up (every operation marked `x-mcp-tool`), and a call
// runs the operation through the REST router in process, so REST and MCP
// share one contract, one set of handlers, one validation and one
// row-level security.
package platformmcp

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mockmcp/mockmcp/internal/oasschema"
)

// Tool is one REST operation offered as an MCP tool.
type Tool struct {
	Name        string
	Title       string
	Description string
	Method      string
	Path        string   // the OpenAPI path, with {parameters}
	PathParams  []string // in order of appearance
	QueryParams []string
	// HasBody: the operation takes a JSON body, made of the arguments that
	// are not parameters; BodyRequired: it must be sent (possibly {}).
	HasBody, BodyRequired bool
	InputSchema           json.RawMessage
	ReadOnly, Destructive bool
}

var toolName = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// maxSchemaDepth bounds the inlining of $refs, so a recursive schema in the
// document is an error at start-up rather than a hang.
const maxSchemaDepth = 32

// Build derives the tools from every operation of spec marked x-mcp-tool,
// ordered by name.
func Build(spec *openapi3.T) ([]Tool, error) {
	var tools []Tool
	seen := map[string]string{}
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			raw, ok := op.Extensions["x-mcp-tool"]
			if !ok {
				continue
			}
			name, _ := raw.(string)
			where := method + " " + path
			if !toolName.MatchString(name) {
				return nil, fmt.Errorf("%s: x-mcp-tool %q is not a snake_case name", where, raw)
			}
			if other, dup := seen[name]; dup {
				return nil, fmt.Errorf("%s: x-mcp-tool %q is also the name of %s", where, name, other)
			}
			seen[name] = where
			t, err := buildTool(name, method, path, item, op)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			tools = append(tools, t)
		}
	}
	slices.SortFunc(tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return tools, nil
}

func buildTool(name, method, path string, item *openapi3.PathItem, op *openapi3.Operation) (Tool, error) {
	t := Tool{
		Name: name, Title: op.Summary, Method: strings.ToUpper(method), Path: path,
		ReadOnly: method == http.MethodGet, Destructive: method == http.MethodDelete,
	}
	props := map[string]any{}
	var required []string
	// Path-level parameters first, then the operation's, which override.
	params := map[string]*openapi3.Parameter{}
	var order []string
	for _, list := range []openapi3.Parameters{item.Parameters, op.Parameters} {
		for _, ref := range list {
			p := ref.Value
			if p == nil || (p.In != openapi3.ParameterInPath && p.In != openapi3.ParameterInQuery) {
				continue // cookies and headers are not tool inputs
			}
			if _, again := params[p.Name]; !again {
				order = append(order, p.Name)
			}
			params[p.Name] = p
		}
	}
	for _, n := range order {
		p := params[n]
		s, err := jsonSchema(p.Schema)
		if err != nil {
			return Tool{}, fmt.Errorf("parameter %s: %w", n, err)
		}
		if p.Description != "" {
			s["description"] = p.Description
		} else if p.In == openapi3.ParameterInPath {
			s["description"] = "The " + strings.ReplaceAll(strings.TrimSuffix(n, "_id"), "_", " ") + " id."
		}
		props[n] = s
		if p.In == openapi3.ParameterInPath {
			t.PathParams = append(t.PathParams, n)
			required = append(required, n)
		} else {
			t.QueryParams = append(t.QueryParams, n)
			if p.Required {
				required = append(required, n)
			}
		}
	}
	slices.SortFunc(t.PathParams, func(a, b string) int { return strings.Index(path, "{"+a+"}") - strings.Index(path, "{"+b+"}") })

	additional := any(false)
	if rb := op.RequestBody; rb != nil && rb.Value != nil {
		mt := rb.Value.Content.Get("application/json")
		if mt == nil || mt.Schema == nil {
			return Tool{}, fmt.Errorf("the request body is not application/json")
		}
		t.HasBody, t.BodyRequired = true, rb.Value.Required
		body, err := jsonSchema(mt.Schema)
		if err != nil {
			return Tool{}, fmt.Errorf("request body: %w", err)
		}
		if body["type"] != "object" {
			return Tool{}, fmt.Errorf("the request body schema is not an object")
		}
		bodyProps, _ := body["properties"].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(bodyProps)) {
			if _, clash := props[k]; clash {
				return Tool{}, fmt.Errorf("body property %q has the name of a parameter", k)
			}
			props[k] = bodyProps[k]
		}
		if t.BodyRequired {
			if req, ok := body["required"].([]string); ok {
				required = append(required, req...)
			}
		}
		if ap, ok := body["additionalProperties"]; ok {
			additional = ap
		} else {
			additional = true
		}
	}
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": additional}
	if len(required) > 0 {
		schema["required"] = required
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return Tool{}, err
	}
	t.InputSchema = raw
	t.Description = describe(op, t)
	return t, nil
}

// describe writes the tool's description for a language model: what the
// operation does, what it returns, and how failures come back.
func describe(op *openapi3.Operation, t Tool) string {
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(strings.TrimSpace(op.Summary), "."))
	b.WriteString(".")
	if d := strings.TrimSpace(op.Description); d != "" {
		b.WriteString(" ")
		b.WriteString(strings.Join(strings.Fields(d), " "))
	}
	for _, code := range []string{"200", "201", "204"} {
		r := op.Responses.Value(code)
		if r == nil || r.Value == nil {
			continue
		}
		what := "nothing"
		if mt := r.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil && mt.Schema.Ref != "" {
			what = "a " + mt.Schema.Ref[strings.LastIndex(mt.Schema.Ref, "/")+1:] + " object"
		}
		fmt.Fprintf(&b, " Returns %s (HTTP %s)", what, code)
		if r.Value.Description != nil {
			fmt.Fprintf(&b, ": %s", strings.TrimSpace(*r.Value.Description))
		}
		break
	}
	switch {
	case t.ReadOnly:
		b.WriteString(" Read-only.")
	case t.Destructive:
		b.WriteString(" Destructive: it cannot be undone.")
	}
	b.WriteString(" On bad input the result has isError set and carries a problem document whose `errors` name each field at fault.")
	return b.String()
}

// jsonSchema turns an OpenAPI schema into a self-contained JSON Schema
// (see oasschema): $refs inlined, `nullable` folded into `type`, vendor
// extensions and examples dropped; a recursive schema is an error.
func jsonSchema(ref *openapi3.SchemaRef) (map[string]any, error) {
	s, _, err := oasschema.ToJSONSchema(ref, oasschema.Options{MaxDepth: maxSchemaDepth, OnCycle: oasschema.CycleError})
	return s, err
}
