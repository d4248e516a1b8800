// Package mcpserve serves every enabled server design at its MCP endpoint,
// POST /api/platform/{server_id}/mcp: JSON-RPC 2.0 over Streamable HTTP,
// stateless, answered from the design's mock scenarios. A warm request
// touches no database: designs are compiled once into an in-memory cache
// that changes to the design invalidate on every instance through
// PostgreSQL notifications.
package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
	"github.com/mockmcp/mockmcp/internal/sequence"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Authorizer decides whether a request may use a server whose auth_mode is
// api_key. It returns nil to let the request through.
type Authorizer interface {
	AuthorizeServer(ctx context.Context, r *http.Request, orgID, serverID uuid.UUID) error
}

// Options configure a Handler.
type Options struct {
	MaxBodyBytes int64
	// MaxBatchMessages is the longest JSON-RPC batch answered; a longer
	// one is refused whole (DefaultMaxBatchMessages when zero).
	MaxBatchMessages int
	// CacheEntries and CacheBytes bound the compiled designs kept in memory.
	CacheEntries int
	CacheBytes   int
	// StaleMax bounds how long a cached design is served while it cannot
	// be revalidated (the database or its notifications are out); 5
	// minutes when zero.
	StaleMax time.Duration
	// Authorizer checks keys for auth_mode api_key servers; nil refuses
	// every request to such a server.
	Authorizer Authorizer
	// RateLimit counts messages (each member of a batch) per organization
	// and client address (in production), at min(organization override,
	// PublicCeiling); ClientIP finds the address.
	RateLimit     *ratelimit.Limiter
	PublicCeiling int
	ClientIP      *clientip.Resolver
	// AllowedHosts, when set, refuses requests for other hosts (403).
	AllowedHosts *HostList
	// Journal receives every call; nil records nothing.
	Journal Recorder
	// Sequences counts the calls of sequence scenarios; nil counts in
	// this instance's memory.
	Sequences Sequencer
}

// Handler serves the per-server MCP endpoint.
type Handler struct {
	tr    Transport
	store *store.Store
	log   *slog.Logger
	opts  Options
	cache *cache
	ready chan struct{}
}

// New returns a Handler over st. Call Listen to keep its cache in step with
// the database.
func New(st *store.Store, log *slog.Logger, opts Options) *Handler {
	if opts.CacheEntries <= 0 {
		opts.CacheEntries = 10_000
	}
	if opts.CacheBytes <= 0 {
		opts.CacheBytes = 256 << 20
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 1 << 20
	}
	if opts.Sequences == nil {
		opts.Sequences = sequence.NewMemory(sequence.MemoryOptions{})
	}
	h := &Handler{tr: Transport{MaxBodyBytes: opts.MaxBodyBytes, MaxBatchMessages: opts.MaxBatchMessages, Log: log,
		AllowedHosts: opts.AllowedHosts},
		store: st, log: log, opts: opts, ready: make(chan struct{})}
	h.cache = newCache(opts.CacheEntries, opts.CacheBytes, opts.StaleMax, h.loadDesign)
	return h
}

func (h *Handler) loadDesign(ctx context.Context, id uuid.UUID) (*design, error) {
	d, err := h.store.ServedDesign(ctx, id)
	if err != nil {
		return nil, err
	}
	return compile(d)
}

// Listen keeps the cache in step with the database until ctx ends: every
// change to a design drops its compiled copy. While the connection is lost
// cached designs are served stale (within Options.StaleMax); once it is
// back every one is revalidated on its next use, since changes made
// meanwhile were not announced.
func (h *Handler) Listen(ctx context.Context) {
	var once sync.Once
	h.store.Listen(ctx, store.DesignChannel,
		func(payload string) {
			if id, err := uuid.Parse(payload); err == nil {
				h.cache.invalidate(id)
			}
		},
		h.cache.lost,
		func() { h.cache.live(); once.Do(func() { close(h.ready) }) },
		func(err error) {
			h.log.Warn("design notifications interrupted; serving cached designs as stale until they are revalidated", "error", err.Error())
		},
	)
}

