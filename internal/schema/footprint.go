package schema

import (
	"bytes"
	"encoding/json"

	"github.com/kaptinlin/jsonschema"
)

// Footprint estimates, without compiling it, the bytes a Schema compiled
// from raw keeps once it has validated values, so that a cache can count
// schemas it has not compiled yet. It errs on the side of more: a schema it
// cannot tell will have a fast path is counted as keeping the library's
// tree, the bulk of a compiled schema's memory (measured at about 27 times
// the document's size for small tool schemas). A schema with a fast path
// keeps no tree; the trees compiled for values it rejects live in a pool
// the garbage collector empties, not in the schema.
func Footprint(raw []byte) int {
	var doc any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&doc) != nil {
		return treeBytes(len(raw))
	}
	patterns, ok := fastShaped(doc, 0)
	if !ok {
		return treeBytes(len(raw))
	}
	return fastBytes(len(raw), patterns)
}

// Footprint estimates the bytes s keeps once it has validated values, as
// the function Footprint does for a schema not yet compiled, but knowing
// whether s has a fast path.
func (s *Schema) Footprint() int {
	if s.fast == nil {
		return treeBytes(len(s.raw))
	}
	return fastBytes(len(s.raw), s.fast.patterns())
}

// patterns counts the regular expressions of n and its subschemas.
func (n *fastNode) patterns() int {
	if n == nil {
		return 0
	}
	c := n.additional.patterns() + n.items.patterns()
	if n.x != nil && n.x.regex != nil {
		c++
	}
	for i := range n.props {
		c += n.props[i].node.patterns()
	}
	return c
}

// treeBytes is the estimate for a schema that keeps the library's tree:
// measured, a 578-byte schema keeps 15.5 KB, a 120-byte one 4.9 KB.
func treeBytes(n int) int { return 4096 + 28*n }

// fastBytes is the estimate for a schema with a fast path: its document,
// its nodes, and each regular expression compiled (measured: a 578-byte
// schema with one pattern keeps about 4.3 KB, a 120-byte one 0.8 KB).
func fastBytes(n, patterns int) int { return 1024 + 8*n + 3072*patterns }

// fastKeywords are the members a subschema may have for Footprint to
// expect a fast path; with what they hold checked by fastShaped. Anything
// else, even a keyword the fast path ignores, counts the schema as keeping
// its tree.
var fastKeywords = map[string]bool{
	"type": true, "enum": true, "const": true, "minimum": true, "maximum": true,
	"exclusiveMinimum": true, "exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "pattern": true, "properties": true, "required": true,
	"additionalProperties": true, "minProperties": true, "maxProperties": true, "items": true,
	"minItems": true, "maxItems": true, "uniqueItems": true,
	"title": true, "description": true, "default": true, "examples": true, "$schema": true,
	"$comment": true, "readOnly": true, "writeOnly": true, "deprecated": true, "format": true,
}

// fastShaped reports whether the subschema v is certain to get a fast path,
// and how many patterns it has.
func fastShaped(v any, depth int) (int, bool) {
	if _, isBool := v.(bool); isBool {
		return 0, true
	}
	obj, ok := v.(map[string]any)
	if !ok || depth > maxDepth {
		return 0, false
	}
	patterns := 0
	sub := func(child any) bool {
		n, ok := fastShaped(child, depth+1)
		patterns += n
		return ok
	}
	for k, x := range obj {
		if !fastKeywords[k] {
			return 0, false
		}
		switch k {
		case "enum":
			list, ok := x.([]any)
			if !ok {
				return 0, false
			}
			for _, e := range list {
				if !scalarConst(e) {
					return 0, false
				}
			}
		case "const":
			if !scalarConst(x) {
				return 0, false
			}
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
			if _, isBool := x.(bool); isBool {
				continue // Draft 4's form
			}
			if n, ok := x.(json.Number); !ok || !exactNumber(n) {
				return 0, false
			}
		case "multipleOf":
			n, ok := x.(json.Number)
			if !ok || !exactNumber(n) {
				return 0, false
			}
			f, err := n.Float64()
			if err != nil || f <= 0 || f != float64(int64(f)) || f >= 1<<53 {
				return 0, false
			}
		case "pattern":
			patterns++
		case "properties":
			props, ok := x.(map[string]any)
			if !ok {
				return 0, false
			}
			for _, p := range props {
				if !sub(p) {
					return 0, false
				}
			}
		case "additionalProperties", "items":
			if !sub(x) {
				return 0, false
			}
		}
	}
	return patterns, true
}

// scalarConst reports whether an "enum" member or "const" is one the fast
// path holds.
func scalarConst(v any) bool {
	switch x := v.(type) {
	case nil, bool, string:
		return true
	case json.Number:
		return exactNumber(x)
	}
	return false
}

// exactNumber reports whether the library's exact value of n is a
// float64's, as the fast path requires.
func exactNumber(n json.Number) bool {
	r := jsonschema.NewRat(n)
	if r == nil {
		return false
	}
	_, ok := exactFloat(r)
	return ok
}
