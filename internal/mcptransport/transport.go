// Package mcptransport is the Streamable HTTP side shared by every MCP
// endpoint of the service: CORS and the preflight, the body read and
// sized up (single messages and batches), dispatch through an endpoint's
// method table and its middleware, and the replies, as SSE or plain JSON.
// What an endpoint answers (a served design, the service's tools) is its
// own; a method is an entry of its table (Methods).
package mcptransport

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/problem"
)

// Target answers the JSON-RPC methods of one MCP endpoint: a served design,
// or the service's own platform tools.
type Target interface {
	// Call answers one request; an unknown method is jsonrpc.ErrMethodNotFound.
	// Errors that are not *jsonrpc.Error become -32603 and are logged. x
	// is the HTTP exchange the request came in, for notifications sent
	// before the result.
	Call(ctx context.Context, x *Exchange, method string, params json.RawMessage) (json.RawMessage, error)
}

// Transport is the Streamable HTTP side of an MCP endpoint, shared by every
// endpoint of the service: CORS, the preflight, POST only, a bounded body,
// single messages and batches, notifications (202), and replies as SSE or
// plain JSON as the Accept header asks.
type Transport struct {
	MaxBodyBytes int64
	// MaxBatchMessages is the longest batch answered
	// (DefaultMaxBatchMessages when zero); a longer one is refused whole.
	MaxBatchMessages int
	Log              *slog.Logger
	// AllowedHosts, when set, is the only Host (and Origin, when sent)
	// accepted: protection against DNS rebinding.
	AllowedHosts *HostList
	// RateLimited, when set, is told how many messages each body refused
	// whole by the rate limit held (WriteRateLimited).
	RateLimited func(messages int)
	// Streams, when set, keeps the SSE replies of the legacy requests of
	// protocol.V20251125 and later, primed with an event id and a retry field,
	// for a client that reconnects with GET and Last-Event-ID (Resume).
	Streams *Streams

	// chain answers each message, through the middleware With added; nil
	// for none.
	chain MessageHandler
}

// Preflight sets the CORS headers and answers what is not a POST (the
// OPTIONS preflight, 405 for the rest). It reports whether it answered.
func (tr Transport) Preflight(w http.ResponseWriter, r *http.Request) bool {
	hdr := w.Header()
	if !tr.AllowedHosts.Allows(r) {
		WriteProblem(w, http.StatusForbidden, "the Host or Origin of the request is not one of ALLOWED_HOSTS")
		return true
	}
	setAnswerHeaders(hdr)
	switch {
	case r.Method == http.MethodPost, tr.Resumes(r):
		return false
	case r.Method == http.MethodOptions:
		hdr["Access-Control-Allow-Methods"] = hdrAllowMethods
		// The preflight alone decides which headers a browser may send:
		// it names the headers of the modern revisions too.
		allowed := preflightAllowHeaders
		if params := paramHeaders(r.Header.Values("Access-Control-Request-Headers")); params != "" {
			allowed = []string{preflightAllowHeaders[0] + ", " + params}
		}
		hdr["Access-Control-Allow-Headers"] = allowed
		hdr["Access-Control-Max-Age"] = []string{"86400"}
		w.WriteHeader(http.StatusNoContent)
	default:
		hdr["Allow"] = []string{allowMethods}
		WriteProblem(w, http.StatusMethodNotAllowed, "this endpoint is stateless: send JSON-RPC messages with POST")
	}
	return true
}

// setAnswerHeaders sets the headers every answer of the endpoint carries,
// as the specification lists them: the three CORS headers (a preflight
// widens the headers allowed) and Connection: keep-alive. net/http drops
// the Connection header itself whenever it closes the connection after
// the answer (HTTP/1.0 without keep-alive, a body left unread), and
// HTTP/2 never sends it. The values are shared slices: no allocation.
func setAnswerHeaders(hdr http.Header) {
	hdr["Access-Control-Allow-Origin"] = hdrAnyOrigin
	hdr["Access-Control-Allow-Methods"] = hdrAllowMethods
	hdr["Access-Control-Allow-Headers"] = hdrAllowHeaders
	hdr["Connection"] = hdrKeepAlive
}

