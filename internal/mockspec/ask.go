package mockspec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"regexp"
	"slices"
	"strings"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// Limits of a scenario that asks the client.
const (
	// MaxInputRequests bounds the questions of one round.
	MaxInputRequests = 10
	// MaxAskDepth bounds the rounds of questions one call may take.
	MaxAskDepth = 5
	// MaxBranches bounds the branches of one round.
	MaxBranches = 20
)

// The capability a client declares for each kind of question, which is
// also the member naming the kind in an InputRequest.
const (
	AskElicitation = "elicitation"
	AskSampling    = "sampling"
	AskRoots       = "roots"
)

// InputRequest is one question a scenario asks the client: exactly one of
// Elicitation (a form the user fills in), Sampling (a completion from the
// client's model) and Roots (the client's roots).
type InputRequest struct {
	Elicitation *Elicitation `json:"elicitation,omitempty"`
	Sampling    *Sampling    `json:"sampling,omitempty"`
	Roots       *Roots       `json:"roots,omitempty"`
}

// Kind names the question's kind (AskElicitation, AskSampling or
// AskRoots), "" when none is set.
func (r InputRequest) Kind() string {
	switch {
	case r.Elicitation != nil:
		return AskElicitation
	case r.Sampling != nil:
		return AskSampling
	case r.Roots != nil:
		return AskRoots
	}
	return ""
}

// Elicitation asks the user to fill in a form: elicitation/create in form
// mode.
type Elicitation struct {
	Message string `json:"message"`
	// RequestedSchema is a JSON Schema of an object, as MCP restricts it:
	// top-level properties of primitive types.
	RequestedSchema json.RawMessage `json:"requested_schema"`
}

// Sampling asks the client's model for a message: sampling/createMessage.
type Sampling struct {
	Messages         []SamplingMessage `json:"messages"`
	MaxTokens        int               `json:"max_tokens"`
	ModelPreferences json.RawMessage   `json:"model_preferences,omitempty"`
	SystemPrompt     string            `json:"system_prompt,omitempty"`
}

// SamplingMessage is one message of a sampling request: a role (user or
// assistant) and one text, image or audio content block.
type SamplingMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Roots asks for the client's roots: roots/list. It has no parameters.
type Roots struct{}

// Branch is one way a round of questions may end: when its condition holds
// for the answers, exactly one of Response, Result, Error, Sequence, or
// another round (Ask with its own Then); a prompt's branch answers
// Messages instead.
type Branch struct {
	// When is a scenario condition, or a list of them that must all hold,
	// read against the answers so far keyed by question id: an
	// elicitation's {"action", "content"}, a sampling's {"role",
	// "content", "model", "stopReason"}, roots' {"roots"}. Absent, null
	// or {}: always.
	When     json.RawMessage         `json:"when,omitempty"`
	Response json.RawMessage         `json:"response,omitempty"`
	Result   json.RawMessage         `json:"result,omitempty"`
	Error    *RPCError               `json:"error,omitempty"`
	Sequence *Sequence               `json:"sequence,omitempty"`
	Ask      map[string]InputRequest `json:"ask,omitempty"`
	Then     []Branch                `json:"then,omitempty"`
	// Messages answers a prompt's branch: prompt messages, whose
	// placeholders may name arguments and answers.
	Messages json.RawMessage `json:"messages,omitempty"`
	// Content answers a resource's branch: its text or JSON content in
	// place of the resource's own.
	Content json.RawMessage `json:"content,omitempty"`
	// TimeoutMS makes this the round's timeout branch: it answers, and
	// only it, when a client asked with requests on its SSE reply (the
	// legacy revisions, before protocol.Modern) has not answered every question of the
	// round within that many milliseconds. At most one per round.
	TimeoutMS *int `json:"timeout_ms,omitempty"`
	// Task makes a tool's call, once its questions are answered, a task
	// of the tasks extension (whose outcome may quote the answers).
	Task *Task `json:"task,omitempty"`
}

// MaxAskTimeoutMS bounds a timeout branch's wait.
const MaxAskTimeoutMS = 300_000

// AskIDPattern is what a question id may be: it names the question on the
// wire and its answer in conditions and placeholders.
var AskIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// AnswerPlaceholder matches an {{id.path}} placeholder of an answer given
// after questions; its first group is the path into the answers.
var AnswerPlaceholder = Placeholder

