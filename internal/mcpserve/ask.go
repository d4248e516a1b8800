package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// round is a round of questions compiled: the questions in id order and
// the branches tried on the answers.
type round struct {
	questions []question
	branches  []branch
	// timeout is how long a legacy client has to answer, from the round's
	// timeout branch (0: the handler's default).
	timeout time.Duration
}

// question is one input request: its id, the client capability it needs,
// its encoded {"method", "params"} and, for an elicitation, the schema
// the accepted content must satisfy.
type question struct {
	id, capability, method string
	wire                   json.RawMessage
	schema                 *schema.Schema
}

// branch answers with leaf (a tool's), messages (a prompt's) or content
// (a resource's, nil for the resource's own), or asks the next round, when
// every condition holds for the answers.
type branch struct {
	// onTimeout: the round's timeout branch, taken only when a legacy
	// client does not answer in time.
	onTimeout bool
	when      []scenario.Condition
	leaf      *scene
	messages  []design.PromptMessage
	content   *resource
	next      *round
}

// template is an answer that names answers in {{id.path}} placeholders:
// encoded per call, once the answers are known.
type template struct {
	response, result json.RawMessage
	version          string
	structured       bool
}

// compileRound compiles the questions and branches of one round of a
// scenario; parent gives the leaves their notifications and delay, and at
// names the round in sequence ids. The round of a prompt or a resource
// has no parent: its branches answer messages or content.
func compileRound(parent *scene, at string, ask map[string]mockspec.InputRequest, then []mockspec.Branch,
	version string, structured bool) (*round, error) {
	r := &round{}
	ids := make([]string, 0, len(ask))
	for id := range ask {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		q, err := compileQuestion(id, ask[id], version)
		if err != nil {
			return nil, fmt.Errorf("question %q: %w", id, err)
		}
		r.questions = append(r.questions, q)
	}
	for i, b := range then {
		// A condition with problems (saved before a check it now
		// fails) matches nothing, as a scenario's does.
		conds, _ := mockspec.CompileWhen(b.When)
		bat := at + ".then." + strconv.Itoa(i)
		cb := branch{when: conds}
		if b.TimeoutMS != nil {
			cb.onTimeout, r.timeout = true, ms(*b.TimeoutMS)
		}
		var err error
		switch {
		case b.Ask != nil:
			cb.next, err = compileRound(parent, bat, b.Ask, b.Then, version, structured)
		case parent == nil && present(b.Messages): // a prompt's
			err = json.Unmarshal(b.Messages, &cb.messages)
		case parent == nil && present(b.Content): // a resource's
			cb.content, err = compileResource(design.Resource{Content: b.Content})
		case parent == nil: // a resource's, answering its own content
		default:
			cb.leaf, err = compileLeaf(parent, bat, b, version, structured)
		}
		if err != nil {
			return nil, fmt.Errorf("branch %d: %w", i, err)
		}
		r.branches = append(r.branches, cb)
	}
	return r, nil
}

// compileLeaf compiles the answer of a branch as a scene of its own, with
// the scenario's notifications and delay.
func compileLeaf(parent *scene, seqID string, b mockspec.Branch, version string, structured bool) (*scene, error) {
	s := &scene{name: parent.name, seqID: seqID, notes: parent.notes, delay: parent.delay}
	if b.Task != nil {
		var err error
		s.task, err = compileTask(s, b.Task, version, structured)
		return s, err
	}
	leaf := func(response, result json.RawMessage, e *mockspec.RPCError, delay *int) (answer, error) {
		a, err := compileAnswer(response, result, e, version, structured)
		if err != nil {
			return a, err
		}
		if e == nil && (mockspec.AnswerPlaceholder.Match(response) || mockspec.AnswerPlaceholder.Match(result)) {
			a.tmpl = &template{response: response, result: result, version: version, structured: structured}
		}
		a.delay = s.delay
		if delay != nil {
			a.delay = ms(*delay)
		}
		return a, nil
	}
	if b.Sequence != nil {
		s.sequence, s.cycle = true, b.Sequence.Then == mockspec.ThenCycle
		for j, st := range b.Sequence.Steps {
			a, err := leaf(st.Response, st.Result, st.Error, st.DelayMS)
			if err != nil {
				return nil, fmt.Errorf("step %d: %w", j, err)
			}
			s.steps = append(s.steps, a)
		}
		if len(s.steps) == 0 {
			return nil, errors.New("a sequence without steps")
		}
		return s, nil
	}
	a, err := leaf(b.Response, b.Result, b.Error, nil)
	if err != nil {
		return nil, err
	}
	s.steps = []answer{a}
	return s, nil
}

