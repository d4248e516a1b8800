package mcptransport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"runtime/debug"
	"slices"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// MessageHandler answers one message of an exchange, already parsed: its result,
// or the error it is answered with. The transport calls it for every
// message, notifications and messages that do not parse included (their
// parse error is x's Invalid), so that middleware sees each one; the
// transport then sends no reply to a notification.
type MessageHandler func(ctx context.Context, x *Exchange, t Target, req *jsonrpc.Request) (json.RawMessage, error)

// Middleware wraps the answering of every message, as the service's
// metrics do.
// A chain is built once, when the endpoint is set up: a Middleware must not
// allocate per message.
type Middleware func(next MessageHandler) MessageHandler

// Observer watches an endpoint's messages, as the service's metrics do.
// Its zero value watches nothing.
type Observer struct {
	// Middleware, when set, wraps the answering of every message,
	// outermost.
	Middleware Middleware
	// RateLimited is Transport.RateLimited.
	RateLimited func(messages int)
}

// Observed returns tr watched by o.
func (tr Transport) Observed(o Observer) Transport {
	tr.RateLimited = o.RateLimited
	if o.Middleware == nil {
		return tr
	}
	return tr.With(o.Middleware)
}

// With returns tr answering every message through mw, the first outermost,
// around the target's record of the message (Recording), the refusal of
// messages past the rate limit and the method call.
func (tr Transport) With(mw ...Middleware) Transport {
	inner := tr
	var h MessageHandler = func(ctx context.Context, x *Exchange, t Target, req *jsonrpc.Request) (json.RawMessage, error) {
		return inner.handle(ctx, x, t, req)
	}
	for i := len(mw) - 1; i >= 0; i-- {
		h = mw[i](h)
	}
	tr.chain = h
	return tr
}

// Recording is a Target that keeps a record of every message of its
// exchanges, as a per-server endpoint's journal does. Begin is called
// before a message is answered and End once it is, with its result or
// error, for every message: notifications, messages that do not parse and
// members of a batch refused by the rate limit included. Both run inside
// the middleware, on the request's goroutine.
type Recording interface {
	Target
	Begin()
	End(x *Exchange, req *jsonrpc.Request, result json.RawMessage, err error)
}

// handle is the innermost handler: the message answered between the
// target's Begin and End, when it keeps a record (Recording).
func (tr Transport) handle(ctx context.Context, x *Exchange, t Target, req *jsonrpc.Request) (json.RawMessage, error) {
	if x.recording == nil {
		return tr.run(ctx, x, t, req)
	}
	x.recording.Begin()
	result, err := tr.run(ctx, x, t, req)
	x.recording.End(x, req, result, err)
	return result, err
}

// run answers one message: a message that did not parse gets its parse
// error, a member of a batch past the rate limit's allowance its refusal, a
// notification nothing (notifications are not run); any other request is
// called.
func (tr Transport) run(ctx context.Context, x *Exchange, t Target, req *jsonrpc.Request) (json.RawMessage, error) {
	switch {
	case x.refused != nil:
		return nil, x.refused
	case x.invalid != nil:
		return nil, x.invalid
	case req.IsNotification():
		return nil, nil
	}
	return tr.call(ctx, t, x, req)
}

// dispatch answers one message or a batch into x's buffer, returning how
// many responses it wrote (0 when all were notifications). Members of a
// batch past p's rate-limit allowance are not run: each request among them
// gets a rate-limit error.
func (tr Transport) dispatch(ctx context.Context, t Target, x *Exchange, p *Payload) int {
	sse, out := x.sse, x.out
	if !p.isBatch {
		if sse {
			out.WriteString("event: message\ndata: ")
		}
		// The response is appended in place, in out's spare capacity.
		resp := tr.answer(ctx, t, x, p.body, out.AvailableBuffer())
		if resp == nil {
			out.Reset()
			return 0
		}
		out.Write(resp)
		if sse {
			out.WriteString("\n\n")
		}
		return 1
	}
	n := 0
	x.inBatch = true
	if !sse {
		out.WriteByte('[')
	}
	var limited error // what members past the allowance get
	if p.limited {
		limited = p.rateLimited()
	}
	batch := p.batch
	for i := 0; ; i++ {
		msg, ok := batch.Next()
		if !ok {
			break
		}
		x.committed = out.Len()
		x.refused = nil
		if p.limited && i >= p.admitted {
			x.refused = limited
		}
		resp := tr.answer(ctx, t, x, msg, nil)
		if resp == nil {
			continue
		}
		if !sse && n > 0 {
			out.WriteByte(',')
		}
		frame(out, resp, sse)
		n++
	}
	if !sse {
		if n == 0 {
			out.Reset()
		} else {
			out.WriteByte(']')
		}
	}
	return n
}

