package scenario_test

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/scenario"
)

// FuzzOperators compiles every operator on one field and one value and
// matches the conditions against arbitrary arguments, checking what the
// operators mean together: equals and not_equals, exists and not_exists
// are complements; in [v] is equals v; of gt and lte (lt and gte) exactly
// one holds for a number and neither otherwise; matches a quoted, anchored
// string is equals it; the string operators agree with package strings.
// It also checks that a Matcher picks the first condition that matches,
// that matching leaves the arguments untouched, and that the arguments
// used as a plain condition match themselves.
func FuzzOperators(f *testing.F) {
	for _, s := range []struct{ field, value, args string }{
		{"a", `1`, `{"a":1}`},
		{"a", `1`, `{"a":1.0}`},
		{"a", `"x"`, `{"a":"xyz"}`},
		{"a", `""`, `{"a":""}`},
		{"a", `null`, `{"a":null}`},
		{"a", `[1,"x"]`, `{"a":[1,"x"]}`},
		{"a", `{"k":[1]}`, `{"a":{"k":[1]}}`},
		{"a.b", `"c"`, `{"a":{"b":"c"},"a.b":"d"}`},
		{"a[1]", `2`, `{"a":[1,2]}`},
		{"a.0", `1`, `{"a":{"0":1}}`},
		{"n", `123456789012345678901234567890`, `{"n":123456789012345678901234567890}`},
		{"n", `1e308`, `{"n":1e308}`},
		{"n", `-0`, `{"n":0}`},
		{"n", `5e-324`, `{"n":0}`},
		{"s", `"\u0000"`, `{"s":"a\u0000b"}`},
		{"s", "\"\xff\xfe\"", "{\"s\":\"\xff\xfe\"}"},
		{"s", `"\ud800"`, `{"s":"\ud800"}`},
		{"s", `"(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)"`, `{"s":"abababababababab"}`},
		{"s", `"` + strings.Repeat("(?:a|b)", 200) + `"`, `{"s":"` + strings.Repeat("ab", 150) + `c"}`},
		{"s", `"^(a+)+$"`, `{"s":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab"}`},
		{"s", `"a{1000}"`, `{"s":"a"}`},
		{"d", `1`, `{"d":` + strings.Repeat(`[`, 100) + strings.Repeat(`]`, 100) + `}`},
		{"x", `1`, ``},
		{"", `1`, `{"":1}`},
	} {
		f.Add(s.field, s.value, s.args, false)
		f.Add(s.field, s.value, s.args, true)
	}
	f.Fuzz(func(t *testing.T, field, value, args string, useNumber bool) {
		var v any
		if json.Unmarshal([]byte(value), &v) != nil {
			return
		}
		m, ok := fuzzArgs(args, useNumber)
		if !ok {
			return
		}
		before, err := json.Marshal(m)
		if err != nil {
			return // invalid UTF-8 marshals, so only a failure elsewhere
		}

		ops := scenario.Operators()
		conds := make([]scenario.Condition, 0, len(ops)+3)
		got := map[scenario.Operator]bool{}
		compiled := map[scenario.Operator]bool{}
		for _, op := range ops {
			operand := json.RawMessage(value)
			if op == scenario.OpExists || op == scenario.OpNotExists {
				operand = nil // these take no value
			}
			c, errs := scenario.Compile(operatorCondition(t, field, op, operand))
			for _, e := range errs {
				require.NotEmpty(t, e.Field, "an error without a field: %+v", e)
				require.NotEmpty(t, e.Message, "an error without a message: %+v", e)
			}
			conds = append(conds, c)
			if len(errs) > 0 {
				continue
			}
			compiled[op] = true
			got[op] = c.Match(m)
			paths := c.Paths()
			require.Len(t, paths, 1)
			require.Equal(t, asJSON(t, field), paths[0].Raw)
			require.NotEmpty(t, paths[0].Segments)
			require.NotEmpty(t, paths[0].Segments[0].Key, "the first segment of %q is not a key", field)
		}
		if len(compiled) == 0 {
			return // the field is no path
		}
		require.True(t, compiled[scenario.OpEquals] && compiled[scenario.OpExists], "field %q compiles for some operators only: %v", field, compiled)
		require.NotEqual(t, got[scenario.OpEquals], got[scenario.OpNotEquals], "equals and not_equals of %s on %s", value, args)
		require.NotEqual(t, got[scenario.OpExists], got[scenario.OpNotExists], "exists and not_exists on %s", args)

		in, errs := scenario.Compile(operatorCondition(t, field, scenario.OpIn, json.RawMessage("["+value+"]")))
		require.Empty(t, errs)
		conds = append(conds, in)
		require.Equal(t, got[scenario.OpEquals], in.Match(m), "in [%s] and equals %s on %s", value, value, args)

		if compiled[scenario.OpGt] {
			require.False(t, got[scenario.OpGt] && got[scenario.OpLte], "gt and lte %s both hold on %s", value, args)
			require.False(t, got[scenario.OpLt] && got[scenario.OpGte], "lt and gte %s both hold on %s", value, args)
			number := got[scenario.OpGt] || got[scenario.OpLte]
			require.Equal(t, number, got[scenario.OpLt] || got[scenario.OpGte], "gt/lte and lt/gte disagree on %s", args)
		}
		if s, isString := v.(string); isString {
			arg, isStr := lookupString(m, field)
			if compiled[scenario.OpStartsWith] && isStr {
				require.Equal(t, strings.HasPrefix(arg, s), got[scenario.OpStartsWith])
				require.Equal(t, strings.HasSuffix(arg, s), got[scenario.OpEndsWith])
				require.Equal(t, strings.Contains(arg, s), got[scenario.OpContains])
			}
			quoted, errs := scenario.Compile(operatorCondition(t, field, scenario.OpMatches,
				mustJSON(t, `^`+regexp.QuoteMeta(s)+`$`)))
			if len(errs) == 0 { // quoting may make the pattern too long
				conds = append(conds, quoted)
				if _, present := lookupString(m, field); present {
					require.Equal(t, got[scenario.OpEquals], quoted.Match(m), "matches the quoted %q and equals it on %s", s, args)
				}
			}
		}

		// A Matcher answers the first condition that matches.
		first := -1
		for i := range conds {
			if conds[i].Match(m) {
				first = i
				break
			}
		}
		i, ok := scenario.NewMatcher(conds).Match(m)
		require.Equal(t, first, i)
		require.Equal(t, first >= 0, ok)

		after, err := json.Marshal(m)
		require.NoError(t, err)
		require.Equal(t, string(before), string(after), "matching changed the arguments")

		// The arguments, as a plain condition, match themselves when their
		// keys are plain names.
		self := map[string]any{}
		for k, x := range m {
			if k != "" && !strings.ContainsAny(k, ".[]") {
				self[k] = x
			}
		}
		if len(self) == 0 {
			return
		}
		raw, err := json.Marshal(self)
		require.NoError(t, err)
		c, errs := scenario.Compile(raw)
		if len(errs) > 0 {
			return // an operator condition in disguise, or a number out of range
		}
		require.True(t, c.Match(m), "the condition %s does not match itself", raw)
	})
}

