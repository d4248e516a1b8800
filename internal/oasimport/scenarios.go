package oasimport

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/pgtext"
	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/schema"
	"github.com/mockmcp/mockmcp/internal/testgen"
)

// Scenario names given by the importer.
const (
	fallbackName  = "default"   // from a plain example, or the fallback added after named ones
	generatedName = "generated" // sampled from the response schema
)

// success is the response a tool's scenarios answer with.
type success struct {
	code   string
	media  *openapi3.MediaType // its JSON content; nil when it has none
	schema map[string]any      // the media type's schema, converted; nil when none
}

// response picks the success response: the lowest 2xx with JSON content,
// else 2XX, else default; failing that, the lowest 2xx at all, whose
// content is not JSON.
func (b *builder) response() success {
	rs := b.o.op.Responses
	var m map[string]*openapi3.ResponseRef
	if rs != nil {
		m = rs.Map()
	}
	var codes []string
	for k := range m {
		if n, err := strconv.Atoi(k); err == nil && len(k) == 3 && n >= 200 && n <= 299 {
			codes = append(codes, k)
		}
	}
	slices.Sort(codes)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if strings.EqualFold(k, "2XX") {
			codes = append(codes, k)
		}
	}
	if _, ok := m["default"]; ok {
		codes = append(codes, "default")
	}
	var first *openapi3.Response
	var firstCode string
	for _, code := range codes {
		ref := m[code]
		if ref == nil || ref.Value == nil {
			continue
		}
		if _, mt := jsonMedia(ref.Value.Content); mt != nil {
			out := success{code: code, media: mt}
			if mt.Schema != nil {
				out.schema = b.convert(mt.Schema, "response "+code)
			}
			return out
		}
		if first == nil && code != "default" {
			first, firstCode = ref.Value, code
		}
	}
	switch {
	case first == nil:
		b.warn("no success (2xx) response is declared; the mock answers {}")
	case len(first.Content) > 0:
		b.warn("the success response %s is %s, not JSON; the mock answers {}", firstCode,
			strings.Join(slices.Sorted(maps.Keys(first.Content)), ", "))
	}
	return success{code: firstCode}
}

// candidate is a scenario in the making.
type candidate struct {
	key      string
	cond     map[string]any
	response json.RawMessage
	fits     bool // the response satisfies the output schema (or there is none)
}

// scenarios builds the tool's scenarios from the success response: one per
// named example (conditioned on the request values of the same name, when
// there are some) and a fallback; else one from a plain example; else one
// generated from the response schema ({} when there is none).
func (b *builder) scenarios(in inputs, out success, outputSchema json.RawMessage) []design.Scenario {
	r := &responder{b: b}
	if outputSchema != nil {
		r.output, _ = schema.Compile(outputSchema, schema.RequireObject)
	}
	defer r.done()
	names := map[string]bool{}
	newScenario := func(key string, cond map[string]any, resp json.RawMessage) design.Scenario {
		name := snake(key)
		if name == "" {
			name = "example"
		}
		sc := design.Scenario{Name: unique(name, maxScenarioName, names), Response: resp}
		if cond != nil {
			sc.Condition, _ = json.Marshal(cond)
		}
		return sc
	}

	if out.media != nil && len(out.media.Examples) > 0 {
		var conditioned, unconditioned []candidate
		for _, k := range slices.Sorted(maps.Keys(out.media.Examples)) {
			v, ok := b.exampleValue(out.media.Examples[k], fmt.Sprintf("response %s example %q", out.code, k))
			if !ok {
				continue
			}
			before := r.misfits
			resp, ok := r.respond(fmt.Sprintf("response %s example %q", out.code, k), v)
			if !ok {
				continue
			}
			c := candidate{key: k, cond: b.condition(in, k), response: resp, fits: r.misfits == before}
			if c.cond != nil {
				conditioned = append(conditioned, c)
			} else {
				unconditioned = append(unconditioned, c)
			}
		}
		if len(conditioned) > design.MaxScenarios-1 {
			b.warn("only the first %d of its %d examples with request values are imported (the limit of scenarios per tool)",
				design.MaxScenarios-1, len(conditioned))
			conditioned = conditioned[:design.MaxScenarios-1]
		}
		var scs []design.Scenario
		for _, c := range conditioned {
			scs = append(scs, newScenario(c.key, c.cond, c.response))
		}
		switch {
		case len(unconditioned) > 0:
			kept := unconditioned[0]
			for _, c := range unconditioned {
				if strings.EqualFold(c.key, "default") {
					kept = c
				}
			}
			if len(unconditioned) > 1 {
				keys := make([]string, len(unconditioned))
				for i, c := range unconditioned {
					keys[i] = c.key
				}
				b.warn("examples %s have no request values to tell them apart; only %s is kept as the fallback",
					strings.Join(keys, ", "), kept.key)
			}
			scs = append(scs, newScenario(kept.key, nil, kept.response))
		case len(conditioned) > 0:
			// Every example needs its request values: answer any other
			// call with the plain example, or the first named one that
			// satisfies the response schema.
			resp := conditioned[0].response
			for _, c := range conditioned {
				if c.fits {
					resp = c.response
					break
				}
			}
			if v, ok := plainExample(out); ok {
				if raw, ok := r.respond("response "+out.code+" example", v); ok {
					resp = raw
				}
			}
			scs = append(scs, newScenario(fallbackName, nil, resp))
		}
		if len(scs) > 0 {
			return scs
		}
	}

	if v, ok := plainExample(out); ok {
		if resp, ok := r.respond("response "+out.code+" example", v); ok {
			return []design.Scenario{newScenario(fallbackName, nil, resp)}
		}
	}

	var v any = map[string]any{}
	if out.schema != nil {
		raw, err := json.Marshal(out.schema)
		if err == nil {
			sample, ok := testgen.Sample(raw)
			if !ok {
				b.warn("the response generated from the response %s schema does not satisfy it; check the %q scenario", out.code, generatedName)
			}
			if sample != nil || ok {
				v = sample
			}
		}
	}
	resp, ok := r.respond("the generated response", v)
	if !ok {
		resp = json.RawMessage(`{}`)
	}
	return []design.Scenario{newScenario(generatedName, nil, resp)}
}

