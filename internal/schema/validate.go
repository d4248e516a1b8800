package schema

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kaptinlin/jsonschema"

	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// Validate checks v, a value decoded from JSON into an any by encoding/json
// (numbers as float64 or, with UseNumber, json.Number), and returns why it
// does not satisfy the schema, or nil when it does. Required violations
// come first, then the others; each group is sorted by Path, Field, Keyword
// and Message, so a missing top-level property heads the list.
// A value nested more than 100 levels deep is refused with a single
// violation without a Keyword.
//
// Absent tools/call arguments should be validated as an empty object, so
// that required properties are reported as missing.
//
// The regular expressions the schema runs, and its subschema applications,
// are paid from a budget of regexlimit.CallBudget; a value that would cost
// more is refused, before any of it is checked, with a single violation
// without a Keyword naming where the budget ran out.
func (s *Schema) Validate(v any) []Violation {
	if s.fast != nil && s.acceptsFast(v) {
		return nil
	}
	b := regexlimit.NewBudget()
	return s.ValidateWithin(v, &b)
}

// acceptsFast reports whether the fast path accepts v within a budget of
// its own, which unlike ValidateWithin's does not leave the stack. When it
// does not, Validate starts over on the library's path.
func (s *Schema) acceptsFast(v any) bool {
	if nestedDeeper(v, maxDepth) {
		return false
	}
	if s.bounded {
		b := regexlimit.NewBudget()
		var failed []step
		if !estimateFast(s.fast, v, &b, &failed) {
			return false
		}
	}
	return s.fast.check(v) == accepted
}

// ValidateWithin is Validate paying from b, which a caller may share with
// other work of the same call. When b runs out, b.Exhausted() is true and
// b.Field() names where, as Violation.Field does.
func (s *Schema) ValidateWithin(v any, b *regexlimit.Budget) (vs []Violation) {
	if nestedDeeper(v, maxDepth) {
		return []Violation{tooDeep}
	}
	if s.bounded {
		if ok, path := s.estimate(v, b); !ok {
			over := overBudget(path)
			b.SetField(over.Field)
			return []Violation{over}
		}
	}
	defer func() {
		if recover() != nil {
			vs = []Violation{unchecked}
		}
	}()
	if s.fast != nil && s.fast.check(v) == accepted {
		return nil
	}
	tree, spare := s.acquire()
	if tree == nil {
		return []Violation{unchecked}
	}
	defer s.release(tree, spare)
	// ValidateStruct evaluates v as it is; Validate would take a []byte for
	// JSON text to parse.
	res := tree.ValidateStruct(v)
	if res.IsValid() {
		return nil
	}
	return violations(res, v)
}

// tooDeep refuses values whose evaluation could take disproportionate time;
// see maxDepth.
var tooDeep = Violation{Message: fmt.Sprintf("the value is nested more than %d levels deep", maxDepth)}

// unchecked stands in when the library fails internally: the call is
// refused rather than let through unchecked.
var unchecked = Violation{Message: "the value could not be checked against the schema"}

// violations flattens the library's nested result into the failures an
// author can act on, at their true instance locations.
func violations(res *jsonschema.EvaluationResult, inst any) []Violation {
	var out []Violation
	collect(res, inst, nil, &out)
	if len(out) == 0 {
		// Every invalid result carries an error; should all of them have been
		// summaries, report those rather than claim success.
		for _, kw := range slices.Sorted(maps.Keys(res.Errors)) {
			out = append(out, Violation{Keyword: kw, Message: render(res.Errors[kw])})
		}
	}
	sortViolations(out)
	// The same failure can be reached twice, e.g. through allOf branches
	// referencing one definition.
	return slices.Compact(out)
}

func sortViolations(vs []Violation) {
	slices.SortFunc(vs, func(a, b Violation) int {
		if ra, rb := a.Keyword == "required", b.Keyword == "required"; ra != rb {
			if ra {
				return -1
			}
			return 1
		}
		return cmp.Or(
			strings.Compare(a.Path, b.Path),
			strings.Compare(a.Field, b.Field),
			strings.Compare(a.Keyword, b.Keyword),
			strings.Compare(a.Message, b.Message),
		)
	})
}

// summaryCodes are errors that only say "a subschema failed"; the failures
// themselves are found by descending into the result's details.
var summaryCodes = map[string]bool{
	"ref_mismatch":                    true,
	"dynamic_ref_mismatch":            true,
	"all_of_item_mismatch":            true,
	"property_mismatch":               true,
	"properties_mismatch":             true,
	"pattern_property_mismatch":       true,
	"pattern_properties_mismatch":     true,
	"additional_property_mismatch":    true,
	"additional_properties_mismatch":  true,
	"unevaluated_property_mismatch":   true,
	"unevaluated_properties_mismatch": true,
	"property_name_mismatch":          true,
	"property_names_mismatch":         true,
	"dependent_schema_mismatch":       true,
	"dependent_schemas_mismatch":      true,
	"item_mismatch":                   true,
	"items_mismatch":                  true,
	"prefix_item_mismatch":            true,
	"prefix_items_mismatch":           true,
	"unevaluated_item_mismatch":       true,
	"unevaluated_items_mismatch":      true,
	"if_then_mismatch":                true,
	"if_else_mismatch":                true,
}

