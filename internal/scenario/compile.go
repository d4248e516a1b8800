package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// Compile checks a raw condition and prepares it for matching. raw may be
// nil, empty, null or {}, all of which give a Condition that always matches.
//
// When the condition has problems Compile returns every one it can find,
// ordered by field, and a Condition that never matches; the condition must
// then be rejected rather than stored.
func Compile(raw json.RawMessage) (Condition, []FieldError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Condition{}, nil
	}
	if !json.Valid(raw) {
		return failed(FieldError{Field: fieldCondition, Message: "must be valid JSON"})
	}
	if raw[0] != '{' {
		return failed(FieldError{Field: fieldCondition, Message: "must be a JSON object or null"})
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return failed(FieldError{Field: fieldCondition, Message: "must be a JSON object or null: " + err.Error()})
	}
	var (
		c    Condition
		errs []FieldError
	)
	if isOperatorForm(obj) {
		c, errs = compileOperator(obj)
	} else {
		c, errs = compilePlain(obj)
	}
	if len(errs) > 0 {
		return Condition{invalid: true}, errs
	}
	return c, nil
}

// Check reports the problems Compile would find, for save-time validation
// that has no use for the compiled Condition.
func Check(raw json.RawMessage) []FieldError {
	_, errs := Compile(raw)
	return errs
}

func failed(errs ...FieldError) (Condition, []FieldError) {
	return Condition{invalid: true}, errs
}

// isOperatorForm applies the documented rule that tells the two object forms
// apart (see IsOperatorForm).
func isOperatorForm(obj map[string]json.RawMessage) bool {
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	return IsOperatorForm(names)
}

func compileOperator(obj map[string]json.RawMessage) (Condition, []FieldError) {
	c, errs := compileOperatorMembers(obj)
	errs = append(unknownMembers(obj), errs...)
	if len(errs) > 0 {
		slices.SortStableFunc(errs, func(a, b FieldError) int { return strings.Compare(a.Field, b.Field) })
		return Condition{}, errs
	}
	return c, nil
}

// unknownMembers refuses the members of an operator condition other than
// field, operator and value, suggesting the one a member misspells.
func unknownMembers(obj map[string]json.RawMessage) []FieldError {
	var errs []FieldError
	for k := range obj {
		if slices.Contains(operatorKeys, k) {
			continue
		}
		msg := fmt.Sprintf("unknown key '%s' (an operator condition has only field, operator and value)", k)
		if s := suggestKey(k); s != "" {
			msg = fmt.Sprintf("unknown key '%s' (did you mean %s?)", k, s)
		}
		errs = append(errs, FieldError{Field: memberField(k), Message: msg})
	}
	return errs
}

// misspelt reports whether a member of obj is a misspelling of key, so
// that key's absence is said once, by the misspelt member's error.
func misspelt(obj map[string]json.RawMessage, key string) bool {
	for k := range obj {
		if k != key && suggestKey(k) == key {
			return true
		}
	}
	return false
}

// stringMember reads the string member key of an operator condition; ok
// is false, with the problem in errs, when it is absent or not a string.
func stringMember(obj map[string]json.RawMessage, key, field string, errs *[]FieldError) (string, bool) {
	raw, has := obj[key]
	switch {
	case !has && misspelt(obj, key):
		return "", false
	case !has:
		*errs = append(*errs, FieldError{Field: field, Message: "is required in an operator condition"})
		return "", false
	case !isJSONString(raw):
		*errs = append(*errs, FieldError{Field: field, Message: "must be a string"})
		return "", false
	}
	var s string
	_ = json.Unmarshal(raw, &s) // a JSON string of a validated document
	return s, true
}