// compileQuestion encodes one input request as MCP sends it to a client
// of the given protocol version (its {"method", "params"}).
func compileQuestion(id string, r mockspec.InputRequest, version string) (question, error) {
	q := question{id: id, capability: r.Kind()}
	var params any
	switch q.capability {
	case mockspec.AskElicitation:
		e := r.Elicitation
		s, err := schema.Compile(e.RequestedSchema, schema.RequireObject)
		if err != nil {
			return q, err
		}
		q.schema = s
		q.method = "elicitation/create"
		mode := ""
		if protocol.HasElicitationModes(version) {
			mode = "form"
		}
		params = struct {
			Mode            string          `json:"mode,omitempty"`
			Message         string          `json:"message"`
			RequestedSchema json.RawMessage `json:"requestedSchema"`
		}{mode, e.Message, e.RequestedSchema}
	case mockspec.AskSampling:
		s := r.Sampling
		q.method = "sampling/createMessage"
		params = struct {
			Messages         []mockspec.SamplingMessage `json:"messages"`
			ModelPreferences json.RawMessage            `json:"modelPreferences,omitempty"`
			SystemPrompt     string                     `json:"systemPrompt,omitempty"`
			MaxTokens        int                        `json:"maxTokens"`
		}{s.Messages, s.ModelPreferences, s.SystemPrompt, s.MaxTokens}
	case mockspec.AskRoots:
		q.method, params = "roots/list", struct{}{}
	default:
		return q, errors.New("a question of no kind")
	}
	var err error
	q.wire, err = json.Marshal(struct {
		Method string `json:"method"`
		Params any    `json:"params"`
	}{q.method, params})
	return q, err
}

// askCall is what one call to a scenario or prompt that asks brings:
// where it was called (target: method and name; index: the scenario's),
// its raw params and arguments, and the first round.
type askCall struct {
	target string
	index  int
	params json.RawMessage
	args   map[string]any
	name   string // the scenario's or the prompt's
	first  *round
}

