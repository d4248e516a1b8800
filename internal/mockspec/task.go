package mockspec

import (
	"encoding/json"
	"fmt"

	"github.com/mockmcp/mockmcp/internal/schema"
)

// TasksExtension names the MCP tasks extension, as clients declare it in
// their capabilities' extensions and servers advertise it.
const TasksExtension = "io.modelcontextprotocol/tasks"

// Limits and defaults of a task script.
const (
	MaxTaskSteps          = 20
	MaxTaskStepMS         = 86_400_000 // a day
	MaxTaskTTLMS          = 604_800_000
	MinTaskTTLMS          = 1000
	DefaultTaskTTLMS      = 3_600_000
	MinPollIntervalMS     = 100
	MaxPollIntervalMS     = 60_000
	DefaultPollIntervalMS = 1000
	MaxTaskMessage        = 1000
)

// Task makes a tools/call a task of the MCP tasks extension: the client
// that declares the extension gets a task handle at once and polls it;
// the task's status follows the script's timeline, reckoned from its
// creation.
type Task struct {
	// Steps are the working phases, in order: a status message and how
	// long the phase lasts.
	Steps []TaskStep `json:"steps,omitempty"`
	// Ask and Then: questions asked once the steps are over (the task is
	// input_required until tasks/update brings every answer of the
	// round), and the branches that answer, as for a scenario.
	Ask  map[string]InputRequest `json:"ask,omitempty"`
	Then []Branch                `json:"then,omitempty"`
	// Response, Result or Error is the task's outcome when it asks
	// nothing: completed with the result (an isError result included), or
	// failed with the error.
	Response json.RawMessage `json:"response,omitempty"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    *RPCError       `json:"error,omitempty"`
	// TTLMS is how long the task is kept from its creation
	// (DefaultTaskTTLMS when absent); PollIntervalMS the interval clients
	// are asked to poll at (DefaultPollIntervalMS when zero).
	TTLMS          *int `json:"ttl_ms,omitempty"`
	PollIntervalMS int  `json:"poll_interval_ms,omitempty"`
	// Required: a client that does not declare the extension gets -32021;
	// otherwise it gets the outcome at once, as a call that is no task.
	Required bool `json:"required,omitempty"`
}

// TaskStep is one working phase of a task.
type TaskStep struct {
	Message    string `json:"message,omitempty"`
	DurationMS int    `json:"duration_ms"`
}

// TTL is the task's time to live in milliseconds.
func (t *Task) TTL() int {
	if t.TTLMS == nil {
		return DefaultTaskTTLMS
	}
	return *t.TTLMS
}

// PollInterval is the interval in milliseconds clients are asked to poll at.
func (t *Task) PollInterval() int {
	if t.PollIntervalMS == 0 {
		return DefaultPollIntervalMS
	}
	return t.PollIntervalMS
}

// checkTask checks a scenario's task: no other answer beside it, the
// steps, the outcome or the questions, the TTL and the poll interval.
func (c *checker) checkTask(sc Scenario, output *schema.Schema) {
	for _, g := range append(sc.forms().members(), member{"ask", sc.Ask != nil}, member{"then", sc.Then != nil}) {
		if g.given {
			c.add(g.name, "a scenario with task answers in the task (task.response, task.result, task.error or task.ask), not %s", g.name)
		}
	}
	c.task("task", sc.Task, output, nil)
}

// task checks a task at at; ids are the questions asked before it, whose
// answers its outcome may quote.
func (c *checker) task(at string, t *Task, output *schema.Schema, ids []string) {
	if len(t.Steps) > MaxTaskSteps {
		c.add(join(at, "steps"), "at most %d steps, got %d", MaxTaskSteps, len(t.Steps))
	}
	total := 0
	for i, st := range t.Steps {
		sat := fmt.Sprintf("%s.steps[%d]", at, i)
		if st.DurationMS < 0 || st.DurationMS > MaxTaskStepMS {
			c.add(sat+".duration_ms", "must be from 0 to %d milliseconds, got %d", MaxTaskStepMS, st.DurationMS)
		}
		if len(st.Message) > MaxTaskMessage {
			c.add(sat+".message", "at most %d bytes", MaxTaskMessage)
		}
		total += st.DurationMS
	}
	if t.TTLMS != nil && (*t.TTLMS < MinTaskTTLMS || *t.TTLMS > MaxTaskTTLMS) {
		c.add(join(at, "ttl_ms"), "must be from %d to %d milliseconds, got %d", MinTaskTTLMS, MaxTaskTTLMS, *t.TTLMS)
	} else if total > t.TTL() {
		c.add(join(at, "ttl_ms"), "the steps last %d ms, longer than the task is kept (%d ms): its outcome could never be read", total, t.TTL())
	}
	if p := t.PollIntervalMS; p != 0 && (p < MinPollIntervalMS || p > MaxPollIntervalMS) {
		c.add(join(at, "poll_interval_ms"), "must be from %d to %d milliseconds, got %d", MinPollIntervalMS, MaxPollIntervalMS, p)
	}
	forms := answerForms{t.Response, t.Result, t.Error, nil}
	if t.Ask != nil || t.Then != nil {
		c.askAnswer(at, askNode{forms: forms, ask: t.Ask, then: t.Then}, taskLeaf(output), ids, 1)
		return
	}
	defer c.asking(ids)()
	c.answer(at, forms, taskForms, output)
	c.placeholders(at, forms, ids)
}

// taskForms are the outcomes of a task.
var taskForms = []string{"response", "result", "error"}

// taskLeaf checks the outcome of a task's branch: no sequence (a task's
// outcome is read again on every poll).
func taskLeaf(output *schema.Schema) leafCheck {
	return func(c *checker, at string, b Branch, ids []string) {
		if b.Sequence != nil {
			c.add(join(at, "sequence"), "a task's branch answers response, result or error, not sequence")
			return
		}
		if b.Task != nil {
			c.add(join(at, "task"), "a task's branch answers response, result or error, not another task")
			return
		}
		c.branchAnswer(at, b, output, ids)
	}
}
