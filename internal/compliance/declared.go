package compliance

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/mockmcp/mockmcp/internal/jsonptr"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// undeclared explains why the input schema root, decoded from JSON, does
// not declare the condition field path p, or returns "".
//
// The check is meant to catch misspelt and stale field names, so it only
// complains where the schema says something definite: a key missing from
// the "properties" that apply there, a member of an object closed with
// "additionalProperties": false, a member of a value of another type, or an
// index past the end of a closed tuple. Where the schema says nothing (true,
// {}, a "$ref" it cannot follow, an object without "properties") the rest of
// the path is accepted.
//
// Properties count as declared when any schema applying to the value
// declares them: the schema itself, the target of its "$ref", and the
// members of its allOf, anyOf and oneOf and its then and else, so that a
// property declared in one alternative is not reported.
func undeclared(root any, p scenario.Path) string {
	w := walker{root: root}
	cur := []any{root}
	for i, seg := range p.Segments {
		v := w.view(cur)
		if v.unknown {
			return ""
		}
		// The matcher reads a top-level member named like the whole path
		// before the nested reading.
		if i == 0 && len(p.Segments) > 1 && v.declares(p.Raw) {
			return ""
		}
		at := location(p.Segments[:i])
		var (
			next []any
			msg  string
		)
		if seg.ArrayOnly || (seg.Index >= 0 && v.isArray()) {
			next, msg = v.index(seg.Index, at)
		} else {
			next, msg = v.member(seg.Key, at)
		}
		if msg != "" {
			return fmt.Sprintf("condition field %q: %s", p.Raw, msg)
		}
		if len(next) == 0 {
			return ""
		}
		cur = next
	}
	return ""
}

// location renders the path to where a segment is read: "" for the
// arguments object, else the path as written, such as "items[0]".
func location(segs []scenario.Segment) string { return jsonvalue.Dotted(segs) }

func in(at string) string {
	if at == "" {
		return "at the top level"
	}
	return fmt.Sprintf("in %q", at)
}

func named(at string) string {
	if at == "" {
		return "the arguments"
	}
	return strconv.Quote(at)
}

type walker struct {
	root any
}

// view is what the schemas applying to one value say about it.
type view struct {
	props    []map[string]any
	patterns []map[string]any
	types    []string
	// closed is set by "additionalProperties": false.
	closed bool
	// arrays are the schemas that say something about elements.
	arrays []map[string]any
	// unknown is set when a "$ref" could not be followed, so nothing can be
	// concluded.
	unknown bool
}

func (w *walker) view(schemas []any) *view {
	v := &view{}
	seen := map[string]bool{} // "$ref"s followed, which also stops cycles
	for _, s := range schemas {
		w.gather(v, s, seen)
	}
	return v
}

func (w *walker) gather(v *view, s any, seen map[string]bool) {
	m, ok := s.(map[string]any)
	if !ok {
		return // true, false or missing: nothing is declared
	}
	if p, ok := m["properties"].(map[string]any); ok {
		v.props = append(v.props, p)
	}
	if p, ok := m["patternProperties"].(map[string]any); ok {
		v.patterns = append(v.patterns, p)
	}
	switch t := m["type"].(type) {
	case string:
		v.types = append(v.types, t)
	case []any:
		for _, e := range t {
			if s, ok := e.(string); ok {
				v.types = append(v.types, s)
			}
		}
	}
	if m["additionalProperties"] == false {
		v.closed = true
	}
	_, items := m["items"]
	_, prefix := m["prefixItems"]
	if items || prefix {
		v.arrays = append(v.arrays, m)
	}
	if ref, ok := m["$ref"].(string); ok && !seen[ref] {
		seen[ref] = true
		if target, ok := w.resolve(ref); ok {
			w.gather(v, target, seen)
		} else {
			v.unknown = true
		}
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := m[kw].([]any)
		for _, s := range list {
			w.gather(v, s, seen)
		}
	}
	for _, kw := range []string{"then", "else"} {
		if s, ok := m[kw]; ok {
			w.gather(v, s, seen)
		}
	}
}

