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
	tokens, ok := Tokens(pointer)
	if !ok {
		return nil, false
	}
	cur := doc
	for _, tok := range tokens {
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

// Tokens returns the unescaped reference tokens of pointer: none for the
// empty pointer, and false for a pointer that does not start with "/".
func Tokens(pointer string) ([]string, bool) {
	if pointer == "" {
		return nil, true
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, false
	}
	tokens := strings.Split(pointer[1:], "/")
	for i, tok := range tokens {
		tokens[i] = unescaper.Replace(tok)
	}
	return tokens, true
}

// Escape escapes a member name for use as a reference token.
func Escape(token string) string { return escaper.Replace(token) }

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)
