package agentcard

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// MaxReplies bounds the scripted replies of a card.
const MaxReplies = 100

// Limits of a reply's task.
const (
	MaxTaskSteps     = mockspec.MaxTaskSteps
	MaxTaskStepMS    = 600_000 // ten minutes: a stream plays the timeline live
	MaxTaskArtifacts = 20
)

// Task states a reply's task scripts, as A2A 0.3 spells them (the 1.0
// wire names are TASK_STATE_ and the upper-case name, - read as _).
const (
	TaskWorking       = "working"
	TaskInputRequired = "input-required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCanceled      = "canceled"
	TaskRejected      = "rejected"
)

// Reply is a scripted answer of the card's mock A2A agent: when Condition
// (the scenario condition syntax, over {text, data, metadata, contextId} of
// the message received) matches, the agent answers Text (a Message) or
// Task (a Task that follows its timeline), answer templates rendered with
// that same object as their args; Fault, when it applies, delays the
// answer, drops it or answers an error instead. The first reply that
// matches answers; none or no match gives the default reply.
//
// WhenState (the condition syntax, over the state of the message's
// context) must match too; SetState changes that state once the reply is
// chosen: each key set to its JSON value, or to a template rendered with
// the message's args and the state, a null deleting the key. Texts read
// the state as {{state.KEY}}.
type Reply struct {
	Name      string          `json:"name"`
	Condition json.RawMessage `json:"condition,omitempty"`
	WhenState json.RawMessage `json:"when_state,omitempty"`
	SetState  json.RawMessage `json:"set_state,omitempty"`
	Text      string          `json:"text,omitempty"`
	Task      *ReplyTask      `json:"task,omitempty"`
	Fault     *ReplyFault     `json:"fault,omitempty"`
}

// ReplyTask is a task with a timeline, in the step and outcome form of MCP
// tasks: the steps in order from the task's creation, each working for
// duration_ms, or input-required until a message continues the task; then
// the outcome.
type ReplyTask struct {
	Steps   []TaskStep  `json:"steps,omitempty"`
	Outcome TaskOutcome `json:"outcome"`
}

// TaskStep is one phase of a task: State is TaskWorking (the default) or
// TaskInputRequired; Message is the status message's text (a template).
type TaskStep struct {
	State      string `json:"state,omitempty"`
	Message    string `json:"message,omitempty"`
	DurationMS int    `json:"duration_ms,omitempty"`
}

// TaskOutcome is the state a task ends in, with its status message's text
// and the artifacts it produced.
type TaskOutcome struct {
	State     string     `json:"state"`
	Message   string     `json:"message,omitempty"`
	Artifacts []Artifact `json:"artifacts,omitempty"`
}

