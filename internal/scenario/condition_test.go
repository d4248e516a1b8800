package scenario_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/scenario"
)

func TestMatchFallback(t *testing.T) {
	runMatchCases(t, []matchCase{
		{name: "empty raw", cond: "", args: `{"a":1}`, want: true},
		{name: "null", cond: "null", args: `{"a":1}`, want: true},
		{name: "empty object", cond: "{}", args: `{"a":1}`, want: true},
		{name: "whitespace null", cond: " \n null ", args: `{}`, want: true},
		{name: "nil args", cond: "{}", args: "", want: true},
	})

	t.Run("zero condition", func(t *testing.T) {
		var c scenario.Condition
		require.True(t, c.Match(nil))
	})
}

func TestMatchPlainForm(t *testing.T) {
	runMatchCases(t, []matchCase{
		{name: "single string", cond: `{"city":"Paris"}`, args: `{"city":"Paris"}`, want: true},
		{name: "single string differs", cond: `{"city":"Paris"}`, args: `{"city":"Rome"}`, want: false},
		{name: "all pairs must match", cond: `{"a":1,"b":"x"}`, args: `{"a":1,"b":"x","c":true}`, want: true},
		{name: "one pair fails", cond: `{"a":1,"b":"x"}`, args: `{"a":1,"b":"y"}`, want: false},
		{name: "absent field", cond: `{"a":1}`, args: `{"b":1}`, want: false},
		{name: "nil args", cond: `{"a":1}`, args: "", want: false},
		{name: "number 3 equals 3.0", cond: `{"n":3}`, args: `{"n":3.0}`, want: true},
		{name: "number 3.0 equals 3", cond: `{"n":3.0}`, args: `{"n":3}`, want: true},
		{name: "number exponent", cond: `{"n":300}`, args: `{"n":3e2}`, want: true},
		{name: "number differs", cond: `{"n":3}`, args: `{"n":3.5}`, want: false},
		{name: "string is not number", cond: `{"n":3}`, args: `{"n":"3"}`, want: false},
		{name: "number is not string", cond: `{"n":"3"}`, args: `{"n":3}`, want: false},
		{name: "bool", cond: `{"b":true}`, args: `{"b":true}`, want: true},
		{name: "bool differs", cond: `{"b":true}`, args: `{"b":false}`, want: false},
		{name: "bool is not number", cond: `{"b":1}`, args: `{"b":true}`, want: false},
		{name: "value case-sensitive", cond: `{"city":"Paris"}`, args: `{"city":"paris"}`, want: false},
		{name: "key case-sensitive", cond: `{"City":"Paris"}`, args: `{"city":"Paris"}`, want: false},
		{name: "null matches present null", cond: `{"a":null}`, args: `{"a":null}`, want: true},
		{name: "null does not match absent", cond: `{"a":null}`, args: `{}`, want: false},
		{name: "null does not match value", cond: `{"a":null}`, args: `{"a":0}`, want: false},
		{name: "value does not match null", cond: `{"a":0}`, args: `{"a":null}`, want: false},
		{name: "nested object equal", cond: `{"o":{"x":1,"y":[1,{"z":"q"}]}}`, args: `{"o":{"y":[1.0,{"z":"q"}],"x":1}}`, want: true},
		{name: "nested object extra key", cond: `{"o":{"x":1}}`, args: `{"o":{"x":1,"y":2}}`, want: false},
		{name: "nested object missing key", cond: `{"o":{"x":1,"y":2}}`, args: `{"o":{"x":1}}`, want: false},
		{name: "nested object value differs", cond: `{"o":{"x":{"y":1}}}`, args: `{"o":{"x":{"y":2}}}`, want: false},
		{name: "object is not array", cond: `{"o":{}}`, args: `{"o":[]}`, want: false},
		{name: "array equal", cond: `{"a":[1,"b",null,[true]]}`, args: `{"a":[1,"b",null,[true]]}`, want: true},
		{name: "array order matters", cond: `{"a":[1,2]}`, args: `{"a":[2,1]}`, want: false},
		{name: "array length matters", cond: `{"a":[1,2]}`, args: `{"a":[1,2,3]}`, want: false},
		{name: "empty array", cond: `{"a":[]}`, args: `{"a":[]}`, want: true},
		{name: "dotted path", cond: `{"address.city":"Paris"}`, args: `{"address":{"city":"Paris","zip":"75001"}}`, want: true},
		{name: "dotted path differs", cond: `{"address.city":"Paris"}`, args: `{"address":{"city":"Lyon"}}`, want: false},
		{name: "dotted path through non-object", cond: `{"address.city":"Paris"}`, args: `{"address":"Paris"}`, want: false},
		{name: "bracket index", cond: `{"items[1].id":"b"}`, args: `{"items":[{"id":"a"},{"id":"b"}]}`, want: true},
		{name: "dot index", cond: `{"items.1.id":"b"}`, args: `{"items":[{"id":"a"},{"id":"b"}]}`, want: true},
		{name: "index out of range", cond: `{"items[2].id":"b"}`, args: `{"items":[{"id":"a"},{"id":"b"}]}`, want: false},
		{name: "nested indexes", cond: `{"m[1][0]":3}`, args: `{"m":[[1,2],[3,4]]}`, want: true},
		{name: "dot digits read object key", cond: `{"o.0":"zero"}`, args: `{"o":{"0":"zero"}}`, want: true},
		{name: "bracket index never reads object key", cond: `{"o[0]":"zero"}`, args: `{"o":{"0":"zero"}}`, want: false},
		{name: "leading zero is only a key", cond: `{"a.01":"x"}`, args: `{"a":["y","x"]}`, want: false},
		{name: "leading zero key on object", cond: `{"a.01":"x"}`, args: `{"a":{"01":"x"}}`, want: true},
		{name: "literal dotted key", cond: `{"a.b":1}`, args: `{"a.b":1}`, want: true},
		{name: "literal dotted key wins over nested", cond: `{"a.b":1}`, args: `{"a.b":1,"a":{"b":2}}`, want: true},
		{name: "literal dotted key wins even when it differs", cond: `{"a.b":2}`, args: `{"a.b":1,"a":{"b":2}}`, want: false},
		{name: "literal dotted null wins", cond: `{"a.b":null}`, args: `{"a.b":null,"a":{"b":2}}`, want: true},
		{name: "nested used without literal key", cond: `{"a.b":2}`, args: `{"a":{"b":2}}`, want: true},
		{name: "literal bracket key", cond: `{"a[0]":1}`, args: `{"a[0]":1}`, want: true},
		{name: "literal key only at top level", cond: `{"x.a.b":1}`, args: `{"x":{"a.b":1}}`, want: false},
		{name: "plain object with field and value keys", cond: `{"field":"f","value":1}`, args: `{"field":"f","value":1}`, want: true},
		// Arguments named field or operator stay plain equalities beside
		// any argument that misspells neither.
		{name: "field and values are plain", cond: `{"field":"status","values":["open"]}`, args: `{"field":"status","values":["open"]}`, want: true},
		{name: "field and value are plain", cond: `{"field":"x","value":3}`, args: `{"field":"x","value":3}`, want: true},
		{name: "file and field are plain", cond: `{"file":"a.csv","field":"name"}`, args: `{"file":"a.csv","field":"name"}`, want: true},
		{name: "operator and operands are plain", cond: `{"operator":"+","operand":2,"a":1}`, args: `{"operator":"+","operand":2,"a":1}`, want: true},
		{name: "plain field differs", cond: `{"field":"status","values":["open"]}`, args: `{"field":"kind","values":["open"]}`, want: false},
	})
}

