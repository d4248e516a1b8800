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
	segs, err := jsonvalue.ParsePath(s, jsonvalue.PathSyntax{})
	if err != nil {
		return Path{}, fmt.Errorf("path %q %v", s, err)
	}
	return Path{Raw: s, Segments: segs}, nil
}
