package resttest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// A matchesRegex condition is bounded like every user regular expression:
// refused when saved if it compiles too large, and not run on a value it
// could not check within one call's budget.
func TestMatchesRegexBounded(t *testing.T) {
	t.Run("too large a program is refused when saved", func(t *testing.T) {
		c := validCase()
		v, _ := json.Marshal(`(?:a|b){1000}(?:c|d){1000}`) // short, but over 2,000 instructions
		e := c.Input.Expectations["GET /users/{id}"]
		e.Conditions = []Condition{{Path: "a", Operation: OpMatchesRegex, Value: v}}
		c.Input.Expectations["GET /users/{id}"] = e
		fields := CheckCase(c)
		require.Len(t, fields, 1)
		require.Equal(t, `input.expectations["GET /users/{id}"].conditions[0].value`, fields[0].Field)
		require.Contains(t, fields[0].Message, "instructions")
	})

	expr := strings.Repeat("[a-z]", 150) // accepted: 750 characters, hundreds of instructions
	size, err := regexlimit.Check(expr)
	require.NoError(t, err)
	v, _ := json.Marshal(expr)
	cond := Condition{Path: "s", Operation: OpMatchesRegex, Value: v}

	short := strings.Repeat("a", 150)
	res := Evaluate(cond, map[string]any{"s": short})
	require.True(t, res.Passed, res.Message)

	long := strings.Repeat("a", int(regexlimit.CallBudget/int64(size.Instructions))+1)
	res = Evaluate(cond, map[string]any{"s": long})
	require.False(t, res.Passed)
	require.Contains(t, res.Message, "too long")
}
