package mcpserve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
)

// TaskRecord is a task as it is kept: what its script needs to reckon its
// status at any moment, on any instance.
type TaskRecord struct {
	ID              string
	OrgID, ServerID uuid.UUID
	Tool, Scenario  string
	Script          json.RawMessage // a storedScript
	Arguments       json.RawMessage
	CreatedAt       time.Time
	ExpiresAt       *time.Time
	Answers         json.RawMessage // the answers so far, by question id
	AnsweredAt      *time.Time      // when the last round was answered in full
	EndedStatus     string          // completed, failed or cancelled, once ended by hand or cancelled
	EndedAt         *time.Time
	EndedPayload    json.RawMessage // the result or error a task ended by hand gets
}

// Tasks keeps the tasks of the tasks extension (the store in production):
// a task is durable once CreateTask returns. Unknown, foreign and expired
// tasks are a not-found failure.
type Tasks interface {
	CreateTask(ctx context.Context, t TaskRecord) error
	GetTask(ctx context.Context, orgID, serverID uuid.UUID, id string) (TaskRecord, error)
	AnswerTask(ctx context.Context, orgID, serverID uuid.UUID, id string, answers json.RawMessage, answeredAt *time.Time, now time.Time) error
	EndTask(ctx context.Context, orgID, serverID uuid.UUID, id, status string, at time.Time, payload json.RawMessage) (bool, error)
}

// storedScript is a task's script as kept with each task it begins, with
// what compiling its outcome needs: a task outlives changes to its design.
type storedScript struct {
	Task       mockspec.Task `json:"task"`
	Version    string        `json:"version"`
	Structured bool          `json:"structured,omitempty"`
}

// taskScene is a task script compiled.
type taskScene struct {
	stored   json.RawMessage
	steps    []mockspec.TaskStep
	ask      *round
	outcome  *scene // when the task asks nothing
	ttl      time.Duration
	poll     int
	required bool
}

// compileTask compiles a scenario's task for a server of the given
// version; parent names the leaves of its branches.
func compileTask(parent *scene, t *mockspec.Task, version string, structured bool) (*taskScene, error) {
	ts := &taskScene{steps: t.Steps, ttl: ms(t.TTL()), poll: t.PollInterval(), required: t.Required}
	var err error
	if ts.stored, err = json.Marshal(storedScript{Task: *t, Version: version, Structured: structured}); err != nil {
		return nil, err
	}
	if t.Ask != nil {
		ts.ask, err = compileRound(parent, parent.seqID+".task", t.Ask, t.Then, version, structured)
		return ts, err
	}
	ts.outcome, err = compileLeaf(parent, parent.seqID+".task", mockspec.Branch{Response: t.Response, Result: t.Result, Error: t.Error},
		version, structured)
	return ts, err
}

// taskView is a task's state at one moment.
type taskView struct {
	status, message string
	updated         time.Time
	inputRequests   map[string]json.RawMessage
	result, err     json.RawMessage
}

// Task statuses.
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// TaskOver reports whether a task of status has ended: completed, failed
// or cancelled.
func TaskOver(status string) bool {
	return status == taskCompleted || status == taskFailed || status == taskCancelled
}

// at reckons the state of task t at now from its script.
func (ts *taskScene) at(t TaskRecord, now time.Time) (taskView, error) {
	if t.EndedStatus != "" {
		v := taskView{status: t.EndedStatus, updated: *t.EndedAt}
		switch t.EndedStatus {
		case taskCompleted:
			v.result = t.EndedPayload
		case taskFailed:
			v.err = t.EndedPayload
		case taskCancelled:
			v.message = "The task was cancelled."
		}
		return v, nil
	}
	clock := t.CreatedAt
	for _, st := range ts.steps {
		end := clock.Add(ms(st.DurationMS))
		if now.Before(end) {
			return taskView{status: taskWorking, message: st.Message, updated: clock}, nil
		}
		clock = end
	}
	var answers map[string]json.RawMessage
	if len(t.Answers) > 0 {
		if err := json.Unmarshal(t.Answers, &answers); err != nil {
			return taskView{}, err
		}
	}
	decoded, err := decodeAnswers(answers)
	if err != nil {
		return taskView{}, err
	}
	if ts.ask == nil {
		return outcomeView(ts.outcome, decoded, clock, t)
	}
	if t.AnsweredAt != nil && t.AnsweredAt.After(clock) {
		clock = *t.AnsweredAt
	}
	budget := regexlimit.NewBudget()
	for r := ts.ask; ; {
		open := map[string]json.RawMessage{}
		for _, q := range r.questions {
			if _, ok := answers[q.id]; !ok {
				open[q.id] = q.wire
			}
		}
		if len(open) > 0 {
			return taskView{status: taskInputRequired, message: "The task needs input.", updated: clock, inputRequests: open}, nil
		}
		chosen := r.choose(decoded, false, &budget)
		if chosen < 0 {
			out, err := errorResult("No branch of the task's questions matched the answers")
			return taskView{status: taskCompleted, updated: clock, result: out}, err
		}
		b := &r.branches[chosen]
		if b.next == nil {
			return outcomeView(b.leaf, decoded, clock, t)
		}
		r = b.next
	}
}

