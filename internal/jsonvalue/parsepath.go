package jsonvalue

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// PathSyntax is what ParsePath accepts beyond dotted keys ("a.b", where a
// key of digits also reads an array element, "items.0") and bracketed
// indexes ("items[0]").
type PathSyntax struct {
	// Root allows "$" for the whole value, a leading "$" before a path
	// ("$.a", "$[0]"), and a path that starts with a bracket ("[0].id").
	Root bool
	// QuotedKeys allows `["a.b"]`, a member whose key is a JSON string.
	QuotedKeys bool
	// MaxIndex is the largest index a path spells: a larger bracketed index
	// is an error, and a larger dotted key of digits reads members only.
	// 0 is no limit but an int's.
	MaxIndex int
}

// ParsePath parses a field path written in syntax. It is strict: a path
// that could never address anything is an error. An empty path is left to
// the caller, whose message says what to write instead.
func ParsePath(s string, syntax PathSyntax) ([]Segment, error) {
	if s == "" {
		return nil, errors.New("must not be empty")
	}
	if !syntax.Root && strings.ContainsRune(".[]", rune(s[0])) {
		return nil, errors.New("must start with a key")
	}
	var segs []Segment
	i := 0
	if syntax.Root && s[0] == '$' && (len(s) == 1 || s[1] == '.' || s[1] == '[') {
		i = 1
		if len(s) > 1 && s[1] == '.' {
			i = 2
			if i == len(s) {
				return nil, errors.New("must not end with '.'")
			}
		}
	}
	// needKey is true where a key must follow (at the start and after '.').
	needKey := true
	for i < len(s) {
		c := s[i]
		switch {
		case c == '[':
			end, seg, err := syntax.bracket(s, i)
			if err != nil {
				return nil, err
			}
			segs = append(segs, seg)
			i = end
			needKey = false
		case c == '.':
			if needKey {
				return nil, fmt.Errorf("has an empty key at offset %d", i)
			}
			i++
			needKey = true
			if i == len(s) {
				return nil, errors.New("must not end with '.'")
			}
			if s[i] == '[' {
				return nil, fmt.Errorf("has '.' before '[' at offset %d", i-1)
			}
		case c == ']':
			return nil, fmt.Errorf("has an unexpected ']' at offset %d", i)
		default:
			if !needKey {
				return nil, fmt.Errorf("needs '.' or '[' at offset %d", i)
			}
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' && s[j] != ']' {
				j++
			}
			seg := KeySegment(s[i:j])
			if syntax.MaxIndex > 0 && seg.Index > syntax.MaxIndex {
				seg.Index = -1
			}
			segs = append(segs, seg)
			i = j
			needKey = false
		}
	}
	return segs, nil
}

// bracket parses the bracketed step starting at s[i] == '[' and returns
// the offset just past its ']'.
func (syntax PathSyntax) bracket(s string, i int) (int, Segment, error) {
	if syntax.QuotedKeys && i+1 < len(s) && s[i+1] == '"' {
		// A JSON string: find its closing quote, skipping escapes.
		j := i + 2
		for j < len(s) && s[j] != '"' {
			if s[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(s) || j+1 >= len(s) || s[j+1] != ']' {
			return 0, Segment{}, fmt.Errorf("has an unclosed [\"…\"] at offset %d", i)
		}
		var key string
		if err := json.Unmarshal([]byte(s[i+1:j+1]), &key); err != nil {
			return 0, Segment{}, fmt.Errorf("has an invalid quoted key at offset %d: %v", i, err)
		}
		return j + 2, Segment{Key: key, Index: -1, ObjectOnly: true}, nil
	}
	end := strings.IndexByte(s[i+1:], ']')
	if end < 0 {
		return 0, Segment{}, fmt.Errorf("has an unclosed '[' at offset %d", i)
	}
	end += i + 1
	idx, ok := ParseIndex(s[i+1 : end])
	if !ok || (syntax.MaxIndex > 0 && idx > syntax.MaxIndex) {
		want := "a non-negative integer without leading zeros"
		if syntax.QuotedKeys {
			want += ", or a quoted key"
		}
		return 0, Segment{}, fmt.Errorf("has an invalid array index %q at offset %d: want %s", s[i+1:end], i, want)
	}
	return end + 1, Segment{Index: idx, ArrayOnly: true}, nil
}
