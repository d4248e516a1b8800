// Package a2aserve serves every published agent card as an executable mock
// A2A agent: a JSON-RPC endpoint of its own, next to the card's A2A
// rendering in the exchange. It answers the A2A 1.0 methods (SendMessage,
// SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask,
// GetExtendedAgentCard) and their 0.3 names: a message gets the card's
// first scripted reply that matches (a message, or a task that follows its
// timeline), else a default reply naming the skill it matched.
package a2aserve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/agentjournal"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/problem"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Route is the pattern of a card's agent endpoint, under the exchange path
// of the card, so that an A2A client that resolves the card from its
// .well-known path finds the endpoint beside it.
const Route = "/api/exchange/agent-cards/{org_slug}/{name}/a2a"

// EndpointPath is the path of the agent endpoint of the card name published
// by the organization orgSlug.
func EndpointPath(orgSlug, name string) string {
	return "/api/exchange/agent-cards/" + url.PathEscape(orgSlug) + "/" + url.PathEscape(name) + "/a2a"
}

// VersionHeader is the request header naming the A2A version a client
// speaks; a request without it speaks 0.3.
const VersionHeader = "A2A-Version"

// The A2A versions the endpoint serves.
const (
	Version03 = "0.3"
	Version10 = "1.0"
)

// The A2A errors the endpoint answers.
var (
	ErrTaskNotFound              = &jsonrpc.Error{Code: -32001, Message: "Task not found"}
	ErrTaskNotCancelable         = &jsonrpc.Error{Code: -32002, Message: "Task cannot be canceled"}
	ErrUnsupportedOperation      = &jsonrpc.Error{Code: -32004, Message: "This operation is not supported"}
	ErrExtendedCardNotConfigured = &jsonrpc.Error{Code: -32007, Message: "Extended agent card not configured"}
	// ErrVersionNotSupported is A2A's VersionNotSupportedError.
	ErrVersionNotSupported = &jsonrpc.Error{Code: -32009, Message: "Version not supported"}
)

// maxBody bounds a request's body.
const maxBody = 1 << 20

// Agent is a published card and the ids its tasks hang under.
type Agent struct {
	Card  agentcard.Card
	ID    uuid.UUID // the card's
	OrgID uuid.UUID // its organization's
	// compiled holds the card's replies compiled, for a card the
	// CardCache keeps; nil compiles them per message.
	compiled *compiledCard
}

// Lookup finds a published card by its organization's slug and its name;
// an error wrapping failure.ErrNotFound when there is none.
type Lookup func(ctx context.Context, orgSlug, name string) (Agent, error)

// Tasks keeps the agents' tasks (the store in production), each call in a
// transaction of the card's organization. Unknown tasks, and those of
// another card or organization, are a not-found failure.
type Tasks interface {
	CreateA2ATask(ctx context.Context, t store.A2ATask) error
	A2ATask(ctx context.Context, orgID, cardID, id uuid.UUID) (store.A2ATask, error)
	ChangeA2ATask(ctx context.Context, orgID, cardID, id uuid.UUID, change func(*store.A2ATask) error) (store.A2ATask, error)
	ListA2ATasks(ctx context.Context, orgID, cardID uuid.UUID, contextID string, after *store.A2ATaskPageKey, limit int) (store.A2ATaskPage, error)
}

// Handler is the agent endpoint of every published card.
type Handler struct {
	lookup Lookup
	log    *slog.Logger
	newID  func() string
	tasks  Tasks
	now    func() time.Time
	// wait sleeps d, or less when ctx ends; tests advance a clock instead.
	wait func(ctx context.Context, d time.Duration) error
	// roll draws a number in [0, 1) for a fault's rate.
	roll func() float64
	// poll bounds a stream's wait between two looks at its task, so that a
	// cancel from another request shows.
	poll time.Duration
	// push delivers push notifications; nil when the handler takes no
	// configs (WithPush).
	push *pusher
	journaling
}

// New returns the endpoint over lookup and tasks; newID makes message and
// context ids.
func New(lookup Lookup, tasks Tasks, log *slog.Logger, newID func() string) *Handler {
	return &Handler{lookup: lookup, tasks: tasks, log: log, newID: newID, now: time.Now, wait: sleep,
		roll: randFloat, poll: time.Second}
}

// WithClock makes the handler read the time from now and wait with wait
// (tests play timelines without sleeping).
func (h *Handler) WithClock(now func() time.Time, wait func(ctx context.Context, d time.Duration) error) *Handler {
	h.now, h.wait = now, wait
	return h
}

func randFloat() float64 { return rand.Float64() }

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// call is one request being answered.
type call struct {
	ctx     context.Context
	agent   Agent
	era     string
	params  json.RawMessage
	w       http.ResponseWriter
	id      json.RawMessage
	streams bool
	rest    bool // the HTTP+JSON binding: results and events without a JSON-RPC envelope
	x       *exchange
}

// method is one entry of the method table: the era whose shapes it reads
// and answers, and its handler. A streaming method writes its answer
// itself (SSE) and returns only an error that comes before the stream.
type method struct {
	era    string
	stream bool
	run    func(h *Handler, c *call) (any, error)
}

var methods map[string]method

