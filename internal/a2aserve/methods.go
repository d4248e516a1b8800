package a2aserve

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Limits of the task methods.
const (
	defaultPageSize = 50
	maxPageSize     = 100
	// maxListed bounds the tasks ListTasks reads to filter by state, which
	// the clock decides rather than a column.
	maxListed       = 1000
	maxHistory      = 100     // the messages a task keeps
	maxHistoryBytes = maxBody // and their size, encoded
)

// sendMessage answers SendMessage and SendStreamingMessage (message/send
// and message/stream): a message with a task id continues that task;
// any other gets the card's first matching reply.
func (h *Handler) sendMessage(c *call) (any, error) {
	in, err := readSend(c.params, c.era)
	if err != nil {
		return nil, err
	}
	c.x.received(in)
	if in.TaskID != "" {
		return h.continueTask(c, in)
	}
	card := c.agent.Card
	out := outgoing{MessageID: h.newID(), ContextID: in.ContextID}
	named := in.ContextID != ""
	if out.ContextID == "" {
		out.ContextID = h.newID()
		in.ContextID = out.ContextID
	}
	if s, ok := c.agent.matchSkill(in.Text); ok {
		out.Skill = s.Name
	}
	args := in.args()
	// The state of the context, read once, only for an agent whose
	// replies use it.
	var st *contextState
	var live map[string]any
	if c.agent.usesState() {
		if st, err = h.readContextState(c, in.ContextID, named); err != nil {
			return nil, err
		}
		live = st.live
	}
	reply, ok := c.agent.scripted(args, live)
	if !ok {
		out = defaultReply(card, out)
		c.x.answered(card, in, out)
		return h.message(c, out)
	}
	out.Reply = reply.Name
	c.x.answered(card, in, out)
	if f := reply.Fault; f != nil && (f.Share() >= 1 || h.roll() < f.Share()) {
		if err := h.wait(c.ctx, time.Duration(f.DelayMS)*time.Millisecond); err != nil {
			return nil, err
		}
		switch {
		case f.Drop:
			// The connection closes without an answer.
			panic(http.ErrAbortHandler)
		case f.Error != nil:
			return nil, faultError{code: f.Error.Code, message: f.Error.Message, data: f.Error.Data}
		}
	}
	// The reply is answered: its set_state changes the context's state,
	// which its texts then read.
	if st != nil {
		if st, err = h.changeContextState(c, in.ContextID, reply, args, st); err != nil {
			return nil, err
		}
	}
	if reply.Task != nil {
		return h.startTask(c, in, reply, args, st, out.Skill)
	}
	if out.Text, err = c.agent.renderText(reply, args, st); err != nil {
		return nil, err
	}
	return h.message(c, out)
}

// message answers a Message: SendMessage's result, or a stream of one event.
func (h *Handler) message(c *call, out outgoing) (any, error) {
	var result any
	if c.era == Version10 {
		result = sendResult10{Message: out.v10Struct()}
	} else {
		result = out.wire(c.era)
	}
	if !c.streams {
		return result, nil
	}
	s := startStream(c)
	s.send(result)
	return nil, nil
}

// startTask begins a task of reply for in and answers it.
func (h *Handler) startTask(c *call, in incoming, reply agentcard.Reply, args map[string]any, st *contextState, skill string) (any, error) {
	sc, err := renderScript(reply, args, st, skill)
	if err != nil {
		return nil, err
	}
	rawScript, err := json.Marshal(sc)
	if err != nil {
		return nil, err
	}
	history, err := json.Marshal([]storedMessage{in.stored()})
	if err != nil {
		return nil, err
	}
	push, hasPush, err := h.sendPushConfig(c)
	if err != nil {
		return nil, err
	}
	t := store.A2ATask{ID: uuid.New(), OrgID: c.agent.OrgID, CardID: c.agent.ID, ContextID: in.ContextID,
		Reply: reply.Name, Script: rawScript, History: history, CreatedAt: h.now().UTC().Truncate(time.Microsecond)}
	if err := h.tasks.CreateA2ATask(c.ctx, t); err != nil {
		return nil, err
	}
	if hasPush {
		if _, err := h.putPushConfig(c, t.ID, push, "params.configuration.pushNotificationConfig"); err != nil {
			return nil, err
		}
		h.push.watch(c.agent, t.ID)
	}
	return h.answerTask(c, t, sc, in)
}