// paramHeaders lists the Mcp-Param-* headers a preflight asks for (the
// headers that mirror tool arguments, whose names the tools choose), for
// the CORS answer to allow them too.
func paramHeaders(requested []string) string {
	var out []string
	for _, line := range requested {
		for _, name := range strings.Split(line, ",") {
			name = strings.TrimSpace(name)
			if len(name) > len(HeaderParamPrefix) && strings.EqualFold(name[:len(HeaderParamPrefix)], HeaderParamPrefix) &&
				validToken(name) {
				out = append(out, name)
			}
		}
	}
	return strings.Join(out, ", ")
}

// validToken reports whether s is an HTTP field name (RFC 9110 token).
func validToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return s != ""
}

// RecoverPanic turns a panic outside a method's answer into a 500 (a panic
// inside one is answered as -32603 on its request's id); endpoints defer
// it. http.ErrAbortHandler goes on up, to abort the response.
func (tr Transport) RecoverPanic(w http.ResponseWriter, r *http.Request) {
	if p := recover(); p != nil {
		if p == http.ErrAbortHandler {
			panic(p)
		}
		if tr.Log != nil {
			tr.Log.Error("panic in MCP endpoint", "panic", p, "path", r.URL.Path, "stack", string(debug.Stack()))
		}
		WriteProblem(w, http.StatusInternalServerError, "the service failed to handle the request")
	}
}

// Serve has t answer the messages of p, read from an authorized POST, and
// writes the replies. It returns how many replies it wrote. t may be made
// for the one request, to keep what the endpoint knows of it: a per-server
// endpoint hands over its pooled per-request state.
func (tr Transport) Serve(w http.ResponseWriter, r *http.Request, t Target, p *Payload) int {
	out := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(out)
	out.Reset()
	// Every Accept line counts: a client may name the two types apart.
	sse := wantsSSE(strings.Join(r.Header.Values("Accept"), ","))
	switch {
	case p.refusal != nil && p.refusalStatus != http.StatusOK:
		WriteRPCError(w, p.refusalStatus, nil, p.refusal) // an HTTP error: plain JSON, as for 401 and 429
		return 1
	case p.refusal != nil:
		frame(out, jsonrpc.AppendError(nil, nil, p.refusal), sse)
		writeReply(w, http.StatusOK, sse, out.Bytes())
		return 1
	}
	x := newExchange(w, r, sse, out)
	defer x.release()
	if mt, ok := t.(ModernTarget); ok {
		x.target, x.eras = mt, mt.Eras()
	}
	if rt, ok := t.(Recording); ok {
		x.recording = rt
	}
	if p.isBatch && x.eras != 0 {
		// A batch's members are of the version its header names: one
		// the endpoint does not serve refuses the body whole, as a lone
		// request's is.
		if v, _ := x.header(HeaderProtocolVersion); v != "" && !x.served(v) {
			WriteRPCError(w, http.StatusBadRequest, nil, x.unsupportedOf(v, x.servedVersions()))
			return 1
		}
	}
	ctx := r.Context()
	if tr.Streams != nil && !p.isBatch && primes(r, sse) {
		// Resumable: its stream is kept once it has an event.
		x.streams = tr.Streams
		var cancel context.CancelFunc
		ctx, cancel = detach(ctx)
		defer cancel()
	}
	answered := tr.dispatch(ctx, t, x, p)
	if x.streams != nil && (x.streaming || answered > 0 && (x.status == 0 || x.status == http.StatusOK)) {
		x.endResumable(answered)
		return answered
	}
	if x.streaming {
		_, _ = w.Write(out.Bytes())
		return answered
	}
	if answered == 0 {
		w.WriteHeader(http.StatusAccepted)
		return 0
	}
	if !p.isBatch && x.status == http.StatusServiceUnavailable {
		// What the request needs cannot be reached: answered as the
		// endpoint answers an outage before JSON-RPC, a problem document
		// with Retry-After, so that clients and load balancers retry.
		WriteProblem(w, http.StatusServiceUnavailable, x.unavailable)
		return answered
	}
	if !p.isBatch && x.status != 0 && x.status != http.StatusOK {
		// A transport error of the modern revisions: plain JSON, as the
		// HTTP errors before any answer are.
		writeReply(w, x.status, false, bytes.TrimSuffix(bytes.TrimPrefix(out.Bytes(), sseEventPrefix), sseEventSuffix))
		return answered
	}
	writeReply(w, http.StatusOK, sse, out.Bytes())
	return answered
}

