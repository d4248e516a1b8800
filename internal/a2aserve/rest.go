package a2aserve

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/agentjournal"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/problem"
)

// RESTRoute is the pattern of a card's agent in the HTTP+JSON binding,
// beside the JSON-RPC endpoint: POST message:send and message:stream, GET
// tasks and tasks/{id}, POST tasks/{id}:cancel, GET or POST
// tasks/{id}:subscribe, GET extendedAgentCard under it.
const RESTRoute = Route + "/rest/{op...}"

// RESTPath is the base URL path of the HTTP+JSON binding of the card name
// published by orgSlug.
func RESTPath(orgSlug, name string) string { return EndpointPath(orgSlug, name) + "/rest" }

// restOp is one operation of the binding: the method it runs and how its
// params are read off the request.
type restOp struct {
	name   string // the A2A 1.0 method, for the journal
	run    func(h *Handler, c *call) (any, error)
	stream bool
	params func(r *http.Request, id string) (json.RawMessage, error)
}

// REST is the HTTP+JSON binding of every published card, running the same
// methods as the JSON-RPC endpoint in A2A 1.0's shapes.
func (h *Handler) REST() http.Handler {
	return http.HandlerFunc(h.serveREST)
}

func (h *Handler) serveREST(w http.ResponseWriter, r *http.Request) {
	op, id, ok := restOperation(r.Method, r.PathValue("op"))
	if !ok {
		writeRESTError(w, jsonrpc.WithData(jsonrpc.ErrMethodNotFound, map[string]string{"operation": r.Method + " " + r.PathValue("op")}))
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
	if h.refuse(w, r, agent, agentjournal.BindingHTTP) {
		return
	}
	x := h.begin(r, agent, start, agentjournal.BindingHTTP)
	x.method(op.name)
	if v := r.Header.Get(VersionHeader); v != "" && v != Version10 {
		err = jsonrpc.WithData(ErrVersionNotSupported, map[string]any{"requested": v, "supported": []string{Version10}})
		x.finish(writeRESTError(w, err), err)
		return
	}
	params, err := op.params(r, id)
	if err == nil {
		c := &call{ctx: r.Context(), agent: agent, era: Version10, params: params, w: w, streams: op.stream, rest: true, x: x}
		var result any
		if result, err = op.run(h, c); err == nil {
			var raw []byte
			if result != nil {
				raw, err = json.Marshal(result)
			}
			if err == nil {
				if raw != nil {
					w.Header().Set("Content-Type", "application/json")
					_, _ = w.Write(raw)
				}
				x.finish(raw, nil)
				return
			}
		}
	}
	var fault faultError
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &fault): // answered as written, whatever its code
	case r.Context().Err() != nil:
		x.finish(nil, err)
		return // the client has gone
	case !errors.As(err, &rpc) || rpc.Code == jsonrpc.ErrInternal.Code:
		h.log.ErrorContext(r.Context(), "agent request failed", "error", err.Error())
	}
	x.finish(writeRESTError(w, err), err)
}

// restOperation finds the operation of method and path (below the base):
// the task id, for those under tasks/{id}.
func restOperation(method, path string) (restOp, string, bool) {
	body := restOp{params: bodyParams}
	switch {
	case path == "message:send" && method == http.MethodPost:
		body.name, body.run = "SendMessage", (*Handler).sendMessage
		return body, "", true
	case path == "message:stream" && method == http.MethodPost:
		body.name, body.run, body.stream = "SendStreamingMessage", (*Handler).sendMessage, true
		return body, "", true
	case path == "tasks" && method == http.MethodGet:
		return restOp{name: "ListTasks", run: (*Handler).listTasks, params: listQuery}, "", true
	case path == "extendedAgentCard" && method == http.MethodGet:
		return restOp{name: "GetExtendedAgentCard", run: (*Handler).extendedCard, params: noParams}, "", true
	}
	rest, ok := strings.CutPrefix(path, "tasks/")
	if op, ok := pushOperation(method, rest); ok {
		return op, "", true
	}
	if !ok || rest == "" || strings.Contains(rest, "/") {
		return restOp{}, "", false
	}
	switch {
	case strings.HasSuffix(rest, ":cancel") && method == http.MethodPost:
		return restOp{name: "CancelTask", run: (*Handler).cancelTask, params: taskQuery}, strings.TrimSuffix(rest, ":cancel"), true
	case strings.HasSuffix(rest, ":subscribe") && (method == http.MethodGet || method == http.MethodPost):
		return restOp{name: "SubscribeToTask", run: (*Handler).subscribe, params: taskQuery, stream: true}, strings.TrimSuffix(rest, ":subscribe"), true
	case !strings.Contains(rest, ":") && method == http.MethodGet:
		return restOp{name: "GetTask", run: (*Handler).getTask, params: taskQuery}, rest, true
	}
	return restOp{}, "", false
}