// outcomeView is the terminal state a task's outcome gives, at the time
// it ended; its answer templates render from the task's arguments, the
// same on every poll (see renderOutcome).
func outcomeView(leaf *scene, answers map[string]any, at time.Time, t TaskRecord) (taskView, error) {
	a := &leaf.steps[0]
	if a.tmpl != nil {
		filled, err := a.withAnswers(answers)
		if err != nil {
			return taskView{}, err
		}
		a = &filled
	}
	result, errBody := a.result, []byte(nil)
	if a.err != nil {
		errBody = a.err.Body
	}
	if a.fill != nil {
		var err error
		if result, errBody, err = renderOutcome(a, t, at); err != nil {
			return taskView{}, err
		}
	}
	if errBody != nil {
		return taskView{status: taskFailed, message: "The task failed.", updated: at, err: errBody}, nil
	}
	return taskView{status: taskCompleted, updated: at, result: result}, nil
}

// hasTasks reports whether the modern request declares the tasks
// extension.
func hasTasks(x *Exchange) bool { return x.Modern() && x.Meta().HasExtension(mockspec.TasksExtension) }

// errNeedsTasks is -32021 for a client that does not declare the tasks
// extension.
func errNeedsTasks(what string) error {
	return missingCapability(map[string]any{"extensions": map[string]struct{}{mockspec.TasksExtension: {}}},
		"%s; declare the %s extension in _meta.%s.extensions", what, mockspec.TasksExtension, mcptransport.MetaClientCapabilities)
}

