package oasimport

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/oasschema"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// importer holds what one import accumulates.
type importer struct {
	ctx      context.Context
	skipped  []string // operations removed before loading, for their external references
	warnings []string
}

// operation is one operation of the loaded document.
type operation struct {
	method string // upper case
	path   string
	item   *openapi3.PathItem
	op     *openapi3.Operation
}

func (o operation) where() string { return o.method + " " + o.path }

// methodOrder is the order of the operations of one path.
var methodOrder = []string{
	http.MethodGet, http.MethodPut, http.MethodPost, http.MethodDelete,
	http.MethodOptions, http.MethodHead, http.MethodPatch, http.MethodTrace, openapi3.MethodQuery,
}

// operations lists the document's operations: paths in sorted order, and
// within a path in methodOrder, then any other method by name.
func operations(doc *openapi3.T) []operation {
	if doc.Paths == nil {
		return nil
	}
	var out []operation
	for _, p := range slices.Sorted(maps.Keys(doc.Paths.Map())) {
		item := doc.Paths.Value(p)
		if item == nil {
			continue
		}
		ops := item.Operations()
		for _, m := range methodOrder {
			if op := ops[m]; op != nil {
				out = append(out, operation{method: m, path: p, item: item, op: op})
			}
			delete(ops, m)
		}
		for _, m := range slices.Sorted(maps.Keys(ops)) {
			if op := ops[m]; op != nil {
				out = append(out, operation{method: strings.ToUpper(m), path: p, item: item, op: op})
			}
		}
	}
	return out
}

// builder makes one tool.
type builder struct {
	o        operation
	warnings *[]string
}

func (b *builder) warn(format string, args ...any) {
	*b.warnings = append(*b.warnings, b.o.where()+": "+fmt.Sprintf(format, args...))
}

// convert converts a schema of the operation, cutting recursion; what
// refers to the schema ("request body") prefixes its warnings. A schema
// that cannot be converted becomes {} with a warning.
func (b *builder) convert(ref *openapi3.SchemaRef, what string) map[string]any {
	s, warns, err := oasschema.ToJSONSchema(ref, oasschema.Options{OnCycle: oasschema.CycleAny})
	for _, w := range warns {
		b.warn("%s: %s", what, w)
	}
	if err != nil {
		b.warn("%s: %v; any value is accepted instead", what, err)
		return map[string]any{}
	}
	return s
}

// param is a parameter that became a property of the input schema.
type param struct {
	prop   string
	p      *openapi3.Parameter
	schema map[string]any
}

// body is the JSON request body, a property of the input schema.
type body struct {
	prop   string
	media  *openapi3.MediaType
	schema map[string]any
}

// inputs is what a tool takes.
type inputs struct {
	params []param
	body   *body
	schema map[string]any
}

// ignoredHeaders are header parameters OpenAPI says to ignore.
var ignoredHeaders = []string{"Accept", "Content-Type", "Authorization"}

func (b *builder) inputs() inputs {
	type key struct{ in, name string }
	merged := map[key]*openapi3.Parameter{}
	var order []key
	for _, list := range []openapi3.Parameters{b.o.item.Parameters, b.o.op.Parameters} {
		for _, ref := range list {
			if ref == nil || ref.Value == nil {
				b.warn("a parameter could not be resolved; it is left out")
				continue
			}
			k := key{ref.Value.In, ref.Value.Name}
			if _, seen := merged[k]; !seen {
				order = append(order, k)
			}
			merged[k] = ref.Value // the operation's own wins
		}
	}

	var in inputs
	props := map[string]any{}
	var required []string
	for _, k := range order {
		p := merged[k]
		switch p.In {
		case openapi3.ParameterInPath, openapi3.ParameterInQuery:
		case openapi3.ParameterInHeader:
			if slices.ContainsFunc(ignoredHeaders, func(h string) bool { return strings.EqualFold(h, p.Name) }) {
				continue
			}
		case openapi3.ParameterInCookie:
			b.warn("cookie parameter %q is not a tool input; it is left out", p.Name)
			continue
		default:
			b.warn("parameter %q is in %q, which is not a tool input; it is left out", p.Name, p.In)
			continue
		}
		if strings.TrimSpace(p.Name) == "" {
			b.warn("a %s parameter has no name; it is left out", p.In)
			continue
		}
		prop := p.Name
		if _, taken := props[prop]; taken {
			prop = p.In + "_" + p.Name
		}
		for n := 2; props[prop] != nil; n++ {
			prop = fmt.Sprintf("%s_%s_%d", p.In, p.Name, n)
		}
		sref := p.Schema
		if sref == nil && len(p.Content) == 1 {
			for _, mt := range p.Content {
				sref = mt.Schema
			}
		}
		s := b.convert(sref, fmt.Sprintf("parameter %q", p.Name))
		if _, has := s["description"]; !has && strings.TrimSpace(p.Description) != "" {
			s["description"] = strings.TrimSpace(p.Description)
		}
		props[prop] = s
		in.params = append(in.params, param{prop: prop, p: p, schema: s})
		if p.In == openapi3.ParameterInPath || p.Required {
			required = append(required, prop)
		}
	}

	if rb := b.o.op.RequestBody; rb != nil {
		switch {
		case rb.Value == nil:
			b.warn("the request body could not be resolved; it is not a tool input")
		default:
			key, mt := jsonMedia(rb.Value.Content)
			if mt == nil {
				if len(rb.Value.Content) > 0 {
					b.warn("the request body is %s, not JSON; it is not a tool input", strings.Join(slices.Sorted(maps.Keys(rb.Value.Content)), ", "))
				}
				break
			}
			s := b.convert(mt.Schema, "request body ("+key+")")
			if _, has := s["description"]; !has && strings.TrimSpace(rb.Value.Description) != "" {
				s["description"] = strings.TrimSpace(rb.Value.Description)
			}
			prop := "body"
			if props[prop] != nil {
				prop = "request_body"
				for n := 2; props[prop] != nil; n++ {
					prop = fmt.Sprintf("request_body_%d", n)
				}
				b.warn("a parameter is named %q, so the request body is the argument %q", "body", prop)
			}
			props[prop] = s
			in.body = &body{prop: prop, media: mt, schema: s}
			if rb.Value.Required {
				required = append(required, prop)
			}
		}
	}

	in.schema = map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		in.schema["required"] = required
	}
	return in
}

