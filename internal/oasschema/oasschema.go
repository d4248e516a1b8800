// Package oasschema turns the schemas of an OpenAPI document, as
// kin-openapi loads them, into self-contained JSON Schemas of the Draft 7
// dialect, the dialect internal/schema compiles a schema without "$schema"
// as, and the one MCP tool schemas are conventionally written in.
//
// The output has no "$ref" (every reference is inlined), no "$schema" and
// no OpenAPI-only keyword. OpenAPI 3.0 and 3.1 schemas are both read:
//
//   - 3.0 `nullable: true` adds "null" to "type" (and null to "enum"); a
//     nullable schema without a type but with allOf/anyOf/oneOf becomes
//     {"anyOf": [schema, {"type": "null"}]}.
//   - 3.1 type arrays are JSON Schema type arrays.
//   - 3.0 boolean exclusiveMinimum/exclusiveMaximum become Draft 7's
//     numeric form (the bound moves from minimum/maximum); 3.1 numeric ones
//     are kept.
//   - const, examples, readOnly, writeOnly, contains, propertyNames,
//     patternProperties, if/then/else, contentMediaType and contentEncoding
//     are kept; prefixItems becomes the Draft 7 tuple form of items (with
//     additionalItems), dependentRequired and dependentSchemas become
//     dependencies; a boolean schema becomes {} or {"not": {}}.
//   - example, discriminator, xml, externalDocs, deprecated,
//     allowEmptyValue, x- extensions, $id, $anchor, $defs, $comment,
//     $dynamicRef and the 2019-09 keywords Draft 7 lacks
//     (unevaluatedItems, unevaluatedProperties, minContains, maxContains,
//     contentSchema) are dropped.
//   - A type name JSON Schema does not know (Swagger's "file") and a
//     pattern Go's regexp package cannot compile are dropped with a
//     warning, since the schema would otherwise not compile.
//
// Recursion is detected by schema identity along the current path (a
// schema that contains itself), with a depth bound as a backstop for
// cycles that do not share pointers; Options.OnCycle says whether it is an
// error or cut with {} and a warning.
package oasschema

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// Defaults of Options.
const (
	DefaultMaxDepth = 32
	DefaultMaxNodes = 10000
)

// CyclePolicy says what ToJSONSchema does with a recursive schema, or one
// nested deeper than Options.MaxDepth.
type CyclePolicy int

const (
	// CycleError fails the conversion (ErrRecursive).
	CycleError CyclePolicy = iota
	// CycleAny replaces the schema at the point of recursion by {} (any
	// value) and records a warning.
	CycleAny
)

// Options of ToJSONSchema. The zero value applies the defaults and fails on
// recursion.
type Options struct {
	// MaxDepth bounds the nesting of schemas in the output (each
	// properties/items/allOf/... step is one level); 0 means
	// DefaultMaxDepth.
	MaxDepth int
	// MaxNodes bounds how many schemas the output holds in all, since
	// inlining a schema shared by many others can multiply its size; past
	// it the conversion fails with ErrTooLarge whatever OnCycle says.
	// 0 means DefaultMaxNodes.
	MaxNodes int
	// OnCycle says what a recursive (or too deeply nested) schema does.
	OnCycle CyclePolicy
}

var (
	// ErrRecursive is wrapped by the error of a conversion that met a
	// recursive or too deeply nested schema under CycleError.
	ErrRecursive = errors.New("recursive schema")
	// ErrTooLarge is wrapped by the error of a conversion whose output
	// would exceed Options.MaxNodes schemas.
	ErrTooLarge = errors.New("schema too large once its references are inlined")
)

// ToJSONSchema converts ref (nil stands for any value) into a
// self-contained Draft 7 JSON Schema, returned as the map encoding/json
// marshals it from, with warnings about what it had to leave out. Each
// warning names the place in the schema it is about ("at
// properties.children.items: ..."), or none for the top level. The
// returned map shares no mutable state with the document except the JSON
// values of enum, default, const and examples, which it does not copy.
func ToJSONSchema(ref *openapi3.SchemaRef, opts Options) (map[string]any, []string, error) {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	if opts.MaxNodes <= 0 {
		opts.MaxNodes = DefaultMaxNodes
	}
	c := &converter{opts: opts, onPath: map[*openapi3.Schema]bool{}}
	out, err := c.convert(ref, nil)
	if err != nil {
		return nil, c.warnings, err
	}
	return out, c.warnings, nil
}

type converter struct {
	opts     Options
	onPath   map[*openapi3.Schema]bool
	nodes    int
	warnings []string
}

func (c *converter) warn(path []string, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if len(path) > 0 {
		msg = "at " + strings.Join(path, ".") + ": " + msg
	}
	c.warnings = append(c.warnings, msg)
}

func at(path []string) string {
	if len(path) == 0 {
		return ""
	}
	return "at " + strings.Join(path, ".") + ": "
}