// writeReply sends a whole reply, SSE or plain JSON.
func writeReply(w http.ResponseWriter, status int, sse bool, reply []byte) {
	hdr := w.Header()
	if sse {
		setSSEHeaders(hdr)
	} else {
		hdr["Content-Type"] = hdrJSON
	}
	w.WriteHeader(status)
	_, _ = w.Write(reply)
}

// setSSEHeaders sets the headers of an SSE reply (Connection: keep-alive
// is set with the CORS headers, on every answer).
func setSSEHeaders(hdr http.Header) {
	hdr["Content-Type"] = hdrEventStream
	hdr["Cache-Control"] = hdrNoCache
}

// WriteRPCError answers an HTTP error status with a JSON-RPC error body, as
// the MCP endpoints refuse requests before answering them (400, 401, 403,
// 429).
// A 401 also carries the Bearer challenge.
func WriteRPCError(w http.ResponseWriter, status int, id json.RawMessage, err error) {
	if status == http.StatusUnauthorized {
		w.Header()["WWW-Authenticate"] = hdrKeyChallenge
	}
	writeRPCError(w, status, id, err)
}

// WriteRPCChallenge is WriteRPCError with the WWW-Authenticate challenge
// given (an OAuth protected resource's), which browsers may read.
func WriteRPCChallenge(w http.ResponseWriter, status int, challenge string, id json.RawMessage, err error) {
	hdr := w.Header()
	hdr["WWW-Authenticate"] = []string{challenge}
	hdr["Access-Control-Expose-Headers"] = hdrExposeChallenge
	writeRPCError(w, status, id, err)
}

func writeRPCError(w http.ResponseWriter, status int, id json.RawMessage, err error) {
	w.Header()["Content-Type"] = hdrJSON
	w.WriteHeader(status)
	_, _ = w.Write(jsonrpc.AppendError(nil, id, err))
}

var (
	hdrKeyChallenge    = []string{`Bearer realm="mockmcp"`}
	hdrExposeChallenge = []string{"WWW-Authenticate"}
)

const (
	allowMethods = "POST, OPTIONS"
	// Content-Type is what the specification names; the MCP headers and the
	// key headers let browser clients (the MCP Inspector) reach servers too.
	allowHeaders = "Content-Type, Accept, Authorization, X-API-Key, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID"
)

// The framing of one SSE event around a message.
var (
	sseEventPrefix = []byte("event: message\ndata: ")
	sseEventSuffix = []byte("\n\n")
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Header values shared by every response; net/http never modifies them.
var (
	hdrAnyOrigin    = []string{"*"}
	hdrAllowMethods = []string{allowMethods}
	hdrAllowHeaders = []string{allowHeaders}
	hdrKeepAlive    = []string{"keep-alive"}
	// preflightAllowHeaders adds the request headers of the modern
	// revisions (Mcp-Param-* as a preflight names them).
	preflightAllowHeaders = []string{allowHeaders + ", Mcp-Method, Mcp-Name"}
	hdrEventStream        = []string{"text/event-stream"}
	hdrNoCache            = []string{"no-cache"}
	hdrJSON               = []string{"application/json"}
	hdrNo                 = []string{"no"}
)

// frame writes one response as an SSE event or as plain JSON.
func frame(out *bytes.Buffer, resp []byte, sse bool) {
	if sse {
		out.WriteString("event: message\ndata: ")
		out.Write(resp)
		out.WriteString("\n\n")
		return
	}
	out.Write(resp)
}

// wantsSSE: an absent Accept, or one naming text/event-stream, gets SSE; one
// naming application/json but not text/event-stream gets plain JSON.
// Media types are matched without regard to case.
func wantsSSE(accept string) bool {
	accept = strings.ToLower(accept)
	if accept == "" || strings.Contains(accept, "text/event-stream") {
		return true
	}
	return !strings.Contains(accept, "application/json")
}

// WriteProblem answers status with an RFC 9457 problem document, in the
// form of the MCP endpoints.
func WriteProblem(w http.ResponseWriter, status int, detail string) {
	problem.Write(w, problem.New(status, detail).Sorted())
}

// WriteUnavailable answers 503 with Retry-After: the database cannot be
// reached and the request needs it (a design that is not cached, or a key
// to check).
func WriteUnavailable(w http.ResponseWriter) {
	WriteProblem(w, http.StatusServiceUnavailable, failure.Unavailable(nil).Detail)
}
