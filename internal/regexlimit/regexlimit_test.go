package regexlimit_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

func TestCheck(t *testing.T) {
	ordinary := []string{
		`^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$`,
		`^\d{4}-\d{2}-\d{2}$`,
		`^[A-Z]{3}$`,
		`(?i)^(?:paris|london|oslo)$`,
		`^[\p{L}\p{N} ]{1,100}$`,
		`(?:a|b){500}`,
		strings.Repeat("a", regexlimit.MaxLength),
	}
	for _, expr := range ordinary {
		s, err := regexlimit.Check(expr)
		require.NoError(t, err, expr)
		require.Positive(t, s.Instructions, expr)
		require.LessOrEqual(t, s.Instructions, regexlimit.MaxInstructions, expr)
		require.Positive(t, s.CompileCost(), expr)
	}

	refused := []struct{ expr, want string }{
		{strings.Repeat("(?:a|b)", 20000), "is 140000 characters long; a regular expression may have at most 1000"},
		{strings.Repeat("a", regexlimit.MaxLength+1), "is 1001 characters long"},
		{`(?:a|b){1000}(?:c|d){1000}`, "compiles to 2002 instructions; a regular expression may compile to at most 2000"},
		{`(?:ab|cd|ef|gh|ij|kl|mn|op|qr|st|uv|wx|yz){1,100}$`, "compiles to"},
		{`(`, "must be a valid RE2 regular expression: error parsing regexp: missing closing )"},
		{`(?=x)`, "must be a valid RE2 regular expression"},
	}
	for _, tc := range refused {
		_, err := regexlimit.Check(tc.expr)
		require.ErrorContains(t, err, tc.want, tc.expr[:min(len(tc.expr), 40)])
	}
}

// A pattern of at most MaxLength characters may still compile too large.
func TestCheckShortButLarge(t *testing.T) {
	expr := strings.Repeat("(?:a|b){1000}", 3)
	require.Less(t, len(expr), regexlimit.MaxLength)
	_, err := regexlimit.Check(expr)
	require.ErrorContains(t, err, "instructions")
}

func TestBudget(t *testing.T) {
	b := regexlimit.NewBudget()
	s, err := regexlimit.Check(`^[a-z]+$`)
	require.NoError(t, err)
	require.True(t, b.Spend(s.MatchCost(1000), "a"))
	require.False(t, b.Exhausted())
	require.Equal(t, int64(regexlimit.CallBudget)-s.MatchCost(1000), b.Left())

	require.False(t, b.Spend(regexlimit.CallBudget, "b"), "more than is left")
	require.True(t, b.Exhausted())
	require.Equal(t, "b", b.Field())
	require.False(t, b.Spend(1, "c"), "an exhausted budget refuses everything")
	require.Equal(t, "b", b.Field(), "the first refusal names the field")

	var zero regexlimit.Budget
	require.False(t, zero.Spend(1, "x"))
	require.False(t, zero.Spend(0, "x"), "exhausted stays exhausted")
}
