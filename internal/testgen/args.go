package testgen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// Arguments finds arguments that satisfy the input schema of t and make
// scenario i the first match, as tools/call picks it; ok is false when it
// cannot (the scenario is unreachable with any arguments it tried, the
// schema could not be satisfied, or i is out of range). The arguments hold
// what encoding/json decodes (float64, string, bool, nil, []any,
// map[string]any), with json.Number for an integer beyond 2^53 as
// jsonvalue.Decode keeps it, so they can be passed to the matcher or
// marshalled as they are; when ok is false they are the best found, never nil.
func Arguments(t design.Tool, i int) (args map[string]any, ok bool) {
	if i < 0 || i >= len(t.Scenarios) {
		return map[string]any{}, false
	}
	out := prepare(t).search(i)
	return out.args, out.ok
}

// prepared is a tool made ready for argument search: its schema decoded
// and compiled, its conditions compiled and split into clauses.
type prepared struct {
	tool     design.Tool
	doc      *schemaDoc
	input    *schema.Schema // nil when the input schema does not compile
	inputErr error
	conds    []scenario.Condition
	clauses  [][]clause
	condErr  error // the first condition that does not compile
	matcher  *scenario.Matcher
}

// clause is one test of a condition: a plain condition has one equals
// clause per member, an operator condition exactly one.
type clause struct {
	path  scenario.Path
	op    scenario.Operator
	value any
	// alone is the clause compiled as a condition of its own, to tell
	// whether an edit of the arguments makes it hold.
	alone scenario.Condition
}

func prepare(t design.Tool) *prepared {
	p := &prepared{tool: t, doc: &schemaDoc{}}
	_ = json.Unmarshal(t.InputSchema, &p.doc.root)
	p.input, p.inputErr = schema.Compile(t.InputSchema, schema.RequireObject)
	p.conds = make([]scenario.Condition, len(t.Scenarios))
	p.clauses = make([][]clause, len(t.Scenarios))
	for i, sc := range t.Scenarios {
		c, errs := scenario.Compile(sc.Condition)
		if len(errs) > 0 {
			if p.condErr == nil {
				p.condErr = fmt.Errorf("scenario %q has an invalid condition: %s: %s", sc.Name, errs[0].Field, errs[0].Message)
			}
			continue
		}
		p.conds[i] = c
		p.clauses[i] = splitClauses(sc.Condition, c)
	}
	p.matcher = scenario.NewMatcher(p.conds)
	return p
}

