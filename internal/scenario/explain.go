package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"strconv"
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
// for a clause that does fail. It runs on the request path of every call
// the journal records, so it builds the reason in one buffer, allocating
// the string alone for common values.
func (c *clause) explain(args map[string]any) Mismatch {
	op := opNames[c.op]
	var arr [160]byte
	b := append(arr[:0], c.path.Raw...)
	v, present := c.path.Lookup(args)
	if present {
		b = append(b, ": "...)
	} else {
		b = append(b, ": missing ("...)
	}
	b = append(b, op...)
	switch c.op {
	case opStartsWith, opEndsWith, opMatches:
		b = appendShown(append(b, ' '), c.str)
	case opGt, opGte, opLt, opLte:
		b = appendShown(append(b, ' '), c.num)
	case opIn:
		b = appendShown(append(b, ' '), c.set)
	case opExists, opNotExists:
	default:
		b = appendShown(append(b, ' '), c.value)
	}
	if present {
		b = appendShown(append(b, " but was "...), v)
	} else {
		b = append(b, ')')
	}
	return Mismatch{Field: c.path.Raw, Operator: op, Reason: string(b)}
}

// opNames are the operators' names by opcode.
var opNames = func() [opIn + 1]string {
	var names [opIn + 1]string
	for op, spec := range operatorSpecs {
		names[spec.code] = string(op)
	}
	return names
}()

// maxShown bounds a value quoted in a reason, in characters.
const maxShown = 100

// appendShown appends a decoded JSON value to b compactly, as JSON, cut to
// maxShown characters.
func appendShown(b []byte, v any) []byte {
	start := len(b)
	b = appendJSON(b, v)
	shown := b[start:]
	if utf8.RuneCount(shown) <= maxShown {
		return b
	}
	cut, n := 0, 0
	for i := range string(shown) {
		if n == maxShown-1 {
			cut = i
			break
		}
		n++
	}
	return append(b[:start+cut], "…"...)
}

// appendJSON appends v as compact JSON without HTML escaping, as
// encoding/json would; the common kinds without allocating.
func appendJSON(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case string:
		if plain(x) {
			return append(append(append(b, '"'), x...), '"')
		}
	case float64:
		if a := math.Abs(x); a == 0 || (a >= 1e-6 && a < 1e21) {
			return strconv.AppendFloat(b, x, 'f', -1, 64)
		}
	case json.Number:
		return append(b, x...)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Appendf(b, "%v", v) // a value a caller built by hand
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// plain reports whether s is printable ASCII that JSON quotes as it is.
func plain(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