// askClient plays the rounds of a scenario or prompt that asks, for a
// modern request. It returns the branch that answers and the answers, or
// else the result to send (input_required, or the answer of no matching
// branch) or an error.
func askClient(x *Exchange, s *state, d *compiled, c askCall) (*branch, map[string]any, json.RawMessage, error) {
	signer := s.states
	if signer == nil {
		signer = fallbackSigner
	}
	var p struct {
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   json.RawMessage `json:"requestState"`
	}
	if err := json.Unmarshal(c.params, &p); err != nil {
		return nil, nil, nil, invalidParams("%v", err)
	}
	st := askState{Server: d.id.String(), Target: c.target, Scenario: c.index, Args: argsDigest(c.args)}
	answers := map[string]json.RawMessage{}
	if present(p.RequestState) {
		var tok string
		if err := json.Unmarshal(p.RequestState, &tok); err != nil {
			return nil, nil, nil, jsonrpc.WithData(invalidParams("requestState must be the string of the last input_required result"),
				map[string]string{"field": "requestState"})
		}
		if tok != "" {
			got, err := signer.open(tok)
			if err != nil {
				return nil, nil, nil, stateError(err)
			}
			if got.Server != st.Server || got.Target != st.Target || got.Scenario != st.Scenario || got.Args != st.Args {
				return nil, nil, nil, stateError(fmt.Errorf("%w: it was issued for another call", errStateInvalid))
			}
			st.Path = got.Path
			if got.Answers != nil {
				answers = got.Answers
			}
		}
	}
	r := c.first
	for _, bi := range st.Path {
		if bi < 0 || bi >= len(r.branches) || r.branches[bi].next == nil {
			return nil, nil, nil, stateError(fmt.Errorf("%w: the design has changed since it was issued", errStateInvalid))
		}
		r = r.branches[bi].next
	}
	var responses map[string]json.RawMessage
	if present(p.InputResponses) {
		if !isJSONObject(p.InputResponses) || json.Unmarshal(p.InputResponses, &responses) != nil {
			return nil, nil, nil, jsonrpc.WithData(invalidParams("inputResponses must be an object of answers keyed by the ids of the input requests"),
				map[string]string{"field": "inputResponses"})
		}
	}
	for {
		var missing []question
		for _, q := range r.questions {
			if raw, ok := responses[q.id]; ok {
				if sub, msg := q.problem(raw); msg != "" {
					field := "inputResponses." + q.id + sub
					return nil, nil, nil, jsonrpc.WithData(invalidParams("%s %s", field, msg), map[string]string{"field": field})
				}
				answers[q.id] = raw
			}
			if _, ok := answers[q.id]; !ok {
				missing = append(missing, q)
			}
		}
		if len(missing) > 0 {
			st.Answers = answers
			out, err := inputRequired(x, signer, st, missing)
			if err == nil {
				s.played(r, true, answers, -1, false)
			}
			return nil, nil, out, err
		}
		decoded, err := decodeAnswers(answers)
		if err != nil {
			return nil, nil, nil, stateError(errStateInvalid)
		}
		chosen := r.choose(decoded, false, &s.budget)
		s.played(r, false, answers, chosen, false)
		if chosen < 0 {
			out, err := noBranch(c)
			return nil, nil, out, err
		}
		b := &r.branches[chosen]
		if b.next == nil {
			return b, decoded, nil, nil
		}
		st.Path = append(st.Path, chosen)
		r, responses = b.next, nil
	}
}

// decodeAnswers decodes the answers, for conditions and placeholders.
func decodeAnswers(answers map[string]json.RawMessage) (map[string]any, error) {
	decoded := make(map[string]any, len(answers))
	for id, raw := range answers {
		v, err := jsonvalue.Decode(raw)
		if err != nil {
			return nil, err
		}
		decoded[id] = v
	}
	return decoded, nil
}

// choose is the index of the first branch of r whose conditions hold for
// the answers, -1 when none does: the timeout branch when the round timed
// out, the others when it did not.
func (r *round) choose(answers map[string]any, timedOut bool, b *regexlimit.Budget) int {
	for i := range r.branches {
		if r.branches[i].onTimeout == timedOut && holds(r.branches[i].when, answers, b) {
			return i
		}
	}
	return -1
}

// played notes a round for the journal: whether its questions went to the
// client in this request, the answers known, the branch taken (-1: none).
func (s *state) played(r *round, sent bool, answers map[string]json.RawMessage, chosen int, timedOut bool) {
	if s.rec == nil {
		return
	}
	asked := make(map[string]json.RawMessage, len(r.questions))
	got := make(map[string]json.RawMessage, len(r.questions))
	for _, q := range r.questions {
		asked[q.id] = q.wire
		if a, ok := answers[q.id]; ok {
			got[q.id] = a
		}
	}
	s.call.rounds = append(s.call.rounds, journal.Round{Asked: asked, Sent: sent, Answers: got, Branch: chosen, TimedOut: timedOut})
}

// holds reports whether every condition holds for the answers.
func holds(conds []scenario.Condition, answers map[string]any, b *regexlimit.Budget) bool {
	for i := range conds {
		if !conds[i].MatchWithin(answers, b) {
			return false
		}
	}
	return true
}

