package designdoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/errtext"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonptr"
	"github.com/mockmcp/mockmcp/internal/oasschema"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// Schema is the JSON Schema (2020-12) of design documents: the OpenAPI
// component DesignDocument with its $refs inlined and OpenAPI 3.0's
// keywords turned into JSON Schema's (nullable into a null type), indented
// and ending in a newline. gen/schema/design.json holds the same bytes.
func Schema() []byte {
	b, err := schemaOnce()
	if err != nil {
		panic(err) // the embedded OpenAPI document is fixed at build time
	}
	return b
}

var schemaOnce = sync.OnceValues(func() ([]byte, error) {
	spec, err := api.GetSpec()
	if err != nil {
		return nil, err
	}
	ref := spec.Components.Schemas["DesignDocument"]
	if ref == nil {
		return nil, fmt.Errorf("the OpenAPI document has no DesignDocument schema")
	}
	s, warnings, err := oasschema.ToJSONSchema(ref, oasschema.Options{OnCycle: oasschema.CycleError})
	if err != nil {
		return nil, fmt.Errorf("DesignDocument: %w", err)
	}
	if len(warnings) > 0 {
		return nil, fmt.Errorf("DesignDocument: %v", warnings)
	}
	to2020(s)
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["title"] = "mockmcp design document"
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
})

// to2020 rewrites the Draft 7 keywords oasschema writes that 2020-12
// spells otherwise: the tuple form of items (prefixItems, with
// additionalItems as items) and dependencies (dependentRequired and
// dependentSchemas).
func to2020(v any) {
	switch x := v.(type) {
	case map[string]any:
		if tuple, ok := x["items"].([]any); ok {
			x["prefixItems"] = tuple
			delete(x, "items")
			if more, ok := x["additionalItems"]; ok {
				x["items"] = more
				delete(x, "additionalItems")
			}
		}
		if deps, ok := x["dependencies"].(map[string]any); ok {
			req, schemas := map[string]any{}, map[string]any{}
			for k, d := range deps {
				if list, ok := d.([]any); ok {
					req[k] = list
				} else if names, ok := d.([]string); ok {
					req[k] = names
				} else {
					schemas[k] = d
				}
			}
			delete(x, "dependencies")
			if len(req) > 0 {
				x["dependentRequired"] = req
			}
			if len(schemas) > 0 {
				x["dependentSchemas"] = schemas
			}
		}
		for _, e := range x {
			to2020(e)
		}
	case []any:
		for _, e := range x {
			to2020(e)
		}
	}
}

var compiled = sync.OnceValues(func() (*schema.Schema, error) {
	return schema.Compile(Schema())
})

// validate checks a document's JSON text against Schema, answering every
// violation as a field error named by its path in the document.
func validate(js []byte) error {
	s, err := compiled()
	if err != nil {
		return fmt.Errorf("the design document schema does not compile: %w", err)
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return failure.Invalid(failure.Field("body", "%s", err.Error()))
	}
	var f failure.Fields
	outOfRange(&f, v, "")
	if err := f.Err(); err != nil {
		return err
	}
	for _, vi := range s.Validate(v) {
		field := vi.Field
		if field == "" {
			field = "body"
		}
		msg := words(vi.Message)
		if vi.Keyword == "minimum" || vi.Keyword == "maximum" {
			msg = rangeMessage(v, vi.Path, msg)
		}
		f.Add(field, "%s", msg)
	}
	return f.Err()
}

// rangeMessage says that the number at path (a JSON Pointer into doc)
// must lie within the bounds Schema gives it, as the REST API says it:
// "must be between 0 and 1, got 2"; msg when they cannot be found.
func rangeMessage(doc any, path, msg string) string {
	got, ok := jsonptr.Get(doc, path)
	tokens, tok := jsonptr.Tokens(path)
	if !ok || !tok {
		return msg
	}
	node := decodedSchema()
	for _, t := range tokens {
		if node = subschema(node, t); node == nil {
			return msg
		}
	}
	min, hasMin := bound(node, "minimum")
	max, hasMax := bound(node, "maximum")
	if !hasMin && !hasMax {
		return msg
	}
	return errtext.Range(min, max, got)
}

// decodedSchema is Schema decoded, read when a bound is reported.
var decodedSchema = sync.OnceValue(func() map[string]any {
	var sch map[string]any
	_ = json.Unmarshal(Schema(), &sch) // Schema is valid JSON: it was encoded
	return sch
})

// subschema is the schema node gives the member or item token of the
// values it describes, looking through allOf, anyOf and oneOf; nil when
// it gives none.
func subschema(node map[string]any, token string) map[string]any {
	if node == nil {
		return nil
	}
	if props, ok := node["properties"].(map[string]any); ok {
		if p, ok := props[token].(map[string]any); ok {
			return p
		}
	}
	if _, err := strconv.Atoi(token); err == nil {
		if items, ok := node["items"].(map[string]any); ok {
			return items
		}
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		subs, _ := node[k].([]any)
		for _, sub := range subs {
			if p := subschema(asObject(sub), token); p != nil {
				return p
			}
		}
	}
	return nil
}

// bound is node's keyword (minimum or maximum), looking through allOf,
// anyOf and oneOf.
func bound(node map[string]any, keyword string) (*float64, bool) {
	if n, ok := node[keyword].(float64); ok {
		return &n, true
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		subs, _ := node[k].([]any)
		for _, sub := range subs {
			if n, ok := bound(asObject(sub), keyword); ok {
				return n, true
			}
		}
	}
	return nil, false
}

func asObject(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// quotedValue is the value a validator message quotes in Go's notation
// ("Value map[] should be one of ..."); the field already says where.
var quotedValue = regexp.MustCompile(`^Value .*? (should|must) `)

// words drops the value a message quotes: "should be one of the allowed
// values: user, assistant".
func words(msg string) string {
	if strings.HasPrefix(msg, "Value is ") {
		return msg // "Value is number but should be object" quotes no value
	}
	if m := quotedValue.FindStringSubmatchIndex(msg); m != nil {
		return msg[m[2]:]
	}
	return msg
}

// outOfRange reports the numbers of v no float64 holds, as the REST API
// does: the document's fields are decoded as its bodies are.
func outOfRange(f *failure.Fields, v any, at string) {
	switch x := v.(type) {
	case json.Number:
		if _, err := strconv.ParseFloat(string(x), 64); err != nil {
			field := at
			if field == "" {
				field = "body"
			}
			f.Add(field, "is a number out of range: numbers must lie between -1.7976931348623157e308 and 1.7976931348623157e308")
		}
	case []any:
		for i, e := range x {
			outOfRange(f, e, at+"["+strconv.Itoa(i)+"]")
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			field := k
			if at != "" {
				field = at + "." + k
			}
			outOfRange(f, x[k], field)
		}
	}
}