// answer handles one message and returns its response appended to dst, or
// nil for a notification.
func (tr Transport) answer(ctx context.Context, t Target, x *Exchange, msg []byte, dst []byte) []byte {
	// The request is kept in x, which is pooled, rather than on the stack,
	// from which passing it through the chain would move it to the heap.
	x.req, x.invalid = jsonrpc.Parse(msg)
	if x.invalid != nil && x.req.Method == "" && !errors.Is(x.invalid, jsonrpc.ErrParse) {
		if rt, ok := t.(Responder); ok {
			if resp, ok := jsonrpc.ParseResponse(msg); ok {
				return tr.respond(ctx, rt, x, resp, dst)
			}
		}
	}
	if x.invalid == nil && !x.inBatch {
		x.classify(&x.req) // batches are legacy: their members never modern
	}
	req, invalid := &x.req, x.invalid
	var result json.RawMessage
	var err error
	if tr.chain != nil {
		result, err = tr.chain(ctx, x, t, req)
	} else {
		result, err = tr.handle(ctx, x, t, req)
	}
	if invalid == nil && req.IsNotification() {
		return nil
	}
	if err != nil {
		x.status = x.Era().Status(err)
		if x.unavailableFor(err) {
			return jsonrpc.AppendError(dst, req.ID, err) // an outage, not a failure of the method
		}
		var wire *jsonrpc.Error
		var scripted *jsonrpc.Scripted
		if !errors.As(err, &wire) && !errors.As(err, &scripted) && ctx.Err() == nil && tr.Log != nil {
			tr.Log.ErrorContext(ctx, "mcp method failed", "method", req.Method, "error", err.Error())
		}
		return jsonrpc.AppendError(dst, req.ID, err)
	}
	x.status = 0
	var serverInfo []byte
	if x.modern {
		serverInfo = x.target.ServerInfo()
	}
	return x.Era().AppendResult(dst, req.ID, result, serverInfo)
}

// Responder is a Target that takes the responses a client sends to the
// requests it was sent on an SSE reply (elicitation/create,
// sampling/createMessage, roots/list).
type Responder interface {
	// Respond hands over one response; an error says why it is not
	// taken.
	Respond(ctx context.Context, x *Exchange, resp jsonrpc.Response) error
}

// respond hands a client's response to rt. A response taken gets no reply,
// as a notification; one refused gets an error without id, with HTTP 400
// when it came alone (503 when what would take it cannot be reached).
func (tr Transport) respond(ctx context.Context, rt Responder, x *Exchange, resp jsonrpc.Response, dst []byte) []byte {
	err := rt.Respond(ctx, x, resp)
	if err == nil {
		return nil
	}
	x.status = http.StatusBadRequest
	x.unavailableFor(err)
	return jsonrpc.AppendError(dst, nil, err)
}

// unavailableFor marks the reply of a lone message answered with err as
// 503 when err is an unavailable failure (the database, or the instance an
// answer is for, cannot be reached), and reports whether it is.
func (x *Exchange) unavailableFor(err error) bool {
	f, ok := failure.As(err)
	if !ok || f.Kind != failure.KindUnavailable {
		return false
	}
	x.status, x.unavailable = http.StatusServiceUnavailable, f.Detail
	return true
}