// Ready is closed once the cache listens for changes.
func (h *Handler) Ready() <-chan struct{} { return h.ready }

// CacheStats reports how many designs are cached and their approximate size.
func (h *Handler) CacheStats() (entries, bytes int) { return h.cache.stats() }

const (
	allowMethods = "POST, OPTIONS"
	// Content-Type is what the specification names; the MCP headers and the
	// key headers let browser clients (the MCP Inspector) reach servers too.
	allowHeaders = "Content-Type, Accept, Authorization, X-API-Key, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID"
)

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// Header values shared by every response; net/http never modifies them.
var (
	hdrAnyOrigin    = []string{"*"}
	hdrAllowMethods = []string{allowMethods}
	hdrAllowHeaders = []string{allowHeaders}
	hdrEventStream  = []string{"text/event-stream"}
	hdrNoCache      = []string{"no-cache"}
	hdrKeepAlive    = []string{"keep-alive"}
	hdrJSON         = []string{"application/json"}
)

// ServeHTTP answers one request to /api/platform/{server_id}/mcp.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	tr := h.tr
	if tr.Preflight(w, r) {
		return
	}
	defer tr.RecoverPanic(w, r)

	id, ok := serverID(r.URL.Path)
	if !ok {
		WriteProblem(w, http.StatusNotFound, "server not found")
		return
	}
	d, err := h.cache.get(r.Context(), id)
	if err != nil {
		if failure.Is(err, failure.ErrNotFound) {
			WriteProblem(w, http.StatusNotFound, "server not found or not enabled")
			return
		}
		if failure.Is(err, failure.ErrUnavailable) {
			WriteUnavailable(w)
			return
		}
		if r.Context().Err() != nil { // the caller left while the design loaded
			return
		}
		h.log.Error("load design", "server_id", id.String(), "error", err.Error())
		WriteProblem(w, http.StatusInternalServerError, "the design could not be loaded")
		return
	}
	// The body is read before the rate limit, which counts its messages.
	var p Payload
	if !tr.Read(w, r, &p) {
		return
	}
	defer p.Release()
	var addr string // resolved here for the rate limit, else when first needed
	if h.rateLimited() {
		addr = h.opts.ClientIP.Of(r).String()
		dec := h.opts.RateLimit.AdmitN(r.Context(), w.Header(), ratelimit.PublicKey(d.orgKey, addr),
			ratelimit.PublicLimit(d.publicLimit, h.opts.PublicCeiling), p.Messages())
		if !dec.Allowed {
			h.rejected(d, addr, start, http.StatusTooManyRequests)
			tr.WriteRateLimited(w, &p, dec.RetryAfter())
			return
		}
		if dec.Admitted < p.Messages() {
			p.Limit(dec.Admitted, dec.RetryAfter())
		}
	}
	if d.authMode == "api_key" {
		if err := h.authorize(r, d); err != nil {
			if failure.Is(err, failure.ErrUnavailable) { // the key could not be checked
				WriteUnavailable(w)
				return
			}
			h.rejected(d, addr, start, http.StatusUnauthorized)
			h.writeUnauthorized(w, err)
			return
		}
	}
	var side *serverSide
	if h.opts.Journal != nil || d.usesSequences {
		side = &serverSide{rec: h.opts.Journal, d: d, clientAddr: addr, seq: h.opts.Sequences, log: h.log, ips: h.opts.ClientIP}
	}
	answered := tr.serve(w, r, d, &p, side)
	if h.log.Enabled(r.Context(), slog.LevelDebug) {
		h.log.LogAttrs(r.Context(), slog.LevelDebug, "mcp request", slog.String("server_id", id.String()),
			slog.Int("responses", answered), slog.Duration("duration", time.Since(start)))
	}
}

func (h *Handler) rateLimited() bool {
	return h.opts.RateLimit != nil && h.opts.RateLimit.Enabled()
}