// splitClauses reads a compiled condition's clauses with their values,
// telling the two object forms apart by the rule scenario.Compile applies.
func splitClauses(raw json.RawMessage, c scenario.Condition) []clause {
	paths := c.Paths()
	if len(paths) == 0 {
		return nil
	}
	// Values are decoded as the matcher decodes them, so an integer beyond
	// 2^53 keeps its value.
	decoded, err := jsonvalue.Decode(raw)
	obj, ok := decoded.(map[string]any)
	if err != nil || !ok {
		return nil
	}
	_, fok := obj["field"].(string)
	op, ook := obj["operator"].(string)
	operatorForm := fok && ook
	for k := range obj {
		if k != "field" && k != "operator" && k != "value" {
			operatorForm = false
		}
	}
	if operatorForm {
		return []clause{{path: paths[0], op: scenario.Operator(op), value: obj["value"], alone: c}}
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the order Paths reports a plain condition's keys in
	out := make([]clause, 0, len(keys))
	for n, k := range keys {
		one, _ := json.Marshal(map[string]any{"field": k, "operator": string(scenario.OpEquals), "value": obj[k]})
		alone, _ := scenario.Compile(one)
		out = append(out, clause{path: paths[n], op: scenario.OpEquals, value: obj[k], alone: alone})
	}
	return out
}

// maxTries bounds the edits one search tries while steering, so that a
// tool with many conflicting scenarios cannot make generation slow.
const maxTries = 2000

// outcome is the result of a search for scenario i's arguments.
type outcome struct {
	args   map[string]any
	ok     bool
	reason string // why ok is false
}

func (p *prepared) violations(args map[string]any) []schema.Violation {
	if p.input == nil {
		return nil
	}
	return p.input.Validate(args)
}

func (p *prepared) search(i int) outcome {
	args, _ := p.doc.sample(p.doc.root).(map[string]any)
	if args == nil {
		args = map[string]any{}
	}
	if p.inputErr != nil {
		return outcome{args: args, reason: "the tool's input schema cannot be compiled: " + p.inputErr.Error()}
	}
	if p.condErr != nil {
		return outcome{args: args, reason: p.condErr.Error()}
	}
	cond := &p.conds[i]

	// Make the scenario's own condition hold.
	for _, cl := range p.clauses[i] {
		args = p.satisfy(i, cl, args)
	}

	// Steer away from earlier scenarios that also match.
	seen := map[string]bool{canonical(args): true}
	budget := maxTries
	rounds := min(4*len(p.tool.Scenarios)+8, 200)
	for range rounds {
		m, matched := p.matcher.Match(args)
		nv := len(p.violations(args))
		if !matched || m >= i || !cond.Match(args) {
			break
		}
		next, ok := p.steer(i, m, args, nv, seen, &budget)
		if !ok {
			break
		}
		args = next
	}
	return p.judge(i, args)
}

// judge says whether args reach scenario i through tools/call, and if not
// why.
func (p *prepared) judge(i int, args map[string]any) outcome {
	if vs := p.violations(args); len(vs) > 0 {
		v := vs[0]
		where := v.Field
		if where == "" {
			where = "the arguments"
		}
		return outcome{args: args, reason: fmt.Sprintf(
			"no arguments were found that satisfy both the tool's input schema and this scenario's condition (%s: %s)", where, v.Message)}
	}
	if !p.conds[i].Match(args) {
		return outcome{args: args, reason: "no arguments were found that satisfy this scenario's condition together with the tool's input schema"}
	}
	if m, _ := p.matcher.Match(args); m != i {
		return outcome{args: args, reason: fmt.Sprintf(
			"the arguments found also match scenario %q, which comes earlier and wins; no arguments were found that reach this scenario first",
			p.tool.Scenarios[m].Name)}
	}
	return outcome{args: args, ok: true}
}

// satisfy applies the best edit that makes clause cl of scenario i hold:
// preferably one after which the arguments satisfy the schema and select
// scenario i, else one that at least keeps the schema satisfied.
func (p *prepared) satisfy(i int, cl clause, args map[string]any) map[string]any {
	var (
		best      map[string]any
		bestScore = -1
	)
	for _, e := range p.satisfyEdits(cl, args) {
		next := e.applied(p.doc, args, cl.path)
		if !cl.alone.Match(next) {
			continue
		}
		score := 0
		if len(p.violations(next)) == 0 {
			score = 1
			if m, _ := p.matcher.Match(next); m == i {
				score = 2
			}
		}
		if score > bestScore {
			best, bestScore = next, score
		}
		if score == 2 {
			break
		}
	}
	if best == nil {
		return args
	}
	return best
}

// steer makes one clause of scenario j, which matches args before scenario
// i can, fail while scenario i keeps matching, preferring clauses on
// arguments scenario i does not read. Of the edits that do, it takes one
// that leaves scenario i the first match, else the one whose first match
// comes latest.
func (p *prepared) steer(i, j int, args map[string]any, nv int, seen map[string]bool, budget *int) (map[string]any, bool) {
	mine := p.conds[i].Paths()
	var free, shared []clause
	for _, cl := range p.clauses[j] {
		if slices.ContainsFunc(mine, func(q scenario.Path) bool { return overlaps(q, cl.path) }) {
			shared = append(shared, cl)
		} else {
			free = append(free, cl)
		}
	}
	var (
		best                map[string]any
		bestMatch, bestVios = -2, 0
	)
	for _, cl := range append(free, shared...) {
		for _, e := range p.negateEdits(cl, args) {
			if *budget <= 0 {
				break
			}
			*budget--
			next := e.applied(p.doc, args, cl.path)
			if cl.alone.Match(next) || !p.conds[i].Match(next) {
				continue
			}
			key := canonical(next)
			if seen[key] {
				continue
			}
			vios := len(p.violations(next))
			if vios > nv {
				continue
			}
			m, _ := p.matcher.Match(next)
			if m == i && vios == 0 {
				seen[key] = true
				return next, true
			}
			if m > bestMatch || (m == bestMatch && vios < bestVios) {
				best, bestMatch, bestVios = next, m, vios
			}
		}
	}
	if best == nil {
		return nil, false
	}
	seen[canonical(best)] = true
	return best, true
}

// edit changes the argument at a clause's path: sets it to val, or
// deletes it.
type edit struct {
	del bool
	val any
}

func set(v any) edit { return edit{val: v} }

var remove = edit{del: true}

// applied returns a copy of args with the edit made at path.
func (e edit) applied(d *schemaDoc, args map[string]any, path scenario.Path) map[string]any {
	next := deepCopy(args).(map[string]any)
	if e.del {
		del(next, path)
	} else {
		d.set(next, path, deepCopy(e.val))
	}
	return next
}

// fieldInfo is what the edits of a clause need to know about its field.
type fieldInfo struct {
	schema  any
	flat    map[string]any
	typ     string
	cur     any
	present bool
}

func (p *prepared) field(args map[string]any, path scenario.Path) fieldInfo {
	s := p.doc.fieldSchema(args, path)
	f := p.doc.flat(s)
	cur, present := lookup(args, path)
	return fieldInfo{schema: s, flat: f, typ: typeOf(f), cur: cur, present: present}
}

// sample is a value of the field's schema, never null unless the schema
// wants null.
func (p *prepared) sample(fi fieldInfo) any {
	return p.doc.sample(fi.schema)
}

// satisfyEdits lists edits that may make cl hold, best first; the caller
// keeps those that do.
func (p *prepared) satisfyEdits(cl clause, args map[string]any) []edit {
	fi := p.field(args, cl.path)
	var out []edit
	if cl.alone.Match(args) { // already holds: keep it as it is
		if fi.present {
			out = append(out, set(fi.cur))
		} else {
			out = append(out, remove)
		}
	}
	integer := fi.typ == "integer"
	num, _ := jsonvalue.Float(cl.value)
	str, isStr := cl.value.(string)
	switch cl.op {
	case scenario.OpEquals:
		out = append(out, set(cl.value))
	case scenario.OpNotEquals:
		out = append(out, set(p.sample(fi)), set(different(cl.value)), remove)
	case scenario.OpContains:
		base, ok := fi.cur.([]any)
		if !ok {
			base, _ = p.sample(fi).([]any)
		}
		arrays := []edit{set(append(slices.Clone(base), cl.value)), set([]any{cl.value})}
		var strs []edit
		if isStr {
			strs = []edit{set(str)}
		}
		if fi.typ == "array" {
			out = append(append(out, arrays...), strs...)
		} else {
			out = append(append(out, strs...), arrays...)
		}
	case scenario.OpStartsWith:
		out = append(out, set(str+"-x"), set(str))
	case scenario.OpEndsWith:
		out = append(out, set("x-"+str), set(str))
	case scenario.OpMatches:
		minLen, maxLen := 0, -1
		if v, ok := fi.flat["minLength"].(float64); ok {
			minLen = int(min(v, 4096))
		}
		if v, ok := fi.flat["maxLength"].(float64); ok {
			maxLen = int(min(v, 1<<20))
		}
		if s, ok := regexString(str, minLen, maxLen); ok {
			out = append(out, set(s))
		}
		if s, ok := regexFor(str); ok {
			out = append(out, set(s))
		}
	case scenario.OpExists:
		if v := p.sample(fi); v != nil {
			out = append(out, set(v))
		}
		out = append(out, set("example"))
	case scenario.OpNotExists:
		out = append(out, remove, set(nil))
	case scenario.OpGt:
		out = append(out, set(above(num, true, integer)))
	case scenario.OpGte:
		out = append(out, set(above(num, false, integer)))
	case scenario.OpLt:
		out = append(out, set(below(num, true, integer)))
	case scenario.OpLte:
		out = append(out, set(below(num, false, integer)))
	case scenario.OpIn:
		set0, _ := cl.value.([]any)
		for _, v := range set0 {
			out = append(out, set(v))
		}
	}
	return out
}

// negateEdits lists edits that may make cl fail, best first: a sample
// value of the field's schema, a value just past the operator's bound, and
// only then deleting the field.
func (p *prepared) negateEdits(cl clause, args map[string]any) []edit {
	fi := p.field(args, cl.path)
	integer := fi.typ == "integer"
	num, _ := jsonvalue.Float(cl.value)
	str, isStr := cl.value.(string)
	smp := set(p.sample(fi))
	var out []edit
	switch cl.op {
	case scenario.OpEquals:
		out = []edit{smp, set(different(cl.value)), remove, set(nil)}
	case scenario.OpNotEquals:
		out = []edit{set(cl.value)}
	case scenario.OpContains:
		out = []edit{smp}
		switch cur := fi.cur.(type) {
		case []any:
			out = append(out, set(slices.DeleteFunc(slices.Clone(cur), func(e any) bool {
				return jsonEqual(e, cl.value)
			})))
		case string:
			if isStr && str != "" {
				out = append(out, set(strings.ReplaceAll(cur, str, "")))
			}
		}
		out = append(out, set([]any{}), set(""), remove, set(nil))
	case scenario.OpStartsWith, scenario.OpEndsWith, scenario.OpMatches:
		out = []edit{smp, set("example"), set(""), set("x"), remove, set(nil)}
	case scenario.OpExists:
		out = []edit{remove, set(nil)}
	case scenario.OpNotExists:
		out = []edit{smp, set("example")}
	case scenario.OpGt:
		out = []edit{set(below(num, false, integer)), smp, remove}
	case scenario.OpGte:
		out = []edit{set(below(num, true, integer)), smp, remove}
	case scenario.OpLt:
		out = []edit{set(above(num, false, integer)), smp, remove}
	case scenario.OpLte:
		out = []edit{set(above(num, true, integer)), smp, remove}
	case scenario.OpIn:
		out = []edit{smp}
		if vs, _ := cl.value.([]any); len(vs) > 0 {
			out = append(out, set(different(vs[0])))
		}
		out = append(out, set("example"), remove, set(nil))
	}
	return out
}

// different returns a value of v's JSON type that is not equal to v.
func different(v any) any {
	switch x := v.(type) {
	case string:
		return x + "-other"
	case float64:
		if y := x + 1; y != x {
			return y
		}
		return x / 2
	case json.Number:
		// An integer beyond 2^53: one more, spelled exactly.
		return json.Number(incremented(string(x)))
	case bool:
		return !x
	case nil:
		return "x"
	case []any:
		if len(x) > 0 {
			return []any{}
		}
		return []any{"x"}
	case map[string]any:
		if len(x) > 0 {
			return map[string]any{}
		}
		return map[string]any{"x": "x"}
	}
	return "x"
}

// incremented returns the decimal integer text s plus one in magnitude
// (away from zero), so a different integer of the same sign.
func incremented(s string) string {
	neg := strings.HasPrefix(s, "-")
	digits := []byte(strings.TrimPrefix(s, "-"))
	i := len(digits) - 1
	for ; i >= 0 && digits[i] == '9'; i-- {
		digits[i] = '0'
	}
	if i < 0 {
		digits = append([]byte{'1'}, digits...)
	} else {
		digits[i]++
	}
	if neg {
		return "-" + string(digits)
	}
	return string(digits)
}

// jsonEqual compares decoded JSON values as the matcher does.
func jsonEqual(a, b any) bool { return jsonvalue.Equal(a, b) }

// canonical is a value's JSON text with sorted keys, to recognise
// arguments already tried.
func canonical(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return b.String()
}