// answerTask answers the task t that in began or continued: a stream that
// plays its timeline, or the Task, once it has ended or waits for input
// when in blocks.
func (h *Handler) answerTask(c *call, t store.A2ATask, sc script, in incoming) (any, error) {
	if c.streams {
		h.play(c, t, sc)
		return nil, nil
	}
	if in.Blocking {
		var err error
		if t, err = h.settle(c, t, sc); err != nil {
			return nil, err
		}
	}
	task, err := h.taskNow(t, sc, c.era, in.HistoryLength)
	if err != nil {
		return nil, err
	}
	return taskResult(c.era, task), nil
}

// taskNow is t at the handler's clock in era's Task shape.
func (h *Handler) taskNow(t store.A2ATask, sc script, era string, historyLength *int) (map[string]any, error) {
	history, err := readHistory(t)
	if err != nil {
		return nil, err
	}
	return taskWire(era, t, sc, sc.at(t, h.now()), history, historyLength), nil
}

func readHistory(t store.A2ATask) ([]storedMessage, error) {
	var history []storedMessage
	if err := json.Unmarshal(t.History, &history); err != nil {
		return nil, fmt.Errorf("%w: task %s: history: %v", jsonrpc.ErrInternal, t.ID, err)
	}
	return history, nil
}

// continueTask adds in to the history of its task; a task waiting for
// input moves on. An ended task takes no more messages. A push config the
// message carries (configuration.pushNotificationConfig) is added to the
// task's, as CreateTaskPushNotificationConfig would, once the message is.
func (h *Handler) continueTask(c *call, in incoming) (any, error) {
	id, err := taskID(in.TaskID)
	if err != nil {
		return nil, err
	}
	// Checked before the task changes: a config refused leaves it as it was.
	push, hasPush, err := h.sendPushConfig(c)
	if err != nil {
		return nil, err
	}
	var sc script
	t, err := h.tasks.ChangeA2ATask(c.ctx, c.agent.OrgID, c.agent.ID, id, func(t *store.A2ATask) error {
		var err error
		if sc, err = readScript(*t); err != nil {
			return err
		}
		if in.ContextID != "" && in.ContextID != t.ContextID {
			return fmt.Errorf("%w: params.message.contextId: task %s belongs to context %q", jsonrpc.ErrInvalidParams, t.ID, t.ContextID)
		}
		now := h.now().UTC().Truncate(time.Microsecond)
		v := sc.at(*t, now)
		if v.Terminal() {
			return jsonrpc.WithData(fmt.Errorf("%w: task %s is %s and takes no more messages", ErrUnsupportedOperation, t.ID, v.State),
				map[string]string{"taskId": t.ID.String(), "state": stateName(c.era, v.State)})
		}
		history, err := readHistory(*t)
		if err != nil {
			return err
		}
		if len(history) >= maxHistory {
			return fmt.Errorf("%w: task %s holds %d messages, its most", ErrUnsupportedOperation, t.ID, maxHistory)
		}
		if t.History, err = json.Marshal(append(history, in.stored())); err != nil {
			return err
		}
		if len(t.History) > maxHistoryBytes {
			return fmt.Errorf("%w: task %s keeps at most 1 MiB of messages; this one would pass it", ErrUnsupportedOperation, t.ID)
		}
		if v.State == agentcard.TaskInputRequired {
			t.ResumedAt = append(t.ResumedAt, now)
		}
		return nil
	})
	if err != nil {
		return nil, taskError(err, in.TaskID)
	}
	if hasPush {
		if _, err := h.putPushConfig(c, t.ID, push, "params.configuration.pushNotificationConfig"); err != nil {
			return nil, err
		}
		h.push.watch(c.agent, t.ID)
	}
	h.push.changed(c.agent, t.ID)
	return h.answerTask(c, t, sc, in)
}

// settle waits until task t has ended or waits for input, looking at it at
// least every h.poll (a cancel from another request ends the wait), and
// returns it as it then is.
func (h *Handler) settle(c *call, t store.A2ATask, sc script) (store.A2ATask, error) {
	org, card, id := t.OrgID, t.CardID, t.ID
	for {
		v := sc.at(t, h.now())
		if v.Terminal() || v.State == agentcard.TaskInputRequired {
			return t, nil
		}
		d := h.poll
		if !v.Next.IsZero() {
			d = min(d, v.Next.Sub(h.now()))
		}
		if d > 0 {
			if err := h.wait(c.ctx, d); err != nil {
				return t, err
			}
		}
		var err error
		if t, err = h.tasks.A2ATask(c.ctx, org, card, id); err != nil {
			return t, taskError(err, id.String())
		}
	}
}

