package scenario

import (
	"fmt"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

// fieldPath is a parsed field path. Parsing happens at compile time so that
// lookups only walk prepared segments.
type fieldPath struct {
	raw  string
	segs []jsonvalue.Segment // never empty; segs[0] is always a key
}

// lookup returns the argument at the path and whether it is present.
func (p *fieldPath) lookup(args map[string]any) (any, bool) {
	cur, ok := args[p.segs[0].Key]
	if len(p.segs) == 1 {
		return cur, ok
	}
	// A literal top-level key spelled like the whole path wins, so that
	// arguments with dotted names stay addressable.
	if v, lit := args[p.raw]; lit {
		return v, true
	}
	for i := 1; ok && i < len(p.segs); i++ {
		cur, ok = p.segs[i].Step(cur)
	}
	return cur, ok
}

// parsePath parses "a.b", "a[0].b" and "a.0.b" style paths. It is strict
// rather than lenient because a malformed path would otherwise silently
// never match, which is worse than a save-time error.
func parsePath(s string) (fieldPath, error) {
	if s == "" {
		return fieldPath{}, fmt.Errorf("must not be empty")
	}
	var segs []jsonvalue.Segment
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
			segs = append(segs, jsonvalue.KeySegment(s[i:j]))
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
			idx, ok := jsonvalue.ParseIndex(s[i+1 : end])
			if !ok {
				return fieldPath{}, fmt.Errorf("path %q has an invalid array index %q at offset %d: want a non-negative integer without leading zeros", s, s[i+1:end], i)
			}
			segs = append(segs, jsonvalue.Segment{Index: idx, ArrayOnly: true})
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