func bodyParams(r *http.Request, _ string) (json.RawMessage, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return nil, errBodyTooLarge
	}
	if !json.Valid(raw) {
		return nil, jsonrpc.ErrParse
	}
	return raw, nil
}

var errBodyTooLarge = errors.New("the request body is over 1 MiB")

func noParams(*http.Request, string) (json.RawMessage, error) { return nil, nil }

// taskQuery reads {id, historyLength?}: the id from the path.
func taskQuery(r *http.Request, id string) (json.RawMessage, error) {
	p := map[string]any{"id": id}
	if v := r.URL.Query().Get("historyLength"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return nil, invalidQuery("historyLength", v)
		}
		p["historyLength"] = n
	}
	return json.Marshal(p)
}

// listQuery reads ListTasks' params from the query string.
func listQuery(r *http.Request, _ string) (json.RawMessage, error) {
	q := r.URL.Query()
	p := map[string]any{}
	for _, name := range []string{"contextId", "status", "pageToken", "statusTimestampAfter"} {
		if v := q.Get(name); v != "" {
			p[name] = v
		}
	}
	for _, name := range []string{"pageSize", "historyLength"} {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return nil, invalidQuery(name, v)
			}
			p[name] = n
		}
	}
	if v := q.Get("includeArtifacts"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, invalidQuery("includeArtifacts", v)
		}
		p["includeArtifacts"] = b
	}
	return json.Marshal(p)
}

func invalidQuery(name, v string) error {
	return jsonrpc.WithData(jsonrpc.ErrInvalidParams, map[string]string{"field": name, "reason": "not a valid value: " + url.QueryEscape(v)})
}

// restStatus is the HTTP status and google.rpc code name of an A2A error
// in the HTTP+JSON binding, with the ErrorInfo reason that names it.
func restStatus(code int64) (int, string, string) {
	switch code {
	case ErrTaskNotFound.Code:
		return http.StatusNotFound, "NOT_FOUND", "TASK_NOT_FOUND"
	case ErrTaskNotCancelable.Code:
		return http.StatusConflict, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"
	case ErrUnsupportedOperation.Code:
		return http.StatusBadRequest, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"
	case ErrExtendedCardNotConfigured.Code:
		return http.StatusBadRequest, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"
	case ErrPushNotSupported.Code:
		return http.StatusBadRequest, "UNIMPLEMENTED", "PUSH_NOTIFICATION_NOT_SUPPORTED"
	case ErrVersionNotSupported.Code:
		return http.StatusBadRequest, "INVALID_ARGUMENT", "VERSION_NOT_SUPPORTED"
	case jsonrpc.ErrInvalidParams.Code, jsonrpc.ErrParse.Code, jsonrpc.ErrInvalidRequest.Code:
		return http.StatusBadRequest, "INVALID_ARGUMENT", "INVALID_PARAMS"
	case jsonrpc.ErrMethodNotFound.Code:
		return http.StatusNotFound, "NOT_FOUND", ""
	}
	return http.StatusInternalServerError, "INTERNAL", ""
}

// restError is the body of an error in the HTTP+JSON binding: a
// google.rpc.Status whose ErrorInfo names the A2A error.
func restError(err error) []byte {
	if errors.Is(err, errBodyTooLarge) {
		err = &jsonrpc.Error{Code: jsonrpc.ErrInvalidRequest.Code, Message: err.Error()}
	}
	var e *jsonrpc.Error
	if fault := (faultError{}); errors.As(err, &fault) {
		e = &jsonrpc.Error{Code: int64(fault.code), Message: fault.message}
	} else {
		e = jsonrpc.Wire(err)
	}
	status, name, reason := restStatus(e.Code)
	body := map[string]any{"code": status, "status": name, "message": e.Message}
	if reason != "" {
		info := map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": "a2a-protocol.org"}
		if md := stringMap(e.Data); md != nil {
			info["metadata"] = md
		}
		body["details"] = []any{info}
	}
	raw, _ := json.Marshal(map[string]any{"error": body})
	return raw
}

// stringMap is data as ErrorInfo metadata (strings only); nil when it has
// none.
func stringMap(data any) map[string]string {
	m, ok := data.(map[string]string)
	if ok {
		return m
	}
	return nil
}

// writeRESTError answers err and returns the body written.
func writeRESTError(w http.ResponseWriter, err error) []byte {
	body := restError(err)
	var e struct {
		Error struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(body, &e)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Error.Code)
	_, _ = w.Write(body)
	return body
}
