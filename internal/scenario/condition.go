package scenario

import (
	"regexp"
	"strings"
)

// Condition is a compiled scenario condition, ready to be matched against
// tools/call arguments. Build one with Compile.
//
// The zero Condition matches every call, like an absent, null or {}
// condition. A Condition is immutable once compiled, so Match is safe for
// concurrent use.
type Condition struct {
	// clauses must all hold; a plain object yields one equals clause per key,
	// an operator object exactly one clause.
	clauses []clause
	// invalid makes a Condition returned alongside errors match nothing, so a
	// caller that drops the errors cannot turn a broken scenario into a
	// catch-all.
	invalid bool
}

type clause struct {
	path fieldPath
	op   opcode
	// value is the decoded JSON value (numbers as float64) for equality-based
	// operators.
	value any
	str   string
	num   float64
	re    *regexp.Regexp
	set   []any
}

// Match reports whether the arguments of a tools/call satisfy the condition.
// A nil args map is treated as an empty arguments object.
func (c *Condition) Match(args map[string]any) bool {
	if c.invalid {
		return false
	}
	for i := range c.clauses {
		if !c.clauses[i].match(args) {
			return false
		}
	}
	return true
}

func (c *clause) match(args map[string]any) bool {
	v, present := c.path.lookup(args)
	switch c.op {
	case opEquals:
		return present && jsonEqual(v, c.value)
	case opNotEquals:
		return !present || !jsonEqual(v, c.value)
	case opContains:
		return present && contains(v, c.value)
	case opStartsWith:
		s, ok := v.(string)
		return ok && strings.HasPrefix(s, c.str)
	case opEndsWith:
		s, ok := v.(string)
		return ok && strings.HasSuffix(s, c.str)
	case opMatches:
		s, ok := v.(string)
		return ok && c.re.MatchString(s)
	case opExists:
		return present && v != nil
	case opNotExists:
		return !present || v == nil
	case opGt, opGte, opLt, opLte:
		n, ok := toFloat(v)
		return ok && compareNumber(c.op, n, c.num)
	case opIn:
		if !present {
			return false
		}
		for _, w := range c.set {
			if jsonEqual(v, w) {
				return true
			}
		}
		return false
	default:
		return false
	}
}

func contains(arg, want any) bool {
	switch x := arg.(type) {
	case string:
		s, ok := want.(string)
		return ok && strings.Contains(x, s)
	case []any:
		for _, e := range x {
			if jsonEqual(e, want) {
				return true
			}
		}
		return false
	default:
		return false
	}
}

func compareNumber(op opcode, arg, value float64) bool {
	switch op {
	case opGt:
		return arg > value
	case opGte:
		return arg >= value
	case opLt:
		return arg < value
	default:
		return arg <= value
	}
}