// inputRequired answers the questions qs with an input_required result,
// or -32021 when the request's client capabilities lack one they need.
func inputRequired(x *Exchange, signer *stateSigner, st askState, qs []question) (json.RawMessage, error) {
	var lacking []string
	requests := make(map[string]json.RawMessage, len(qs))
	for _, q := range qs {
		if !x.Meta().HasCapability(q.capability) && !slices.Contains(lacking, q.capability) {
			lacking = append(lacking, q.capability)
		}
		requests[q.id] = q.wire
	}
	if len(lacking) > 0 {
		caps := make(map[string]struct{}, len(lacking))
		for _, c := range lacking {
			caps[c] = struct{}{}
		}
		return nil, missingCapability(caps, "this call asks the client for %s; declare %s in _meta.%s",
			strings.Join(lacking, " and "), strings.Join(lacking, " and "), mcptransport.MetaClientCapabilities)
	}
	tok, err := signer.seal(st)
	if err != nil {
		if errors.Is(err, errStateTooLarge) {
			return nil, invalidParams("%v", err)
		}
		return nil, err
	}
	return json.Marshal(struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  string                     `json:"requestState"`
	}{"input_required", requests, tok})
}

// stateError is -32602 for a requestState that fails verification.
func stateError(err error) error {
	return jsonrpc.WithData(invalidParams("%v", err), map[string]string{"field": "requestState"})
}

// problem says why raw is not an answer to q (msg "" when it is one); sub
// is the path of the member at fault within it ("" for the whole).
func (q *question) problem(raw json.RawMessage) (sub, msg string) {
	var m map[string]json.RawMessage
	if !isJSONObject(raw) || json.Unmarshal(raw, &m) != nil {
		return "", "must be an object: the client's result for the input request"
	}
	switch q.capability {
	case mockspec.AskElicitation:
		var action string
		if json.Unmarshal(m["action"], &action) != nil || (action != "accept" && action != "decline" && action != "cancel") {
			return ".action", `must be "accept", "decline" or "cancel"`
		}
		content, has := m["content"]
		if has && !isJSONObject(content) && string(bytes.TrimSpace(content)) != "null" {
			return ".content", "must be an object of the form's values"
		}
		if action != "accept" {
			return "", ""
		}
		if !has || !isJSONObject(content) {
			content = json.RawMessage("{}")
		}
		v, err := jsonvalue.Decode(content)
		if err != nil {
			return ".content", "must be JSON"
		}
		if vs := q.schema.Validate(v); len(vs) > 0 {
			field := ".content"
			if vs[0].Field != "" {
				field += "." + vs[0].Field
			}
			return field, "does not satisfy the requested schema: " + vs[0].Message
		}
	case mockspec.AskSampling:
		var role string
		if json.Unmarshal(m["role"], &role) != nil || role == "" {
			return ".role", `is required: a string such as "assistant"`
		}
		c := bytes.TrimSpace(m["content"])
		if len(c) == 0 || (c[0] != '{' && c[0] != '[') {
			return ".content", "is required: a content block or a list of them"
		}
		if model, ok := m["model"]; ok {
			if _, isString := jsonString(model); !isString {
				return ".model", "must be a string"
			}
		}
	case mockspec.AskRoots:
		var roots []map[string]json.RawMessage
		if json.Unmarshal(m["roots"], &roots) != nil || m["roots"] == nil {
			return ".roots", `is required: a list such as [{"uri": "file:///project"}]`
		}
		for i, r := range roots {
			if _, ok := jsonString(r["uri"]); !ok {
				return fmt.Sprintf(".roots[%d].uri", i), "is required: the root's URI"
			}
		}
	}
	return "", ""
}

// withAnswers is the answer a with its {{id.path}} placeholders filled
// from answers, compiled: its answer template, if any, is rendered after.
func (a *answer) withAnswers(answers map[string]any) (answer, error) {
	t := a.tmpl
	filled, err := compileAnswer(fillAnswers(t.response, answers), fillAnswers(t.result, answers), nil, t.version, t.structured)
	filled.delay = a.delay
	return filled, err
}

// fillAnswers replaces each {{id.path}} in the JSON raw with the answer
// there, as the inside of a JSON string: strings as they are, other values
// as JSON, absent ones as nothing.
func fillAnswers(raw json.RawMessage, answers map[string]any) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	return mockspec.AnswerPlaceholder.ReplaceAllFunc(raw, func(m []byte) []byte {
		name := strings.TrimSpace(string(m[2 : len(m)-2]))
		if root, _, _ := strings.Cut(name, "."); answertmpl.NamesHelper(name) {
			if _, asked := answers[root]; !asked {
				return m // an answer template's, rendered after
			}
		}
		return []byte(jsonStringBody(answerText(name, answers)))
	})
}

