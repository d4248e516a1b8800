package testgen

import (
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/jsonptr"
)

// schemaDoc reads a tool's input schema, decoded by encoding/json, well
// enough to build values that satisfy it. It understands the common
// keywords; anything it does not is left to the validator, which has the
// last word on every value built here.
type schemaDoc struct {
	root any
}

// maxSchemaDepth bounds reference chains and nesting, so a recursive schema
// cannot make sampling loop.
const maxSchemaDepth = 24

// flat returns the keywords of schema node n with local "$ref"s resolved,
// "allOf" merged and the first "anyOf"/"oneOf" branch (that is not merely
// "null") merged in. It returns nil for a schema that constrains nothing it
// can read (true, {} or an unresolvable reference).
func (d *schemaDoc) flat(n any) map[string]any {
	return d.flatten(n, 0)
}

func (d *schemaDoc) flatten(n any, depth int) map[string]any {
	m, ok := n.(map[string]any)
	if !ok || depth > maxSchemaDepth {
		return nil
	}
	out := map[string]any{}
	if ref, ok := m["$ref"].(string); ok {
		if target, found := d.resolve(ref); found {
			merge(out, d.flatten(target, depth+1))
		}
	}
	own := map[string]any{}
	for k, v := range m {
		switch k {
		case "$ref", "allOf", "anyOf", "oneOf", "$defs", "definitions":
		default:
			own[k] = v
		}
	}
	// The node's own keywords win over what it references or combines.
	merged := own
	merge(merged, out)
	if all, ok := m["allOf"].([]any); ok {
		for _, branch := range all {
			merge(merged, d.flatten(branch, depth+1))
		}
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		branches, ok := m[key].([]any)
		if !ok || len(branches) == 0 {
			continue
		}
		pick := branches[0]
		for _, b := range branches {
			if f := d.flatten(b, depth+1); f != nil && typeOf(f) != "null" {
				pick = b
				break
			}
		}
		merge(merged, d.flatten(pick, depth+1))
	}
	if len(merged) == 0 {
		return nil
	}
	return merged
}

// merge adds src's keywords to dst: properties are merged one by one (both
// schemas then apply), required lists joined, and any other keyword dst
// already has is kept.
func merge(dst, src map[string]any) {
	for k, v := range src {
		switch k {
		case "properties":
			dp, _ := dst[k].(map[string]any)
			sp, _ := v.(map[string]any)
			if dp == nil {
				dst[k] = sp
				continue
			}
			joined := make(map[string]any, len(dp)+len(sp))
			for name, s := range dp {
				joined[name] = s
			}
			for name, s := range sp {
				if prev, ok := joined[name]; ok {
					joined[name] = map[string]any{"allOf": []any{prev, s}}
				} else {
					joined[name] = s
				}
			}
			dst[k] = joined
		case "required":
			dr, _ := dst[k].([]any)
			sr, _ := v.([]any)
			joined := slices.Clone(dr)
			for _, name := range sr {
				if !slices.Contains(joined, name) {
					joined = append(joined, name)
				}
			}
			dst[k] = joined
		default:
			if _, ok := dst[k]; !ok {
				dst[k] = v
			}
		}
	}
}

// resolve follows a reference inside the document: "#" or a JSON Pointer
// fragment such as "#/$defs/address".
func (d *schemaDoc) resolve(ref string) (any, bool) {
	pointer, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, false
	}
	return jsonptr.Get(d.root, pointer)
}

