package resttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// The operations of a condition.
const (
	OpEq           = "eq"           // the value equals Value (JSON equality)
	OpNeq          = "neq"          // the value differs from Value
	OpExists       = "exists"       // the field exists and is not null
	OpContains     = "contains"     // a string holds the substring Value, or an array an element equal to Value
	OpIsNumeric    = "isNumeric"    // a JSON number
	OpIsText       = "isText"       // a non-empty string
	OpIsArray      = "isArray"      // an array
	OpIsObject     = "isObject"     // an object
	OpMatchesRegex = "matchesRegex" // a string matching the RE2 regular expression Value
)

// Operations lists the operations a condition may name, in the order the
// documentation gives them.
var Operations = []string{
	OpEq, OpNeq, OpExists, OpContains, OpIsNumeric, OpIsText, OpIsArray, OpIsObject, OpMatchesRegex,
}

// needsValue reports whether op takes a Value; it returns false for an
// unknown operation.
func needsValue(op string) bool {
	switch op {
	case OpEq, OpNeq, OpContains, OpMatchesRegex:
		return true
	}
	return false
}

func knownOperation(op string) bool {
	for _, o := range Operations {
		if o == op {
			return true
		}
	}
	return false
}

// hasValue reports whether a condition's value is given: absent and JSON
// null both count as not given for operations that take no value, while
// eq and neq may compare with null.
func hasValue(raw json.RawMessage) bool {
	return len(bytes.TrimSpace(raw)) > 0
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

var jsonNull = json.RawMessage("null")

// Evaluate checks one condition against a parsed response body (a value
// decoded by decodeJSON). A path that does not exist fails the condition
// with Actual null; so does an invalid path, an unknown operation or a
// missing value, each with a message saying so.
func Evaluate(c Condition, body any) ConditionResult {
	res := ConditionResult{
		Path:      c.Path,
		Operation: c.Operation,
		Expected:  compactOrNull(c.Value),
		Actual:    jsonNull,
	}
	if !needsValue(c.Operation) {
		res.Expected = jsonNull
	}
	p, err := ParsePath(c.Path)
	if err != nil {
		res.Message = "invalid path: " + err.Error()
		return res
	}
	if !knownOperation(c.Operation) {
		res.Message = fmt.Sprintf("unknown operation %q", c.Operation)
		return res
	}
	var want any
	if needsValue(c.Operation) {
		if !hasValue(c.Value) {
			res.Message = c.Operation + " needs a value"
			return res
		}
		if want, err = decodeJSON(c.Value); err != nil {
			res.Message = "the expected value is not JSON: " + err.Error()
			return res
		}
	}
	got, found := p.Lookup(body)
	if !found {
		res.Message = "path not found"
		return res
	}
	res.Actual = marshalValue(got)
	res.Passed, res.Message = check(c.Operation, got, want)
	return res
}

// check applies op to the value found; it returns a reason when it fails.
func check(op string, got, want any) (bool, string) {
	switch op {
	case OpEq:
		if jsonvalue.Equal(got, want) {
			return true, ""
		}
		return false, "not equal to the expected value"
	case OpNeq:
		if !jsonvalue.Equal(got, want) {
			return true, ""
		}
		return false, "equal to the value"
	case OpExists:
		if got != nil {
			return true, ""
		}
		return false, "is null"
	case OpContains:
		switch g := got.(type) {
		case string:
			w, ok := want.(string)
			if !ok {
				return false, fmt.Sprintf("is a string, and a string cannot contain %s", jsonvalue.TypeName(want))
			}
			if strings.Contains(g, w) {
				return true, ""
			}
			return false, "does not contain the substring"
		case []any:
			for _, e := range g {
				if jsonvalue.Equal(e, want) {
					return true, ""
				}
			}
			return false, "has no element equal to the value"
		default:
			return false, fmt.Sprintf("is %s, not a string or an array", jsonvalue.TypeName(got))
		}
	case OpIsNumeric:
		if jsonvalue.IsNumber(got) {
			return true, ""
		}
		return false, fmt.Sprintf("is %s, not a number", jsonvalue.TypeName(got))
	case OpIsText:
		s, ok := got.(string)
		if !ok {
			return false, fmt.Sprintf("is %s, not a string", jsonvalue.TypeName(got))
		}
		if s == "" {
			return false, "is an empty string"
		}
		return true, ""
	case OpIsArray:
		if _, ok := got.([]any); ok {
			return true, ""
		}
		return false, fmt.Sprintf("is %s, not an array", jsonvalue.TypeName(got))
	case OpIsObject:
		if _, ok := got.(map[string]any); ok {
			return true, ""
		}
		return false, fmt.Sprintf("is %s, not an object", jsonvalue.TypeName(got))
	case OpMatchesRegex:
		expr, ok := want.(string)
		if !ok {
			return false, "the regular expression must be a string"
		}
		re, size, err := regexlimit.Compile(expr)
		if err != nil {
			return false, "the regular expression " + err.Error()
		}
		s, ok := got.(string)
		if !ok {
			return false, fmt.Sprintf("is %s, not a string", jsonvalue.TypeName(got))
		}
		if size.MatchCost(len(s)) > regexlimit.CallBudget {
			return false, fmt.Sprintf("is too long (%d bytes) to check against this regular expression of %d instructions",
				len(s), size.Instructions)
		}
		if re.MatchString(s) {
			return true, ""
		}
		return false, "does not match the regular expression"
	}
	return false, fmt.Sprintf("unknown operation %q", op)
}

// marshalValue encodes a decoded JSON value without HTML escaping.
func marshalValue(v any) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return jsonNull
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n"))
}

// compactOrNull returns raw compacted, or null when raw is absent or not
// JSON.
func compactOrNull(raw json.RawMessage) json.RawMessage {
	if !hasValue(raw) {
		return jsonNull
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return jsonNull
	}
	return json.RawMessage(buf.Bytes())
}
