package scenario

import (
	"regexp"
	"strings"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
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
	path Path
	op   opcode
	// value is the decoded JSON value (numbers as float64) for equality-based
	// operators.
	value any
	str   string
	num   float64
	re    *regexp.Regexp
	size  regexlimit.Size // re's
	set   []any
}

// Match reports whether the arguments of a tools/call satisfy the condition.
// A nil args map is treated as an empty arguments object.
// Regular expressions run without a budget: Match is for arguments the
// service trusts; a call's arguments go through Matcher.MatchWithin.
func (c *Condition) Match(args map[string]any) bool {
	return c.match(args, nil)
}

// MatchWithin is Match with every regular expression run paid from b. When
// b cannot pay for one, the condition does not match and b says so.
func (c *Condition) MatchWithin(args map[string]any, b *regexlimit.Budget) bool {
	return c.match(args, b)
}

func (c *Condition) match(args map[string]any, b *regexlimit.Budget) bool {
	if c.invalid {
		return false
	}
	for i := range c.clauses {
		if !c.clauses[i].match(args, b) {
			return false
		}
	}
	return true
}

// match evaluates the clause; b, when not nil, pays for a regular
// expression run.
func (c *clause) match(args map[string]any, b *regexlimit.Budget) bool {
	v, present := c.path.Lookup(args)
	switch c.op {
	case opEquals:
		return present && jsonvalue.Equal(v, c.value)
	case opNotEquals:
		return !present || !jsonvalue.Equal(v, c.value)
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
		if !ok || (b != nil && !b.Spend(c.size.MatchCost(len(s)), c.path.Raw)) {
			return false
		}
		return c.re.MatchString(s)
	case opExists:
		return present && v != nil
	case opNotExists:
		return !present || v == nil
	case opGt, opGte, opLt, opLte:
		n, ok := jsonvalue.Float(v)
		return ok && compareNumber(c.op, n, c.num)
	case opIn:
		if !present {
			return false
		}
		for _, w := range c.set {
			if jsonvalue.Equal(v, w) {
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
			if jsonvalue.Equal(e, want) {
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
