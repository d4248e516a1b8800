package scenario

import (
	"slices"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

// Path is a field path a compiled condition reads, as Compile parsed it. It
// lets save-time checks compare a condition with the tool's input schema
// without parsing paths a second time, and test generation read arguments
// as the matcher does (Lookup).
type Path struct {
	// Raw is the path as the condition spells it, such as "items[0].id".
	Raw string
	// Segments are its steps in order; there is at least one, and the first
	// is always a key.
	Segments []Segment
}

// Segment is one step of a Path: a key, an index, or a dotted run of
// digits that is both (see jsonvalue.Segment).
type Segment = jsonvalue.Segment

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
		out[i] = Path{Raw: p.Raw, Segments: slices.Clone(p.Segments)}
	}
	return out
}
