package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// callTool answers tools/call as a pipeline of stages: resolve the tool
// (or hand the call to the upstream), admit the request, validate its
// arguments, match a scenario, inject the call's fault (the matched
// scenario's, else the tool's, else the server's), and play the scenario.
// Each stage notes for the journal what it learned, in the call's record.
func callTool(ctx context.Context, x *Exchange, s *state, params json.RawMessage) (json.RawMessage, error) {
	d := s.view
	p, err := decodeCall(params, "tools/call needs the name of the tool")
	if err != nil {
		return nil, err
	}
	t, err := resolveTool(d, p.Name, x.Era())
	if err != nil {
		return nil, err
	}
	if t == nil {
		s.call.tool = p.Name
		return forward(ctx, x, s, d, "tools/call", params)
	}
	s.call.tool = t.name
	if x.Modern() {
		if err := admitModern(x, t, p.Arguments); err != nil {
			return nil, err
		}
	}
	if err := validateArguments(d, t, p.Arguments, &s.budget); err != nil {
		return nil, err
	}
	play, i, err := matchScenario(ctx, d, t, p.Arguments, s)
	if err != nil {
		return nil, err
	}
	if i >= 0 {
		s.call.scenario = play.names[i] // a faulted call names what it matched
	}
	if err := injectFault(ctx, faultOf(d, t, play, i), &s.call); err != nil {
		return nil, err
	}
	switch {
	case i < 0 && d.upstream != nil:
		return forward(ctx, x, s, d, "tools/call", params)
	case i < 0:
		if s.call.outcome == "" {
			s.call.outcome = journal.OutcomeNoMatch
		}
		return play.noMatch, nil
	}
	pl := player{x: x, d: d, s: s, t: t, index: i, params: params, args: p.Arguments, progressToken: p.ProgressToken}
	return pl.play(ctx, play.scenes[i])
}

// forwards reports whether the upstream answers a call of something the
// design has (found) or lacks: in record mode every call, else (fallback)
// a call of what the design lacks. Without an upstream, none.
func (d *compiled) forwards(found bool) bool {
	return d.upstream != nil && (d.record || !found)
}

// resolveTool is the resolve stage: the tool the call names; nil without
// an error when the call is the upstream's (record mode, or a tool the
// design lacks with an upstream to fall back on); else the not-found
// error, as the request's era words it.
func resolveTool(d *compiled, name string, era mcptransport.Era) (*tool, error) {
	t, ok := d.tools[name]
	if d.forwards(ok) {
		return nil, nil
	}
	if !ok {
		return nil, era.NotFound(mcptransport.Tool, name)
	}
	return t, nil
}

// admitModern is the admit stage of a modern request: the client declares
// the capabilities the tool requires, and its Mcp-Param-* headers mirror
// the arguments the tool names. Legacy requests have neither.
func admitModern(x *Exchange, t *tool, args map[string]any) error {
	if err := requireCapabilities(x, t.requiredCaps); err != nil {
		return err
	}
	return t.checkParamHeaders(x.Request().Header, args)
}

// validateArguments is the validate stage: the arguments against the
// tool's input schema. It starts the call's regular-expression budget
// (budget), which the schema's patterns draw on first and the scenarios'
// conditions after; arguments too costly to check are refused as such.
func validateArguments(d *compiled, t *tool, args map[string]any, budget *regexlimit.Budget) error {
	input, err := t.inputSchema(d)
	if err != nil {
		return fmt.Errorf("tool %q: stored input schema: %w", t.name, err)
	}
	*budget = regexlimit.NewBudget()
	if vs := input.ValidateWithin(args, budget); len(vs) > 0 {
		if budget.Exhausted() {
			return tooCostly(t.name, budget.Field())
		}
		return argumentsError(t.name, vs)
	}
	return nil
}

// faultOf is the fault a call of t gets when its scenario i matched (-1:
// none did): the most specific there is, the scenario's, else the tool's,
// else the server's; nil when there is none.
func faultOf(d *compiled, t *tool, play *toolPlay, i int) *fault {
	switch {
	case i >= 0 && play.scenes[i].fault != nil:
		return play.scenes[i].fault
	case t.fault != nil:
		return t.fault
	}
	return d.fault
}

// injectFault is the fault stage, for a call that passed validation and
// was matched, before its scenario plays: at the fault's rate the call is
// noted as a fault, waits the fault's delay, and fails with its error; a
// fault without an error only delays the call, which then goes on. nil f
// injects nothing.
func injectFault(ctx context.Context, f *fault, rec *callRecord) error {
	if f == nil || rand.Float64() >= f.rate {
		return nil
	}
	rec.outcome = journal.OutcomeFault
	if err := sleep(ctx, f.delay); err != nil {
		return err
	}
	if f.err != nil {
		return f.err
	}
	return nil
}

// matchScenario is the match stage: the index of the first of the tool's
// scenarios whose conditions the arguments meet, -1 when none does, and
// what the tool's calls are answered from. The conditions draw on the
// call's regular-expression budget; when the journal is on, how the
// scenarios were tried is noted for its explanation.
func matchScenario(ctx context.Context, d *compiled, t *tool, args map[string]any, s *state) (*toolPlay, int, error) {
	play, err := t.playing(d)
	if err != nil {
		return nil, -1, err
	}
	var (
		i       int
		matched bool
		live    map[string]any
	)
	if play.state == nil {
		i, matched = play.matcher.MatchWithin(args, &s.budget)
	} else {
		if live, err = readState(ctx, s, d); err != nil {
			return nil, -1, err
		}
		i, matched = play.state.match(args, live, &s.budget)
	}
	if s.budget.Exhausted() {
		return nil, -1, tooCostly(t.name, s.budget.Field())
	}
	if s.rec != nil {
		s.call.explain(play, args, live, i)
	}
	if !matched {
		return play, -1, nil
	}
	return play, i, nil
}