// noBranch answers a call whose answers no branch of the round takes: a
// tool error result for a tool, -32602 for a prompt or a resource.
func noBranch(c askCall) (json.RawMessage, error) {
	if !strings.HasPrefix(c.target, "tools/call") {
		return nil, &jsonrpc.Error{Code: jsonrpc.ErrInvalidParams.Code,
			Message: "No branch of " + c.kind() + " '" + c.name + "' matched the answers"}
	}
	return errorResult("No branch of mock scenario '" + c.name + "' matched the answers")
}

// kind names what asks: "mock scenario", "prompt" or "resource".
func (c askCall) kind() string {
	switch {
	case strings.HasPrefix(c.target, "prompts/get"):
		return "prompt"
	case strings.HasPrefix(c.target, "resources/read"):
		return "resource"
	}
	return "mock scenario"
}

// askLegacy is the tool error result an invocation outside the MCP
// endpoint gets from a scenario that asks: no client is there to answer.
func askLegacy(scenarioName string) (json.RawMessage, error) {
	return errorResult("Mock scenario '" + scenarioName + "' asks the client questions (elicitation, sampling or roots), " +
		"which only an MCP client can answer")
}

func errorResult(text string) (json.RawMessage, error) {
	b, err := marshalText(text)
	if err != nil {
		return nil, err
	}
	return append(append([]byte(`{"content":[`), b...), `],"isError":true}`...), nil
}

func present(raw json.RawMessage) bool { return len(bytes.TrimSpace(raw)) > 0 }

func isJSONObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err == nil && len(bytes.TrimSpace(raw)) > 0 && bytes.TrimSpace(raw)[0] == '"'
}

// usesSequence reports whether the scene, or an answer after its
// questions, is a sequence.
func (s *scene) usesSequence() bool {
	if s.sequence {
		return true
	}
	return s.ask != nil && s.ask.usesSequence()
}

func (r *round) usesSequence() bool {
	for _, b := range r.branches {
		if (b.leaf != nil && b.leaf.sequence) || (b.next != nil && b.next.usesSequence()) {
			return true
		}
	}
	return false
}

// size estimates the bytes a scene holds, with its rounds and branches.
func (s *scene) size() int {
	n := 0
	for _, a := range s.steps {
		n += 2*len(a.result) + 256
		if a.tmpl != nil {
			n += len(a.tmpl.response) + len(a.tmpl.result)
		}
	}
	for _, note := range s.notes {
		n += len(note.before) + len(note.after) + 64
	}
	if s.ask != nil {
		n += s.ask.size()
	}
	return n
}

func (r *round) size() int {
	n := 0
	for _, q := range r.questions {
		n += len(q.wire) + 256
		if q.schema != nil {
			n += q.schema.Footprint()
		}
	}
	for _, b := range r.branches {
		n += 128
		switch {
		case b.leaf != nil:
			n += b.leaf.size()
		case b.next != nil:
			n += b.next.size()
		}
		for _, m := range b.messages {
			n += len(m.Text) + len(m.Content)
		}
		if b.content != nil {
			n += len(b.content.text)
		}
	}
	return n
}

// askPrompt plays the rounds of a prompt that asks: it returns the branch
// whose messages answer, with the answers its placeholders read added to
// values, or else the result to send or an error. A legacy request gets
// an error: legacy clients are asked with server-to-client requests.
func askPrompt(ctx context.Context, x *Exchange, s *state, d *compiled, name string, pr *prompt, params json.RawMessage, args map[string]any,
	values map[string]string) (*branch, json.RawMessage, error) {
	s.budget = regexlimit.NewBudget() // for the branches' patterns
	b, answers, out, err := ask(ctx, x, s, d, askCall{target: "prompts/get " + name, params: params, args: args, name: name, first: pr.ask})
	if b == nil {
		return nil, out, err
	}
	for _, m := range b.messages {
		for _, raw := range [][]byte{[]byte(m.Text), m.Content} {
			for _, match := range mockspec.AnswerPlaceholder.FindAllSubmatch(raw, -1) {
				key := string(match[1])
				if _, isArgument := values[key]; !isArgument {
					values[key] = answerText(key, answers)
				}
			}
		}
	}
	return b, nil, nil
}