// taskID reads a task id; one that is no id of ours is not found.
func taskID(s string) (uuid.UUID, error) {
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.Nil, notFound(s)
	}
	return id, nil
}

func notFound(id string) error {
	return jsonrpc.WithData(fmt.Errorf("%w: %s", ErrTaskNotFound, id), map[string]string{"taskId": id})
}

// taskError turns the store's not-found into TaskNotFoundError.
func taskError(err error, id string) error {
	if errors.Is(err, failure.ErrNotFound) {
		return notFound(id)
	}
	return err
}

// taskParams are the params of GetTask, CancelTask and SubscribeToTask:
// {id, historyLength?} in both eras.
type taskParams struct {
	ID            string `json:"id"`
	HistoryLength *int   `json:"historyLength"`
}

func readTaskParams(raw json.RawMessage) (taskParams, error) {
	var p taskParams
	if len(raw) == 0 {
		return p, fmt.Errorf("%w: params.id is required", jsonrpc.ErrInvalidParams)
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return p, fmt.Errorf("%w: params: %v", jsonrpc.ErrInvalidParams, err)
	}
	switch {
	case p.ID == "":
		return p, fmt.Errorf("%w: params.id is required", jsonrpc.ErrInvalidParams)
	case p.HistoryLength != nil && *p.HistoryLength < 0:
		return p, fmt.Errorf("%w: params.historyLength must be 0 or more, got %d", jsonrpc.ErrInvalidParams, *p.HistoryLength)
	}
	return p, nil
}

// task reads the task p names, with its script.
func (h *Handler) task(c *call, p taskParams) (store.A2ATask, script, error) {
	id, err := taskID(p.ID)
	if err != nil {
		return store.A2ATask{}, script{}, err
	}
	t, err := h.tasks.A2ATask(c.ctx, c.agent.OrgID, c.agent.ID, id)
	if err != nil {
		return store.A2ATask{}, script{}, taskError(err, p.ID)
	}
	sc, err := readScript(t)
	return t, sc, err
}

// getTask answers GetTask (tasks/get).
func (h *Handler) getTask(c *call) (any, error) {
	p, err := readTaskParams(c.params)
	if err != nil {
		return nil, err
	}
	t, sc, err := h.task(c, p)
	if err != nil {
		return nil, err
	}
	return h.taskNow(t, sc, c.era, p.HistoryLength)
}

// cancelTask answers CancelTask (tasks/cancel): a task that has not ended
// is canceled now; one that has is TaskNotCancelableError.
func (h *Handler) cancelTask(c *call) (any, error) {
	p, err := readTaskParams(c.params)
	if err != nil {
		return nil, err
	}
	id, err := taskID(p.ID)
	if err != nil {
		return nil, err
	}
	var sc script
	t, err := h.tasks.ChangeA2ATask(c.ctx, c.agent.OrgID, c.agent.ID, id, func(t *store.A2ATask) error {
		var err error
		if sc, err = readScript(*t); err != nil {
			return err
		}
		now := h.now().UTC().Truncate(time.Microsecond)
		if v := sc.at(*t, now); v.Terminal() {
			return jsonrpc.WithData(fmt.Errorf("%w: task %s is %s", ErrTaskNotCancelable, t.ID, v.State),
				map[string]string{"taskId": t.ID.String(), "state": stateName(c.era, v.State)})
		}
		t.CanceledAt = &now
		return nil
	})
	if err != nil {
		return nil, taskError(err, p.ID)
	}
	h.push.changed(c.agent, t.ID)
	return h.taskNow(t, sc, c.era, p.HistoryLength)
}

