package scenario_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/scenario"
)

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		name string
		cond string
		// want lists the expected Fields in order; messages are checked to
		// contain the matching wantMsg fragment.
		want    []string
		wantMsg []string
	}{
		{name: "string", cond: `"x"`, want: []string{"condition"}, wantMsg: []string{"must be a JSON object or null"}},
		{name: "array", cond: `[{"a":1}]`, want: []string{"condition"}, wantMsg: []string{"must be a JSON object or null"}},
		{name: "number", cond: `1`, want: []string{"condition"}, wantMsg: []string{"object"}},
		{name: "bool", cond: `true`, want: []string{"condition"}, wantMsg: []string{"object"}},
		{name: "invalid JSON", cond: `{"a":`, want: []string{"condition"}, wantMsg: []string{"valid JSON"}},
		{name: "trailing garbage", cond: `{} x`, want: []string{"condition"}, wantMsg: []string{"valid JSON"}},

		{name: "unknown operator", cond: `{"field":"a","operator":"like","value":"x"}`, want: []string{"condition.operator"}, wantMsg: []string{`unknown operator "like"`}},
		{name: "operator case-sensitive", cond: `{"field":"a","operator":"EQUALS","value":"x"}`, want: []string{"condition.operator"}, wantMsg: []string{`"EQUALS"`}},
		{name: "empty operator", cond: `{"field":"a","operator":"","value":"x"}`, want: []string{"condition.operator"}, wantMsg: []string{"unknown operator"}},
		{name: "empty field", cond: `{"field":"","operator":"equals","value":"x"}`, want: []string{"condition.field"}, wantMsg: []string{"must not be empty"}},
		{name: "empty field and unknown operator", cond: `{"field":"","operator":"nope","value":"x"}`, want: []string{"condition.field", "condition.operator"}, wantMsg: []string{"empty", "unknown"}},
		{name: "bad path and bad value", cond: `{"field":"a..b","operator":"gt","value":"x"}`, want: []string{"condition.field", "condition.value"}, wantMsg: []string{"empty key", "must be a number"}},

		{name: "path leading dot", cond: `{"field":".a","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"must start with a key"}},
		{name: "path leading index", cond: `{"field":"[0]","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"must start with a key"}},
		{name: "path trailing dot", cond: `{"field":"a.","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"must not end with '.'"}},
		{name: "path unclosed bracket", cond: `{"field":"a[0","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"unclosed '['"}},
		{name: "path non-numeric index", cond: `{"field":"a[x]","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"invalid array index"}},
		{name: "path negative index", cond: `{"field":"a[-1]","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"invalid array index"}},
		{name: "path empty index", cond: `{"field":"a[]","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"invalid array index"}},
		{name: "path leading zero index", cond: `{"field":"a[01]","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"invalid array index"}},
		{name: "path huge index", cond: `{"field":"a[99999999999999999999999]","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"invalid array index"}},
		{name: "path stray bracket", cond: `{"field":"a]","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"unexpected ']'"}},
		{name: "path dot before index", cond: `{"field":"a.[0]","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{`path "a.[0]" has '.' before '[' at offset 1`}},
		{name: "path dot before stray bracket", cond: `{"field":"a.]","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"unexpected ']' at offset 2"}},
		{name: "path key after index without dot", cond: `{"field":"a[0]b","operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"needs '.' or '[' at offset 4"}},

		{name: "matches invalid regex", cond: `{"field":"a","operator":"matches","value":"a(b"}`, want: []string{"condition.value"}, wantMsg: []string{"valid RE2"}},
		{name: "matches lookahead is not RE2", cond: `{"field":"a","operator":"matches","value":"a(?=b)"}`, want: []string{"condition.value"}, wantMsg: []string{"valid RE2"}},
		{name: "matches number", cond: `{"field":"a","operator":"matches","value":1}`, want: []string{"condition.value"}, wantMsg: []string{"must be a string"}},
		{name: "matches missing value", cond: `{"field":"a","operator":"matches"}`, want: []string{"condition.value"}, wantMsg: []string{"is required"}},
		{name: "starts_with number", cond: `{"field":"a","operator":"starts_with","value":1}`, want: []string{"condition.value"}, wantMsg: []string{"must be a string", "got a number"}},
		{name: "starts_with null", cond: `{"field":"a","operator":"starts_with","value":null}`, want: []string{"condition.value"}, wantMsg: []string{"got null"}},
		{name: "ends_with array", cond: `{"field":"a","operator":"ends_with","value":["x"]}`, want: []string{"condition.value"}, wantMsg: []string{"got an array"}},
		{name: "ends_with missing", cond: `{"field":"a","operator":"ends_with"}`, want: []string{"condition.value"}, wantMsg: []string{"is required"}},
		{name: "gt string", cond: `{"field":"a","operator":"gt","value":"5"}`, want: []string{"condition.value"}, wantMsg: []string{"must be a number", "got a string"}},
		{name: "gte bool", cond: `{"field":"a","operator":"gte","value":true}`, want: []string{"condition.value"}, wantMsg: []string{"got a boolean"}},
		{name: "lt object", cond: `{"field":"a","operator":"lt","value":{}}`, want: []string{"condition.value"}, wantMsg: []string{"got an object"}},
		{name: "lte missing", cond: `{"field":"a","operator":"lte"}`, want: []string{"condition.value"}, wantMsg: []string{"is required"}},
		{name: "gt out of range number", cond: `{"field":"a","operator":"gt","value":1e999}`, want: []string{"condition.value"}, wantMsg: []string{"valid JSON value"}},
		{name: "in string", cond: `{"field":"a","operator":"in","value":"x"}`, want: []string{"condition.value"}, wantMsg: []string{"must be an array"}},
		{name: "in missing", cond: `{"field":"a","operator":"in"}`, want: []string{"condition.value"}, wantMsg: []string{"is required"}},
		{name: "exists with value", cond: `{"field":"a","operator":"exists","value":true}`, want: []string{"condition.value"}, wantMsg: []string{"must be absent or null"}},
		{name: "not_exists with value", cond: `{"field":"a","operator":"not_exists","value":""}`, want: []string{"condition.value"}, wantMsg: []string{"must be absent or null"}},
		{name: "equals missing value", cond: `{"field":"a","operator":"equals"}`, want: []string{"condition.value"}, wantMsg: []string{"is required"}},
		{name: "not_equals missing value", cond: `{"field":"a","operator":"not_equals"}`, want: []string{"condition.value"}, wantMsg: []string{"is required"}},
		{name: "contains missing value", cond: `{"field":"a","operator":"contains"}`, want: []string{"condition.value"}, wantMsg: []string{"is required"}},

		{name: "misspelt operator", cond: `{"field":"q","oprator":"gt","value":3}`, want: []string{"condition.oprator"}, wantMsg: []string{"unknown key 'oprator' (did you mean operator?)"}},
		{name: "misspelt field", cond: `{"feild":"q","operator":"gt","value":3}`, want: []string{"condition.feild"}, wantMsg: []string{"unknown key 'feild' (did you mean field?)"}},
		{name: "misspelt value", cond: `{"field":"q","operator":"gt","valeu":3}`, want: []string{"condition.valeu"}, wantMsg: []string{"unknown key 'valeu' (did you mean value?)"}},
		{name: "capitalised members", cond: `{"Field":"q","Operator":"gt","value":3}`, want: []string{"condition.Field", "condition.Operator"}, wantMsg: []string{"(did you mean field?)", "(did you mean operator?)"}},
		{name: "extra member", cond: `{"field":"f","operator":"equals","value":1,"x":1}`, want: []string{"condition.x"}, wantMsg: []string{"unknown key 'x' (an operator condition has only field, operator and value)"}},
		{name: "extra member quoted", cond: `{"field":"f","operator":"exists","a b":1}`, want: []string{`condition["a b"]`}, wantMsg: []string{"unknown key 'a b'"}},
		{name: "operator not a string", cond: `{"field":"f","operator":1}`, want: []string{"condition.operator"}, wantMsg: []string{"must be a string"}},
		{name: "field not a string", cond: `{"field":1,"operator":"exists"}`, want: []string{"condition.field"}, wantMsg: []string{"must be a string"}},
		{name: "operator missing", cond: `{"field":"f","operators":"gt","value":1}`, want: []string{"condition.operators"}, wantMsg: []string{"(did you mean operator?)"}},
		{name: "field missing", cond: `{"fields":"f","operator":"gt","value":1}`, want: []string{"condition.fields"}, wantMsg: []string{"(did you mean field?)"}},

		{name: "plain bad path", cond: `{"a..b":1}`, want: []string{`condition["a..b"]`}, wantMsg: []string{"invalid field path"}},
		{name: "plain empty key", cond: `{"":1}`, want: []string{`condition[""]`}, wantMsg: []string{"must not be empty"}},
		{name: "plain all problems sorted", cond: `{"z[":1,"ok":2,"a.":3}`, want: []string{`condition["a."]`, `condition["z["]`}, wantMsg: []string{"end with", "unclosed"}},
		{name: "plain out of range number", cond: `{"n":1e999}`, want: []string{`condition["n"]`}, wantMsg: []string{"valid JSON value"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, errs := scenario.Compile(json.RawMessage(tc.cond))
			fields := make([]string, len(errs))
			for i, e := range errs {
				fields[i] = e.Field
			}
			require.Equal(t, tc.want, fields, "errors: %v", errs)
			for i, e := range errs {
				require.Contains(t, e.Message, tc.wantMsg[i])
				require.Equal(t, e.Field+": "+e.Message, e.Error())
			}
			require.Equal(t, errs, scenario.Check(json.RawMessage(tc.cond)))
			require.False(t, c.Match(map[string]any{"a": "x", "n": 1.0}), "a failed condition must match nothing")
		})
	}
}

func TestCompileUnknownOperatorListsValidOnes(t *testing.T) {
	_, errs := scenario.Compile(json.RawMessage(`{"field":"a","operator":"like"}`))
	require.Len(t, errs, 1)
	for _, op := range scenario.Operators() {
		require.Contains(t, errs[0].Message, string(op))
	}
}

func TestCompileAcceptsEveryOperator(t *testing.T) {
	values := map[scenario.Operator]string{
		scenario.OpEquals: `1`, scenario.OpNotEquals: `null`, scenario.OpContains: `"x"`,
		scenario.OpStartsWith: `"x"`, scenario.OpEndsWith: `""`, scenario.OpMatches: `"^x$"`,
		scenario.OpGt: `1`, scenario.OpGte: `-1.5`, scenario.OpLt: `0`, scenario.OpLte: `1e3`,
		scenario.OpIn: `[]`,
	}
	for _, op := range scenario.Operators() {
		t.Run(string(op), func(t *testing.T) {
			cond := `{"field":"a","operator":"` + string(op) + `"`
			if v, ok := values[op]; ok {
				cond += `,"value":` + v
			}
			require.Empty(t, scenario.Check(json.RawMessage(cond+"}")))
		})
	}
}

// TestIsOperatorForm: the rule that tells the two object forms apart,
// by member names alone.
func TestIsOperatorForm(t *testing.T) {
	for _, tc := range []struct {
		names []string
		want  bool
	}{
		{[]string{"field", "operator", "value"}, true},
		{[]string{"field", "operator"}, true},
		{[]string{"field", "oprator", "value"}, true},
		{[]string{"feild", "operator"}, true},
		{[]string{"FIELD", "OPERATOR"}, true},
		{[]string{"field", "operater", "city"}, true},
		{[]string{"field", "fields"}, true},
		{[]string{"field"}, false},
		{[]string{"operator"}, false},
		{[]string{"field", "value"}, false},
		{[]string{"field", "values"}, false},
		{[]string{"field", "file"}, false},
		{[]string{"operator", "operand", "a"}, false},
		{[]string{"fild", "oprator"}, false},
		{[]string{"city"}, false},
		{nil, false},
	} {
		require.Equal(t, tc.want, scenario.IsOperatorForm(tc.names), "%q", tc.names)
	}
}
