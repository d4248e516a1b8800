package scenario

import "github.com/mockmcp/mockmcp/internal/regexlimit"

// Matcher picks the first matching scenario of a tool. Responses stay with the
// caller, which indexes them by the position Match returns.
//
// The zero Matcher has no scenarios and matches nothing. A Matcher is
// immutable, so Match is safe for concurrent use.
type Matcher struct {
	conds []Condition
}

// NewMatcher returns a Matcher over conds in scenario order. It copies the
// slice so later changes by the caller cannot race with matching.
func NewMatcher(conds []Condition) *Matcher {
	return &Matcher{conds: append([]Condition(nil), conds...)}
}

// Match returns the index of the first condition that args satisfy, or -1 and
// false when none does; the caller then answers with NoMatchMessage.
func (m *Matcher) Match(args map[string]any) (int, bool) {
	return m.MatchWithin(args, nil)
}

// MatchWithin is Match with every regular expression run paid from b (no
// limit when b is nil). When b runs out, the scenarios after the one being
// tried are not tried: the result is -1 and false, and b.Exhausted() says
// why.
func (m *Matcher) MatchWithin(args map[string]any, b *regexlimit.Budget) (int, bool) {
	for i := range m.conds {
		if m.conds[i].match(args, b) {
			return i, true
		}
		if b != nil && b.Exhausted() {
			return -1, false
		}
	}
	return -1, false
}
