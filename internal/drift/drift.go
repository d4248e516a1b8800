// Package drift compares a mock design with the live MCP server it stands
// for: the tools, resources (resource templates included, by their URI
// template) and prompts each side has, and for those both have, the fields
// a client relies on. It says what differs; it never changes either side.
//
// Only what the design holds is compared: descriptions, tool input and
// output schemas, resource names and media types, prompt arguments. Two
// things a mock serves by rule are allowed for: a resource whose design
// names no media type is served with a default one (text/plain for text,
// application/json for other JSON, application/octet-stream for binary),
// which a live server may list or leave out; and a live server speaking a
// revision without tool output schemas cannot show them, so then they are
// not compared.
// Designs hold no tool annotations, titles or icons, so those are not
// compared; scenario answers, resource contents and prompt messages are
// mock data, not the server's contract, and are not compared either.
package drift

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/jsonenc"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// The kinds of element a Change names.
const (
	KindTool     = "tool"
	KindResource = "resource"
	KindPrompt   = "prompt"
)

// The fields a Change names. FieldPresence is an element only one side
// has: its Design or Live value is the element's name (a resource's URI),
// the other null.
const (
	FieldPresence     = "presence"
	FieldName         = "name"
	FieldDescription  = "description"
	FieldMimeType     = "mime_type"
	FieldInputSchema  = "input_schema"
	FieldOutputSchema = "output_schema"
	FieldArguments    = "arguments"
)

// Change is one difference between the design and the live server.
type Change struct {
	// Kind is KindTool, KindResource or KindPrompt.
	Kind string `json:"kind"`
	// Name is the tool's or prompt's name, or the resource's URI.
	Name string `json:"name"`
	// Field is what differs (one of the Field constants).
	Field string `json:"field"`
	// Design and Live are the two values as compact JSON, object members
	// in key order; null where a side has none.
	Design json.RawMessage `json:"design"`
	Live   json.RawMessage `json:"live"`
}

// Compare lists what differs between the design d and live, the design a
// live server was snapshotted into (by mcpimport with ListOnly; its
// Server.ProtocolVersion is the revision the server spoke, when known), in
// a stable order: tools, then resources, then prompts; by name within each;
// for one element, presence or the fields in the order of the Field
// constants. JSON values (schemas) compare as JSON: member order and the
// spelling of numbers do not matter. None when nothing differs.
func Compare(d, live design.Design) []Change {
	var out []Change
	tf := toolFields
	if v := live.Server.ProtocolVersion; v != "" && !protocol.HasOutputSchema(v) {
		tf = func(t design.Tool) []field { return toolFields(t)[:2] }
	}
	out = append(out, compareSet(KindTool, d.Tools, live.Tools, func(t design.Tool) string { return t.Name }, tf)...)
	out = append(out, compareSet(KindResource, d.Resources, live.Resources, func(r design.Resource) string { return r.URI }, resourceFields)...)
	out = append(out, compareSet(KindPrompt, d.Prompts, live.Prompts, func(p design.Prompt) string { return p.Name }, promptFields)...)
	return out
}

// field is one compared field of an element: its name and its value as
// JSON (nil for none). On the design's side, when value is nil, served is
// the value the mock serves in its place, which a live value may equal.
type field struct {
	name   string
	value  json.RawMessage
	served json.RawMessage
}

// toolFields are a tool's compared fields; output_schema last (Compare
// drops it for revisions without output schemas).
func toolFields(t design.Tool) []field {
	return []field{
		{name: FieldDescription, value: text(t.Description)},
		{name: FieldInputSchema, value: t.InputSchema},
		{name: FieldOutputSchema, value: t.OutputSchema},
	}
}

func resourceFields(r design.Resource) []field {
	mime := ""
	if r.MimeType != nil {
		mime = *r.MimeType
	}
	return []field{
		{name: FieldName, value: text(r.Name)},
		{name: FieldDescription, value: text(r.Description)},
		{name: FieldMimeType, value: text(mime), served: text(servedMimeType(r))},
	}
}

// servedMimeType is the media type a mock serves a resource with when its
// design names none.
func servedMimeType(r design.Resource) string {
	content := strings.TrimSpace(string(r.Content))
	switch {
	case r.Binary:
		return "application/octet-stream"
	case content == "" || content[0] == '"':
		return "text/plain"
	}
	return "application/json"
}

// promptArgument is a prompt argument as compared: completions are mock
// data.
type promptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

func promptFields(p design.Prompt) []field {
	// Arguments are named, so their order does not matter.
	args := make([]promptArgument, len(p.Arguments))
	for i, a := range p.Arguments {
		args[i] = promptArgument{Name: a.Name, Description: a.Description, Required: a.Required}
	}
	slices.SortStableFunc(args, func(a, b promptArgument) int { return strings.Compare(a.Name, b.Name) })
	raw, err := jsonenc.Marshal(args)
	if err != nil {
		raw = nil
	}
	return []field{
		{name: FieldDescription, value: text(p.Description)},
		{name: FieldArguments, value: raw},
	}
}

// text is s as a JSON string; nil (none) when s is empty, so that an empty
// description and an absent one are the same.
func text(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	raw, err := jsonenc.Marshal(s)
	if err != nil {
		return nil
	}
	return raw
}

// compareSet compares the elements of one kind, matched by key.
func compareSet[T any](kind string, designed, live []T, key func(T) string, fields func(T) []field) []Change {
	liveBy := make(map[string]T, len(live))
	for _, e := range live {
		liveBy[key(e)] = e
	}
	designBy := make(map[string]T, len(designed))
	for _, e := range designed {
		designBy[key(e)] = e
	}
	var out []Change
	for _, e := range designed {
		k := key(e)
		l, ok := liveBy[k]
		if !ok {
			out = append(out, Change{Kind: kind, Name: k, Field: FieldPresence, Design: text(k)})
			continue
		}
		df, lf := fields(e), fields(l)
		for i := range df {
			same := sameJSON(df[i].value, lf[i].value) ||
				df[i].value == nil && df[i].served != nil && sameJSON(df[i].served, lf[i].value)
			if !same {
				out = append(out, Change{Kind: kind, Name: k, Field: df[i].name,
					Design: canonical(df[i].value), Live: canonical(lf[i].value)})
			}
		}
	}
	for _, e := range live {
		if k := key(e); !hasKey(designBy, k) {
			out = append(out, Change{Kind: kind, Name: k, Field: FieldPresence, Live: text(k)})
		}
	}
	for i := range out {
		out[i].Design, out[i].Live = orNull(out[i].Design), orNull(out[i].Live)
	}
	// By name; an element's own changes keep the order of its fields.
	slices.SortStableFunc(out, func(a, b Change) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func hasKey[T any](m map[string]T, k string) bool {
	_, ok := m[k]
	return ok
}

// sameJSON reports whether two JSON values are equal as JSON; nil (none)
// equals JSON null.
func sameJSON(a, b json.RawMessage) bool {
	av, aerr := decode(a)
	bv, berr := decode(b)
	if aerr != nil || berr != nil {
		return string(a) == string(b)
	}
	return jsonvalue.Equal(av, bv)
}

func decode(raw json.RawMessage) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	return jsonvalue.Decode(raw)
}

// canonical is raw compact, with object members in key order; nil stays
// nil.
func canonical(raw json.RawMessage) json.RawMessage {
	v, err := decode(raw)
	if err != nil || v == nil {
		return raw
	}
	out, err := jsonenc.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

func orNull(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return json.RawMessage("null")
	}
	return raw
}
