package scenario

import "strings"

// Operator names a comparison of the operator condition form. Names are
// case-sensitive.
type Operator string

// The operators a condition may use. See the package documentation for their
// semantics.
const (
	OpEquals     Operator = "equals"
	OpNotEquals  Operator = "not_equals"
	OpContains   Operator = "contains"
	OpStartsWith Operator = "starts_with"
	OpEndsWith   Operator = "ends_with"
	OpMatches    Operator = "matches"
	OpExists     Operator = "exists"
	OpNotExists  Operator = "not_exists"
	OpGt         Operator = "gt"
	OpGte        Operator = "gte"
	OpLt         Operator = "lt"
	OpLte        Operator = "lte"
	OpIn         Operator = "in"
)

// Operators lists every valid operator in a stable order, for enumerations in
// API documents and error messages.
func Operators() []Operator {
	return []Operator{
		OpEquals, OpNotEquals, OpContains, OpStartsWith, OpEndsWith, OpMatches,
		OpExists, OpNotExists, OpGt, OpGte, OpLt, OpLte, OpIn,
	}
}

// opcode is what a compiled clause switches on: an integer switch is cheaper
// on the hot path than comparing operator strings.
type opcode uint8

const (
	opEquals opcode = iota
	opNotEquals
	opContains
	opStartsWith
	opEndsWith
	opMatches
	opExists
	opNotExists
	opGt
	opGte
	opLt
	opLte
	opIn
)

// valueKind is what an operator demands of its value at save time.
type valueKind uint8

const (
	valueAny    valueKind = iota // any JSON value, null included, but present
	valueString                  // a JSON string
	valueNumber                  // a JSON number
	valueArray                   // a JSON array
	valueNone                    // absent or null
)

type operatorSpec struct {
	code opcode
	kind valueKind
}

var operatorSpecs = map[Operator]operatorSpec{
	OpEquals:     {opEquals, valueAny},
	OpNotEquals:  {opNotEquals, valueAny},
	OpContains:   {opContains, valueAny},
	OpStartsWith: {opStartsWith, valueString},
	OpEndsWith:   {opEndsWith, valueString},
	OpMatches:    {opMatches, valueString},
	OpExists:     {opExists, valueNone},
	OpNotExists:  {opNotExists, valueNone},
	OpGt:         {opGt, valueNumber},
	OpGte:        {opGte, valueNumber},
	OpLt:         {opLt, valueNumber},
	OpLte:        {opLte, valueNumber},
	OpIn:         {opIn, valueArray},
}

func operatorList() string {
	ops := Operators()
	names := make([]string, len(ops))
	for i, op := range ops {
		names[i] = string(op)
	}
	return strings.Join(names, ", ")
}