// jsonTypes are the type names Draft 7 knows.
var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

func (c *converter) convert(ref *openapi3.SchemaRef, path []string) (map[string]any, error) {
	if ref == nil || ref.Value == nil {
		return map[string]any{}, nil
	}
	s := ref.Value
	switch {
	case c.onPath[s]:
		what := "the schema contains itself"
		if ref.Ref != "" {
			what = fmt.Sprintf("the schema %s contains itself", ref.Ref)
		}
		return c.cut(path, what)
	case len(path) > 0 && depthOf(path) > c.opts.MaxDepth:
		return c.cut(path, fmt.Sprintf("schemas nested deeper than %d levels (a recursive $ref?)", c.opts.MaxDepth))
	}
	c.nodes++
	if c.nodes > c.opts.MaxNodes {
		return nil, fmt.Errorf("%w: more than %d schemas", ErrTooLarge, c.opts.MaxNodes)
	}
	if s.Always != nil {
		if *s.Always {
			return map[string]any{}, nil
		}
		return map[string]any{"not": map[string]any{}}, nil
	}
	c.onPath[s] = true
	defer delete(c.onPath, s)

	out := map[string]any{}
	types := c.types(s, path)
	switch len(types) {
	case 0:
	case 1:
		out["type"] = types[0]
	default:
		list := make([]any, len(types))
		for i, t := range types {
			list[i] = t
		}
		out["type"] = list
	}
	setString(out, "title", s.Title)
	setString(out, "description", s.Description)
	setString(out, "format", s.Format)
	if s.Pattern != "" {
		if _, err := regexp.Compile(s.Pattern); err != nil {
			c.warn(path, "pattern %q is not a regular expression this service can check (%v); it is left out", s.Pattern, err)
		} else {
			out["pattern"] = s.Pattern
		}
	}
	if len(s.Enum) > 0 {
		enum := slices.Clone(s.Enum)
		if s.Nullable && !slices.Contains(enum, nil) {
			enum = append(enum, nil)
		}
		out["enum"] = enum
	}
	if s.Default != nil {
		out["default"] = s.Default
	}
	if s.Const != nil {
		out["const"] = s.Const
	}
	if len(s.Examples) > 0 {
		out["examples"] = slices.Clone(s.Examples)
	}
	setTrue(out, "readOnly", s.ReadOnly)
	setTrue(out, "writeOnly", s.WriteOnly)
	setString(out, "contentMediaType", s.ContentMediaType)
	setString(out, "contentEncoding", s.ContentEncoding)

	// Numbers.
	setFloat(out, "multipleOf", s.MultipleOf)
	setFloat(out, "minimum", s.Min)
	setFloat(out, "maximum", s.Max)
	bound(out, "minimum", "exclusiveMinimum", s.ExclusiveMin)
	bound(out, "maximum", "exclusiveMaximum", s.ExclusiveMax)

	// Strings, arrays, objects.
	setCount(out, "minLength", s.MinLength)
	setUint(out, "maxLength", s.MaxLength)
	setCount(out, "minItems", s.MinItems)
	setUint(out, "maxItems", s.MaxItems)
	setTrue(out, "uniqueItems", s.UniqueItems)
	setCount(out, "minProperties", s.MinProps)
	setUint(out, "maxProperties", s.MaxProps)
	if len(s.Required) > 0 {
		out["required"] = slices.Clone(s.Required)
	}

	var err error
	if out["properties"], err = c.schemaMap(s.Properties, path, "properties", false); err != nil {
		return nil, err
	}
	if out["patternProperties"], err = c.schemaMap(s.PatternProperties, path, "patternProperties", true); err != nil {
		return nil, err
	}
	if err := c.boolSchema(out, "additionalProperties", s.AdditionalProperties, path); err != nil {
		return nil, err
	}
	if len(s.PrefixItems) > 0 {
		if out["items"], err = c.list(s.PrefixItems, path, "prefixItems"); err != nil {
			return nil, err
		}
		if s.Items != nil {
			if out["additionalItems"], err = c.convert(s.Items, with(path, "items")); err != nil {
				return nil, err
			}
		}
	} else if s.Items != nil {
		if out["items"], err = c.convert(s.Items, with(path, "items")); err != nil {
			return nil, err
		}
	}
	for _, sub := range []struct {
		key string
		ref *openapi3.SchemaRef
	}{{"contains", s.Contains}, {"propertyNames", s.PropertyNames}, {"not", s.Not}, {"if", s.If}, {"then", s.Then}, {"else", s.Else}} {
		if sub.ref == nil {
			continue
		}
		if out[sub.key], err = c.convert(sub.ref, with(path, sub.key)); err != nil {
			return nil, err
		}
	}
	for _, sub := range []struct {
		key  string
		list openapi3.SchemaRefs
	}{{"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		if len(sub.list) == 0 {
			continue
		}
		if out[sub.key], err = c.list(sub.list, path, sub.key); err != nil {
			return nil, err
		}
	}
	if len(s.DependentRequired) > 0 || len(s.DependentSchemas) > 0 {
		deps := map[string]any{}
		for k, names := range s.DependentRequired {
			deps[k] = slices.Clone(names)
		}
		for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
			d, err := c.convert(s.DependentSchemas[k], with(path, "dependentSchemas", k))
			if err != nil {
				return nil, err
			}
			if names, both := deps[k]; both {
				// Draft 7 takes one or the other per property: require the
				// names within the schema.
				d = map[string]any{"allOf": []any{d, map[string]any{"required": names}}}
			}
			deps[k] = d
		}
		out["dependencies"] = deps
	}
	maps.DeleteFunc(out, func(_ string, v any) bool { return v == nil }) // keywords left unset above

	if s.Nullable && len(types) == 0 && (len(s.AllOf) > 0 || len(s.AnyOf) > 0 || len(s.OneOf) > 0) {
		// A 3.0 nullable schema made of others: null, or what they say.
		return map[string]any{"anyOf": []any{out, map[string]any{"type": "null"}}}, nil
	}
	return out, nil
}

