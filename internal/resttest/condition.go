package resttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

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
		if jsonEqual(got, want) {
			return true, ""
		}
		return false, "not equal to the expected value"
	case OpNeq:
		if !jsonEqual(got, want) {
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
				return false, fmt.Sprintf("is a string, and a string cannot contain %s", typeName(want))
			}
			if strings.Contains(g, w) {
				return true, ""
			}
			return false, "does not contain the substring"
		case []any:
			for _, e := range g {
				if jsonEqual(e, want) {
					return true, ""
				}
			}
			return false, "has no element equal to the value"
		default:
			return false, fmt.Sprintf("is %s, not a string or an array", typeName(got))
		}
	case OpIsNumeric:
		if isNumber(got) {
			return true, ""
		}
		return false, fmt.Sprintf("is %s, not a number", typeName(got))
	case OpIsText:
		s, ok := got.(string)
		if !ok {
			return false, fmt.Sprintf("is %s, not a string", typeName(got))
		}
		if s == "" {
			return false, "is an empty string"
		}
		return true, ""
	case OpIsArray:
		if _, ok := got.([]any); ok {
			return true, ""
		}
		return false, fmt.Sprintf("is %s, not an array", typeName(got))
	case OpIsObject:
		if _, ok := got.(map[string]any); ok {
			return true, ""
		}
		return false, fmt.Sprintf("is %s, not an object", typeName(got))
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
			return false, fmt.Sprintf("is %s, not a string", typeName(got))
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

// jsonEqual reports whether two decoded JSON values are equal as JSON:
// numbers by value (1, 1.0 and 1e0 are equal), objects whatever their key
// order, arrays element by element.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	xs, ok := numberText(a)
	if !ok {
		return false
	}
	ys, ok := numberText(b)
	return ok && numbersEqual(xs, ys)
}

func isNumber(v any) bool {
	_, ok := numberText(v)
	return ok
}

func numberText(v any) (string, bool) {
	switch n := v.(type) {
	case json.Number:
		return string(n), true
	case float64:
		return strconv.FormatFloat(n, 'g', -1, 64), true
	}
	return "", false
}

// numbersEqual compares two JSON numbers exactly by value, without the
// rounding of float64 (9007199254740993 and 9007199254740992 differ) and
// without the cost of arbitrary precision on huge exponents.
func numbersEqual(a, b string) bool {
	if a == b {
		return true
	}
	na, okA := normalizeNumber(a)
	nb, okB := normalizeNumber(b)
	if okA && okB {
		return na == nb
	}
	fa, errA := strconv.ParseFloat(a, 64)
	fb, errB := strconv.ParseFloat(b, 64)
	return errA == nil && errB == nil && fa == fb
}

type decimal struct {
	neg    bool
	digits string // significant digits, no leading or trailing zeros; "" for zero
	exp    int    // value = digits × 10^exp
}

// normalizeNumber reads a JSON number into a canonical decimal; it fails
// only on text that is not a JSON number or on an absurd exponent.
func normalizeNumber(s string) (decimal, bool) {
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg = true
		s = s[1:]
	}
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" {
		return decimal{}, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return decimal{}, false
		}
	}
	exp := 0
	if hasExp {
		if len(strings.TrimLeft(strings.TrimLeft(expText, "+-"), "0")) > 9 {
			return decimal{}, false
		}
		e, err := strconv.Atoi(expText)
		if err != nil {
			return decimal{}, false
		}
		exp = e
	}
	exp -= len(frac)
	digits = strings.TrimLeft(digits, "0")
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	d.digits = trimmed
	d.exp = exp
	if d.digits == "" {
		return decimal{}, true // zero, whatever its sign and exponent
	}
	return d, true
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return "an unknown type"
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
