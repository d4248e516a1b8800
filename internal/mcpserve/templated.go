package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// answerForm is which member of a scenario an answer template renders.
type answerForm uint8

const (
	formResponse answerForm = iota // a JSON object, answered as text (and structuredContent)
	formResult                     // an MCP tool result
	formError                      // a JSON-RPC error object
	formText                       // a prompt's messages or a resource's contents: strings stay strings
)

// templateOptions compile the answer templates of a loaded design. The
// placeholders of the older forms ({{id.path}} of the answers to
// questions) are kept for their filler, and a template that fails to
// compile (saved before the check that refuses it) answers as written.
var templateOptions = answertmpl.Options{Legacy: true, Keep: func(name string) bool { return !answertmpl.IsHelper(name) }}

// MaxRenderedAnswer bounds what a templated answer renders to.
const MaxRenderedAnswer = answertmpl.DefaultLimit

// formOptions are templateOptions for an answer of form: a whole-string
// placeholder renders its typed value in a response, and in a result's
// structuredContent and _meta or an error's data; elsewhere (a content
// block's text, an error's message) text, which the protocol wants.
func formOptions(form answerForm) answertmpl.Options {
	o := templateOptions
	switch form {
	case formResult:
		o.Typed = typedIn("structuredContent", "_meta")
	case formError:
		o.Typed = typedIn("data")
	case formText:
		o.Typed = func(string) bool { return false }
	}
	return o
}

// typedIn reports the paths in or under one of members.
func typedIn(members ...string) func(string) bool {
	return func(path string) bool {
		for _, m := range members {
			if rest, ok := strings.CutPrefix(path, m); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
				return true
			}
		}
		return false
	}
}

// withTemplate sets a.fill when the form's JSON raw (the response, the
// shaped result, or the error object) holds answer templates.
func (a *answer) withTemplate(form answerForm, raw []byte, structured bool) {
	if !bytes.Contains(raw, placeholderOpen) {
		return // the common answer: one scan
	}
	t, err := formOptions(form).CompileJSON(raw)
	if err != nil || t.Constant() {
		return
	}
	a.fill, a.form, a.structured = t, form, structured
}

// render renders a's template for the call pl plays: a result, or the
// scripted error. A template that renders past MaxRenderedAnswer, or
// structuredContent the tool's output schema refuses, answers a tool
// error saying so, which the journal keeps.
func (pl *player) render(ctx context.Context, a *answer) (json.RawMessage, error) {
	in := pl.input(ctx, a.fill)
	out, err := a.fill.Render(make([]byte, 0, a.fill.Size()+64), &in)
	if err != nil {
		if errors.Is(err, answertmpl.ErrTooLarge) {
			return errorResult(fmt.Sprintf("The answer's template renders past %d bytes.", MaxRenderedAnswer))
		}
		return nil, err
	}
	if a.form == formError {
		return nil, &jsonrpc.Scripted{Code: a.err.Code, Body: out}
	}
	structured := out
	if out, _ = a.wire(out); a.form == formResult {
		var sc [1][]byte
		jsonrpc.Fields(out, structuredMember, sc[:])
		structured = sc[0]
	}
	if a.structured && pl.t.outputRaw != nil {
		if why := pl.t.checkOutput(structured); why != "" {
			return errorResult("The answer's template rendered structuredContent the tool's output schema refuses: " + why)
		}
	}
	return out, nil
}

var structuredMember = []string{"structuredContent"}

// renderText renders the answer templates in out, the JSON answer of a
// prompts/get or a resources/read, with args (the prompt's arguments,
// or the parameters of the resource's URI template); out itself when it
// has none. Every placeholder renders as text.
func renderText(out []byte, args map[string]string) ([]byte, error) {
	if !bytes.Contains(out, placeholderOpen) {
		return out, nil
	}
	t, err := formOptions(formText).CompileJSON(out)
	if err != nil || t.Constant() {
		return out, nil
	}
	in := answertmpl.Input{Args: make(map[string]any, len(args)), Limit: MaxRenderedAnswer}
	for k, v := range args {
		in.Args[k] = v
	}
	rendered, err := t.Render(nil, &in)
	if errors.Is(err, answertmpl.ErrTooLarge) {
		return nil, fmt.Errorf("%w: the answer's template renders past %d bytes", jsonrpc.ErrInternal, MaxRenderedAnswer)
	}
	return rendered, err
}

var placeholderOpen = []byte("{{")

// responseResult is the tools/call result of a rendered response: one text
// item holding its JSON, and the response as structuredContent when asked.
func responseResult(response []byte, structured bool) []byte {
	out := make([]byte, 0, 2*len(response)+64)
	out = append(out, `{"content":[{"type":"text","text":`...)
	out = answertmpl.AppendQuoted(out, response)
	out = append(out, "}]"...)
	if structured {
		out = append(out, `,"structuredContent":`...)
		out = append(out, response...)
	}
	return append(out, '}')
}

// readsState reports whether an answer template of the tool's scenarios
// (an answer, a sequence's step, a set_state) reads the live state, which
// the tool's calls then read before they match.
func (p *toolPlay) readsState() bool {
	for _, sc := range p.scenes {
		if sc.changeFill != nil && sc.changeFill.UsesState() {
			return true
		}
		for i := range sc.steps {
			if f := sc.steps[i].fill; f != nil && f.UsesState() {
				return true
			}
		}
	}
	return false
}

