package testgen

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
	"unicode/utf8"
)

// regexFor returns a string that the RE2 regular expression expr
// matches (unanchored, as regexp.MatchString and the "matches" operator
// read it), or false when none was found. It walks the parsed expression:
// literals as written, a character class as one of its runes (a letter or
// digit when it has one), "." as "a", repeats at their minimum count,
// alternations by their first branch that works, anchors and word
// boundaries as nothing. Every string it returns has been checked against
// the compiled expression.
func regexFor(expr string) (string, bool) {
	return regexString(expr, 0, -1)
}

// regexString is regexFor for a string whose length in runes lies in
// [minLen, maxLen] (maxLen < 0: unbounded), as a JSON Schema "pattern"
// with "minLength"/"maxLength" asks.
func regexString(expr string, minLen, maxLen int) (string, bool) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return "", false
	}
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return "", false
	}
	extras := []int{0, 1}
	if minLen > 1 {
		extras = append(extras, minLen)
	}
	for _, lastBranch := range []bool{false, true} {
		for _, extra := range extras {
			g := regexGen{extra: extra, lastBranch: lastBranch}
			var b strings.Builder
			if !g.gen(tree, &b) {
				continue
			}
			s := b.String()
			n := utf8.RuneCountInString(s)
			if n < minLen || (maxLen >= 0 && n > maxLen) {
				continue
			}
			if re.MatchString(s) {
				return s, true
			}
		}
	}
	return "", false
}

// regexGen is one strategy for walking a regular expression: extra more
// repetitions than the minimum for every repeat (an optional part taken
// when extra > 0), alternations tried from their last branch rather than
// their first.
type regexGen struct {
	extra      int
	lastBranch bool
}

// maxRegexOut bounds a generated string, so that "a{1000}{1000}" cannot
// build a megabyte.
const maxRegexOut = 4096

func (g *regexGen) gen(re *syntax.Regexp, b *strings.Builder) bool {
	if b.Len() > maxRegexOut {
		return false
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
		return true
	case syntax.OpCharClass:
		r, ok := pickRune(re.Rune)
		if ok {
			b.WriteRune(r)
		}
		return ok
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('a')
		return true
	case syntax.OpCapture:
		return g.gen(re.Sub[0], b)
	case syntax.OpStar:
		return g.repeat(re.Sub[0], g.extra, b)
	case syntax.OpPlus:
		return g.repeat(re.Sub[0], 1+g.extra, b)
	case syntax.OpQuest:
		if g.extra > 0 {
			return g.repeat(re.Sub[0], 1, b)
		}
		return true
	case syntax.OpRepeat:
		n := re.Min + g.extra
		if re.Max >= 0 && n > re.Max {
			n = re.Max
		}
		return g.repeat(re.Sub[0], n, b)
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			if !g.gen(sub, b) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		n := len(re.Sub)
		for k := range n {
			sub := re.Sub[k]
			if g.lastBranch {
				sub = re.Sub[n-1-k]
			}
			var alt strings.Builder
			alt.WriteString(b.String())
			if g.gen(sub, &alt) {
				b.Reset()
				b.WriteString(alt.String())
				return true
			}
		}
		return false
	default:
		return false
	}
}

func (g *regexGen) repeat(sub *syntax.Regexp, n int, b *strings.Builder) bool {
	for range n {
		if !g.gen(sub, b) {
			return false
		}
	}
	return true
}

// pickRune chooses a rune of a character class given as syntax's sorted
// [lo, hi] pairs: 'a', 'A' or '0' when the class has one, else its first
// printable, non-space rune, else its first rune.
func pickRune(ranges []rune) (rune, bool) {
	if len(ranges) < 2 {
		return 0, false
	}
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	for _, r := range []rune{'a', 'A', '0'} {
		if in(r) {
			return r, true
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		// Only the start of each range is scanned far: a printable rune is
		// never far from the start of a range in practice.
		for r, n := ranges[i], 0; r <= ranges[i+1] && n < 256; r, n = r+1, n+1 {
			if unicode.IsPrint(r) && !unicode.IsSpace(r) {
				return r, true
			}
		}
	}
	return ranges[0], true
}