// jsonMedia picks the JSON media type of content: application/json, else
// a +json type (in key order), else a wildcard that admits JSON.
func jsonMedia(content openapi3.Content) (string, *openapi3.MediaType) {
	var plus, wild string
	for _, key := range slices.Sorted(maps.Keys(content)) {
		mt, _, err := mime.ParseMediaType(key)
		if err != nil {
			mt = strings.ToLower(strings.TrimSpace(key))
		}
		switch {
		case mt == "application/json" || mt == "text/json":
			return key, content[key]
		case strings.HasSuffix(mt, "+json") && plus == "":
			plus = key
		case (mt == "*/*" || mt == "application/*") && wild == "":
			wild = key
		}
	}
	for _, key := range []string{plus, wild} {
		if key != "" {
			return key, content[key]
		}
	}
	return "", nil
}

// tool builds the tool of o, or reports with warnings why it cannot.
func (imp *importer) tool(o operation, names map[string]bool) (design.Tool, bool) {
	var warnings []string
	b := &builder{o: o, warnings: &warnings}
	defer func() { imp.warnings = append(imp.warnings, warnings...) }()

	base := snake(o.op.OperationID)
	if base == "" {
		base = routeName(o.method, o.path)
	}
	name := unique(base, design.MaxToolName, names)

	in := b.inputs()
	t := design.Tool{Name: name, Description: describe(o)}
	var err error
	if t.InputSchema, err = json.Marshal(in.schema); err != nil {
		b.warn("not imported: its input schema cannot be written as JSON: %v", err)
		delete(names, name)
		return design.Tool{}, false
	}

	out := b.response()
	if out.schema != nil && out.schema["type"] == "object" {
		raw, err := json.Marshal(out.schema)
		if err == nil {
			if _, err = schema.Compile(raw, schema.RequireObject); err == nil {
				t.OutputSchema = raw
			}
		}
		if err != nil {
			b.warn("the response schema is left out: %v", err)
		}
	}
	t.Scenarios = b.scenarios(in, out, t.OutputSchema)

	if err := design.CheckTool(t); err != nil {
		b.warn("not imported: %s", describeFailure(err))
		delete(names, name)
		return design.Tool{}, false
	}
	return t, true
}

// describe writes the tool description: the summary and description of the
// operation, then its route, so that a model knows what it stands for.
func describe(o operation) string {
	text := strings.TrimSpace(o.op.Summary)
	if d := strings.TrimSpace(o.op.Description); d != "" {
		if text != "" {
			text += "\n\n"
		}
		text += d
	}
	route := "HTTP: " + o.where()
	if text == "" {
		return clean(route)
	}
	return truncateText(clean(text), design.MaxDescription-len([]rune(route))-2) + "\n\n" + clean(route)
}

// describeFailure quotes every field of a design failure.
func describeFailure(err error) string {
	fe, ok := failure.As(err)
	if !ok || len(fe.Fields) == 0 {
		return err.Error()
	}
	msgs := make([]string, len(fe.Fields))
	for i, f := range fe.Fields {
		msgs[i] = f.Field + ": " + f.Message
	}
	return strings.Join(msgs, "; ")
}
