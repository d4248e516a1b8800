// Package pgtext says what PostgreSQL refuses to store in text and jsonb
// columns, so that such input is refused up front with a message naming the
// field, rather than failing in the database.
package pgtext

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// NULMessage is the problem of text holding U+0000, which PostgreSQL text
// cannot store.
const NULMessage = "must not contain the NUL character (U+0000)"

// UTF8Message is the problem of text that is not UTF-8, which a UTF-8
// database refuses.
const UTF8Message = "must be valid UTF-8"

// TextProblem explains why PostgreSQL would refuse s as text, or returns "".
func TextProblem(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return NULMessage
	}
	if !utf8.ValidString(s) {
		return UTF8Message
	}
	return ""
}

// JSONBProblem explains why PostgreSQL would refuse the valid JSON document
// raw as jsonb (invalid UTF-8, a \u0000 escape, an unpaired surrogate
// escape), or returns "". In valid JSON a backslash only ever starts an
// escape inside a string, so the escapes can be read without tracking
// strings.
func JSONBProblem(raw []byte) string {
	if !utf8.Valid(raw) {
		return UTF8Message
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		i++
		if i >= len(raw) || raw[i] != 'u' {
			continue
		}
		r, ok := hex4(raw, i+1)
		if !ok {
			continue
		}
		i += 4
		switch {
		case r == 0:
			return NULMessage
		case r >= 0xDC00 && r <= 0xDFFF:
			return "must not contain an unpaired UTF-16 surrogate escape"
		case r >= 0xD800 && r <= 0xDBFF:
			if i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if lo, ok := hex4(raw, i+3); ok && lo >= 0xDC00 && lo <= 0xDFFF {
					i += 6
					continue
				}
			}
			return "must not contain an unpaired UTF-16 surrogate escape"
		}
	}
	return ""
}

func hex4(b []byte, at int) (uint64, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[at:at+4]), 16, 32)
	return v, err == nil
}
