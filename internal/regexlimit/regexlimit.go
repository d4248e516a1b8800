// Package regexlimit bounds the regular expressions that designs carry
// (scenario conditions with the "matches" operator, and "pattern" and
// "patternProperties" in tool schemas) and the work of running them.
//
// Go's RE2 engine never backtracks, but one match still costs up to the
// length of the input times the size of the compiled program. A design may
// be called by anyone, so both factors are bounded:
//
//   - When a design is saved, an expression is refused when it is longer
//     than MaxLength characters or compiles (regexp/syntax: Parse, Simplify,
//     Compile) to more than MaxInstructions instructions. Repetition is
//     what blows programs up: (?:a|b){1000} is 13 characters and 1,002
//     instructions; ordinary patterns (an e-mail address, a date, a code)
//     compile to a few dozen.
//   - When a design is called, every regular expression run on behalf of
//     the call spends from one Budget of CallBudget units; one unit is one
//     input byte against one program instruction. The call is refused once
//     the budget is gone, before the run that would overspend it.
package regexlimit

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"unicode/utf8"
)

const (
	// MaxLength is the most characters an expression may have.
	MaxLength = 1000
	// MaxInstructions is the most instructions an expression's compiled
	// RE2 program may have.
	MaxInstructions = 2000
	// CallBudget is the regular-expression work one call may take, in
	// units of one input byte against one program instruction. The
	// slowest programs (a never-matching repetition, run by the NFA) take
	// about 25 ns a unit, so a call spends at most about a quarter of a
	// second of CPU on regular expressions, and usually far less. A
	// pattern of 10 instructions still checks a 1 MiB argument, the
	// largest allowed pattern 5 KB of it.
	CallBudget = 10_000_000
)

// Size is what an accepted expression costs to run.
type Size struct {
	// Instructions is the size of the compiled program.
	Instructions int
	// compile estimates, in budget units, what compiling the expression
	// costs: about 1 µs an instruction, plus the character classes, which
	// Unicode classes make large.
	compile int64
}

// MatchCost is the budget one match against n bytes of input may take.
func (s Size) MatchCost(n int) int64 {
	return int64(n+1) * int64(s.Instructions)
}

// CompileCost is the budget compiling the expression may take, for code
// that compiles it again at call time.
func (s Size) CompileCost() int64 { return s.compile }

// Check reports whether expr is a valid RE2 expression within the limits,
// and its Size. The error reads as the rest of a sentence about the field
// ("must be ...", "is ...").
func Check(expr string) (Size, error) {
	if n := utf8.RuneCountInString(expr); n > MaxLength {
		return Size{}, fmt.Errorf("is %d characters long; a regular expression may have at most %d", n, MaxLength)
	}
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return Size{}, fmt.Errorf("must be a valid RE2 regular expression: %w", err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return Size{}, fmt.Errorf("must be a valid RE2 regular expression: %w", err)
	}
	if n := len(prog.Inst); n > MaxInstructions {
		return Size{}, fmt.Errorf("compiles to %d instructions; a regular expression may compile to at most %d "+
			"(large repetition counts such as {1000} cost one copy of the repeated part each)", n, MaxInstructions)
	}
	s := Size{Instructions: len(prog.Inst)}
	runes := 0
	for i := range prog.Inst {
		runes += len(prog.Inst[i].Rune)
	}
	s.compile = 150*int64(len(prog.Inst)) + 5*int64(runes)
	return s, nil
}

// Compile checks expr (see Check) and compiles it.
func Compile(expr string) (*regexp.Regexp, Size, error) {
	s, err := Check(expr)
	if err != nil {
		return nil, Size{}, err
	}
	re, err := regexp.Compile(expr)
	if err != nil { // syntax accepted it above; regexp agrees
		return nil, Size{}, fmt.Errorf("must be a valid RE2 regular expression: %w", err)
	}
	return re, s, nil
}

// Budget is the regular-expression work one call may still take. The zero
// Budget has nothing left; NewBudget gives CallBudget. A Budget is used by
// one goroutine at a time.
type Budget struct {
	left  int64
	spent bool   // the budget ran out
	field string // where it ran out
}

// NewBudget returns a budget of CallBudget units.
func NewBudget() Budget { return Budget{left: CallBudget} }

// Spend takes units from the budget for work on the argument at field and
// reports whether they were there. Once it has said no, it says no to
// everything, and Field names where it ran out.
func (b *Budget) Spend(units int64, field string) bool {
	if b.spent {
		return false
	}
	if units > b.left {
		b.spent, b.field, b.left = true, field, 0
		return false
	}
	b.left -= units
	return true
}

// Exhausted reports whether a Spend was refused.
func (b *Budget) Exhausted() bool { return b.spent }

// Field names the argument whose check the budget could not pay for, as
// the caller of Spend named it; "" for the arguments as a whole.
func (b *Budget) Field() string { return b.field }

// SetField renames where the budget ran out, for a caller that learns the
// location only while unwinding.
func (b *Budget) SetField(field string) { b.field = field }

// Left is what remains.
func (b *Budget) Left() int64 { return b.left }
