package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"unicode/utf8"
)

// Mismatch says why one scenario's condition did not match a call.
type Mismatch struct {
	Index int // the scenario's position
	// Field is the path the failing clause reads, as the condition spells
	// it; empty when the condition failed as a whole (it did not compile).
	Field string
	// Operator is the failing clause's operator; a plain object's pairs
	// report "equals".
	Operator string
	// Reason is one human-readable line naming the field, the operator,
	// what it wanted and what the call had, e.g.
	// `city: equals "Paris" but was "London"`.
	Reason string
}

// Explain says, for each scenario before upto (every scenario when upto is
// negative), why its condition does not match args: the first clause that
// failed, in evaluation order. Scenarios that do match are left out.
//
// Explain never runs a regular expression: a call's matching has already
// paid for that, and the call journal explains every recorded call. It
// takes a condition whose clause with the "matches" operator is the only
// one that can have failed as failed, so pass as upto the index Match
// returned (or -1 when nothing matched): the scenarios before it are known
// to have failed.
func (m *Matcher) Explain(args map[string]any, upto int) []Mismatch {
	var out []Mismatch
	for mm := range m.Mismatches(args, upto) {
		out = append(out, mm)
	}
	return out
}

// Mismatches yields what Explain returns, one scenario at a time, so that a
// caller with a size limit explains no more scenarios than it keeps.
func (m *Matcher) Mismatches(args map[string]any, upto int) iter.Seq[Mismatch] {
	return func(yield func(Mismatch) bool) {
		n := len(m.conds)
		if upto >= 0 && upto < n {
			n = upto
		}
		for i := range n {
			if mm, failed := m.conds[i].explain(args); failed {
				mm.Index = i
				if !yield(mm) {
					return
				}
			}
		}
	}
}

// explain returns the first failing clause of c, or false when c matches.
// Clauses with a regular expression are not run again: when no other
// clause fails, the first of them is the one that did.
func (c *Condition) explain(args map[string]any) (Mismatch, bool) {
	if c.invalid {
		return Mismatch{Reason: "the condition is invalid and matches nothing"}, true
	}
	var pattern *clause
	for i := range c.clauses {
		cl := &c.clauses[i]
		if cl.op == opMatches {
			if pattern == nil {
				pattern = cl
			}
			continue
		}
		if !cl.match(args, nil) {
			return cl.explain(args), true
		}
	}
	if pattern != nil {
		return pattern.explain(args), true
	}
	return Mismatch{}, false
}

// explain describes why the clause fails on args; it must only be called
// for a clause that does fail.
func (c *clause) explain(args map[string]any) Mismatch {
	op := opName(c.op)
	want := op
	if arg, ok := c.operand(); ok {
		want += " " + show(arg)
	}
	mm := Mismatch{Field: c.path.raw, Operator: op}
	v, present := c.path.lookup(args)
	if !present {
		mm.Reason = fmt.Sprintf("%s: missing (%s)", c.path.raw, want)
	} else {
		mm.Reason = fmt.Sprintf("%s: %s but was %s", c.path.raw, want, show(v))
	}
	return mm
}

// operand is the value the clause compares with, for display; false for the
// operators that take none.
func (c *clause) operand() (any, bool) {
	switch c.op {
	case opStartsWith, opEndsWith, opMatches:
		return c.str, true
	case opGt, opGte, opLt, opLte:
		return c.num, true
	case opIn:
		return c.set, true
	case opExists, opNotExists:
		return nil, false
	default:
		return c.value, true
	}
}

// opName is the operator's name as conditions spell it.
func opName(code opcode) string {
	for _, op := range Operators() {
		if operatorSpecs[op].code == code {
			return string(op)
		}
	}
	return "unknown"
}

// maxShown bounds a value quoted in a reason, in characters.
const maxShown = 100

// show renders a decoded JSON value compactly, as JSON, cut to maxShown
// characters.
func show(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v) // a value a caller built by hand
	}
	s := string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	if utf8.RuneCountInString(s) <= maxShown {
		return s
	}
	cut, n := 0, 0
	for i := range s {
		if n == maxShown-1 {
			cut = i
			break
		}
		n++
	}
	return s[:cut] + "…"
}
