// Package jsonptr evaluates JSON Pointers (RFC 6901) over decoded JSON, for
// following the "#/..." references of schemas and documents.
package jsonptr

import (
	"strconv"
	"strings"
)

// Get returns the value pointer names in doc, a value decoded by
// encoding/json (maps, slices, scalars). The empty pointer names doc
// itself; a pointer must otherwise start with "/". Reference tokens are
// unescaped (~1 is "/", ~0 is "~"); array indexes are decimal.
func Get(doc any, pointer string) (any, bool) {
	if pointer == "" {
		return doc, true
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, false
	}
	cur := doc
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