func collect(r *jsonschema.EvaluationResult, inst any, path []step, out *[]Violation) {
	for _, d := range r.Details {
		if d.Valid {
			continue
		}
		childInst, childPath := inst, path
		switch keywordOf(d.EvaluationPath) {
		case "anyOf", "oneOf", "not", "if", "contains", "contentSchema":
			// A failing branch here is not itself a violation (or, for
			// contentSchema, not about this instance); the keyword's own
			// error on r is.
			continue
		case "dependentSchemas":
			// The library labels these with the triggering member, but they
			// apply to the whole object.
		default:
			if loc := d.InstanceLocation; loc != "" {
				var present bool
				childInst, childPath, present = descend(inst, path, loc[1:])
				if !present {
					// The library also evaluates an absent required
					// property's schema against null; its "required" error
					// already reports the absence.
					continue
				}
			}
		}
		collect(d, childInst, childPath, out)
	}
	for _, e := range r.Errors {
		if !summaryCodes[e.Code] {
			*out = append(*out, explain(r, e, inst, path)...)
		}
	}
}

func explain(r *jsonschema.EvaluationResult, e *jsonschema.EvaluationError, inst any, path []step) []Violation {
	switch {
	case e.Keyword == "required":
		names := missingProperties(e)
		vs := make([]Violation, len(names))
		for i, name := range names {
			vs[i] = Violation{
				Path:    pointer(path),
				Field:   dotted(append(path[:len(path):len(path)], keyStep(name))),
				Keyword: "required",
				Message: fmt.Sprintf("Required property '%s' is missing", name),
			}
		}
		return vs
	case e.Code == "false_schema_mismatch" && len(path) > 0 && keywordOf(r.EvaluationPath) != "":
		// For "additionalProperties": false and the like, say which member
		// is unwanted rather than that "the schema is set to 'false'".
		last := path[len(path)-1]
		msg := fmt.Sprintf("Property '%s' is not allowed", last.Key)
		if last.ArrayOnly {
			msg = fmt.Sprintf("Item at index %d is not allowed", last.Index)
		}
		return []Violation{{Path: pointer(path), Field: dotted(path), Keyword: keywordOf(r.EvaluationPath), Message: msg}}
	case e.Code == "any_of_item_mismatch" || e.Code == "one_of_item_mismatch":
		return []Violation{{Path: pointer(path), Field: dotted(path), Keyword: e.Keyword, Message: noAlternativeMatched(r, e.Keyword, inst, path)}}
	}
	return []Violation{{Path: pointer(path), Field: dotted(path), Keyword: e.Keyword, Message: render(e)}}
}

// maxAlternatives caps how many reasons noAlternativeMatched lists.
const maxAlternatives = 4

// noAlternativeMatched says why the alternatives of an anyOf or oneOf
// failed: the library's "Value does not match anyOf schema" leaves the
// author guessing, notably for a misspelt "type", which the meta-schema
// checks with an anyOf.
func noAlternativeMatched(r *jsonschema.EvaluationResult, keyword string, inst any, path []step) string {
	var reasons []string
	for _, d := range r.Details {
		if d.Valid || keywordOf(d.EvaluationPath) != keyword {
			continue
		}
		var vs []Violation
		collect(d, inst, path, &vs)
		sortViolations(vs)
		for _, v := range vs {
			if !slices.Contains(reasons, v.Message) {
				reasons = append(reasons, v.Message)
			}
		}
	}
	msg := "Value matches none of the " + keyword + " alternatives"
	switch {
	case len(reasons) == 0:
		return msg
	case len(reasons) > maxAlternatives:
		reasons = append(reasons[:maxAlternatives], "...")
	}
	return msg + ": " + strings.Join(reasons, "; or ")
}

// missingProperties recovers the names from a "required" error, whose
// parameters are the only place the library records them: "'a'" for one,
// "'a', 'b'" for several. A name containing "', '" is split wrongly.
func missingProperties(e *jsonschema.EvaluationError) []string {
	quoted, _ := e.Params["property"].(string)
	if quoted == "" {
		quoted, _ = e.Params["properties"].(string)
	}
	if len(quoted) < 2 {
		return []string{quoted}
	}
	return strings.Split(quoted[1:len(quoted)-1], "', '")
}

// descend follows one instance-location token from inst. It reports false
// only for an object member that is absent.
func descend(inst any, path []step, token string) (any, []step, bool) {
	path = path[:len(path):len(path)] // siblings must not share a backing array
	switch v := inst.(type) {
	case map[string]any:
		child, ok := v[token]
		return child, append(path, keyStep(token)), ok
	case []any:
		if i, err := strconv.Atoi(token); err == nil && i >= 0 && i < len(v) {
			return v[i], append(path, indexStep(i)), true
		}
	}
	return inst, append(path, keyStep(token)), true
}

// keywordOf returns the keyword an evaluation path starts with.
func keywordOf(evaluationPath string) string {
	kw, _, _ := strings.Cut(strings.TrimPrefix(evaluationPath, "/"), "/")
	return kw
}

// render fills in an error's {placeholders} in one pass. The library's own
// rendering substitutes parameter after parameter in map order, so a value
// that itself contains "{name}" would make the message vary between calls.
func render(e *jsonschema.EvaluationError) string {
	var b strings.Builder
	msg := e.Message
	for {
		open := strings.IndexByte(msg, '{')
		if open < 0 {
			break
		}
		n := strings.IndexByte(msg[open:], '}')
		if n < 0 {
			break
		}
		b.WriteString(msg[:open])
		if v, ok := e.Params[msg[open+1:open+n]]; ok {
			fmt.Fprint(&b, v)
		} else {
			b.WriteString(msg[open : open+n+1])
		}
		msg = msg[open+n+1:]
	}
	b.WriteString(msg)
	return b.String()
}