// startTask answers a call whose scenario (or branch) sc is a task with a
// task handle, for a client that declares the extension; answers are those
// given before it, which its outcome may quote. For any other client it is
// -32021 when the task requires the extension, else errNoTask: the caller
// gives the outcome at once.
func startTask(ctx context.Context, x *Exchange, s *state, d *compiled, t *tool, sc *scene, call askCall, answers map[string]any) (json.RawMessage, error) {
	ts := sc.task
	if !hasTasks(x) || s.tasks == nil {
		if ts.required {
			return nil, errNeedsTasks("tool '" + t.name + "' runs as a task")
		}
		return nil, errNoTask
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	now := s.now()
	expires := now.Add(ts.ttl)
	args, err := json.Marshal(call.args)
	if err != nil {
		return nil, err
	}
	rec := TaskRecord{ID: hex.EncodeToString(b[:]), OrgID: d.orgID, ServerID: d.id, Tool: t.name, Scenario: sc.name,
		Script: ts.stored, Arguments: args, CreatedAt: now, ExpiresAt: &expires}
	if len(answers) > 0 { // the answers to the questions before the task, which its outcome may quote
		if rec.Answers, err = json.Marshal(answers); err != nil {
			return nil, err
		}
	}
	if err := s.tasks.CreateTask(ctx, rec); err != nil {
		return nil, err
	}
	v, err := ts.at(rec, now)
	if err != nil {
		return nil, err
	}
	return encodeTask(rec, ts, v, "task")
}

// errNoTask tells callTool to answer a task's outcome at once.
var errNoTask = errors.New("the call is answered at once")

// encodeTask encodes a task's state: a CreateTaskResult (resultType task)
// or a DetailedTask (resultType complete, for tasks/get).
func encodeTask(t TaskRecord, ts *taskScene, v taskView, resultType string) (json.RawMessage, error) {
	ttl := int64(ts.ttl / time.Millisecond)
	out := struct {
		ResultType     string                     `json:"resultType,omitempty"`
		TaskID         string                     `json:"taskId"`
		Status         string                     `json:"status"`
		StatusMessage  string                     `json:"statusMessage,omitempty"`
		CreatedAt      string                     `json:"createdAt"`
		LastUpdatedAt  string                     `json:"lastUpdatedAt"`
		TTLMS          *int64                     `json:"ttlMs"`
		PollIntervalMS int                        `json:"pollIntervalMs,omitempty"`
		InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
		Result         json.RawMessage            `json:"result,omitempty"`
		Error          json.RawMessage            `json:"error,omitempty"`
	}{resultType, t.ID, v.status, v.message, stamp(t.CreatedAt), stamp(v.updated), &ttl, ts.poll,
		v.inputRequests, v.result, v.err}
	if TaskOver(v.status) {
		out.PollIntervalMS = 0
	}
	return json.Marshal(out)
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	TaskID         *string         `json:"taskId"`
	InputResponses json.RawMessage `json:"inputResponses"`
}

// loadTask reads the task a tasks/* request names, with its script
// compiled.
func loadTask(ctx context.Context, x *Exchange, s *state, d *compiled, params json.RawMessage, method string) (TaskRecord, *taskScene, taskParams, error) {
	var p taskParams
	if !hasTasks(x) {
		return TaskRecord{}, nil, p, errNeedsTasks(method + " is a method of the tasks extension")
	}
	if err := decodeParams(params, &p); err != nil {
		return TaskRecord{}, nil, p, err
	}
	if p.TaskID == nil {
		return TaskRecord{}, nil, p, missing("taskId", method+" needs the id of the task")
	}
	t, ts, err := findTask(ctx, s, d, *p.TaskID)
	return t, ts, p, err
}

// findTask reads task id of d's server, with its script compiled: -32602
// when it is unknown, another server's, or expired.
func findTask(ctx context.Context, s *state, d *compiled, id string) (TaskRecord, *taskScene, error) {
	if s.tasks == nil {
		return TaskRecord{}, nil, taskNotFound()
	}
	t, err := s.tasks.GetTask(ctx, d.orgID, d.id, id)
	if err != nil {
		if failure.Is(err, failure.ErrNotFound) {
			return t, nil, taskNotFound()
		}
		return t, nil, err
	}
	if t.ExpiresAt != nil && !s.now().Before(*t.ExpiresAt) {
		return t, nil, jsonrpc.WithData(invalidParams("Failed to retrieve task: Task has expired"), map[string]string{"field": "taskId"})
	}
	ts, err := compileStored(t)
	return t, ts, err
}

func taskNotFound() error {
	return jsonrpc.WithData(invalidParams("Failed to retrieve task: Task not found"), map[string]string{"field": "taskId"})
}

func getTask(ctx context.Context, x *Exchange, s *state, params json.RawMessage) (json.RawMessage, error) {
	d := s.view
	t, ts, _, err := loadTask(ctx, x, s, d, params, "tasks/get")
	if err != nil {
		return nil, err
	}
	v, err := ts.at(t, s.now())
	if err != nil {
		return nil, err
	}
	return encodeTask(t, ts, v, "complete")
}

// updateTask takes answers to the questions a task waits on: those to
// questions not outstanding are ignored; a round answered in full lets
// the task go on.
func updateTask(ctx context.Context, x *Exchange, s *state, params json.RawMessage) (json.RawMessage, error) {
	d := s.view
	t, ts, p, err := loadTask(ctx, x, s, d, params, "tasks/update")
	if err != nil {
		return nil, err
	}
	var responses map[string]json.RawMessage
	if !present(p.InputResponses) || !isJSONObject(p.InputResponses) || json.Unmarshal(p.InputResponses, &responses) != nil {
		return nil, jsonrpc.WithData(invalidParams("inputResponses must be an object of answers keyed by the ids of the input requests"),
			map[string]string{"field": "inputResponses"})
	}
	now := s.now()
	v, err := ts.at(t, now)
	if err != nil || v.status != taskInputRequired {
		return ack, err // nothing outstanding: answers are ignored
	}
	answers := map[string]json.RawMessage{}
	if len(t.Answers) > 0 {
		_ = json.Unmarshal(t.Answers, &answers)
	}
	took := false
	for _, q := range ts.ask.all() {
		raw, ok := responses[q.id]
		if _, open := v.inputRequests[q.id]; !ok || !open {
			continue
		}
		if sub, msg := q.problem(raw); msg != "" {
			field := "inputResponses." + q.id + sub
			return nil, jsonrpc.WithData(invalidParams("%s %s", field, msg), map[string]string{"field": field})
		}
		answers[q.id], took = raw, true
	}
	if !took {
		return ack, nil
	}
	encoded, err := json.Marshal(answers)
	if err != nil {
		return nil, err
	}
	t.Answers = encoded
	// The task moves on now when the round is answered in full: it is
	// over, or a later round's questions are the open ones.
	answeredAt := t.AnsweredAt
	if after, err := ts.at(t, now); err == nil && (after.status != taskInputRequired || !sameKeys(after.inputRequests, v.inputRequests)) {
		answeredAt = &now
	}
	return ack, s.tasks.AnswerTask(ctx, d.orgID, d.id, t.ID, encoded, answeredAt, now)
}

func sameKeys(a, b map[string]json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			return false
		}
	}
	return true
}