// answerText is the answer at path (id.path) as text: a string as it is,
// another value as JSON, an absent one as "".
func answerText(path string, answers map[string]any) string {
	segs, err := jsonvalue.ParsePath(path, jsonvalue.PathSyntax{})
	if err != nil {
		return ""
	}
	v, ok := answers[segs[0].Key]
	for i := 1; ok && i < len(segs); i++ {
		v, ok = segs[i].Step(v)
	}
	if !ok || v == nil {
		return ""
	}
	if s, isString := v.(string); isString {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// askResource plays the rounds of a resource that asks: it returns the
// text to read (the resource's own, text as read, or the content of the
// branch the answers take, served with the resource's media type) and r,
// or else a nil resource and the result to send or an error. A legacy
// request gets an error.
func askResource(ctx context.Context, x *Exchange, s *state, d *compiled, uri string, r *resource, text string, params json.RawMessage) (string, *resource, json.RawMessage, error) {
	s.budget = regexlimit.NewBudget() // for the branches' patterns
	b, answers, out, err := ask(ctx, x, s, d, askCall{target: "resources/read " + uri, params: params,
		args: map[string]any{"uri": uri}, name: uri, first: r.ask})
	if b == nil {
		return "", nil, out, err
	}
	if b.content == nil {
		return text, r, nil, nil
	}
	c := b.content
	filled := mockspec.AnswerPlaceholder.ReplaceAllStringFunc(c.text, func(m string) string {
		v := answerText(strings.TrimSpace(m[2:len(m)-2]), answers)
		if c.jsonContent {
			return jsonStringBody(v)
		}
		return v
	})
	if m := matchTemplate(r, uri); m != nil {
		filled = r.substitute(filled, c.jsonContent, m)
	}
	return filled, r, nil, nil
}

// matchTemplate is the match of uri against r's template, nil for a
// plain resource.
func matchTemplate(r *resource, uri string) []string {
	if r.pattern == nil {
		return nil
	}
	return r.pattern.FindStringSubmatch(uri)
}

// ask plays the rounds of a call that asks, in the request's era.
func ask(ctx context.Context, x *Exchange, s *state, d *compiled, c askCall) (*branch, map[string]any, json.RawMessage, error) {
	if x.Modern() {
		return askClient(x, s, d, c)
	}
	return askLegacyClient(ctx, x, s, d, c)
}

// askLegacyClient plays the rounds of a call that asks, for a legacy
// request: each round's questions go to the client as requests on the
// reply's event stream, and the call waits for the client's answers,
// which come as responses in POSTs of their own. It returns what
// askClient does.
func askLegacyClient(ctx context.Context, x *Exchange, s *state, d *compiled, c askCall) (*branch, map[string]any, json.RawMessage, error) {
	if !x.CanAsk() || s.asks == nil {
		out, err := cannotAsk(c)
		return nil, nil, out, err
	}
	answers := map[string]json.RawMessage{}
	for r := c.first; ; {
		timedOut, err := s.askRound(ctx, x, d, r, answers)
		if err != nil {
			return nil, nil, nil, err
		}
		decoded, err := decodeAnswers(answers)
		if err != nil {
			return nil, nil, nil, err
		}
		chosen := r.choose(decoded, timedOut, &s.budget)
		s.played(r, true, answers, chosen, timedOut)
		switch {
		case chosen < 0 && timedOut:
			return nil, nil, nil, unanswered(c, r, answers, s.askWait(r))
		case chosen < 0:
			out, err := noBranch(c)
			return nil, nil, out, err
		}
		b := &r.branches[chosen]
		if b.next == nil {
			return b, decoded, nil, nil
		}
		r = b.next
	}
}

// askWait is how long a legacy client has to answer r.
func (s *state) askWait(r *round) time.Duration {
	switch {
	case r.timeout > 0:
		return r.timeout
	case s.askTimeout > 0:
		return s.askTimeout
	}
	return DefaultAskTimeout
}

// askRound sends the questions of r to the client and waits for the
// answers, adding them to answers (an error the client answers with as
// {"error": {...}}). It reports whether the wait ran out first; the
// questions still open then are cancelled.
func (s *state) askRound(ctx context.Context, x *Exchange, d *compiled, r *round, answers map[string]json.RawMessage) (bool, error) {
	ch := make(chan reply, len(r.questions))
	ids, err := s.asks.register(d.id, s.address(), len(r.questions), ch)
	if err != nil {
		return false, busy(err)
	}
	defer s.asks.release(ids)
	of := make(map[string]*question, len(ids))
	for i := range r.questions {
		q := &r.questions[i]
		of[ids[i]] = q
		x.Notify([]byte(`{"jsonrpc":"2.0","id":"`+ids[i]+`",`), q.wire[1:])
	}
	t := time.NewTimer(s.askWait(r))
	defer t.Stop()
	for n := 0; n < len(ids); n++ {
		select {
		case rep := <-ch:
			q := of[rep.id]
			if rep.error != nil {
				answers[q.id] = append(append(json.RawMessage(`{"error":`), rep.error...), '}')
				continue
			}
			if sub, msg := q.problem(rep.result); msg != "" {
				field := q.id + sub
				return false, jsonrpc.WithData(invalidParams("the client's answer to question '%s' (%s): %s %s",
					q.id, q.method, strings.TrimPrefix(sub, "."), msg), map[string]string{"field": field})
			}
			answers[q.id] = rep.result
		case <-t.C:
			for id, q := range of {
				if _, ok := answers[q.id]; !ok {
					x.Notify(cancelled(id, s.askWait(r)))
				}
			}
			return true, nil
		case <-ctx.Done():
			return false, errClientGone
		case <-s.asks.closing:
			return false, scriptedInternal("The server is shutting down; call again")
		}
	}
	return false, nil
}

// cancelled is the notifications/cancelled of a question the client did
// not answer in time.
func cancelled(id string, wait time.Duration) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled",
		"params": map[string]string{"requestId": id, "reason": "no answer within " + wait.String()}})
	return b
}

