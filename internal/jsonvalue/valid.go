package jsonvalue

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// DecodeValid decodes data, which must be exactly one valid JSON value
// (json.Valid holds; white space around it aside), by the decoding rule,
// to the value Decode returns. It reads data in one pass without
// encoding/json: its strings share one copy of data, and the numbers 0 to
// 255 are not allocated. ok is false when a number is beyond float64's
// range, for which Decode's error is the answer, and when an object repeats
// a member name (see FirstDuplicate), which the caller refuses.
func DecodeValid(data []byte) (v any, ok bool) {
	d := validDecoder{s: string(data)}
	d.space()
	return d.value()
}

// validDecoder reads a valid JSON document.
type validDecoder struct {
	s string
	i int
}

func (d *validDecoder) space() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\r', '\n':
			d.i++
		default:
			return
		}
	}
}

// value reads the value at d.i and the white space after it.
func (d *validDecoder) value() (v any, ok bool) {
	switch c := d.s[d.i]; {
	case c == '{':
		v, ok = d.object()
	case c == '[':
		v, ok = d.array()
	case c == '"':
		var s string
		s, ok = d.str()
		v = s
	case c == 't':
		d.i += len("true")
		v, ok = true, true
	case c == 'f':
		d.i += len("false")
		v, ok = false, true
	case c == 'n':
		d.i += len("null")
		v, ok = nil, true
	default:
		v, ok = d.number()
	}
	d.space()
	return v, ok
}

func (d *validDecoder) object() (any, bool) {
	m := make(map[string]any)
	d.i++ // '{'
	d.space()
	if d.s[d.i] == '}' {
		d.i++
		return m, true
	}
	for n := 1; ; n++ {
		k, ok := d.str()
		if !ok {
			return nil, false
		}
		d.space()
		d.i++ // ':'
		d.space()
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		m[k] = v
		if d.s[d.i] == '}' {
			d.i++
			return m, len(m) == n // fewer entries than members: a name repeated
		}
		d.i++ // ','
		d.space()
	}
}

func (d *validDecoder) array() (any, bool) {
	a := []any{} // encoding/json decodes [] to an empty slice, not nil
	d.i++        // '['
	d.space()
	if d.s[d.i] == ']' {
		d.i++
		return a, true
	}
	for {
		v, ok := d.value()
		if !ok {
			return nil, false
		}
		a = append(a, v)
		if d.s[d.i] == ']' {
			d.i++
			return a, true
		}
		d.i++ // ','
		d.space()
	}
}

// str reads a string: a plain one is a substring of d.s; one with escapes
// or bytes that are not UTF-8 is decoded by encoding/json, which replaces
// what is not UTF-8 as it does everywhere.
func (d *validDecoder) str() (string, bool) {
	start := d.i
	plain := true
	for d.i++; ; d.i++ {
		c := d.s[d.i]
		if c == '"' {
			break
		}
		if c == '\\' {
			plain = false
			d.i++
		} else if c >= utf8.RuneSelf {
			plain = false
		}
	}
	d.i++
	raw := d.s[start:d.i]
	if plain {
		return raw[1 : len(raw)-1], true
	}
	inner := raw[1 : len(raw)-1]
	if strings.IndexByte(inner, '\\') < 0 && utf8.ValidString(inner) {
		return inner, true
	}
	var s string
	if json.Unmarshal([]byte(raw), &s) != nil {
		return "", false
	}
	return s, true
}

// number reads a number by the decoding rule.
func (d *validDecoder) number() (any, bool) {
	start := d.i
	integer := true
	for ; d.i < len(d.s); d.i++ {
		c := d.s[d.i]
		if c >= '0' && c <= '9' || c == '-' {
			continue
		}
		if c == '.' || c == 'e' || c == 'E' || c == '+' {
			integer = false
			continue
		}
		break
	}
	text := d.s[start:d.i]
	if integer && len(text) <= 3 {
		if n, err := strconv.Atoi(text); err == nil && n >= 0 && n < len(smallNumbers) && text != "-0" {
			return smallNumbers[n], true
		}
	}
	if integer && len(text) >= 16 && IsLargeInteger(text) {
		return json.Number(text), true
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return nil, false
	}
	return f, true
}

// smallNumbers are the float64 values 0 to 255, boxed once.
var smallNumbers = func() (out [256]any) {
	for i := range out {
		out[i] = float64(i)
	}
	return out
}()