// CompileWhen compiles a branch's condition: one condition or a list of
// them. Fields of the problems are relative to the branch ("when",
// "when[1].operator").
func CompileWhen(raw json.RawMessage) ([]scenario.Condition, []FieldProblem) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, []FieldProblem{{"when", "must be a condition or a list of conditions: " + err.Error()}}
		}
		var out []scenario.Condition
		var probs []FieldProblem
		for i, one := range list {
			cond, errs := scenario.Compile(one)
			for _, e := range errs {
				probs = append(probs, FieldProblem{fmt.Sprintf("when[%d]", i) + strings.TrimPrefix(e.Field, "condition"), e.Message})
			}
			out = append(out, cond)
		}
		return out, probs
	}
	cond, errs := scenario.Compile(raw)
	var probs []FieldProblem
	for _, e := range errs {
		probs = append(probs, FieldProblem{"when" + strings.TrimPrefix(e.Field, "condition"), e.Message})
	}
	return []scenario.Condition{cond}, probs
}

// FieldProblem is one problem of a branch's condition.
type FieldProblem struct{ Field, Message string }

// askForms are the answer members of a node that may ask.
var askForms = []string{"response", "result", "error", "sequence", "ask"}

// askNode is a scenario or a branch, as the ask checks see it.
type askNode struct {
	forms answerForms
	ask   map[string]InputRequest
	then  []Branch
}

// asks reports whether the node asks, or names then (which needs ask).
func (n askNode) asks() bool { return n.ask != nil || n.then != nil }

// leafCheck checks a branch that answers; ids are the questions asked on
// the way to it.
type leafCheck func(c *checker, at string, b Branch, ids []string)

// askAnswer checks a node that asks: no other answer beside ask, the
// questions, and each branch, recursively. ids are the question ids of
// the enclosing rounds; depth is this round's (1 for a scenario's).
func (c *checker) askAnswer(at string, n askNode, leaf leafCheck, ids []string, depth int) {
	for _, g := range n.forms.members() {
		if g.given {
			c.add(join(at, g.name), "only one of %s may be given: with ask, the answers go in the branches of then", andList(askForms))
		}
	}
	if n.ask == nil {
		c.add(join(at, "ask"), "is required with then: the questions whose answers the branches read")
		return
	}
	if depth > MaxAskDepth {
		c.add(join(at, "ask"), "at most %d rounds of questions deep", MaxAskDepth)
		return
	}
	switch l := len(n.ask); {
	case l == 0:
		c.add(join(at, "ask"), "must have at least one question, keyed by its id")
	case l > MaxInputRequests:
		c.add(join(at, "ask"), "at most %d questions in one round, got %d", MaxInputRequests, l)
	}
	keys := make([]string, 0, len(n.ask))
	for id := range n.ask {
		keys = append(keys, id)
	}
	slices.Sort(keys)
	for _, id := range keys {
		qat := fmt.Sprintf("%s[%q]", join(at, "ask"), id)
		switch {
		case !AskIDPattern.MatchString(id):
			c.add(qat, "a question id is 1 to 64 letters, digits, '_' or '-'")
		case slices.Contains(ids, id):
			c.add(qat, "id %q is already a question of an earlier round: ids name answers, so they must differ along a path", id)
		}
		c.inputRequest(qat, n.ask[id])
	}
	inner := append(slices.Clone(ids), keys...)
	switch l := len(n.then); {
	case l == 0:
		c.add(join(at, "then"), "is required with ask: the branches that answer, tried in order, each with a when")
	case l > MaxBranches:
		c.add(join(at, "then"), "at most %d branches, got %d", MaxBranches, l)
	}
	timeouts := 0
	for i, b := range n.then {
		bat := fmt.Sprintf("%s[%d]", join(at, "then"), i)
		if b.TimeoutMS != nil {
			timeouts++
			switch v := *b.TimeoutMS; {
			case timeouts > 1:
				c.add(join(bat, "timeout_ms"), "only one branch of a round may be its timeout branch")
			case v < 1 || v > MaxAskTimeoutMS:
				c.add(join(bat, "timeout_ms"), "must be from 1 to %d milliseconds, got %d", MaxAskTimeoutMS, v)
			}
		}
		_, probs := CompileWhen(b.When)
		for _, p := range probs {
			c.add(join(bat, p.Field), "%s", p.Message)
		}
		n := askNode{forms: b.forms(), ask: b.Ask, then: b.Then}
		if !n.asks() {
			leaf(c, bat, b, inner)
			continue
		}
		if present(b.Messages) {
			c.add(join(bat, "messages"), "a branch that asks answers in its own then")
		}
		c.askAnswer(bat, n, leaf, inner, depth+1)
	}
}

