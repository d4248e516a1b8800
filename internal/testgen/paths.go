package testgen

import (
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// lookup reads the argument at p the way the scenario matcher does.
func lookup(args map[string]any, p scenario.Path) (any, bool) {
	return p.Lookup(args)
}

// fieldSchema returns the schema of the argument at p, nil when unknown.
func (d *schemaDoc) fieldSchema(args map[string]any, p scenario.Path) any {
	root := d.flat(d.root)
	if len(p.Segments) > 1 {
		if _, lit := args[p.Raw]; lit {
			return d.property(root, p.Raw)
		}
		if d.literalProperty(p) {
			return d.property(root, p.Raw)
		}
	}
	node := any(d.root)
	var cur any = args
	for _, s := range p.Segments {
		f := d.flat(node)
		if isArrayStep(cur, f, s) {
			node = d.item(f, s.Index)
		} else {
			node = d.property(f, s.Key)
		}
		cur, _ = s.Step(cur)
	}
	return node
}

// literalProperty reports whether the input schema declares a top-level
// property named like the whole of the multi-segment path p, which the
// arguments should then hold literally.
func (d *schemaDoc) literalProperty(p scenario.Path) bool {
	props, _ := d.flat(d.root)["properties"].(map[string]any)
	_, ok := props[p.Raw]
	return ok
}

// isArrayStep decides whether segment s indexes an array when it is
// applied to cur, whose schema is f: a bracketed index always does; a
// digit key does when cur is an array, or, cur being absent, when its
// schema says array.
func isArrayStep(cur any, f map[string]any, s scenario.Segment) bool {
	if s.ArrayOnly {
		return true
	}
	if s.Index < 0 {
		return false
	}
	switch cur.(type) {
	case []any:
		return true
	case map[string]any:
		return false
	}
	return typeOf(f) == "array"
}

// set puts v at p in args, creating or replacing whatever containers the
// path needs so that lookup then finds v. Containers it creates start as
// samples of their schema, so their own required members are there.
func (d *schemaDoc) set(args map[string]any, p scenario.Path, v any) {
	if len(p.Segments) > 1 {
		if _, lit := args[p.Raw]; lit || d.literalProperty(p) {
			args[p.Raw] = v
			return
		}
	}
	first := p.Segments[0]
	rootF := d.flat(d.root)
	args[first.Key] = d.setIn(args[first.Key], d.property(rootF, first.Key), p.Segments[1:], v)
}

func (d *schemaDoc) setIn(cur, node any, segs []scenario.Segment, v any) any {
	if len(segs) == 0 {
		return v
	}
	s := segs[0]
	f := d.flat(node)
	if isArrayStep(cur, f, s) {
		a, ok := cur.([]any)
		if !ok {
			a, _ = d.sample(node).([]any)
		}
		for len(a) <= s.Index {
			a = append(a, d.sample(d.item(f, len(a))))
		}
		a[s.Index] = d.setIn(a[s.Index], d.item(f, s.Index), segs[1:], v)
		return a
	}
	m, ok := cur.(map[string]any)
	if !ok {
		m, ok = d.sample(node).(map[string]any)
		if !ok {
			m = map[string]any{}
		}
	}
	m[s.Key] = d.setIn(m[s.Key], d.property(f, s.Key), segs[1:], v)
	return m
}

// del removes the argument at p, so that lookup no longer finds it: an
// object member is deleted, an array is cut short before the element.
func del(args map[string]any, p scenario.Path) {
	if len(p.Segments) > 1 {
		delete(args, p.Raw)
	}
	first := p.Segments[0]
	if len(p.Segments) == 1 {
		delete(args, first.Key)
		return
	}
	if cur, ok := args[first.Key]; ok {
		args[first.Key] = delIn(cur, p.Segments[1:])
	}
}

func delIn(cur any, segs []scenario.Segment) any {
	s := segs[0]
	last := len(segs) == 1
	switch x := cur.(type) {
	case map[string]any:
		if s.ArrayOnly {
			return cur
		}
		if last {
			delete(x, s.Key)
		} else if e, ok := x[s.Key]; ok {
			x[s.Key] = delIn(e, segs[1:])
		}
		return x
	case []any:
		if s.Index < 0 || s.Index >= len(x) {
			return cur
		}
		if last {
			return x[:s.Index]
		}
		x[s.Index] = delIn(x[s.Index], segs[1:])
		return x
	}
	return cur
}

// overlaps reports whether two paths read the same argument or one reads
// inside the other.
func overlaps(a, b scenario.Path) bool {
	n := min(len(a.Segments), len(b.Segments))
	for i := range n {
		x, y := a.Segments[i], b.Segments[i]
		same := (x.Index >= 0 && x.Index == y.Index) || (x.Key != "" && x.Key == y.Key)
		if !same {
			return false
		}
	}
	return true
}
