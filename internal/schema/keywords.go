package schema

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"

	"github.com/kaptinlin/jsonschema"

	"github.com/mockmcp/mockmcp/internal/jsonptr"
)

// The library applies every keyword it knows whatever the dialect, so a
// keyword a dialect does not define would be enforced where its
// specification says it is ignored. These tables say which keywords each
// dialect lacks; ownKeywords removes them before the library sees the
// schema.
var (
	// keywordsSince6 were introduced by Draft 6: Draft 4 ignores them.
	keywordsSince6 = []string{"const", "contains", "propertyNames", "examples"}
	// keywordsSince7 were introduced by Draft 7: Draft 4 and 6 ignore them.
	keywordsSince7 = []string{"if", "then", "else", "$comment", "readOnly", "writeOnly",
		"contentMediaType", "contentEncoding"}
	// keywordsSince2019 were introduced by 2019-09: Draft 4 to 7 ignore them.
	keywordsSince2019 = []string{"dependentRequired", "dependentSchemas", "unevaluatedProperties",
		"unevaluatedItems", "minContains", "maxContains", "contentSchema", "deprecated", "$vocabulary"}
	// keywordsSince2020 were introduced by 2020-12: earlier dialects ignore them.
	keywordsSince2020 = []string{"prefixItems", "$dynamicRef", "$dynamicAnchor"}
	// keywordsUntil2019 were replaced by 2019-09 ("dependencies" by
	// "dependentRequired" and "dependentSchemas"): later dialects ignore them.
	keywordsUntil2019 = []string{"dependencies"}
)

// tupleHint is the message for an array-form "items" under 2020-12.
const tupleHint = `must be a schema, not an array, under 2020-12: a tuple is written with "prefixItems"`

// countKeywords hold a count the library converts to a Go int: a value
// from 2^63 up would wrap around, so it is refused instead.
var countKeywords = []string{"minLength", "maxLength", "minItems", "maxItems",
	"minProperties", "maxProperties", "minContains", "maxContains"}

// maxCount is the first value a count keyword may not hold: 2^63, the
// smallest float64 that does not convert to an int64.
const maxCount = float64(math.MaxInt64)

// KeywordError is a keyword of a schema refused at a known place. It wraps
// ErrInvalidSchema.
type KeywordError struct {
	// Pointer is the JSON Pointer of the refused member.
	Pointer string
	// Field is the same place as a dotted path from the schema's top
	// level ("properties.code.pattern"); members whose names hold '.',
	// '[', ']' or '"' are quoted in brackets (`properties["a.b"].pattern`).
	Field   string
	Message string
}

func (e *KeywordError) Error() string {
	return ErrInvalidSchema.Error() + ": " + where(e.Pointer) + ": " + e.Message
}

func (e *KeywordError) Unwrap() error { return ErrInvalidSchema }

// keywordScan walks a decoded schema document through its subschemas,
// removing the keywords each one's dialect does not define and refusing
// what the library cannot hold (a count from 2^63 up) or would misread (an
// empty "enum"), and an array-form "items" under 2020-12, which the
// meta-schema check misses in a subschema whose "$schema" names another
// dialect than the document's.
type keywordScan struct {
	changed bool
	err     *KeywordError
}

// ownKeywords removes, in place, the keywords doc's subschemas do not have
// in their dialect, and returns doc encoded again, or nil when it had none.
// It refuses a count beyond what the library holds, an empty "enum" and,
// under 2020-12, an array-form "items".
func ownKeywords(doc any, dialect jsonschema.Dialect) ([]byte, error) {
	k := &keywordScan{}
	k.schema(doc, dialect, "", nil)
	if k.err != nil {
		return nil, k.err
	}
	if !k.changed {
		return nil, nil
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, invalid("%v", err)
	}
	return out, nil
}

func (k *keywordScan) schema(v any, dialect jsonschema.Dialect, ptr string, field []string) {
	obj, ok := v.(map[string]any)
	if !ok || k.err != nil {
		return
	}
	if uri, ok := obj["$schema"].(string); ok {
		if d, ok := lookupDialect(uri); ok {
			dialect = d
		}
	}
	for _, kw := range foreignKeywords(dialect) {
		if _, ok := obj[kw]; ok {
			delete(obj, kw)
			k.changed = true
		}
	}
	if k.checkCounts(obj, ptr, field); k.err != nil {
		return
	}
	if _, ok := obj["items"].([]any); ok && dialect == jsonschema.Draft202012 {
		k.fail(ptr+"/items", append(field, "items"), tupleHint)
		return
	}
	if list, ok := obj["enum"].([]any); ok && len(list) == 0 {
		// The library reads an empty "enum" as no restriction, where the
		// specification's reading is that no value is allowed.
		k.fail(ptr+"/enum", append(field, "enum"), `must list at least one value`)
		return
	}
	sub := func(kw string) []string { return append(field[:len(field):len(field)], kw) }
	for _, kw := range schemaMapKeywords {
		if m, ok := obj[kw].(map[string]any); ok {
			for _, name := range slices.Sorted(maps.Keys(m)) {
				k.schema(m[name], dialect, ptr+"/"+kw+"/"+jsonptr.Escape(name), append(sub(kw), name))
			}
		}
	}
	for _, kw := range schemaListKeyword {
		if list, ok := obj[kw].([]any); ok {
			for i, s := range list {
				k.schema(s, dialect, ptr+"/"+kw+"/"+strconv.Itoa(i), append(sub(kw), "["+strconv.Itoa(i)+"]"))
			}
		}
	}
	for _, kw := range schemaKeywords {
		if child, ok := obj[kw].(map[string]any); ok {
			k.schema(child, dialect, ptr+"/"+kw, sub(kw))
		}
	}
}

// Keywords the library knows that a dialect does not define, by dialect.
var (
	foreignTo2020   = keywordsUntil2019
	foreignTo2019   = slices.Concat(keywordsUntil2019, keywordsSince2020)
	foreignToDraft7 = slices.Concat(keywordsSince2019, keywordsSince2020)
	foreignToDraft6 = slices.Concat(keywordsSince7, foreignToDraft7)
	foreignToDraft4 = slices.Concat(keywordsSince6, foreignToDraft6)
)

// foreignKeywords are the keywords the library knows that dialect does not
// define.
func foreignKeywords(dialect jsonschema.Dialect) []string {
	switch dialect {
	case jsonschema.Draft202012:
		return foreignTo2020
	case jsonschema.Draft201909:
		return foreignTo2019
	case jsonschema.Draft6:
		return foreignToDraft6
	case jsonschema.Draft4:
		return foreignToDraft4
	}
	return foreignToDraft7
}

// checkCounts refuses a count keyword that is negative, fractional or too
// large for the library, rather than letting it wrap around: a "maxLength"
// of 1e20 would otherwise refuse every string.
func (k *keywordScan) checkCounts(obj map[string]any, ptr string, field []string) {
	for _, kw := range countKeywords {
		n, ok := obj[kw].(json.Number)
		if !ok {
			continue // another type is the meta-schema's or the compiler's to refuse
		}
		f, err := n.Float64()
		switch {
		case err != nil || f >= maxCount:
			k.fail(ptr+"/"+kw, append(field, kw), "must be less than 2^63 (9223372036854775808), got "+n.String())
		case f < 0 || f != math.Trunc(f):
			k.fail(ptr+"/"+kw, append(field, kw), "must be a non-negative integer, got "+n.String())
		default:
			continue
		}
		return
	}
}

func (k *keywordScan) fail(ptr string, field []string, msg string) {
	k.err = &KeywordError{Pointer: ptr, Field: dottedField(field), Message: msg}
}
