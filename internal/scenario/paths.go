package scenario

// Path is a field path a compiled condition reads, as Compile parsed it. It
// lets save-time checks compare a condition with the tool's input schema
// without parsing paths a second time.
type Path struct {
	// Raw is the path as the condition spells it, such as "items[0].id".
	Raw string
	// Segments are its steps in order; there is at least one, and the first
	// is always a key.
	Segments []Segment
}

// Segment is one step of a Path.
type Segment struct {
	// Key is the member name the step reads from an object; it is "" for a
	// bracketed index.
	Key string
	// Index is the array element the step reads, or -1 when the step cannot
	// address one. A dot-separated segment of digits has both a Key and an
	// Index: which applies depends on the value it is read from.
	Index int
	// ArrayOnly marks a bracketed index ("items[0]"), which never reads an
	// object member.
	ArrayOnly bool
}

// Paths returns the field paths the condition reads, in the order its
// clauses are evaluated (a plain condition's keys sorted). It returns nil for
// a condition that matches every call and for one that failed to compile.
// The result is a copy the caller may keep or modify.
func (c *Condition) Paths() []Path {
	if c.invalid || len(c.clauses) == 0 {
		return nil
	}
	out := make([]Path, len(c.clauses))
	for i := range c.clauses {
		p := &c.clauses[i].path
		segs := make([]Segment, len(p.segs))
		for j, s := range p.segs {
			segs[j] = Segment{Key: s.key, Index: s.index, ArrayOnly: s.arrayOnly}
		}
		out[i] = Path{Raw: p.raw, Segments: segs}
	}
	return out
}