func TestMatchOperators(t *testing.T) {
	runMatchCases(t, []matchCase{
		{name: "equals", cond: `{"field":"a","operator":"equals","value":"x"}`, args: `{"a":"x"}`, want: true},
		{name: "equals differs", cond: `{"field":"a","operator":"equals","value":"x"}`, args: `{"a":"X"}`, want: false},
		{name: "equals absent", cond: `{"field":"a","operator":"equals","value":"x"}`, args: `{}`, want: false},
		{name: "equals numeric", cond: `{"field":"a","operator":"equals","value":3}`, args: `{"a":3.0}`, want: true},
		{name: "equals null present", cond: `{"field":"a","operator":"equals","value":null}`, args: `{"a":null}`, want: true},
		{name: "equals null absent", cond: `{"field":"a","operator":"equals","value":null}`, args: `{}`, want: false},
		{name: "equals object", cond: `{"field":"a","operator":"equals","value":{"b":[1]}}`, args: `{"a":{"b":[1]}}`, want: true},
		{name: "equals dotted path", cond: `{"field":"a.b[0]","operator":"equals","value":1}`, args: `{"a":{"b":[1]}}`, want: true},
		{name: "equals key case-sensitive", cond: `{"field":"A","operator":"equals","value":1}`, args: `{"a":1}`, want: false},

		{name: "not_equals differs", cond: `{"field":"a","operator":"not_equals","value":"x"}`, args: `{"a":"y"}`, want: true},
		{name: "not_equals same", cond: `{"field":"a","operator":"not_equals","value":"x"}`, args: `{"a":"x"}`, want: false},
		{name: "not_equals absent", cond: `{"field":"a","operator":"not_equals","value":"x"}`, args: `{}`, want: true},
		{name: "not_equals numeric same", cond: `{"field":"a","operator":"not_equals","value":3}`, args: `{"a":3.0}`, want: false},
		{name: "not_equals null vs null", cond: `{"field":"a","operator":"not_equals","value":null}`, args: `{"a":null}`, want: false},
		{name: "not_equals null vs absent", cond: `{"field":"a","operator":"not_equals","value":null}`, args: `{}`, want: true},

		{name: "contains substring", cond: `{"field":"a","operator":"contains","value":"ell"}`, args: `{"a":"hello"}`, want: true},
		{name: "contains substring missing", cond: `{"field":"a","operator":"contains","value":"ELL"}`, args: `{"a":"hello"}`, want: false},
		{name: "contains empty string", cond: `{"field":"a","operator":"contains","value":""}`, args: `{"a":"hello"}`, want: true},
		{name: "contains number in string", cond: `{"field":"a","operator":"contains","value":1}`, args: `{"a":"1"}`, want: false},
		{name: "contains array element", cond: `{"field":"a","operator":"contains","value":2}`, args: `{"a":[1,2.0,3]}`, want: true},
		{name: "contains array object element", cond: `{"field":"a","operator":"contains","value":{"id":1}}`, args: `{"a":[{"id":2},{"id":1}]}`, want: true},
		{name: "contains array null element", cond: `{"field":"a","operator":"contains","value":null}`, args: `{"a":[1,null]}`, want: true},
		{name: "contains array missing", cond: `{"field":"a","operator":"contains","value":"x"}`, args: `{"a":["xy"]}`, want: false},
		{name: "contains on number", cond: `{"field":"a","operator":"contains","value":1}`, args: `{"a":1}`, want: false},
		{name: "contains on object", cond: `{"field":"a","operator":"contains","value":"k"}`, args: `{"a":{"k":1}}`, want: false},
		{name: "contains absent", cond: `{"field":"a","operator":"contains","value":"x"}`, args: `{}`, want: false},

		{name: "starts_with", cond: `{"field":"a","operator":"starts_with","value":"he"}`, args: `{"a":"hello"}`, want: true},
		{name: "starts_with no", cond: `{"field":"a","operator":"starts_with","value":"lo"}`, args: `{"a":"hello"}`, want: false},
		{name: "starts_with case", cond: `{"field":"a","operator":"starts_with","value":"He"}`, args: `{"a":"hello"}`, want: false},
		{name: "starts_with non-string", cond: `{"field":"a","operator":"starts_with","value":"1"}`, args: `{"a":12}`, want: false},
		{name: "ends_with", cond: `{"field":"a","operator":"ends_with","value":"lo"}`, args: `{"a":"hello"}`, want: true},
		{name: "ends_with no", cond: `{"field":"a","operator":"ends_with","value":"he"}`, args: `{"a":"hello"}`, want: false},
		{name: "ends_with absent", cond: `{"field":"a","operator":"ends_with","value":""}`, args: `{}`, want: false},

		{name: "matches unanchored", cond: `{"field":"a","operator":"matches","value":"l+o"}`, args: `{"a":"hello world"}`, want: true},
		{name: "matches anchored no", cond: `{"field":"a","operator":"matches","value":"^l+o$"}`, args: `{"a":"hello"}`, want: false},
		{name: "matches anchored", cond: `{"field":"a","operator":"matches","value":"^[a-z]+@example\\.com$"}`, args: `{"a":"bob@example.com"}`, want: true},
		{name: "matches case-insensitive flag", cond: `{"field":"a","operator":"matches","value":"(?i)HELLO"}`, args: `{"a":"hello"}`, want: true},
		{name: "matches non-string", cond: `{"field":"a","operator":"matches","value":"1"}`, args: `{"a":1}`, want: false},
		{name: "matches absent", cond: `{"field":"a","operator":"matches","value":".*"}`, args: `{}`, want: false},

		{name: "exists", cond: `{"field":"a","operator":"exists"}`, args: `{"a":false}`, want: true},
		{name: "exists with null value", cond: `{"field":"a","operator":"exists","value":null}`, args: `{"a":""}`, want: true},
		{name: "exists null", cond: `{"field":"a","operator":"exists"}`, args: `{"a":null}`, want: false},
		{name: "exists absent", cond: `{"field":"a","operator":"exists"}`, args: `{}`, want: false},
		{name: "exists nested", cond: `{"field":"a.b","operator":"exists"}`, args: `{"a":{"b":0}}`, want: true},
		{name: "not_exists absent", cond: `{"field":"a","operator":"not_exists"}`, args: `{}`, want: true},
		{name: "not_exists null", cond: `{"field":"a","operator":"not_exists"}`, args: `{"a":null}`, want: true},
		{name: "not_exists present", cond: `{"field":"a","operator":"not_exists"}`, args: `{"a":0}`, want: false},

		{name: "gt true", cond: `{"field":"n","operator":"gt","value":3}`, args: `{"n":3.5}`, want: true},
		{name: "gt equal", cond: `{"field":"n","operator":"gt","value":3}`, args: `{"n":3}`, want: false},
		{name: "gte equal", cond: `{"field":"n","operator":"gte","value":3}`, args: `{"n":3.0}`, want: true},
		{name: "gte less", cond: `{"field":"n","operator":"gte","value":3}`, args: `{"n":2.99}`, want: false},
		{name: "lt true", cond: `{"field":"n","operator":"lt","value":0}`, args: `{"n":-1}`, want: true},
		{name: "lt equal", cond: `{"field":"n","operator":"lt","value":0}`, args: `{"n":0}`, want: false},
		{name: "lte equal", cond: `{"field":"n","operator":"lte","value":1e3}`, args: `{"n":1000}`, want: true},
		{name: "lte greater", cond: `{"field":"n","operator":"lte","value":1e3}`, args: `{"n":1001}`, want: false},
		{name: "gt string argument", cond: `{"field":"n","operator":"gt","value":1}`, args: `{"n":"5"}`, want: false},
		{name: "gt bool argument", cond: `{"field":"n","operator":"gt","value":0}`, args: `{"n":true}`, want: false},
		{name: "lt null argument", cond: `{"field":"n","operator":"lt","value":1}`, args: `{"n":null}`, want: false},
		{name: "lt absent", cond: `{"field":"n","operator":"lt","value":1}`, args: `{}`, want: false},

		{name: "in", cond: `{"field":"a","operator":"in","value":["x",2,{"k":[1]}]}`, args: `{"a":2.0}`, want: true},
		{name: "in object", cond: `{"field":"a","operator":"in","value":["x",2,{"k":[1]}]}`, args: `{"a":{"k":[1]}}`, want: true},
		{name: "in missing", cond: `{"field":"a","operator":"in","value":["x",2]}`, args: `{"a":"X"}`, want: false},
		{name: "in empty", cond: `{"field":"a","operator":"in","value":[]}`, args: `{"a":"x"}`, want: false},
		{name: "in null present", cond: `{"field":"a","operator":"in","value":[null]}`, args: `{"a":null}`, want: true},
		{name: "in null absent", cond: `{"field":"a","operator":"in","value":[null]}`, args: `{}`, want: false},

		{name: "operator field on literal dotted key", cond: `{"field":"a.b","operator":"equals","value":1}`, args: `{"a.b":1,"a":{"b":2}}`, want: true},
		{name: "operator field named operator", cond: `{"field":"operator","operator":"equals","value":"x"}`, args: `{"operator":"x"}`, want: true},
	})
}

// TestMatchNumberTypes covers numbers a caller may put in hand-built
// arguments, beyond what encoding/json produces.
func TestMatchNumberTypes(t *testing.T) {
	c := mustCompile(t, `{"n":3}`)
	for name, v := range map[string]any{
		"int": 3, "int64": int64(3), "int32": int32(3), "uint": uint(3),
		"uint64": uint64(3), "uint32": uint32(3), "float32": float32(3),
	} {
		t.Run(name, func(t *testing.T) {
			require.True(t, c.Match(map[string]any{"n": v}))
		})
	}
	t.Run("invalid json.Number", func(t *testing.T) {
		require.False(t, c.Match(map[string]any{"n": json.Number("three")}))
	})
}