// setStateTemplate is a scenario's set_state as an answer template (a
// whole-string placeholder sets the typed value: "{{args}}" the
// arguments object); nil when it has none.
func setStateTemplate(raw json.RawMessage) *answertmpl.Template {
	if len(raw) == 0 || !bytes.Contains(raw, placeholderOpen) {
		return nil
	}
	t, err := templateOptions.CompileJSON(raw)
	if err != nil || t.Constant() {
		return nil
	}
	return t
}

// renderChange renders the set_state template t for the call pl plays
// into the change it makes (a key rendered null is deleted).
func (pl *player) renderChange(ctx context.Context, t *answertmpl.Template) (*mockspec.StateChange, error) {
	in := pl.input(ctx, t)
	out, err := t.Render(nil, &in)
	if err != nil {
		return nil, fmt.Errorf("%w: the scenario's set_state: %v", jsonrpc.ErrInternal, err)
	}
	c, err := mockspec.SplitSetState(out)
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// input is what template t reads for the call pl plays: its arguments,
// the live state as the request last saw it, the call's index when t
// reads it, and, for a seeded design, a random source that draws the same
// values for the n-th call of the tool by the client run after run.
func (pl *player) input(ctx context.Context, t *answertmpl.Template) answertmpl.Input {
	in := answertmpl.Input{Args: pl.args, Limit: MaxRenderedAnswer}
	if live := pl.s.live; len(live) > 0 {
		in.State = func(key string) (json.RawMessage, bool) { return stateValue(live, key) }
	}
	seeded := pl.d.seed != nil && t.UsesRandom()
	if t.UsesSeq() || seeded {
		in.Seq = int(pl.toolSeq(ctx))
	}
	if seeded {
		in.Rand = answertmpl.NewRand(answertmpl.SeedFor(*pl.d.seed, pl.t.name, in.Seq))
	}
	return in
}

// stateValue is the value of key in the live state (a JSON object).
func stateValue(live json.RawMessage, key string) (v json.RawMessage, ok bool) {
	jsonrpc.Members(live, func(k, val []byte) bool {
		if jsonrpc.KeyIs(k, key) {
			v, ok = val, true
			return false
		}
		return true
	})
	return v, ok
}

// renderOutcome renders the templated outcome a of task t, which ended at
// end: a result, or the body of a scripted error. It reads the task's
// arguments; {{now}} is the task's end and its random values are drawn
// from a source seeded by the task's id, so that every poll reads the
// same outcome. {{state...}} and {{seq}} read nothing here.
func renderOutcome(a *answer, t TaskRecord, end time.Time) (result, errBody []byte, err error) {
	in := answertmpl.Input{Now: end, Limit: MaxRenderedAnswer, Rand: answertmpl.NewRand(taskSeed(t.ID))}
	if len(t.Arguments) > 0 {
		v, err := jsonvalue.Decode(t.Arguments)
		if err != nil {
			return nil, nil, err
		}
		in.Args, _ = v.(map[string]any)
	}
	out, err := a.fill.Render(make([]byte, 0, a.fill.Size()+64), &in)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: the task's outcome: %v", jsonrpc.ErrInternal, err)
	}
	result, errBody = a.wire(out)
	return result, errBody, nil
}

// wire is a's rendering out as it is answered: the body of a scripted
// error, or a result (a response wrapped as one).
func (a *answer) wire(out []byte) (result, errBody []byte) {
	switch a.form {
	case formError:
		return nil, out
	case formResponse:
		return responseResult(out, a.structured), nil
	}
	return out, nil
}

// taskSeed is the seed of a task's random values: its id's hash.
func taskSeed(id string) int64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return int64(h.Sum64())
}

// toolSeq is the call's index among the calls of the tool by the
// client's sequence key (0 for the first), as {{seq}} renders it; 0 when
// counting fails.
func (pl *player) toolSeq(ctx context.Context) int64 {
	s := pl.s
	if s.seq == nil {
		return 0
	}
	s.call.usedSeq = true
	n, err := s.seq.Next(ctx, pl.d.id, "tool:"+pl.t.name, s.sequenceKey())
	if err != nil {
		if s.log != nil {
			s.log.WarnContext(ctx, "template seq count failed; rendering 0",
				"server_id", pl.d.id.String(), "error", err.Error())
		}
		return 0
	}
	return n
}

// checkOutput validates rendered structuredContent against the tool's
// output schema: "" when it satisfies it, else the first violation,
// naming its field.
func (t *tool) checkOutput(structured []byte) string {
	t.outputOnce.Do(func() {
		t.output, t.outputErr = schema.Compile(t.outputRaw, schema.RequireObject)
	})
	if t.outputErr != nil {
		return ""
	}
	if structured == nil {
		return "structuredContent is missing"
	}
	v, err := jsonvalue.Decode(structured)
	if err != nil {
		return err.Error()
	}
	vs := t.output.Validate(v)
	if len(vs) == 0 {
		return ""
	}
	field := vs[0].Field
	if field == "" {
		return vs[0].Message
	}
	return "field '" + field + "': " + vs[0].Message
}