// fuzzArgs decodes arguments as the endpoint may, or reports false for
// what is not an arguments object (an empty string stands for none).
func fuzzArgs(args string, useNumber bool) (map[string]any, bool) {
	d := json.NewDecoder(strings.NewReader(args))
	if useNumber {
		d.UseNumber()
	}
	var m map[string]any
	if d.Decode(&m) != nil {
		return nil, args == ""
	}
	return m, true
}

// operatorCondition is the condition {field, operator, value}, without
// value when it is nil.
func operatorCondition(t *testing.T, field string, op scenario.Operator, value json.RawMessage) json.RawMessage {
	t.Helper()
	c := map[string]any{"field": field, "operator": op}
	if value != nil {
		c["value"] = value
	}
	raw, err := json.Marshal(c)
	require.NoError(t, err)
	return raw
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return raw
}

// asJSON is s as it reads back from JSON: invalid UTF-8 becomes U+FFFD.
func asJSON(t *testing.T, s string) string {
	t.Helper()
	var out string
	require.NoError(t, json.Unmarshal(mustJSON(t, s), &out))
	return out
}

// lookupString reads a top-level string argument whose name is the whole
// field (a field without dots or brackets).
func lookupString(m map[string]any, field string) (string, bool) {
	if strings.ContainsAny(field, ".[]") {
		return "", false
	}
	s, ok := m[field].(string)
	return s, ok
}