// plainExample returns the success response's single example: the media
// type's, else its schema's example, else the first of its schema's
// examples.
func plainExample(out success) (any, bool) {
	if out.media == nil {
		return nil, false
	}
	if out.media.Example != nil {
		return out.media.Example, true
	}
	if s := out.media.Schema; s != nil && s.Value != nil {
		if s.Value.Example != nil {
			return s.Value.Example, true
		}
		if len(s.Value.Examples) > 0 && s.Value.Examples[0] != nil {
			return s.Value.Examples[0], true
		}
	}
	return nil, false
}

// exampleValue resolves a named example; what names it in warnings.
func (b *builder) exampleValue(ref *openapi3.ExampleRef, what string) (any, bool) {
	switch {
	case ref == nil || ref.Value == nil:
		b.warn("%s could not be resolved; it is left out", what)
	case ref.Value.Value == nil && ref.Value.ExternalValue != "":
		b.warn("%s is the externalValue %q, which is never fetched; it is left out", what, ref.Value.ExternalValue)
	case ref.Value.Value == nil:
		b.warn("%s has no value; it is left out", what)
	default:
		return ref.Value.Value, true
	}
	return nil, false
}

// condition gathers the request values of the examples named key, of the
// request body and the parameters, as a plain scenario condition; nil when
// there are none, or they cannot be told apart by a condition.
func (b *builder) condition(in inputs, key string) map[string]any {
	cond := map[string]any{}
	if in.body != nil {
		if ref, ok := in.body.media.Examples[key]; ok {
			if v, ok := b.exampleValue(ref, fmt.Sprintf("request body example %q", key)); ok {
				cond[in.body.prop] = v
			}
		}
	}
	for _, p := range in.params {
		if ref, ok := p.p.Examples[key]; ok {
			if v, ok := b.exampleValue(ref, fmt.Sprintf("parameter %q example %q", p.p.Name, key)); ok {
				cond[p.prop] = v
			}
		}
	}
	if len(cond) == 0 {
		return nil
	}
	raw, err := json.Marshal(cond)
	if err != nil {
		b.warn("example %q: its request values cannot be written as JSON (%v); its scenario has no condition", key, err)
		return nil
	}
	// Arguments equal to the values must select the scenario: a plain
	// condition can be misread (as the operator form) by the matcher.
	c, errs := scenario.Compile(raw)
	if len(errs) > 0 || !c.Match(cond) || pgtext.JSONBProblem(raw) != "" {
		b.warn("example %q: its request values cannot be written as a scenario condition; its scenario has none", key)
		return nil
	}
	props, _ := in.schema["properties"].(map[string]any)
	for _, prop := range slices.Sorted(maps.Keys(cond)) {
		rawSchema, err := json.Marshal(props[prop])
		if err != nil {
			continue
		}
		s, err := schema.Compile(rawSchema)
		if err != nil {
			continue // reported when the tool is checked
		}
		if vs := s.Validate(cond[prop]); len(vs) > 0 {
			b.warn("example %q: the value of %q does not satisfy its schema (%s), so no call can select its scenario",
				key, prop, violation(vs[0]))
		}
	}
	return cond
}

// responder turns response values into scenario responses.
type responder struct {
	b       *builder
	output  *schema.Schema // the tool's output schema, compiled; nil when none
	wrapped string         // the JSON type of the first response wrapped in an object
	misfits int            // responses that do not satisfy the output schema
}

// respond writes a scenario response: an object as it is, checked against
// the output schema; any other value as {"value": v}. false when it cannot
// be stored (what says which value it is, for the warning).
func (r *responder) respond(what string, v any) (json.RawMessage, bool) {
	raw, err := json.Marshal(v)
	if err != nil {
		r.b.warn("%s cannot be written as JSON (%v); it is left out", what, err)
		return nil, false
	}
	if _, isObject := v.(map[string]any); !isObject {
		if r.wrapped == "" {
			r.wrapped = jsonKind(v)
		}
		if raw, err = json.Marshal(map[string]any{"value": v}); err != nil {
			return nil, false
		}
	} else if r.output != nil {
		if vs := r.output.Validate(v); len(vs) > 0 {
			r.misfits++
			r.b.warn("%s does not satisfy the response schema (%s); it is kept", what, violation(vs[0]))
		}
	}
	if msg := pgtext.JSONBProblem(raw); msg != "" {
		r.b.warn("%s cannot be stored: %s; it is left out", what, msg)
		return nil, false
	}
	return raw, true
}

func (r *responder) done() {
	if r.wrapped != "" {
		r.b.warn("the response is %s, not a JSON object: the scenarios answer {\"value\": <the response>}", r.wrapped)
	}
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case map[string]any:
		return "an object"
	}
	return "a number"
}

func violation(v schema.Violation) string {
	if v.Field == "" {
		return v.Message
	}
	return v.Field + ": " + v.Message
}
