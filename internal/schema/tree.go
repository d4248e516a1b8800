package schema

import (
	"maps"
	"slices"
	"strconv"

	"github.com/kaptinlin/jsonschema"

	"github.com/mockmcp/mockmcp/internal/jsonptr"
)

// simpleTypes are the names "type" may use in every supported dialect.
var simpleTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// checkTree catches, in every dialect, what the library compiles without
// complaint but would make the schema behave other than its author expects:
// a nested "$schema" it does not know (the library quietly keeps the outer
// dialect) and a "type" name that no value can ever have. The meta-schema
// check has already reported the latter wherever the document's own
// dialect applies.
func checkTree(root *jsonschema.Schema, dialect jsonschema.Dialect) error {
	var err error
	walkTree(root, dialect, "", func(s *jsonschema.Schema, at string) bool {
		if s.Schema != "" {
			if _, ok := lookupDialect(s.Schema); !ok {
				err = invalid(`%s: unsupported "$schema" %q`, where(at), s.Schema)
				return false
			}
		}
		for _, t := range s.Type {
			if !slices.Contains(simpleTypes, t) {
				err = invalid("%s: unknown type %q, expected one of %v", where(at+"/type"), t, simpleTypes)
				return false
			}
		}
		return true
	})
	return err
}

// walkTree calls visit for s and every subschema below it, in a fixed order,
// with each one's JSON Pointer in the document, until visit returns false.
// It mirrors the library's own (unexported) traversal; references are not
// followed, so the walk ends even for recursive schemas.
func walkTree(s *jsonschema.Schema, dialect jsonschema.Dialect, at string, visit func(*jsonschema.Schema, string) bool) bool {
	if s == nil {
		return true
	}
	if !visit(s, at) {
		return false
	}
	if s.Schema != "" {
		if d, ok := lookupDialect(s.Schema); ok {
			dialect = d
		}
	}
	// Before 2020-12 the library reads tuple-form "items" into PrefixItems and
	// "additionalItems" into Items; name them as the author wrote them.
	prefixItems, items := "prefixItems", "items"
	if dialect != jsonschema.Draft202012 && len(s.PrefixItems) > 0 {
		prefixItems, items = "items", "additionalItems"
	}
	walkOne := func(child *jsonschema.Schema, keyword string) bool {
		return walkTree(child, dialect, at+"/"+keyword, visit)
	}
	walkMap := func(children map[string]*jsonschema.Schema, keyword string) bool {
		for _, name := range slices.Sorted(maps.Keys(children)) {
			if !walkTree(children[name], dialect, at+"/"+keyword+"/"+jsonptr.Escape(name), visit) {
				return false
			}
		}
		return true
	}
	walkList := func(children []*jsonschema.Schema, keyword string) bool {
		for i, child := range children {
			if !walkTree(child, dialect, at+"/"+keyword+"/"+strconv.Itoa(i), visit) {
				return false
			}
		}
		return true
	}
	var properties, patternProperties map[string]*jsonschema.Schema
	if s.Properties != nil {
		properties = *s.Properties
	}
	if s.PatternProperties != nil {
		patternProperties = *s.PatternProperties
	}
	return walkMap(s.Defs, "$defs") &&
		walkMap(properties, "properties") &&
		walkMap(patternProperties, "patternProperties") &&
		walkMap(s.DependentSchemas, "dependentSchemas") &&
		walkList(s.AllOf, "allOf") &&
		walkList(s.AnyOf, "anyOf") &&
		walkList(s.OneOf, "oneOf") &&
		walkList(s.PrefixItems, prefixItems) &&
		walkOne(s.Items, items) &&
		walkOne(s.Not, "not") &&
		walkOne(s.If, "if") &&
		walkOne(s.Then, "then") &&
		walkOne(s.Else, "else") &&
		walkOne(s.Contains, "contains") &&
		walkOne(s.AdditionalProperties, "additionalProperties") &&
		walkOne(s.PropertyNames, "propertyNames") &&
		walkOne(s.UnevaluatedItems, "unevaluatedItems") &&
		walkOne(s.UnevaluatedProperties, "unevaluatedProperties") &&
		walkOne(s.ContentSchema, "contentSchema")
}

// where names a JSON Pointer for a message: the empty pointer is the whole
// document, which reads better spelled out.
func where(pointer string) string {
	if pointer == "" {
		return "top level"
	}
	return pointer
}
