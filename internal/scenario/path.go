package scenario

import (
	"fmt"
	"strconv"
)

// fieldPath is a parsed field path. Parsing happens at compile time so that
// lookups only walk prepared segments.
type fieldPath struct {
	raw  string
	segs []segment // never empty; segs[0] is always a key
}

type segment struct {
	key string
	// index is the array index this segment addresses, or -1 when it cannot
	// address an array element.
	index int
	// arrayOnly marks a bracketed index, which never reads object members.
	arrayOnly bool
}

// lookup returns the argument at the path and whether it is present.
func (p *fieldPath) lookup(args map[string]any) (any, bool) {
	cur, ok := args[p.segs[0].key]
	if len(p.segs) == 1 {
		return cur, ok
	}
	// A literal top-level key spelled like the whole path wins, so that
	// arguments with dotted names stay addressable.
	if v, lit := args[p.raw]; lit {
		return v, true
	}
	for i := 1; ok && i < len(p.segs); i++ {
		cur, ok = p.segs[i].step(cur)
	}
	return cur, ok
}

func (s *segment) step(v any) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		if s.arrayOnly {
			return nil, false
		}
		e, ok := x[s.key]
		return e, ok
	case []any:
		if s.index < 0 || s.index >= len(x) {
			return nil, false
		}
		return x[s.index], true
	default:
		return nil, false
	}
}

// parsePath parses "a.b", "a[0].b" and "a.0.b" style paths. It is strict
// rather than lenient because a malformed path would otherwise silently
// never match, which is worse than a save-time error.
func parsePath(s string) (fieldPath, error) {
	if s == "" {
		return fieldPath{}, fmt.Errorf("must not be empty")
	}
	var segs []segment
	expectKey := true
	for i := 0; i < len(s); {
		if expectKey {
			j := i
			for j < len(s) && s[j] != '.' && s[j] != '[' && s[j] != ']' {
				j++
			}
			if j == i {
				if i == 0 {
					return fieldPath{}, fmt.Errorf("path %q must start with a key", s)
				}
				return fieldPath{}, fmt.Errorf("path %q has an empty key at offset %d", s, i)
			}
			key := s[i:j]
			idx, ok := parseIndex(key)
			if !ok {
				idx = -1
			}
			segs = append(segs, segment{key: key, index: idx})
			i = j
			expectKey = false
			continue
		}
		switch s[i] {
		case '.':
			i++
			expectKey = true
		case '[':
			end := i + 1
			for end < len(s) && s[end] != ']' {
				end++
			}
			if end == len(s) {
				return fieldPath{}, fmt.Errorf("path %q has an unclosed '[' at offset %d", s, i)
			}
			idx, ok := parseIndex(s[i+1 : end])
			if !ok {
				return fieldPath{}, fmt.Errorf("path %q has an invalid array index %q at offset %d: want a non-negative integer without leading zeros", s, s[i+1:end], i)
			}
			segs = append(segs, segment{index: idx, arrayOnly: true})
			i = end + 1
		case ']':
			return fieldPath{}, fmt.Errorf("path %q has an unexpected ']' at offset %d", s, i)
		default: // a key straight after an index, as in "a[0]b"
			return fieldPath{}, fmt.Errorf("path %q needs '.' or '[' at offset %d", s, i)
		}
	}
	if expectKey {
		return fieldPath{}, fmt.Errorf("path %q must not end with '.'", s)
	}
	return fieldPath{raw: s, segs: segs}, nil
}

// parseIndex accepts canonical non-negative decimal integers only, as JSON
// Pointer does, so "01" stays an object key rather than aliasing index 1.
func parseIndex(s string) (int, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return n, true
}