// typeOf names the JSON type a flattened schema asks for: its "type" (the
// first that is not "null" when it lists several), else the type of its
// "const" or first "enum" value, else the type its keywords imply; "" when
// nothing says.
func typeOf(f map[string]any) string {
	if f == nil {
		return ""
	}
	switch t := f["type"].(type) {
	case string:
		return t
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok && s != "null" {
				return s
			}
		}
		if len(t) > 0 {
			return "null"
		}
	}
	if c, ok := f["const"]; ok {
		return jsonType(c)
	}
	if e, ok := f["enum"].([]any); ok && len(e) > 0 {
		return jsonType(e[0])
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := f[k]; ok {
				return true
			}
		}
		return false
	}
	switch {
	case has("properties", "required", "additionalProperties", "patternProperties", "minProperties"):
		return "object"
	case has("items", "prefixItems", "minItems", "maxItems", "uniqueItems"):
		return "array"
	case has("minLength", "maxLength", "pattern", "format"):
		return "string"
	case has("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"):
		return "number"
	}
	return ""
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		if x == math.Trunc(x) {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// sample builds a value satisfying schema node n as far as its keywords
// are understood.
func (d *schemaDoc) sample(n any) any {
	return d.sampleAt(n, 0)
}

func (d *schemaDoc) sampleAt(n any, depth int) any {
	f := d.flat(n)
	if c, ok := f["const"]; ok {
		return deepCopy(c)
	}
	if e, ok := f["enum"].([]any); ok && len(e) > 0 {
		return deepCopy(e[0])
	}
	switch typeOf(f) {
	case "object":
		return d.sampleObject(f, depth)
	case "array":
		return d.sampleArray(f, depth)
	case "string":
		return sampleString(f)
	case "integer":
		return sampleNumber(f, true)
	case "number":
		return sampleNumber(f, false)
	case "boolean":
		return false
	case "null":
		return nil
	default:
		return "example"
	}
}

func (d *schemaDoc) sampleObject(f map[string]any, depth int) map[string]any {
	out := map[string]any{}
	if depth > maxSchemaDepth {
		return out
	}
	required, _ := f["required"].([]any)
	for _, r := range required {
		name, ok := r.(string)
		if !ok {
			continue
		}
		out[name] = d.sampleAt(d.property(f, name), depth+1)
	}
	// Reach minProperties with declared optional properties, in name order.
	if minProps, ok := f["minProperties"].(float64); ok && float64(len(out)) < minProps {
		props, _ := f["properties"].(map[string]any)
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			if float64(len(out)) >= minProps {
				break
			}
			if _, done := out[name]; !done {
				out[name] = d.sampleAt(props[name], depth+1)
			}
		}
	}
	return out
}

func (d *schemaDoc) sampleArray(f map[string]any, depth int) []any {
	out := []any{}
	if depth > maxSchemaDepth {
		return out
	}
	n := 0
	if v, ok := f["minItems"].(float64); ok && v > 0 {
		n = int(min(v, 64))
	}
	if prefix, ok := f["prefixItems"].([]any); ok && len(prefix) > n {
		n = len(prefix)
	}
	unique, _ := f["uniqueItems"].(bool)
	for i := range n {
		v := d.sampleAt(d.item(f, i), depth+1)
		if unique {
			v = variant(v, i)
		}
		out = append(out, v)
	}
	return out
}

// variant makes the i-th of several sampled array items differ from the
// others, for "uniqueItems".
func variant(v any, i int) any {
	if i == 0 {
		return v
	}
	switch x := v.(type) {
	case string:
		return x + strconv.Itoa(i)
	case float64:
		return x + float64(i)
	}
	return v
}

// property returns the schema of member name of an object schema, nil when
// any value goes.
func (d *schemaDoc) property(f map[string]any, name string) any {
	if props, ok := f["properties"].(map[string]any); ok {
		if s, ok := props[name]; ok {
			return s
		}
	}
	if pp, ok := f["patternProperties"].(map[string]any); ok {
		for pat, s := range pp {
			if re, err := regexp.Compile(pat); err == nil && re.MatchString(name) {
				return s
			}
		}
	}
	if ap, ok := f["additionalProperties"].(map[string]any); ok {
		return ap
	}
	return nil
}

// item returns the schema of element i of an array schema, nil when any
// value goes.
func (d *schemaDoc) item(f map[string]any, i int) any {
	if prefix, ok := f["prefixItems"].([]any); ok {
		if i < len(prefix) {
			return prefix[i]
		}
		return f["items"]
	}
	switch items := f["items"].(type) {
	case []any: // Draft 7 and earlier tuple form
		if i < len(items) {
			return items[i]
		}
		return f["additionalItems"]
	default:
		return items
	}
}