// rejected records a request refused before any of its messages was
// answered.
func (h *Handler) rejected(d *design, addr string, start time.Time, status int) {
	if h.opts.Journal == nil || !h.opts.Journal.Admit() {
		return
	}
	h.opts.Journal.Record(journal.Entry{OrgID: d.orgID, ServerID: d.id, ReceivedAt: start, Latency: time.Since(start),
		ClientAddr: addr, Outcome: journal.OutcomeRejected, Step: -1,
		Answer: []byte(strconv.Itoa(status) + " " + http.StatusText(status))})
}

func (h *Handler) authorize(r *http.Request, d *design) error {
	if h.opts.Authorizer == nil {
		return failure.Unauthorized("this server requires an API key")
	}
	return h.opts.Authorizer.AuthorizeServer(r.Context(), r, d.orgID, d.id)
}

// writeUnauthorized answers HTTP 401 with JSON-RPC error -32001.
func (h *Handler) writeUnauthorized(w http.ResponseWriter, err error) {
	detail := "this server requires an API key of its organization"
	if f, ok := failure.As(err); ok && f.Kind == failure.KindForbidden {
		detail = f.Detail
	}
	WriteRPCError(w, http.StatusUnauthorized, nil, fmt.Errorf("%w: %s", jsonrpc.ErrUnauthorized, detail))
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
		var resp []byte
		if p.limited && i >= p.admitted {
			resp = tr.refuse(x, msg, limited)
		} else {
			resp = tr.answer(ctx, t, x, msg, nil)
		}
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
	var start time.Time
	if x.rec != nil {
		start = time.Now()
		x.call = callNote{step: -1}
	}
	req, err := jsonrpc.Parse(msg)
	if err != nil {
		if x.rec != nil {
			x.record(start, &req, nil, err)
		}
		return jsonrpc.AppendError(dst, req.ID, err)
	}
	if req.IsNotification() {
		if x.rec != nil {
			x.record(start, &req, nil, nil)
		}
		return nil
	}
	result, err := tr.call(ctx, t, x, &req)
	if x.rec != nil {
		x.record(start, &req, result, err)
	}
	if err != nil {
		var wire *jsonrpc.Error
		var scripted *jsonrpc.Scripted
		if !errors.As(err, &wire) && !errors.As(err, &scripted) && ctx.Err() == nil && tr.Log != nil {
			tr.Log.ErrorContext(ctx, "mcp method failed", "method", req.Method, "error", err.Error())
		}
		return jsonrpc.AppendError(dst, req.ID, err)
	}
	return jsonrpc.AppendResult(dst, req.ID, result)
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

// refuse answers a member of a batch past the rate limit's allowance with
// err, without running it; nil for a notification. The journal records it
// as rejected.
func (tr Transport) refuse(x *Exchange, msg []byte, err error) []byte {
	req, invalid := jsonrpc.Parse(msg)
	if x.rec != nil {
		x.call = callNote{step: -1, outcome: journal.OutcomeRejected}
		x.record(time.Now(), &req, nil, err)
	}
	if invalid == nil && req.IsNotification() {
		return nil
	}
	return jsonrpc.AppendError(nil, req.ID, err)
}

// Call answers one method of the design's endpoint.
func (d *design) Call(ctx context.Context, x *Exchange, method string, params json.RawMessage) (json.RawMessage, error) {
	m, ok := methods[method]
	if !ok {
		return nil, fmt.Errorf("%w: %s", jsonrpc.ErrMethodNotFound, method)
	}
	return m.handle(ctx, x, d, params)
}

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

// serverID reads {server_id} from /api/platform/{server_id}/mcp.
func serverID(path string) (uuid.UUID, bool) {
	const prefix, suffix = "/api/platform/", "/mcp"
	if !strings.HasPrefix(path, prefix) || !strings.HasSuffix(path, suffix) {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(path[len(prefix) : len(path)-len(suffix)])
	return id, err == nil
}

// WriteProblem answers status with an RFC 9457 problem document.
func WriteProblem(w http.ResponseWriter, status int, detail string) {
	w.Header()["Content-Type"] = []string{"application/problem+json"}
	w.WriteHeader(status)
	body, _ := json.Marshal(map[string]any{"type": "about:blank", "title": http.StatusText(status), "status": status, "detail": detail})
	_, _ = w.Write(body)
}
