package scenario

// FieldError is one problem found in a condition when it is compiled.
//
// Field locates the problem relative to the scenario object, so a caller can
// prefix it with the scenario's own location, e.g. "mock_scenarios[2]." +
// Field. It is one of:
//
//   - "condition": the condition as a whole (not JSON, not an object).
//   - "condition.field", "condition.operator", "condition.value": a member of
//     an operator-form condition; "condition.<key>" (or `condition["<key>"]`
//     for a key of other characters than letters, digits and '_'): a member
//     an operator-form condition may not have.
//   - `condition["<key>"]`: one key of a plain-form condition, quoted with Go
//     string syntax because keys may contain dots and brackets.
type FieldError struct {
	Field   string
	Message string
}

// Error renders the error as "field: message".
func (e FieldError) Error() string {
	return e.Field + ": " + e.Message
}

const (
	fieldCondition = "condition"
	fieldField     = "condition.field"
	fieldOperator  = "condition.operator"
	fieldValue     = "condition.value"
)
