package schema

import (
	"encoding/json"
	"strings"
)

// Most tool schemas are Draft 7 documents (the default dialect) made of a
// handful of keywords: "type", "properties", "required", "enum", bounds and
// descriptions. Evaluating one against the meta-schema through the library
// was still about half of compiling it, paid by every tool's first call (or
// by warming it), and it says no more than a direct check of those
// keywords' values says. draft7Valid is that check: it answers true only
// when every keyword of the document, at every level, is one of the Draft 7
// keywords it knows and holds a value the Draft 7 meta-schema accepts. It
// answers false for anything it does not decide (an unknown keyword, a
// number written with a fraction or an exponent where an integer is
// required, an "enum" of objects), and the library's meta-schema check then
// decides, and words the error. So it never accepts what the meta-schema
// refuses (TestDraft7QuickCheckAgrees, FuzzDraft7QuickCheck).

// draft7Valid reports whether v, a schema decoded with json.Number numbers,
// is certainly valid against the Draft 7 meta-schema.
func draft7Valid(v any) bool {
	switch s := v.(type) {
	case bool:
		return true
	case map[string]any:
		for k, x := range s {
			if !draft7Keyword(k, x) {
				return false
			}
		}
		return true
	}
	return false
}

// draft7Keyword reports whether x is certainly a valid value of Draft 7
// keyword k.
func draft7Keyword(k string, x any) bool {
	switch k {
	case "$id", "$schema", "$ref", "$comment", "title", "description", "pattern", "format",
		"contentMediaType", "contentEncoding":
		// Formats (uri, regex) are annotations the meta-schema check
		// does not assert; patterns are compiled and bounded apart.
		_, ok := x.(string)
		return ok
	case "default", "const":
		return true
	case "readOnly", "writeOnly", "uniqueItems":
		_, ok := x.(bool)
		return ok
	case "examples":
		_, ok := x.([]any)
		return ok
	case "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum":
		_, ok := x.(json.Number)
		return ok
	case "multipleOf":
		return positiveNumber(x)
	case "maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties":
		return nonNegativeInteger(x)
	case "additionalItems", "contains", "additionalProperties", "propertyNames", "if", "then", "else", "not":
		return draft7Valid(x)
	case "items":
		if _, ok := x.([]any); ok {
			return schemaArray(x)
		}
		return draft7Valid(x)
	case "allOf", "anyOf", "oneOf":
		return schemaArray(x)
	case "definitions", "properties", "patternProperties":
		m, ok := x.(map[string]any)
		if !ok {
			return false
		}
		for _, s := range m {
			if !draft7Valid(s) {
				return false
			}
		}
		return true
	case "dependencies":
		m, ok := x.(map[string]any)
		if !ok {
			return false
		}
		for _, d := range m {
			if _, isArray := d.([]any); isArray {
				if !uniqueStrings(d, false) {
					return false
				}
			} else if !draft7Valid(d) {
				return false
			}
		}
		return true
	case "required":
		return uniqueStrings(x, false)
	case "enum":
		return uniqueScalars(x)
	case "type":
		if name, ok := x.(string); ok {
			return simpleType(name)
		}
		if !uniqueStrings(x, true) {
			return false
		}
		for _, name := range x.([]any) {
			if !simpleType(name.(string)) {
				return false
			}
		}
		return true
	}
	return false
}

// schemaArray: a non-empty array of schemas.
func schemaArray(x any) bool {
	a, ok := x.([]any)
	if !ok || len(a) == 0 {
		return false
	}
	for _, s := range a {
		if !draft7Valid(s) {
			return false
		}
	}
	return true
}

func simpleType(name string) bool {
	switch name {
	case "array", "boolean", "integer", "null", "number", "object", "string":
		return true
	}
	return false
}

// uniqueStrings: an array of distinct strings, non-empty when nonEmpty.
func uniqueStrings(x any, nonEmpty bool) bool {
	a, ok := x.([]any)
	if !ok || (nonEmpty && len(a) == 0) {
		return false
	}
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			return false
		}
		for _, earlier := range a[:i] {
			if earlier.(string) == s {
				return false
			}
		}
	}
	return true
}

// uniqueScalars: a non-empty array of distinct strings, booleans, nulls and
// integers written plainly (whose text is canonical, so equal integers are
// equal texts); any other member is left to the meta-schema check, which
// compares numbers by value and objects member by member.
func uniqueScalars(x any) bool {
	a, ok := x.([]any)
	if !ok || len(a) == 0 {
		return false
	}
	for i, e := range a {
		switch v := e.(type) {
		case string, bool, nil:
		case json.Number:
			if !plainInteger(string(v)) || v == "-0" {
				return false
			}
		default:
			return false
		}
		for _, earlier := range a[:i] {
			if earlier == e {
				return false
			}
		}
	}
	return true
}

// plainInteger: an integer written as digits alone, with an optional sign.
func plainInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// nonNegativeInteger: a plain integer of no sign.
func nonNegativeInteger(x any) bool {
	n, ok := x.(json.Number)
	return ok && n != "" && n[0] != '-' && plainInteger(string(n))
}

// positiveNumber: a number above zero written without an exponent.
func positiveNumber(x any) bool {
	n, ok := x.(json.Number)
	if !ok || n == "" || n[0] == '-' || strings.ContainsAny(string(n), "eE") {
		return false
	}
	return strings.ContainsAny(string(n), "123456789")
}
