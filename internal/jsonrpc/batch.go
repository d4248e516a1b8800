package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// IsBatch reports whether body is a JSON array, that is a batch, judging by
// its first byte after white space.
func IsBatch(body []byte) bool {
	body = skipSpace(body)
	return len(body) > 0 && body[0] == '['
}

// Batch yields the members of a batch one at a time, as slices of the body:
// nothing is copied or decoded, so a body of half a million members costs
// no more memory than the body itself.
type Batch struct {
	rest  []byte // what follows the last member taken (or the '[')
	first bool
}

// OpenBatch checks that body is a JSON array of at least one and at most
// limit members, counting them without decoding any and stopping past limit.
// The errors are ErrParse (not JSON) and ErrInvalidRequest (an empty
// batch, or one longer than limit); each refuses the batch as a whole.
func OpenBatch(body []byte, limit int) (Batch, int, error) {
	body = skipSpace(body)
	// json.Valid decodes nothing and keeps a stack as deep as the nesting,
	// which encoding/json caps at 10,000 levels.
	if len(body) == 0 || body[0] != '[' || !json.Valid(body) {
		return Batch{}, 0, ErrParse
	}
	b := Batch{rest: body[1:], first: true}
	n := 0
	for probe := b; n <= limit; n++ {
		if _, ok := probe.Next(); !ok {
			break
		}
	}
	switch {
	case n == 0:
		return Batch{}, 0, InvalidRequest("an empty batch")
	case n > limit:
		return Batch{}, 0, InvalidRequest(fmt.Sprintf("a batch holds at most %d messages", limit))
	}
	return b, n, nil
}

// Next returns the next member, or false after the last.
func (b *Batch) Next() ([]byte, bool) {
	s := skipSpace(b.rest)
	if len(s) == 0 || s[0] == ']' {
		return nil, false
	}
	if !b.first && s[0] == ',' {
		s = skipSpace(s[1:])
	}
	b.first = false
	end := valueEnd(s)
	b.rest = s[end:]
	return s[:end], true
}

// valueEnd is the length of the JSON value s begins with; s is known to be
// valid JSON, so only strings and brackets need care.
func valueEnd(s []byte) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			i = stringEnd(s, i)
			if depth == 0 {
				return i + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 { // the end of the enclosing array
				return i
			}
			depth--
			if depth == 0 {
				return i + 1
			}
		case ',', ' ', '\t', '\r', '\n':
			if depth == 0 { // the end of a number or a literal
				return i
			}
		}
	}
	return len(s)
}

// stringEnd is the index of the quote closing the string that opens at i.
// A quote closes the string when an even run of backslashes precedes it;
// quotes are found with bytes.IndexByte, which reads many bytes at a time.
func stringEnd(s []byte, i int) int {
	for j := i + 1; j < len(s); {
		k := bytes.IndexByte(s[j:], '"')
		if k < 0 {
			break
		}
		q := j + k
		escapes := 0
		for p := q - 1; p > i && s[p] == '\\'; p-- {
			escapes++
		}
		if escapes%2 == 0 {
			return q
		}
		j = q + 1
	}
	return len(s) - 1
}

func skipSpace(s []byte) []byte {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t' || s[0] == '\r' || s[0] == '\n') {
		s = s[1:]
	}
	return s
}