func compileOperatorMembers(obj map[string]json.RawMessage) (Condition, []FieldError) {
	var errs []FieldError
	field, fieldOK := stringMember(obj, keyField, fieldField, &errs)
	op, opOK := stringMember(obj, keyOperator, fieldOperator, &errs)

	cl := clause{}
	switch {
	case !fieldOK:
	case field == "":
		errs = append(errs, FieldError{Field: fieldField, Message: "must not be empty"})
	default:
		if p, err := parsePath(field); err != nil {
			errs = append(errs, FieldError{Field: fieldField, Message: err.Error()})
		} else {
			cl.path = p
		}
	}
	if !opOK {
		return Condition{}, errs
	}

	spec, known := operatorSpecs[Operator(op)]
	if !known {
		errs = append(errs, FieldError{
			Field:   fieldOperator,
			Message: fmt.Sprintf("unknown operator %q; want one of %s", op, operatorList()),
		})
		return Condition{}, errs
	}
	cl.op = spec.code

	rawValue, hasValue := obj[keyValue]
	if !hasValue && misspelt(obj, keyValue) {
		return Condition{}, errs
	}
	var value any
	if hasValue {
		var err error
		if value, err = jsonvalue.Decode(rawValue); err != nil {
			errs = append(errs, FieldError{Field: fieldValue, Message: "must be a valid JSON value: " + err.Error()})
			return Condition{}, errs
		}
	}
	if msg := checkValue(Operator(op), spec.kind, hasValue, value); msg != "" {
		errs = append(errs, FieldError{Field: fieldValue, Message: msg})
		return Condition{}, errs
	}
	switch spec.kind {
	case valueString:
		cl.str = value.(string)
		if spec.code == opMatches {
			re, size, err := regexlimit.Compile(cl.str)
			if err != nil {
				errs = append(errs, FieldError{Field: fieldValue, Message: err.Error()})
				return Condition{}, errs
			}
			cl.re, cl.size = re, size
		}
	case valueNumber:
		cl.num, _ = jsonvalue.Float(value)
	case valueArray:
		cl.set = value.([]any)
	case valueAny:
		cl.value = value
	}
	if len(errs) > 0 {
		return Condition{}, errs
	}
	return Condition{clauses: []clause{cl}}, nil
}

// checkValue returns why value does not suit the operator, or "".
func checkValue(op Operator, kind valueKind, has bool, value any) string {
	want := ""
	switch kind {
	case valueNone:
		if has && value != nil {
			return fmt.Sprintf("must be absent or null for operator %q, got %s", op, jsonvalue.TypeName(value))
		}
		return ""
	case valueAny:
		if !has {
			return fmt.Sprintf("is required for operator %q", op)
		}
		return ""
	case valueString:
		if _, ok := value.(string); ok {
			return ""
		}
		want = "a string"
	case valueNumber:
		if jsonvalue.IsNumber(value) {
			return ""
		}
		want = "a number"
	case valueArray:
		if _, ok := value.([]any); ok {
			return ""
		}
		want = "an array"
	}
	if !has {
		return fmt.Sprintf("is required for operator %q and must be %s", op, want)
	}
	return fmt.Sprintf("must be %s for operator %q, got %s", want, op, jsonvalue.TypeName(value))
}

func compilePlain(obj map[string]json.RawMessage) (Condition, []FieldError) {
	// Sorted keys make clause order, and so error order, deterministic.
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	var (
		clauses = make([]clause, 0, len(keys))
		errs    []FieldError
	)
	for _, k := range keys {
		at := fieldCondition + "[" + strconv.Quote(k) + "]"
		p, err := parsePath(k)
		if err != nil {
			errs = append(errs, FieldError{Field: at, Message: "invalid field path: " + err.Error()})
			continue
		}
		value, err := jsonvalue.Decode(obj[k])
		if err != nil {
			errs = append(errs, FieldError{Field: at, Message: "must be a valid JSON value: " + err.Error()})
			continue
		}
		clauses = append(clauses, clause{path: p, op: opEquals, value: value})
	}
	if len(errs) > 0 {
		return Condition{}, errs
	}
	return Condition{clauses: clauses}, nil
}

func isJSONString(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '"'
}
