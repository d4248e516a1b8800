package answertmpl

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// AppendQuoted appends text as a JSON string, escaped as appendEscaped
// says. It lets a caller wrap a rendered document in a text item (the
// response form of an answer) without decoding it again.
func AppendQuoted(dst, text []byte) []byte { return appendQuoted(dst, text) }

// appendQuoted appends s as a JSON string.
func appendQuoted[T string | []byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	dst = appendEscaped(dst, s)
	return append(dst, '"')
}

// appendEscaped appends s as the inside of a JSON string, as encoding/json
// writes it without HTML escaping: quotes, backslashes and control
// characters escaped, invalid UTF-8 as U+FFFD, and U+2028 and U+2029
// escaped for JavaScript readers.
func appendEscaped[T string | []byte](dst []byte, s T) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0x0f])
			}
			i++
			start = i
			continue
		}
		// At most 4 bytes: the conversion of a []byte stays on the stack.
		r, size := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// escapeTail escapes, in place, the JSON text dst[from:] as the inside of
// a JSON string. That text is appendValue's: its only bytes to escape are
// quotes and backslashes.
func escapeTail(dst []byte, from int) []byte {
	extra := 0
	for _, c := range dst[from:] {
		if c == '"' || c == '\\' {
			extra++
		}
	}
	if extra == 0 {
		return dst
	}
	n := len(dst)
	dst = slices.Grow(dst, extra)[:n+extra]
	w := len(dst) - 1
	for r := n - 1; r >= from; r-- {
		c := dst[r]
		dst[w] = c
		w--
		if c == '"' || c == '\\' {
			dst[w] = '\\'
			w--
		}
	}
	return dst
}

// appendValue appends the compact JSON of a decoded value (see
// jsonvalue), members in name order as encoding/json writes maps.
func appendValue(dst []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...)
	case bool:
		return strconv.AppendBool(dst, x)
	case string:
		return appendQuoted(dst, x)
	case float64:
		return appendFloat(dst, x)
	case json.Number:
		if x == "" {
			return append(dst, '0')
		}
		return append(dst, x...)
	case int:
		return strconv.AppendInt(dst, int64(x), 10)
	case int64:
		return strconv.AppendInt(dst, x, 10)
	case []any:
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, e)
		}
		return append(dst, ']')
	case map[string]any:
		dst = append(dst, '{')
		for i, k := range slices.Sorted(maps.Keys(x)) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendQuoted(dst, k)
			dst = append(dst, ':')
			dst = appendValue(dst, x[k])
		}
		return append(dst, '}')
	}
	// Values built by hand of other types: as encoding/json writes them.
	b, err := json.Marshal(v)
	if err != nil || !json.Valid(b) {
		return append(dst, "null"...)
	}
	var s any
	if json.Unmarshal(b, &s) != nil {
		return append(dst, "null"...)
	}
	return appendValue(dst, s)
}

// appendFloat appends f as encoding/json writes a float64; a NaN or an
// infinity, which JSON cannot hold, as null.
func appendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}