// cancelTask ends a task that is not over yet as cancelled; a task over
// already stays as it is. Either way the answer is the empty
// acknowledgement.
func cancelTask(ctx context.Context, x *Exchange, s *state, params json.RawMessage) (json.RawMessage, error) {
	d := s.view
	t, ts, _, err := loadTask(ctx, x, s, d, params, "tasks/cancel")
	if err != nil {
		return nil, err
	}
	now := s.now()
	v, err := ts.at(t, now)
	if err != nil || TaskOver(v.status) {
		return ack, err
	}
	_, err = s.tasks.EndTask(ctx, d.orgID, d.id, t.ID, taskCancelled, now, nil)
	return ack, err
}

// ack is the empty acknowledgement of tasks/update and tasks/cancel.
var ack = json.RawMessage(`{}`)

// all lists the questions of r and of every round after it.
func (r *round) all() []question {
	out := append([]question(nil), r.questions...)
	for _, b := range r.branches {
		if b.next != nil {
			out = append(out, b.next.all()...)
		}
	}
	return out
}

// maxWatchedTasks bounds the tasks one listen stream reports on.
const maxWatchedTasks = 100

// taskWatch is the tasks a listen stream reports on: each one's last state
// sent, read again every poll interval (the shortest of the tasks'), and
// dropped once it is over.
type taskWatch struct {
	s     *state
	d     *compiled
	every time.Duration
	tasks map[string]string // task id -> the state last sent
	order []string
}

// watchTasks begins watching ids for a listen stream: the client must
// declare the tasks extension; unknown ids are left out.
func watchTasks(ctx context.Context, x *Exchange, s *state, d *compiled, ids []string) (*taskWatch, error) {
	if !hasTasks(x) {
		return nil, errNeedsTasks("notifications of tasks are part of the tasks extension")
	}
	ids = distinct(ids)
	if len(ids) > maxWatchedTasks {
		return nil, invalidParams("field 'notifications.taskIds' may list at most %d tasks, got %d", maxWatchedTasks, len(ids))
	}
	w := &taskWatch{s: s, d: d, every: time.Minute, tasks: map[string]string{}}
	for _, id := range ids {
		if _, ts, err := findTask(ctx, s, d, id); err == nil {
			w.tasks[id] = ""
			w.order = append(w.order, id)
			w.every = min(w.every, time.Duration(ts.poll)*time.Millisecond)
		}
	}
	return w, nil
}

func (w *taskWatch) ids() []string { return append([]string{}, w.order...) }

// send reports each watched task whose state changed since it was last
// sent; false when the stream is broken.
func (w *taskWatch) send(ctx context.Context, stream *mcptransport.Stream, tag []byte) bool {
	for _, id := range w.order {
		last, watching := w.tasks[id]
		if !watching {
			continue
		}
		t, ts, err := findTask(ctx, w.s, w.d, id)
		if err != nil {
			delete(w.tasks, id) // gone or expired
			continue
		}
		v, err := ts.at(t, w.s.now())
		if err != nil {
			continue
		}
		body, err := encodeTask(t, ts, v, "")
		if err != nil || string(body) == last {
			continue
		}
		w.tasks[id] = string(body)
		if TaskOver(v.status) {
			delete(w.tasks, id)
		}
		if stream.Send(notification("notifications/tasks", tag, ","+string(body[1:len(body)-1]))) != nil {
			return false
		}
	}
	return true
}

// TaskState reckons the status and status message of a kept task at now,
// as tasks/get would answer them.
func TaskState(t TaskRecord, now time.Time) (status, message string, err error) {
	ts, err := compileStored(t)
	if err != nil {
		return "", "", err
	}
	if t.ExpiresAt != nil && !now.Before(*t.ExpiresAt) {
		return "expired", "", nil
	}
	v, err := ts.at(t, now)
	return v.status, v.message, err
}

// compileStored compiles the script kept with task t.
func compileStored(t TaskRecord) (*taskScene, error) {
	var script storedScript
	if err := json.Unmarshal(t.Script, &script); err != nil {
		return nil, fmt.Errorf("task %s: stored script: %w", t.ID, err)
	}
	ts, err := compileTask(&scene{name: t.Scenario, seqID: t.Tool + "/task"}, &script.Task, script.Version, script.Structured)
	if err != nil {
		return nil, fmt.Errorf("task %s: stored script: %w", t.ID, err)
	}
	return ts, nil
}