// Artifact is an output of a task: a text part (a template), a data part
// (any JSON), or both.
type Artifact struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Text        string          `json:"text,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
}

// ReplyFault is a reply's fault, in the shape of MCP tool faults: a share
// Rate (1 when absent) of the messages the reply matches waits DelayMS,
// then is dropped (the connection closed without an answer) or answered
// Error instead of the reply; with a delay only, the reply comes late.
type ReplyFault struct {
	Rate    *float64           `json:"rate,omitempty"`
	DelayMS int                `json:"delay_ms,omitempty"`
	Drop    bool               `json:"drop,omitempty"`
	Error   *mockspec.RPCError `json:"error,omitempty"`
}

// Share is the share of matched messages faulted.
func (f *ReplyFault) Share() float64 {
	if f.Rate == nil {
		return 1
	}
	return *f.Rate
}

// Answers reports whether a faulted message gets no reply of its own: it
// is dropped or answered an error.
func (f *ReplyFault) Answers() bool { return f.Drop || f.Error != nil }

// UsesState reports whether the reply reads or changes its context's
// state through when_state or set_state (its texts may read it too: see
// Card.UsesState).
func (r Reply) UsesState() bool {
	return !emptyJSON(r.WhenState) || !emptyJSON(r.SetState)
}

// UsesState reports whether any of the card's replies reads or changes
// the state of a context: when_state, set_state, or {{state in a text.
func (c Card) UsesState() bool {
	for _, r := range c.Replies {
		if r.UsesState() || readsState(r.Text) {
			return true
		}
		if t := r.Task; t != nil {
			if readsState(t.Outcome.Message) {
				return true
			}
			for _, st := range t.Steps {
				if readsState(st.Message) {
					return true
				}
			}
			for _, a := range t.Outcome.Artifacts {
				if readsState(a.Text) {
					return true
				}
			}
		}
	}
	return false
}

// readsState reports whether a text template reads the state.
func readsState(s string) bool {
	if !strings.Contains(s, "state") {
		return false
	}
	t, err := answertmpl.Compile(s)
	return err == nil && t.UsesState()
}

// emptyJSON reports whether raw is absent, null or {}.
func emptyJSON(raw json.RawMessage) bool {
	switch strings.Join(strings.Fields(string(raw)), "") {
	case "", "null", "{}":
		return true
	}
	return false
}

// Terminal reports whether state ends a task.
func Terminal(state string) bool {
	switch state {
	case TaskCompleted, TaskFailed, TaskCanceled, TaskRejected:
		return true
	}
	return false
}

// replies checks what the mock agent compiles: names given and unique,
// conditions, texts and tasks that compile, faults in bounds. A card that
// breaks them is not stored, draft or not.
func (v *cardCheck) replies(replies []Reply) {
	if len(replies) > MaxReplies {
		v.f.Add("replies", "at most %d replies; it has %d", MaxReplies, len(replies))
		return
	}
	first := map[string]int{}
	for i, r := range replies {
		at := fmt.Sprintf("replies[%d]", i)
		if strings.TrimSpace(r.Name) == "" {
			v.f.Add(at+".name", "is required")
		} else if j, dup := first[r.Name]; dup {
			v.f.Add(at+".name", "duplicate reply name '%s' (also replies[%d])", r.Name, j)
		} else {
			first[r.Name] = i
		}
		for _, e := range scenario.Check(r.Condition) {
			v.f.Add(at+"."+e.Field, "%s", e.Message)
		}
		for _, e := range scenario.Check(r.WhenState) {
			v.f.Add(at+".when_state"+strings.TrimPrefix(e.Field, "condition"), "%s", e.Message)
		}
		for _, e := range mockspec.CheckSetState(at+".set_state", r.SetState) {
			v.f.Add(e.Field, "%s", e.Message)
		}
		switch {
		case r.Text != "" && r.Task != nil:
			v.f.Add(at+".task", "a reply answers a text (a message) or a task, not both")
		case r.Text == "" && r.Task == nil && (r.Fault == nil || !r.Fault.Answers() || r.Fault.Share() < 1):
			v.f.Add(at+".text", "is required (or task): the reply's answer")
		}
		v.template(at+".text", r.Text)
		if r.Task != nil {
			v.task(at+".task", r.Task)
		}
		if r.Fault != nil {
			v.fault(at+".fault", r.Fault)
		}
	}
}

// template checks a reply's text template; "" is no template.
func (v *cardCheck) template(at, s string) {
	if s == "" {
		return
	}
	if _, err := answertmpl.Compile(s); err != nil {
		v.f.Add(at, "%s", err.Error())
	}
}

func (v *cardCheck) task(at string, t *ReplyTask) {
	if len(t.Steps) > MaxTaskSteps {
		v.f.Add(at+".steps", "at most %d steps, got %d", MaxTaskSteps, len(t.Steps))
	}
	for i, st := range t.Steps {
		sat := fmt.Sprintf("%s.steps[%d]", at, i)
		switch st.State {
		case "", TaskWorking:
			if st.DurationMS < 0 || st.DurationMS > MaxTaskStepMS {
				v.f.Add(sat+".duration_ms", "must be from 0 to %d milliseconds, got %d", MaxTaskStepMS, st.DurationMS)
			}
		case TaskInputRequired:
			if st.DurationMS != 0 {
				v.f.Add(sat+".duration_ms", "an input-required step lasts until a message continues the task: no duration_ms")
			}
		default:
			v.f.Add(sat+".state", "unknown state %q: want %s (the default) or %s; the task's end is its outcome", st.State, TaskWorking, TaskInputRequired)
		}
		if len(st.Message) > mockspec.MaxTaskMessage {
			v.f.Add(sat+".message", "at most %d bytes", mockspec.MaxTaskMessage)
		}
		v.template(sat+".message", st.Message)
	}
	o := t.Outcome
	if !Terminal(o.State) {
		if o.State == "" {
			v.f.Add(at+".outcome.state", "is required: %s, %s, %s or %s", TaskCompleted, TaskFailed, TaskCanceled, TaskRejected)
		} else {
			v.f.Add(at+".outcome.state", "unknown state %q: want %s, %s, %s or %s", o.State, TaskCompleted, TaskFailed, TaskCanceled, TaskRejected)
		}
	}
	if len(o.Message) > mockspec.MaxTaskMessage {
		v.f.Add(at+".outcome.message", "at most %d bytes", mockspec.MaxTaskMessage)
	}
	v.template(at+".outcome.message", o.Message)
	if len(o.Artifacts) > MaxTaskArtifacts {
		v.f.Add(at+".outcome.artifacts", "at most %d artifacts, got %d", MaxTaskArtifacts, len(o.Artifacts))
	}
	for i, a := range o.Artifacts {
		aat := fmt.Sprintf("%s.outcome.artifacts[%d]", at, i)
		if strings.TrimSpace(a.Name) == "" {
			v.f.Add(aat+".name", "is required")
		}
		if a.Text == "" && len(a.Data) == 0 {
			v.f.Add(aat+".text", "is required (or data): the artifact's content")
		}
		v.template(aat+".text", a.Text)
		if len(a.Data) > 0 && !json.Valid(a.Data) {
			v.f.Add(aat+".data", "must be JSON")
		}
	}
}

func (v *cardCheck) fault(at string, f *ReplyFault) {
	if f.Drop && f.Error != nil {
		v.f.Add(at+".drop", "a fault drops the message or answers an error, not both")
	}
	for _, e := range mockspec.CheckFault(&mockspec.Fault{Rate: f.Share(), Error: f.Error, DelayMS: f.DelayMS}) {
		if e.Field == "rate" {
			e.Message = fmt.Sprintf("must be between 0 and 1 (the share of matched messages faulted), got %v", f.Share())
		}
		v.f.Add(at+"."+e.Field, "%s", e.Message)
	}
}
