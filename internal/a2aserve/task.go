package a2aserve

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/store"
)

// script is a reply's task as kept with each task it begins: its texts
// rendered from the message that began it (a task outlives changes to its
// card), with the skill the message matched.
type script struct {
	Steps   []scriptStep  `json:"steps,omitempty"`
	Outcome scriptOutcome `json:"outcome"`
	Skill   string        `json:"skill,omitempty"`
}

type scriptStep struct {
	State      string `json:"state"`
	Message    string `json:"message,omitempty"`
	DurationMS int    `json:"duration_ms,omitempty"`
}

type scriptOutcome struct {
	State     string     `json:"state"`
	Message   string     `json:"message,omitempty"`
	Artifacts []artifact `json:"artifacts,omitempty"`
}

type artifact struct {
	ID          string          `json:"artifactId"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Text        string          `json:"text,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
}

// renderScript renders the texts of reply's task with args.
func renderScript(reply agentcard.Reply, args map[string]any, st *contextState, skill string) (script, error) {
	in := &answertmpl.Input{Args: args, State: st.value()}
	render := func(field, s string) (string, error) {
		if s == "" {
			return "", nil
		}
		t, err := answertmpl.Compile(s)
		if err != nil {
			return "", fmt.Errorf("%w: reply %q: %s: %v", jsonrpc.ErrInternal, reply.Name, field, err)
		}
		raw, err := t.Render(nil, in)
		if err != nil {
			return "", fmt.Errorf("%w: reply %q: %s: %v", jsonrpc.ErrInternal, reply.Name, field, err)
		}
		return textOf(raw), nil
	}
	t := reply.Task
	sc := script{Skill: skill, Steps: make([]scriptStep, len(t.Steps)), Outcome: scriptOutcome{State: t.Outcome.State}}
	var err error
	for i, st := range t.Steps {
		state := st.State
		if state == "" {
			state = agentcard.TaskWorking
		}
		sc.Steps[i] = scriptStep{State: state, DurationMS: st.DurationMS}
		if sc.Steps[i].Message, err = render(fmt.Sprintf("task.steps[%d].message", i), st.Message); err != nil {
			return script{}, err
		}
	}
	if sc.Outcome.Message, err = render("task.outcome.message", t.Outcome.Message); err != nil {
		return script{}, err
	}
	for i, a := range t.Outcome.Artifacts {
		text, err := render(fmt.Sprintf("task.outcome.artifacts[%d].text", i), a.Text)
		if err != nil {
			return script{}, err
		}
		sc.Outcome.Artifacts = append(sc.Outcome.Artifacts, artifact{ID: fmt.Sprintf("artifact-%d", i+1), Name: a.Name,
			Description: a.Description, Text: text, Data: a.Data})
	}
	return sc, nil
}

// view is a task's state at one moment.
type view struct {
	State     string // an agentcard.Task* state
	Message   string // the status message's text; "" for none
	At        time.Time
	Phase     int       // the step the task is in; len(steps) once ended
	Next      time.Time // when the state changes by itself; zero when it does not
	Artifacts []artifact
}

// Terminal reports whether the task has ended.
func (v view) Terminal() bool { return agentcard.Terminal(v.State) }

// canceledMessage is the status message of a task canceled by its client.
const canceledMessage = "The task was canceled."

// at reckons the state of task t at now: from its creation, each working
// step lasts its duration, each input-required step until the next message
// that continued the task, then the outcome; a cancel ends it at once.
func (sc script) at(t store.A2ATask, now time.Time) view {
	if t.CanceledAt != nil && !now.Before(*t.CanceledAt) {
		return view{State: agentcard.TaskCanceled, Message: canceledMessage, At: *t.CanceledAt, Phase: len(sc.Steps)}
	}
	clock, resumed := t.CreatedAt, 0
	for i, st := range sc.Steps {
		if st.State == agentcard.TaskInputRequired {
			if resumed < len(t.ResumedAt) && !now.Before(t.ResumedAt[resumed]) {
				if t.ResumedAt[resumed].After(clock) {
					clock = t.ResumedAt[resumed]
				}
				resumed++
				continue
			}
			return view{State: agentcard.TaskInputRequired, Message: st.Message, At: clock, Phase: i}
		}
		end := clock.Add(time.Duration(st.DurationMS) * time.Millisecond)
		if now.Before(end) {
			return view{State: agentcard.TaskWorking, Message: st.Message, At: clock, Phase: i, Next: end}
		}
		clock = end
	}
	return view{State: sc.Outcome.State, Message: sc.Outcome.Message, At: clock, Phase: len(sc.Steps),
		Artifacts: sc.Outcome.Artifacts}
}

// readScript reads the script kept with a task.
func readScript(t store.A2ATask) (script, error) {
	var sc script
	if err := json.Unmarshal(t.Script, &sc); err != nil {
		return script{}, fmt.Errorf("%w: task %s: script: %v", jsonrpc.ErrInternal, t.ID, err)
	}
	return sc, nil
}