// formatSamples are values of the string formats tools commonly declare.
var formatSamples = map[string]string{
	"email":                 "user@example.com",
	"idn-email":             "user@example.com",
	"date-time":             "2024-01-01T00:00:00Z",
	"date":                  "2024-01-01",
	"time":                  "00:00:00Z",
	"duration":              "P1D",
	"uri":                   "https://example.com",
	"uri-reference":         "https://example.com",
	"iri":                   "https://example.com",
	"iri-reference":         "https://example.com",
	"url":                   "https://example.com",
	"uri-template":          "https://example.com/{id}",
	"hostname":              "example.com",
	"idn-hostname":          "example.com",
	"ipv4":                  "192.0.2.1",
	"ipv6":                  "2001:db8::1",
	"uuid":                  "123e4567-e89b-42d3-a456-426614174000",
	"json-pointer":          "/example",
	"relative-json-pointer": "0",
	"regex":                 "example",
}

func sampleString(f map[string]any) string {
	minLen, maxLen := 0, -1
	if v, ok := f["minLength"].(float64); ok && v > 0 {
		minLen = int(min(v, 4096))
	}
	if v, ok := f["maxLength"].(float64); ok && v >= 0 {
		maxLen = int(min(v, 1<<20))
	}
	if pat, ok := f["pattern"].(string); ok {
		if s, ok := regexString(pat, minLen, maxLen); ok {
			return s
		}
		if s, ok := regexFor(pat); ok {
			return s
		}
	}
	s := "example"
	if format, ok := f["format"].(string); ok {
		if v, ok := formatSamples[format]; ok {
			s = v
		}
	}
	if n := utf8.RuneCountInString(s); n < minLen {
		s += strings.Repeat("x", minLen-n)
	}
	if maxLen >= 0 && utf8.RuneCountInString(s) > maxLen {
		s = string([]rune(s)[:maxLen])
	}
	return s
}

// sampleNumber picks 0, or the value nearest it inside the schema's
// bounds, a multiple of "multipleOf" when there is one.
func sampleNumber(f map[string]any, integer bool) float64 {
	lo, hi := math.Inf(-1), math.Inf(1)
	loExcl, hiExcl := false, false
	if v, ok := f["minimum"].(float64); ok {
		lo = v
	}
	if v, ok := f["maximum"].(float64); ok {
		hi = v
	}
	switch v := f["exclusiveMinimum"].(type) {
	case bool: // Draft 4: qualifies "minimum"
		loExcl = v
	case float64:
		if v >= lo {
			lo, loExcl = v, true
		}
	}
	switch v := f["exclusiveMaximum"].(type) {
	case bool:
		hiExcl = v
	case float64:
		if v <= hi {
			hi, hiExcl = v, true
		}
	}
	x := 0.0
	if x < lo || (x == lo && loExcl) {
		x = above(lo, loExcl, integer)
	} else if x > hi || (x == hi && hiExcl) {
		x = below(hi, hiExcl, integer)
	}
	if m, ok := f["multipleOf"].(float64); ok && m > 0 {
		up := math.Ceil(x/m) * m
		if up < hi || (up == hi && !hiExcl) {
			x = up
		} else {
			x = math.Floor(x/m) * m
		}
	}
	return x
}

// above returns the least value at or above bound (strictly above when
// exclusive), an integer when asked; the next integer, or bound+1 for a
// number, stands for "strictly above".
func above(bound float64, exclusive, integer bool) float64 {
	switch {
	case integer && exclusive:
		return step(math.Floor(bound), 1)
	case integer:
		return math.Ceil(bound)
	case exclusive:
		return step(bound, 1)
	default:
		return bound
	}
}

// below mirrors above.
func below(bound float64, exclusive, integer bool) float64 {
	switch {
	case integer && exclusive:
		return step(math.Ceil(bound), -1)
	case integer:
		return math.Floor(bound)
	case exclusive:
		return step(bound, -1)
	default:
		return bound
	}
}

// step returns x plus dir (1 or -1), or, where float64 is too coarse for
// that to change x (beyond 2^53), the next float64 that way.
func step(x, dir float64) float64 {
	if y := x + dir; y != x {
		return y
	}
	return math.Nextafter(x, math.Inf(int(dir)))
}

// deepCopy copies a decoded JSON value so that edits to the copy never
// reach the original.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	default:
		return v
	}
}
