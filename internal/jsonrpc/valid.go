package jsonrpc

import "github.com/mockmcp/mockmcp/internal/jsonvalue"

// maxNesting is encoding/json's bound on nested arrays and objects.
const maxNesting = 10000

// Valid reports what json.Valid reports, whether data is one JSON value
// (white space around it aside), in a single tight pass: the endpoints
// check every message before reading it in place.
func Valid(data []byte) bool {
	v := validator{b: data}
	v.space()
	if !v.value(0) {
		return false
	}
	v.space()
	return v.i == len(v.b)
}

type validator struct {
	b []byte
	i int
}

func (v *validator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\n', '\r':
			v.i++
		default:
			return
		}
	}
}

func (v *validator) value(depth int) bool {
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; c {
	case '{':
		return v.object(depth + 1)
	case '[':
		return v.array(depth + 1)
	case '"':
		return v.str()
	case 't':
		return v.literal("true")
	case 'f':
		return v.literal("false")
	case 'n':
		return v.literal("null")
	default:
		return v.number()
	}
}

func (v *validator) object(depth int) bool {
	if depth > maxNesting {
		return false
	}
	v.i++ // '{'
	v.space()
	if v.i < len(v.b) && v.b[v.i] == '}' {
		v.i++
		return true
	}
	for {
		if v.i >= len(v.b) || v.b[v.i] != '"' || !v.str() {
			return false
		}
		v.space()
		if v.i >= len(v.b) || v.b[v.i] != ':' {
			return false
		}
		v.i++
		v.space()
		if !v.value(depth) {
			return false
		}
		if done, ok := v.next('}'); done || !ok {
			return ok
		}
	}
}

// next reads what follows a member or an element: a comma and the space
// after it, or close (done).
func (v *validator) next(close byte) (done, ok bool) {
	v.space()
	if v.i >= len(v.b) {
		return false, false
	}
	switch v.b[v.i] {
	case ',':
		v.i++
		v.space()
		return false, true
	case close:
		v.i++
		return true, true
	}
	return false, false
}

func (v *validator) array(depth int) bool {
	if depth > maxNesting {
		return false
	}
	v.i++ // '['
	v.space()
	if v.i < len(v.b) && v.b[v.i] == ']' {
		v.i++
		return true
	}
	for {
		if !v.value(depth) {
			return false
		}
		if done, ok := v.next(']'); done || !ok {
			return ok
		}
	}
}

// str checks the string opening at v.i: no control characters, and only
// the escapes JSON has. Bytes that are not UTF-8 are accepted, as
// encoding/json accepts them.
func (v *validator) str() bool {
	b := v.b
	for i := v.i + 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			v.i = i + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			i++
			if i >= len(b) {
				return false
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(b) {
					return false
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return false
					}
				}
				i += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func (v *validator) literal(word string) bool {
	if len(v.b)-v.i < len(word) || string(v.b[v.i:v.i+len(word)]) != word {
		return false
	}
	v.i += len(word)
	return true
}

// number checks a JSON number token.
func (v *validator) number() bool {
	end, ok := jsonvalue.NumberEnd(v.b, v.i)
	v.i = end
	return ok
}
