package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
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
	Log          *slog.Logger
	// AllowedHosts, when set, is the only Host (and Origin, when sent)
	// accepted: protection against DNS rebinding.
	AllowedHosts *HostList
}

// Preflight sets the CORS headers and answers what is not a POST (the
// OPTIONS preflight, 405 for the rest). It reports whether it answered.
func (tr Transport) Preflight(w http.ResponseWriter, r *http.Request) bool {
	hdr := w.Header()
	if !tr.AllowedHosts.Allows(r) {
		WriteProblem(w, http.StatusForbidden, "the Host or Origin of the request is not one of ALLOWED_HOSTS")
		return true
	}
	hdr["Access-Control-Allow-Origin"] = hdrAnyOrigin
	hdr["Access-Control-Allow-Methods"] = hdrAllowMethods
	hdr["Access-Control-Allow-Headers"] = hdrAllowHeaders
	switch r.Method {
	case http.MethodPost:
		return false
	case http.MethodOptions:
		hdr["Access-Control-Max-Age"] = []string{"86400"}
		w.WriteHeader(http.StatusNoContent)
	default:
		hdr["Allow"] = []string{allowMethods}
		WriteProblem(w, http.StatusMethodNotAllowed, "this endpoint is stateless: send JSON-RPC messages with POST")
	}
	return true
}

// RecoverPanic turns a panic into a 500; endpoints defer it.
func (tr Transport) RecoverPanic(w http.ResponseWriter, r *http.Request) {
	if p := recover(); p != nil {
		if p == http.ErrAbortHandler {
			panic(p)
		}
		if tr.Log != nil {
			tr.Log.Error("panic in MCP endpoint", "panic", p, "path", r.URL.Path)
		}
		WriteProblem(w, http.StatusInternalServerError, "the service failed to handle the request")
	}
}

// Serve reads the JSON-RPC body of an authorized POST, has t answer it, and
// writes the replies. It returns how many replies it wrote.
func (tr Transport) Serve(w http.ResponseWriter, r *http.Request, t Target) int {
	return tr.serve(w, r, t, nil)
}

// serve is Serve with what a per-server endpoint adds (nil for none).
func (tr Transport) serve(w http.ResponseWriter, r *http.Request, t Target, side *serverSide) int {
	if r.ContentLength > tr.MaxBodyBytes {
		WriteProblem(w, http.StatusRequestEntityTooLarge, "request body too large")
		return 0
	}
	buf := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(buf)
	buf.Reset()
	n, err := buf.ReadFrom(io.LimitReader(r.Body, tr.MaxBodyBytes+1))
	if err != nil {
		WriteProblem(w, http.StatusBadRequest, "the request body could not be read")
		return 0
	}
	if n > tr.MaxBodyBytes {
		WriteProblem(w, http.StatusRequestEntityTooLarge, "request body too large")
		return 0
	}

	out := bufPool.Get().(*bytes.Buffer)
	defer bufPool.Put(out)
	out.Reset()
	// Every Accept line counts: a client may name the two types apart.
	sse := wantsSSE(strings.Join(r.Header.Values("Accept"), ","))
	x := newExchange(w, r, sse, out)
	defer x.release()
	if side != nil {
		x.serverSide = *side
	}
	answered := tr.dispatch(r.Context(), t, x, buf.Bytes())
	if x.streaming {
		_, _ = w.Write(out.Bytes())
		return answered
	}
	if answered == 0 {
		w.WriteHeader(http.StatusAccepted)
		return 0
	}
	hdr := w.Header()
	if sse {
		setSSEHeaders(hdr)
	} else {
		hdr["Content-Type"] = hdrJSON
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out.Bytes())
	return answered
}

func setSSEHeaders(hdr http.Header) {
	hdr["Content-Type"] = hdrEventStream
	hdr["Cache-Control"] = hdrNoCache
	hdr["Connection"] = hdrKeepAlive
}

// WriteRateLimited answers 429 with a JSON-RPC error (-32000) carrying the
// request's id when the body is a single message whose id can be read.
func (tr Transport) WriteRateLimited(w http.ResponseWriter, r *http.Request, retryAfter int64) {
	var id json.RawMessage
	if r.ContentLength <= tr.MaxBodyBytes {
		body, err := io.ReadAll(io.LimitReader(r.Body, tr.MaxBodyBytes))
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if err == nil && json.Unmarshal(body, &msg) == nil && len(msg.ID) > 0 && strings.IndexByte(`"-0123456789`, msg.ID[0]) >= 0 {
			id = msg.ID // a string or a number: an id the client can match
		}
	}
	WriteRPCError(w, http.StatusTooManyRequests, id, jsonrpc.WithData(
		fmt.Errorf("%w: retry after %d seconds", jsonrpc.ErrRateLimited, retryAfter),
		map[string]int64{"retry_after": retryAfter}))
}

// WriteRPCError answers an HTTP error status with a JSON-RPC error body, as
// the MCP endpoints refuse requests before reading them (401, 403, 429).
// A 401 also carries the Bearer challenge.
func WriteRPCError(w http.ResponseWriter, status int, id json.RawMessage, err error) {
	w.Header()["Content-Type"] = hdrJSON
	if status == http.StatusUnauthorized {
		w.Header()["WWW-Authenticate"] = []string{`Bearer realm="mockmcp"`}
	}
	w.WriteHeader(status)
	_, _ = w.Write(jsonrpc.AppendError(nil, id, err))
}