// unanswered is -32603, with its message, for a round a legacy client did
// not answer in time and that has no timeout branch.
func unanswered(c askCall, r *round, answers map[string]json.RawMessage, wait time.Duration) error {
	var open []string
	for _, q := range r.questions {
		if _, ok := answers[q.id]; !ok {
			open = append(open, q.id)
		}
	}
	return scriptedInternal(fmt.Sprintf("The client did not answer question %s of %s '%s' within %s",
		strings.Join(open, ", "), c.kind(), c.name, wait))
}

// busy is -32603 for a round of questions past the bound of a server's
// waiting questions.
// busy is the error of a round refused by register's err.
func busy(err error) error {
	if errors.Is(err, errClientPendingFull) {
		return scriptedInternal("Too many questions of this server are waiting for this client's answers; answer them first")
	}
	return scriptedInternal("Too many questions of this server are waiting for clients' answers; try again once some are answered")
}

// cannotAsk is the answer to a legacy call that asks, on an exchange where
// no request can be sent to the client: a tool error result for a tool,
// -32603 for a prompt or a resource.
func cannotAsk(c askCall) (json.RawMessage, error) {
	what := c.kind()
	msg := strings.ToUpper(what[:1]) + what[1:] + " '" + c.name + "' asks the client questions (elicitation, sampling or roots), " +
		"sent as requests on the reply's event stream: call it alone (not in a batch) with Accept: text/event-stream"
	if what == "mock scenario" {
		return errorResult(msg)
	}
	return nil, scriptedInternal(msg)
}

// scriptedInternal is -32603 sent with its message (a plain -32603 is sent
// without one).
func scriptedInternal(msg string) error {
	e, err := scripted(mockspec.RPCError{Code: int(jsonrpc.ErrInternal.Code), Message: msg})
	if err != nil {
		return err
	}
	return e
}