// cut handles a recursive or too deep schema per the policy.
func (c *converter) cut(path []string, what string) (map[string]any, error) {
	if c.opts.OnCycle == CycleError {
		return nil, fmt.Errorf("%w: %s%s", ErrRecursive, at(path), what)
	}
	c.warn(path, "%s; the recursion is cut there and any value is accepted", what)
	return map[string]any{}, nil
}

// depthOf counts the schema levels of a path: a keyword followed by a name
// (properties.x) is one level, as is a keyword followed by an index.
func depthOf(path []string) int {
	n := 0
	for i := 0; i < len(path); i++ {
		n++
		switch path[i] {
		case "properties", "patternProperties", "dependentSchemas", "allOf", "anyOf", "oneOf", "prefixItems":
			i++ // the name or index that follows
		}
	}
	return n
}

func with(path []string, more ...string) []string {
	return append(slices.Clip(path), more...)
}

// types returns the schema's type list as Draft 7 reads it.
func (c *converter) types(s *openapi3.Schema, path []string) []string {
	var out []string
	for _, t := range s.Type.Slice() {
		if !slices.Contains(jsonTypes, t) {
			c.warn(path, "type %q is not a JSON Schema type; it is left out", t)
			continue
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 && len(s.Type.Slice()) > 0 {
		return nil // only unknown types: any value
	}
	if s.Nullable && len(out) > 0 && !slices.Contains(out, "null") {
		out = append(out, "null")
	}
	return out
}

func (c *converter) schemaMap(m openapi3.Schemas, path []string, key string, patterns bool) (any, error) {
	if len(m) == 0 {
		return nil, nil
	}
	out := make(map[string]any, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if patterns {
			if _, err := regexp.Compile(name); err != nil {
				c.warn(path, "%s pattern %q is not a regular expression this service can check (%v); it is left out", key, name, err)
				continue
			}
		}
		s, err := c.convert(m[name], with(path, key, name))
		if err != nil {
			return nil, err
		}
		out[name] = s
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func (c *converter) list(refs openapi3.SchemaRefs, path []string, key string) ([]any, error) {
	out := make([]any, len(refs))
	for i, r := range refs {
		s, err := c.convert(r, with(path, key, fmt.Sprint(i)))
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

func (c *converter) boolSchema(out map[string]any, key string, b openapi3.BoolSchema, path []string) error {
	switch {
	case b.Has != nil:
		out[key] = *b.Has
	case b.Schema != nil:
		s, err := c.convert(b.Schema, with(path, key))
		if err != nil {
			return err
		}
		out[key] = s
	}
	return nil
}

// bound writes an exclusive bound in Draft 7's numeric form: a 3.1 number
// as it is, a 3.0 `true` by moving the bound out of minimum/maximum.
func bound(out map[string]any, inclusive, exclusive string, b openapi3.ExclusiveBound) {
	switch {
	case b.Value != nil:
		out[exclusive] = *b.Value
	case b.IsTrue():
		if v, ok := out[inclusive]; ok {
			out[exclusive] = v
			delete(out, inclusive)
		}
	}
}

func setString(out map[string]any, key, v string) {
	if v != "" {
		out[key] = v
	}
}

func setTrue(out map[string]any, key string, v bool) {
	if v {
		out[key] = true
	}
}

func setFloat(out map[string]any, key string, v *float64) {
	if v != nil {
		out[key] = *v
	}
}

func setCount(out map[string]any, key string, v uint64) {
	if v > 0 {
		out[key] = v
	}
}

func setUint(out map[string]any, key string, v *uint64) {
	if v != nil {
		out[key] = *v
	}
}
