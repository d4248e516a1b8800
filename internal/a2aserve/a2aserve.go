// Package a2aserve serves every published agent card as an executable mock
// A2A agent: a JSON-RPC endpoint of its own, next to the card's A2A
// rendering in the exchange, that answers SendMessage (A2A 1.0) and its
// 0.3 name message/send with a Message naming the skill the text matched.
package a2aserve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"time"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/problem"
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

// ErrVersionNotSupported is A2A's VersionNotSupportedError.
var ErrVersionNotSupported = &jsonrpc.Error{Code: -32009, Message: "Version not supported"}

// maxBody bounds a request's body.
const maxBody = 1 << 20

// Lookup finds a published card by its organization's slug and its name;
// an error wrapping failure.ErrNotFound when there is none.
type Lookup func(ctx context.Context, orgSlug, name string) (agentcard.Card, error)

// Handler is the agent endpoint of every published card.
type Handler struct {
	lookup Lookup
	log    *slog.Logger
	newID  func() string
	journaling
}

// New returns the endpoint over lookup; newID makes message and context ids.
func New(lookup Lookup, log *slog.Logger, newID func() string) *Handler {
	return &Handler{lookup: lookup, log: log, newID: newID}
}

// method is one entry of the method table: the era whose shapes it reads
// and answers.
type method struct {
	era string
}

var methods = map[string]method{
	"SendMessage":  {era: Version10},
	"message/send": {era: Version03},
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
	agent, err := h.find(r.Context(), r.PathValue("org_slug"), r.PathValue("name"))
	card := agent.Card
	if errors.Is(err, failure.ErrNotFound) {
		problem.Write(w, problem.New(http.StatusNotFound, "agent card not found"))
		return
	}
	if err != nil {
		h.log.ErrorContext(r.Context(), "agent card lookup failed", "error", err.Error())
		problem.Write(w, problem.New(http.StatusServiceUnavailable, "the agent card could not be read"))
		return
	}
	if h.refuse(w, r, agent) {
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
	x := h.begin(r, agent, start)
	x.method(req.Method)
	if err == nil {
		var result any
		result, err = h.call(card, r.Header.Get(VersionHeader), req, x)
		if err == nil {
			x.finish(h.reply(w, req.ID, result), nil)
			return
		}
	}
	answer := jsonrpc.AppendError(nil, req.ID, err)
	writeJSON(w, answer)
	x.finish(answer, err)
}

// call checks the version and runs the method.
func (h *Handler) call(card agentcard.Card, version string, req jsonrpc.Request, x *exchange) (any, error) {
	if err := checkVersion(version); err != nil {
		return nil, err
	}
	m, ok := methods[req.Method]
	if !ok {
		return nil, jsonrpc.WithData(jsonrpc.ErrMethodNotFound, map[string]string{"method": req.Method})
	}
	in, err := readSend(req.Params, m.era)
	if err != nil {
		return nil, err
	}
	x.received(in)
	out, err := h.answer(card, in)
	if err != nil {
		return nil, err
	}
	x.answered(card, in, out)
	if m.era == Version03 {
		return out.v03(), nil
	}
	return map[string]any{"message": out.v10()}, nil
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
		writeJSON(w, raw)
		return raw
	}
	raw = jsonrpc.AppendResult(nil, id, raw)
	writeJSON(w, raw)
	return raw
}

func writeJSON(w http.ResponseWriter, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}