func init() {
	methods = map[string]method{}
	for _, m := range []struct {
		v10, v03 string
		stream   bool
		run      func(h *Handler, c *call) (any, error)
	}{
		{"SendMessage", "message/send", false, (*Handler).sendMessage},
		{"SendStreamingMessage", "message/stream", true, (*Handler).sendMessage},
		{"GetTask", "tasks/get", false, (*Handler).getTask},
		{"ListTasks", "", false, (*Handler).listTasks},
		{"CancelTask", "tasks/cancel", false, (*Handler).cancelTask},
		{"SubscribeToTask", "tasks/resubscribe", true, (*Handler).subscribe},
		{"GetExtendedAgentCard", "agent/getAuthenticatedExtendedCard", false, (*Handler).extendedCard},
		{"CreateTaskPushNotificationConfig", "tasks/pushNotificationConfig/set", false, (*Handler).createPushConfig},
		{"GetTaskPushNotificationConfig", "tasks/pushNotificationConfig/get", false, (*Handler).getPushConfig},
		{"ListTaskPushNotificationConfigs", "tasks/pushNotificationConfig/list", false, (*Handler).listPushConfigs},
		{"DeleteTaskPushNotificationConfig", "tasks/pushNotificationConfig/delete", false, (*Handler).deletePushConfig},
	} {
		methods[m.v10] = method{era: Version10, stream: m.stream, run: m.run}
		if m.v03 != "" {
			methods[m.v03] = method{era: Version03, stream: m.stream, run: m.run}
		}
	}
}

// ServeHTTP answers one JSON-RPC request (A2A has no batches). The card is
// looked up first, so an unknown card is a plain 404 whatever the body.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		problem.Write(w, problem.New(http.StatusMethodNotAllowed, "the agent endpoint takes POST"))
		return
	}
	start := time.Now()
	agent, err := h.lookup(r.Context(), r.PathValue("org_slug"), r.PathValue("name"))
	if errors.Is(err, failure.ErrNotFound) {
		problem.Write(w, problem.New(http.StatusNotFound, "agent card not found"))
		return
	}
	if err != nil {
		h.log.ErrorContext(r.Context(), "agent card lookup failed", "error", err.Error())
		problem.Write(w, problem.New(http.StatusServiceUnavailable, "the agent card could not be read"))
		return
	}
	if h.refuse(w, r, agent, agentjournal.BindingJSONRPC) {
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		problem.Write(w, problem.New(http.StatusRequestEntityTooLarge, "the request body is over 1 MiB"))
		return
	}
	req, err := jsonrpc.Parse(body)
	if err == nil && req.IsNotification() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	x := h.begin(r, agent, start, agentjournal.BindingJSONRPC)
	x.method(req.Method)
	if err == nil {
		var result any
		result, err = h.dispatch(r.Context(), w, agent, r.Header.Get(VersionHeader), req, x)
		if err == nil {
			var answer []byte
			if result != nil {
				answer = h.reply(w, req.ID, result)
			}
			x.finish(answer, nil)
			return
		}
	}
	x.finish(h.fail(r.Context(), w, req.ID, err), err)
}

// dispatch checks the version and runs the method; a nil result with a nil
// error means the method answered itself (a stream).
func (h *Handler) dispatch(ctx context.Context, w http.ResponseWriter, agent Agent, version string, req jsonrpc.Request, x *exchange) (any, error) {
	if err := checkVersion(version); err != nil {
		return nil, err
	}
	m, ok := methods[req.Method]
	if !ok {
		return nil, jsonrpc.WithData(jsonrpc.ErrMethodNotFound, map[string]string{"method": req.Method})
	}
	return m.run(h, &call{ctx: ctx, agent: agent, era: m.era, params: req.Params, w: w, id: req.ID, streams: m.stream, x: x})
}

// checkVersion accepts an absent header (0.3) and the versions served.
func checkVersion(v string) error {
	switch v {
	case "", Version03, Version10:
		return nil
	}
	return jsonrpc.WithData(ErrVersionNotSupported, map[string]any{
		"requested": v, "supported": []string{Version03, Version10}})
}

// reply writes result and returns the answer written.
func (h *Handler) reply(w http.ResponseWriter, id json.RawMessage, result any) []byte {
	raw, err := json.Marshal(result)
	if err != nil {
		raw = jsonrpc.AppendError(nil, id, err)
	} else {
		raw = jsonrpc.AppendResult(nil, id, raw)
	}
	writeJSON(w, raw)
	return raw
}

// fail answers err, and returns the answer written (nil when the client
// has gone); a fault of the service is logged and answered as a generic
// -32603.
func (h *Handler) fail(ctx context.Context, w http.ResponseWriter, id json.RawMessage, err error) []byte {
	var fault faultError
	if errors.As(err, &fault) {
		answer := fault.response(id)
		writeJSON(w, answer)
		return answer
	}
	if ctx.Err() != nil {
		return nil // the client has gone
	}
	var rpc *jsonrpc.Error
	if !errors.As(err, &rpc) || rpc.Code == jsonrpc.ErrInternal.Code {
		h.log.ErrorContext(ctx, "agent request failed", "error", err.Error())
	}
	answer := jsonrpc.AppendError(nil, id, err)
	writeJSON(w, answer)
	return answer
}

func writeJSON(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}