// subscribe answers SubscribeToTask (tasks/resubscribe): a stream whose
// first event is the task, then its updates. An ended task has none to
// follow: UnsupportedOperationError, as the specification says.
func (h *Handler) subscribe(c *call) (any, error) {
	p, err := readTaskParams(c.params)
	if err != nil {
		return nil, err
	}
	t, sc, err := h.task(c, p)
	if err != nil {
		return nil, err
	}
	if v := sc.at(t, h.now()); v.Terminal() {
		return nil, jsonrpc.WithData(fmt.Errorf("%w: task %s is %s: there is nothing to subscribe to", ErrUnsupportedOperation, t.ID, v.State),
			map[string]string{"taskId": t.ID.String(), "state": stateName(c.era, v.State)})
	}
	h.play(c, t, sc)
	return nil, nil
}

// listParams are ListTasks' params.
type listParams struct {
	ContextID            string     `json:"contextId"`
	Status               string     `json:"status"`
	PageSize             *int       `json:"pageSize"`
	PageToken            string     `json:"pageToken"`
	HistoryLength        *int       `json:"historyLength"`
	StatusTimestampAfter *time.Time `json:"statusTimestampAfter"`
	IncludeArtifacts     bool       `json:"includeArtifacts"`
}

// listTasks answers ListTasks: the card's tasks, newest first, filtered by
// context, state and the time of their status, a page at a time.
func (h *Handler) listTasks(c *call) (any, error) {
	var p listParams
	if len(c.params) > 0 {
		if err := json.Unmarshal(c.params, &p); err != nil {
			return nil, fmt.Errorf("%w: params: %v", jsonrpc.ErrInvalidParams, err)
		}
	}
	size := defaultPageSize
	if p.PageSize != nil {
		if *p.PageSize < 1 || *p.PageSize > maxPageSize {
			return nil, fmt.Errorf("%w: params.pageSize must be from 1 to %d, got %d", jsonrpc.ErrInvalidParams, maxPageSize, *p.PageSize)
		}
		size = *p.PageSize
	}
	if p.HistoryLength != nil && *p.HistoryLength < 0 {
		return nil, fmt.Errorf("%w: params.historyLength must be 0 or more, got %d", jsonrpc.ErrInvalidParams, *p.HistoryLength)
	}
	offset := 0
	if p.PageToken != "" {
		raw, err := base64.RawURLEncoding.DecodeString(p.PageToken)
		if err == nil {
			offset, err = strconv.Atoi(string(raw))
		}
		if err != nil || offset < 0 {
			return nil, fmt.Errorf("%w: params.pageToken is not a token this agent gave", jsonrpc.ErrInvalidParams)
		}
	}
	page, err := h.tasks.ListA2ATasks(c.ctx, c.agent.OrgID, c.agent.ID, p.ContextID, nil, maxListed)
	if err != nil {
		return nil, err
	}
	now := h.now()
	var matched []map[string]any
	for _, t := range page.Tasks {
		sc, err := readScript(t)
		if err != nil {
			return nil, err
		}
		v := sc.at(t, now)
		if p.Status != "" && stateName(Version10, v.State) != p.Status {
			continue
		}
		if p.StatusTimestampAfter != nil && !v.At.After(*p.StatusTimestampAfter) {
			continue
		}
		history, err := readHistory(t)
		if err != nil {
			return nil, err
		}
		task := taskWire(Version10, t, sc, v, history, p.HistoryLength)
		if !p.IncludeArtifacts {
			delete(task, "artifacts")
		}
		matched = append(matched, task)
	}
	out := map[string]any{"tasks": []map[string]any{}, "nextPageToken": "", "pageSize": size, "totalSize": len(matched)}
	if offset < len(matched) {
		end := min(offset+size, len(matched))
		out["tasks"] = matched[offset:end]
		if end < len(matched) {
			out["nextPageToken"] = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(end)))
		}
	}
	return out, nil
}

// extendedCard answers GetExtendedAgentCard: no card declares one.
func (h *Handler) extendedCard(*call) (any, error) {
	return nil, ErrExtendedCardNotConfigured
}

// faultError is a reply's scripted error, answered as written (a -32603
// included, which jsonrpc.Wire would make generic).
type faultError struct {
	code    int
	message string
	data    json.RawMessage
}

func (f faultError) Error() string { return f.message }

// response is the JSON-RPC response carrying the fault's error.
func (f faultError) response(id json.RawMessage) []byte {
	e := struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}{f.code, f.message, f.data}
	if id == nil {
		id = json.RawMessage("null")
	}
	raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": e})
	return raw
}