// toolLeaf checks the answer of a tool's branch against output, the
// tool's output schema.
func toolLeaf(output *schema.Schema) leafCheck {
	return func(c *checker, at string, b Branch, ids []string) {
		c.branchAnswer(at, b, output, ids)
	}
}

// branchAnswer checks the answer of one branch of a tool's scenario.
func (c *checker) branchAnswer(at string, b Branch, output *schema.Schema, ids []string) {
	if b.Task != nil {
		c.foreign(at, b, "a branch with task answers in the task", "")
		c.task(join(at, "task"), b.Task, output, ids)
		return
	}
	n := askNode{forms: b.forms()}
	c.foreign(at, b, "a tool's branch answers response, result, error or sequence", "response", "result", "error", "sequence")
	defer c.asking(ids)()
	c.answer(at, n.forms, scenarioForms, output)
	c.placeholders(at, n.forms, ids)
	if b.Sequence != nil {
		for i, st := range b.Sequence.Steps {
			if st.DelayMS != nil {
				c.delay(fmt.Sprintf("%s.sequence.steps[%d].delay_ms", at, i), *st.DelayMS)
			}
		}
	}
}

// asking notes ids as the questions asked before the answer checked next,
// and returns what restores the earlier ones.
func (c *checker) asking(ids []string) func() {
	before := c.asked
	c.asked = ids
	return func() { c.asked = before }
}

// placeholders checks that every {{id...}} of a branch's answer names a
// question asked on the way to it.
func (c *checker) placeholders(at string, f answerForms, ids []string) {
	check := func(field string, raw json.RawMessage) {
		for _, m := range AnswerPlaceholder.FindAllSubmatch(raw, -1) {
			path := string(m[1])
			segs, err := jsonvalue.ParsePath(path, jsonvalue.PathSyntax{})
			switch {
			case err != nil:
				if answertmpl.NamesHelper(path) {
					continue // an answer template's, checked as one
				}
				c.add(field, "placeholder {{%s}}: %v", path, err)
			case answertmpl.IsHelper(segs[0].Key) && !slices.Contains(ids, segs[0].Key):
				// an answer template's, checked as one
			case !slices.Contains(ids, segs[0].Key):
				c.add(field, "placeholder {{%s}} names no question asked before this answer (%s)", path, orList(ids))
			}
		}
	}
	check(join(at, "response"), f.response)
	check(join(at, "result"), f.result)
	if f.sequence != nil {
		for i, st := range f.sequence.Steps {
			at := fmt.Sprintf("%s.steps[%d]", join(at, "sequence"), i)
			check(join(at, "response"), st.Response)
			check(join(at, "result"), st.Result)
		}
	}
}

// inputRequest checks one question.
func (c *checker) inputRequest(at string, r InputRequest) {
	var kinds []string
	if r.Elicitation != nil {
		kinds = append(kinds, AskElicitation)
	}
	if r.Sampling != nil {
		kinds = append(kinds, AskSampling)
	}
	if r.Roots != nil {
		kinds = append(kinds, AskRoots)
	}
	switch len(kinds) {
	case 0:
		c.add(at, "give one of elicitation (a form for the user), sampling (a message from the client's model) or roots (the client's roots)")
	case 1:
	default:
		c.add(join(at, kinds[1]), "a question is one of elicitation, sampling and roots; this one also has %s", kinds[0])
	}
	if e := r.Elicitation; e != nil {
		if strings.TrimSpace(e.Message) == "" {
			c.add(join(at, "elicitation.message"), "must not be blank: what the user is asked")
		}
		if !present(e.RequestedSchema) {
			c.add(join(at, "elicitation.requested_schema"), `is required: a JSON Schema of an object, such as {"type": "object", "properties": {"name": {"type": "string"}}}`)
		} else if _, err := schema.Compile(e.RequestedSchema, schema.RequireObject); err != nil {
			c.add(join(at, "elicitation.requested_schema"), "%s", err.Error())
		}
	}
	if s := r.Sampling; s != nil {
		sat := join(at, "sampling")
		if len(s.Messages) == 0 {
			c.add(join(sat, "messages"), `must have at least one message, such as {"role": "user", "content": {"type": "text", "text": "..."}}`)
		}
		for i, m := range s.Messages {
			mat := fmt.Sprintf("%s.messages[%d]", sat, i)
			if m.Role != "user" && m.Role != "assistant" {
				c.add(join(mat, "role"), `must be "user" or "assistant", got %q`, m.Role)
			}
			if !present(m.Content) {
				c.add(join(mat, "content"), "is required: a text, image or audio content block")
				continue
			}
			var typ struct {
				Type string `json:"type"`
			}
			_ = json.Unmarshal(m.Content, &typ)
			if isObject(m.Content) && typ.Type != "text" && typ.Type != "image" && typ.Type != "audio" {
				c.add(join(mat, "content.type"), "a sampling message holds a text, image or audio block, not %q", typ.Type)
				continue
			}
			c.block(join(mat, "content"), m.Content)
		}
		if s.MaxTokens < 1 {
			c.add(join(sat, "max_tokens"), "is required: the most tokens the client's model may sample, 1 or more")
		}
		if present(s.ModelPreferences) && !isObject(s.ModelPreferences) {
			c.add(join(sat, "model_preferences"), "must be an object such as {\"hints\": [{\"name\": \"claude\"}]}, not %s", kindOf(s.ModelPreferences))
		}
	}
}