// resolve follows a "$ref" that is a JSON Pointer into the document itself,
// optionally prefixed with the document's "$id". Anything else (anchors,
// nested "$id"s) is reported as not followed.
func (w *walker) resolve(ref string) (any, bool) {
	base, frag, _ := strings.Cut(ref, "#")
	if base != "" {
		root, _ := w.root.(map[string]any)
		id, _ := root["$id"].(string)
		if base != strings.TrimSuffix(id, "#") {
			return nil, false
		}
	}
	frag, err := url.PathUnescape(frag)
	if err != nil || (frag != "" && !strings.HasPrefix(frag, "/")) {
		return nil, false
	}
	return jsonptr.Get(w.root, frag)
}

func (v *view) declares(key string) bool {
	return slices.ContainsFunc(v.props, func(p map[string]any) bool {
		_, ok := p[key]
		return ok
	})
}

func (v *view) isArray() bool {
	return len(v.arrays) > 0 || slices.Contains(v.types, "array")
}

// member returns the schemas of member key of the value at at, none when
// nothing is known about it, or why the schema does not declare it.
func (v *view) member(key, at string) ([]any, string) {
	var next []any
	for _, p := range v.props {
		if s, ok := p[key]; ok {
			next = append(next, s)
		}
	}
	for _, p := range v.patterns {
		for _, pattern := range slices.Sorted(maps.Keys(p)) {
			re, err := regexp.Compile(pattern)
			if err != nil {
				// An ECMA-262 pattern Go cannot read might match.
				return nil, ""
			}
			if re.MatchString(key) {
				next = append(next, p[pattern])
			}
		}
	}
	switch {
	case len(next) > 0:
		return next, ""
	case len(v.props) > 0:
		return nil, fmt.Sprintf("inputSchema declares no property %q %s; declared there: %s", key, in(at), v.declared())
	case v.closed:
		return nil, fmt.Sprintf("inputSchema declares no properties %s and allows no others", in(at))
	case len(v.types) > 0 && !slices.Contains(v.types, "object"):
		return nil, fmt.Sprintf("inputSchema declares %s as %s, which has no properties", named(at), v.typeNames())
	}
	return nil, ""
}

// index returns the schemas of element i of the value at at, none when
// nothing is known about it, or why the schema does not allow it.
func (v *view) index(i int, at string) ([]any, string) {
	if len(v.arrays) == 0 {
		if len(v.types) > 0 && !slices.Contains(v.types, "array") {
			return nil, fmt.Sprintf("inputSchema declares %s as %s, not an array", named(at), v.typeNames())
		}
		return nil, ""
	}
	var (
		next  []any
		tuple int
	)
	for _, m := range v.arrays {
		s, known, past := element(m, i)
		switch {
		case !known:
			return nil, ""
		case past > 0:
			tuple = max(tuple, past)
		default:
			next = append(next, s)
		}
	}
	if len(next) == 0 {
		return nil, fmt.Sprintf("inputSchema declares %s as a tuple of %d items with no more allowed, so index %d is past its end", named(at), tuple, i)
	}
	return next, ""
}

// element returns the schema of element i under array schema m. known is
// false when m says nothing about that element; past is the tuple length
// when m allows no element i.
func element(m map[string]any, i int) (s any, known bool, past int) {
	var (
		tuple   []any
		restKey string
	)
	if p, ok := m["prefixItems"].([]any); ok {
		tuple, restKey = p, "items" // 2020-12
	} else if p, ok := m["items"].([]any); ok {
		tuple, restKey = p, "additionalItems" // Draft 7 and 2019-09
	} else {
		return m["items"], true, 0
	}
	if i < len(tuple) {
		return tuple[i], true, 0
	}
	rest, ok := m[restKey]
	switch {
	case !ok:
		return nil, false, 0
	case rest == false:
		return nil, true, len(tuple)
	}
	return rest, true, 0
}

// declared lists the property names of the view, sorted, the first few.
func (v *view) declared() string {
	const shown = 10
	var names []string
	for _, p := range v.props {
		for k := range p {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 0 {
		return "none"
	}
	if len(names) > shown {
		return strings.Join(names[:shown], ", ") + fmt.Sprintf(" and %d more", len(names)-shown)
	}
	return strings.Join(names, ", ")
}

func (v *view) typeNames() string {
	t := slices.Clone(v.types)
	slices.Sort(t)
	return strings.Join(slices.Compact(t), " or ")
}
