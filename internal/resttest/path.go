package resttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

// MaxPathLength is the longest condition path accepted, in bytes.
const MaxPathLength = 1000

// Path is a parsed condition path: the steps that lead from the parsed
// response body to one value.
//
// The syntax:
//
//   - `a.b.c` reads object members; a key is any run of characters other
//     than '.', '[' and ']'.
//   - `items[0].id` reads array element 0 (a bracketed index never reads an
//     object member).
//   - `items.0.id` reads element 0 of an array, or the member "0" of an
//     object: a dotted key of digits (without leading zeros) does both.
//   - `[0].id` and `0.id` start at a root array.
//   - `["a.b"]` reads a member whose key holds '.', '[' or ']'; the key is a
//     JSON string (with its escapes).
//   - `$` is the whole body, and a leading `$` is allowed before any path
//     (`$.a`, `$[0]`), as in JSONPath.
//
// An extension for MCP: when a step meets a string whose content (leading
// and trailing white space aside) is a JSON object or array, the string is
// decoded and the step continues inside it. MCP tool results carry their
// JSON as text, so `result.content[0].text.temp` reads the member "temp" of
// the object encoded in the text. A string at the end of a path is left as
// a string.
type Path struct {
	raw   string
	steps []jsonvalue.Segment
}

// String returns the path as it was written.
func (p Path) String() string { return p.raw }

// ParsePath parses a condition path; see Path for the syntax. It is strict:
// a path that could never address anything is an error rather than a
// condition that silently always fails.
func ParsePath(s string) (Path, error) {
	if s == "" {
		return Path{}, errors.New("must not be empty: use $ for the whole body")
	}
	if len(s) > MaxPathLength {
		return Path{}, fmt.Errorf("must be at most %d bytes long, got %d", MaxPathLength, len(s))
	}
	steps, err := jsonvalue.ParsePath(s, conditionSyntax)
	if err != nil {
		return Path{}, err
	}
	return Path{raw: s, steps: steps}, nil
}

// conditionSyntax is the path syntax Path describes; an index has at most
// nine digits.
var conditionSyntax = jsonvalue.PathSyntax{Root: true, QuotedKeys: true, MaxIndex: 999_999_999}

// Lookup returns the value at the path in v, a value decoded from JSON
// (objects as map[string]any, arrays as []any, numbers as json.Number or
// float64), and whether it exists. A member that is present with the value
// null exists: Lookup returns (nil, true).
func (p Path) Lookup(v any) (any, bool) {
	cur := v
	for _, st := range p.steps {
		var ok bool
		if cur, ok = apply(st, cur); !ok {
			return nil, false
		}
	}
	return cur, true
}

// apply is st.Step, first decoding a string that holds a JSON object or
// array.
func apply(st jsonvalue.Segment, v any) (any, bool) {
	if s, ok := v.(string); ok {
		if v, ok = decodeEmbedded(s); !ok {
			return nil, false
		}
	}
	return st.Step(v)
}

// decodeEmbedded decodes a string holding a JSON object or array.
func decodeEmbedded(s string) (any, bool) {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return nil, false
	}
	v, err := decodeJSON([]byte(t))
	return v, err == nil
}

// decodeJSON decodes exactly one JSON value (white space around it aside),
// keeping numbers as json.Number so they compare exactly.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}
