package scenario

import (
	"fmt"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

// Lookup returns the argument at the path and whether it is present: a
// top-level member named like the whole path wins (so that arguments with
// dotted names stay addressable), then the path is walked through objects
// and arrays.
func (p *Path) Lookup(args map[string]any) (any, bool) {
	cur, ok := args[p.Segments[0].Key]
	if len(p.Segments) == 1 {
		return cur, ok
	}
	if v, lit := args[p.Raw]; lit {
		return v, true
	}
	for i := 1; ok && i < len(p.Segments); i++ {
		cur, ok = p.Segments[i].Step(cur)
	}
	return cur, ok
}

// parsePath parses "a.b", "a[0].b" and "a.0.b" style paths. It is strict
// rather than lenient because a malformed path would otherwise silently
// never match, which is worse than a save-time error.
func parsePath(s string) (Path, error) {
	if s == "" {
		return Path{}, fmt.Errorf("must not be empty")
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
					return Path{}, fmt.Errorf("path %q must start with a key", s)
				}
				return Path{}, fmt.Errorf("path %q has an empty key at offset %d", s, i)
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
				return Path{}, fmt.Errorf("path %q has an unclosed '[' at offset %d", s, i)
			}
			idx, ok := jsonvalue.ParseIndex(s[i+1 : end])
			if !ok {
				return Path{}, fmt.Errorf("path %q has an invalid array index %q at offset %d: want a non-negative integer without leading zeros", s, s[i+1:end], i)
			}
			segs = append(segs, jsonvalue.Segment{Index: idx, ArrayOnly: true})
			i = end + 1
		case ']':
			return Path{}, fmt.Errorf("path %q has an unexpected ']' at offset %d", s, i)
		default: // a key straight after an index, as in "a[0]b"
			return Path{}, fmt.Errorf("path %q needs '.' or '[' at offset %d", s, i)
		}
	}
	if expectKey {
		return Path{}, fmt.Errorf("path %q must not end with '.'", s)
	}
	return Path{Raw: s, Segments: segs}, nil
}
