package jsonvalue

import (
	"strconv"
	"strings"
)

// Segment is one step of a field path through decoded JSON.
type Segment struct {
	// Key is the member name the step reads from an object; it is "" for
	// a bracketed index.
	Key string
	// Index is the array element the step reads, or -1 when the step cannot
	// address one. A dot-separated segment of digits has both a Key and an
	// Index: which applies depends on the value it is read from.
	Index int
	// ArrayOnly marks a bracketed index ("items[0]"), which never reads an
	// object member.
	ArrayOnly bool
	// ObjectOnly marks a quoted key (`["a.b"]`), which never reads an
	// array element.
	ObjectOnly bool
}

// KeySegment is the segment a dotted key spells: it reads the member key
// of an object, and, when key is an index (see ParseIndex), that element
// of an array.
func KeySegment(key string) Segment {
	i, ok := ParseIndex(key)
	if !ok {
		i = -1
	}
	return Segment{Key: key, Index: i}
}

// Step returns the member or element of v the segment reads, and whether
// it is there.
func (s Segment) Step(v any) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		if s.ArrayOnly {
			return nil, false
		}
		e, ok := x[s.Key]
		return e, ok
	case []any:
		if s.ObjectOnly || s.Index < 0 || s.Index >= len(x) {
			return nil, false
		}
		return x[s.Index], true
	}
	return nil, false
}

// Walk follows segs from v and returns the value reached and whether it is
// there. A member present with the value null is there: (nil, true).
func Walk(v any, segs []Segment) (any, bool) {
	for _, s := range segs {
		var ok bool
		if v, ok = s.Step(v); !ok {
			return nil, false
		}
	}
	return v, true
}

// ParseIndex accepts canonical non-negative decimal integers that fit an
// int, as JSON Pointer spells array indexes, so "01" stays an object key
// rather than aliasing index 1.
func ParseIndex(s string) (int, bool) {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// Dotted writes segs as a field path: keys joined with '.' and bracketed
// indexes as "[i]", such as "items[0].id".
func Dotted(segs []Segment) string {
	var b strings.Builder
	for i, s := range segs {
		switch {
		case s.ArrayOnly:
			b.WriteString("[" + strconv.Itoa(s.Index) + "]")
		case i > 0:
			b.WriteString("." + s.Key)
		default:
			b.WriteString(s.Key)
		}
	}
	return b.String()
}