// checkAsk checks a scenario that asks.
func (c *checker) checkAsk(sc Scenario, output *schema.Schema) {
	c.askAnswer("", askNode{forms: sc.forms(), ask: sc.Ask, then: sc.Then}, toolLeaf(output), nil, 1)
	c.noNUL(sc.Ask, sc.Then)
}

// noNUL refuses the character U+0000 anywhere in the questions and
// branches of a part that asks.
func (c *checker) noNUL(ask map[string]InputRequest, then []Branch) {
	if raw, err := json.Marshal(struct {
		Ask  map[string]InputRequest `json:"ask"`
		Then []Branch                `json:"then"`
	}{ask, then}); err == nil && bytes.Contains(raw, []byte(`\u0000`)) {
		c.add("ask", "must not contain the character U+0000")
	}
}

// branchSteps lists the sequence steps of every branch, at every depth.
func branchSteps(bs []Branch) []Step {
	var out []Step
	for _, b := range bs {
		if b.Sequence != nil {
			out = append(out, b.Sequence.Steps...)
		}
		out = append(out, branchSteps(b.Then)...)
	}
	return out
}

// foreign reports the answer members of b that are not among own, the
// members a branch of this kind answers with (want says which).
func (c *checker) foreign(at string, b Branch, want string, own ...string) {
	for _, g := range append(b.forms().members(), member{"messages", present(b.Messages)}, member{"content", present(b.Content)}) {
		if g.given && !slices.Contains(own, g.name) {
			c.add(join(at, g.name), "%s, not %s", want, g.name)
		}
	}
}

// CheckAskTree checks the questions and branches of a prompt or resource
// that asks. A branch that answers may give only the member answer
// ("messages", "content"); leaf checks each such branch (ids: the
// questions asked on the way to it) and returns the problems with fields
// relative to the branch. Fields are relative to the part
// ("ask[\"user\"].elicitation.message", "then[1].messages[0].role").
func CheckAskTree(ask map[string]InputRequest, then []Branch, answer string,
	leaf func(b Branch, ids []string) []failure.FieldError) []failure.FieldError {
	c := checker{}
	check := func(c *checker, at string, b Branch, ids []string) {
		c.foreign(at, b, "this branch answers "+answer, answer)
		for _, e := range leaf(b, ids) {
			c.add(join(at, e.Field), "%s", e.Message)
		}
	}
	c.askAnswer("", askNode{ask: ask, then: then}, check, nil, 1)
	c.noNUL(ask, then)
	return c.f
}

// CheckPromptAsk checks the questions and branches of a prompt that asks.
// Each branch that answers must give messages, and only them; messages
// checks them (ids: the questions asked on the way to the branch, which
// its placeholders may name) and returns the problems with fields
// relative to the messages ("[0].role").
func CheckPromptAsk(ask map[string]InputRequest, then []Branch, messages func(raw json.RawMessage, ids []string) []failure.FieldError) []failure.FieldError {
	return CheckAskTree(ask, then, "messages", func(b Branch, ids []string) []failure.FieldError {
		if !present(b.Messages) {
			return []failure.FieldError{failure.Field("messages", "is required: the prompt messages this branch answers, or ask another round")}
		}
		var out []failure.FieldError
		for _, e := range messages(b.Messages, ids) {
			out = append(out, failure.FieldError{Field: "messages" + e.Field, Message: e.Message})
		}
		return out
	})
}