// call runs one method. A panic in it is that request's fault only: it is
// logged with its stack and answered -32603 (generic) on the request's id,
// and the other messages of a batch are still answered.
func (tr Transport) call(ctx context.Context, t Target, x *Exchange, req *jsonrpc.Request) (result json.RawMessage, err error) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			if tr.Log != nil {
				tr.Log.ErrorContext(ctx, "panic in MCP method", "method", req.Method, "panic", p,
					"stack", string(debug.Stack()))
			}
			result, err = nil, jsonrpc.ErrInternal
		}
	}()
	return t.Call(ctx, x, req.Method, req.Params)
}

// Method is one entry of an endpoint's method table: what answers the
// method for a target of type T, and its flags. Absent params read as {}:
// a method reports each required field it misses. Whether a method needs a
// design is the endpoint's, not the method's: every method of the
// per-server endpoint answers from its design, none of the service
// endpoint's does.
type Method[T any] struct {
	Handle func(ctx context.Context, x *Exchange, t T, params json.RawMessage) (json.RawMessage, error)
	// Since and Until bound the protocol versions (YYYY-MM-DD) the method
	// exists in: from Since, before Until; empty for no bound. A request
	// naming a version outside them gets -32601 as an unknown method does;
	// one naming no version (initialize, or an older client) is answered.
	Since, Until string
	// Notification: the method is a notification, never answered; a
	// request (with an id) naming it gets -32601.
	Notification bool
	// Eras are the protocol eras the method exists in; zero for both. A
	// request of another era gets -32601 (with HTTP 404 when modern).
	Eras Eras
	// Target is the member of params that names what the request is for
	// ("name" of a tool or prompt, "uri" of a resource, "taskId" of a
	// task), which a modern request repeats in its Mcp-Name header; empty
	// for a method without one.
	Target string
}

// inEra reports whether the method exists for a request of era e.
func (m *Method[T]) inEra(e Era) bool { return m.Eras == 0 || m.Eras.Has(e) }

// Methods is an endpoint's one static method table, by method name.
type Methods[T any] map[string]Method[T]

// Names are the table's method names, sorted.
func (ms Methods[T]) Names() []string {
	return slices.Sorted(maps.Keys(ms))
}

// Call answers method for t from the table; an unknown method, a
// notification's name, or a method outside the request's protocol version
// is -32601 naming it.
func (ms Methods[T]) Call(ctx context.Context, x *Exchange, t T, method string, params json.RawMessage) (json.RawMessage, error) {
	m, ok := ms[method]
	if !ok || m.Notification || !m.inEra(x.Era()) || (m.bounded() && !m.exists(x.protocolVersion())) {
		return nil, fmt.Errorf("%w: %s", jsonrpc.ErrMethodNotFound, method)
	}
	return m.Handle(ctx, x, t, params)
}

// TargetParam is the Target of method for a request of era e: "" for a
// method without one, unknown, or that e's requests lack.
func (ms Methods[T]) TargetParam(method string, e Era) string {
	if m, ok := ms[method]; ok && !m.Notification && m.inEra(e) {
		return m.Target
	}
	return ""
}

// bounded reports whether the method exists in some protocol versions
// only; the request's version is read for those alone.
func (m *Method[T]) bounded() bool { return m.Since != "" || m.Until != "" }

// exists reports whether the method is part of protocol version v; an
// unknown or absent version has every method.
func (m *Method[T]) exists(v string) bool {
	if v == "" || !m.bounded() || !protocol.IsDate(v) {
		return true
	}
	return (m.Since == "" || protocol.AtLeast(v, m.Since)) && (m.Until == "" || !protocol.AtLeast(v, m.Until))
}

// protocolVersion is the Mcp-Protocol-Version the request names, "" when
// none (or outside a request, as in tests).
func (x *Exchange) protocolVersion() string {
	if x == nil || x.r == nil {
		return ""
	}
	if x.modern {
		return x.meta.ProtocolVersion
	}
	if v := x.r.Header["Mcp-Protocol-Version"]; len(v) > 0 {
		return v[0]
	}
	return ""
}
