package schema

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/kaptinlin/jsonschema"

	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// visitCost is what the estimate charges the budget for each subschema
// applied to each value, whether or not it has a regular expression: the
// library's own work grows with these, and "$ref" can multiply them (two
// references to a definition of two references to ..., 30 deep, is a
// billion evaluations of one small value). With CallBudget that allows a
// million applications, which the library evaluates in about a second.
const visitCost = 10

// overBudget is the violation of a value whose check would take more than
// the call's budget.
func overBudget(path []step) Violation {
	return Violation{Path: pointer(path), Field: dotted(path), Message: fmt.Sprintf(
		"the value is too large to check against the schema's regular expressions "+
			"(a call may take %d units of work: input bytes times pattern instructions)", regexlimit.CallBudget)}
}

// estimate charges b, before the library runs, with an upper bound of the
// work validating v will take: every regular expression run (and every
// "patternProperties" key compiled, which the library does anew each time
// it applies the subschema) and every subschema application. It follows
// the library's evaluation, erring on the side of more: every subschema
// that may apply to a value is counted as applying. It returns false, and
// where the budget ran out, when b cannot pay.
func (s *Schema) estimate(v any, b *regexlimit.Budget) (bool, []step) {
	if s.fast != nil {
		var failed []step
		ok := estimateFast(s.fast, v, b, &failed)
		slices.Reverse(failed)
		return ok, failed
	}
	e := estimators.Get().(*estimator)
	e.sizes, e.anchors, e.b = s.sizes, s.anchors, b
	ok := e.visit(s.primary, v, 0)
	path := e.failed
	slices.Reverse(path)
	*e = estimator{chain: e.chain[:0]}
	estimators.Put(e)
	return ok, path
}

var estimators = sync.Pool{New: func() any { return new(estimator) }}

type estimator struct {
	sizes   map[string]regexlimit.Size
	anchors map[string][]*jsonschema.Schema
	b       *regexlimit.Budget
	// chain holds the subschemas being applied; chain[base:] in visit
	// those applied to the current value, for the library's cycle rule.
	chain []*jsonschema.Schema
	// failed is where the budget ran out, innermost step first.
	failed []step
}

func (e *estimator) spend(units int64) bool { return e.b.Spend(units, "") }

// size is an expression's, as scanned at compile time; an expression not
// found there is charged as the largest allowed.
func (e *estimator) size(expr string) regexlimit.Size {
	if sz, ok := e.sizes[expr]; ok {
		return sz
	}
	return largest
}

// largest is the size of an expression as large as the limits allow.
var largest = func() regexlimit.Size {
	// Two 999-fold repetitions of a large class: 2,000 instructions.
	sz, err := regexlimit.Check(`[\p{L}\p{N}]{999}[\p{L}\p{N}]{999}`)
	if err != nil {
		panic(err)
	}
	return sz
}()

func (e *estimator) visit(s *jsonschema.Schema, v any, base int) bool {
	if s == nil {
		return true
	}
	if !e.spend(visitCost) {
		return false
	}
	if s.Boolean != nil {
		return true
	}
	if s.PatternProperties != nil {
		obj, _ := v.(map[string]any)
		keyBytes := 0
		for k := range obj {
			keyBytes += len(k) + 1
		}
		for expr := range *s.PatternProperties {
			sz := e.size(expr)
			if !e.spend(sz.CompileCost()) || !e.spend(int64(keyBytes)*int64(sz.Instructions)) {
				return false
			}
		}
	}
	if str, ok := v.(string); ok && s.Pattern != nil {
		if !e.spend(e.size(*s.Pattern).MatchCost(len(str))) {
			return false
		}
	}
	if slices.Contains(e.chain[base:], s) {
		return true // the library applies no subschema again to the same value
	}
	e.chain = append(e.chain, s)
	defer func() { e.chain = e.chain[:len(e.chain)-1] }()

	same := func(children ...*jsonschema.Schema) bool {
		for _, c := range children {
			if !e.visit(c, v, base) {
				return false
			}
		}
		return true
	}
	if !same(s.ResolvedRef, s.ResolvedDynamicRef, s.Not, s.If, s.Then, s.Else) ||
		!same(s.AllOf...) || !same(s.AnyOf...) || !same(s.OneOf...) {
		return false
	}
	if s.ResolvedDynamicRef != nil {
		// The library may pick, at run time, any subschema of the same
		// dynamic anchor in scope.
		if !same(e.anchors[s.ResolvedDynamicRef.DynamicAnchor]...) {
			return false
		}
	}
	for _, c := range s.DependentSchemas {
		if !same(c) {
			return false
		}
	}

	next := len(e.chain)
	child := func(c *jsonschema.Schema, cv any, at step) bool {
		if c == nil || e.visit(c, cv, next) {
			return true
		}
		e.failed = append(e.failed, at)
		return false
	}
	switch x := v.(type) {
	case map[string]any:
		for k, cv := range x {
			at := keyStep(k)
			if s.Properties != nil {
				if c, ok := (*s.Properties)[k]; ok && !child(c, cv, at) {
					return false
				}
			}
			if s.PatternProperties != nil {
				for _, c := range *s.PatternProperties {
					if !child(c, cv, at) {
						return false
					}
				}
			}
			if !child(s.AdditionalProperties, cv, at) || !child(s.UnevaluatedProperties, cv, at) ||
				!child(s.PropertyNames, k, at) {
				return false
			}
		}
	case []any:
		for i, cv := range x {
			at := indexStep(i)
			if i < len(s.PrefixItems) && !child(s.PrefixItems[i], cv, at) {
				return false
			}
			if !child(s.Items, cv, at) || !child(s.Contains, cv, at) || !child(s.UnevaluatedItems, cv, at) {
				return false
			}
		}
	case string:
		if s.ContentSchema != nil {
			return e.content(s, x, next)
		}
	}
	return true
}

// content charges for "contentSchema", which the library applies to the
// string's decoded content: base64 and JSON are decoded here as the library
// does; content of another media type is not estimated, and refused.
func (e *estimator) content(s *jsonschema.Schema, str string, base int) bool {
	raw := []byte(str)
	if s.ContentEncoding != nil {
		if *s.ContentEncoding != "base64" {
			return true // the library refuses the encoding before decoding
		}
		var err error
		if raw, err = base64.StdEncoding.DecodeString(str); err != nil {
			return true // nor is invalid base64 decoded further
		}
	}
	if s.ContentMediaType != nil && *s.ContentMediaType != "application/json" {
		return e.spend(math.MaxInt64)
	}
	var decoded any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		// Not JSON: the library evaluates the bytes, to which no
		// regular expression applies.
		return e.visit(s.ContentSchema, raw, base)
	}
	if nestedDeeper(decoded, maxDepth) {
		return e.spend(math.MaxInt64)
	}
	// Where in the content the budget ran out is no field of the call:
	// the string is.
	n := len(e.failed)
	ok := e.visit(s.ContentSchema, decoded, base)
	e.failed = e.failed[:n]
	return ok
}
