// Package mcpserve serves every enabled server design at its MCP endpoint,
// POST /api/platform/{server_id}/mcp: JSON-RPC 2.0 over Streamable HTTP,
// stateless, answered from the design's mock scenarios. A warm request
// touches no database: designs are compiled once into an in-memory cache
// that changes to the design invalidate on every instance through
// PostgreSQL notifications.
package mcpserve

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/logline"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
	"github.com/mockmcp/mockmcp/internal/sequence"
)

// Authorizer decides whether a request may use a server whose auth_mode is
// api_key. It returns nil to let the request through.
type Authorizer interface {
	AuthorizeServer(ctx context.Context, r *http.Request, orgID, serverID uuid.UUID) error
}

// Designs is where the handler reads the designs it serves; the store in
// production.
type Designs interface {
	// ServedDesign returns the design of an enabled server, or a not-found
	// failure when the server is gone or a draft.
	ServedDesign(ctx context.Context, id uuid.UUID) (design.Design, error)
	// ListenDesigns calls fn with the id of every server whose design
	// changes until ctx ends; after a lost connection it calls reset (the
	// changes meanwhile are lost), and ready each time it listens again.
	ListenDesigns(ctx context.Context, fn func(id string), reset, ready func(), onError func(error))
}

// Options configure a Handler.
type Options struct {
	MaxBodyBytes int64
	// MaxBatchMessages is the longest JSON-RPC batch answered; a longer
	// one is refused whole (mcptransport.DefaultMaxBatchMessages when zero).
	MaxBatchMessages int
	// CacheEntries and CacheBytes bound the compiled designs kept in memory.
	CacheEntries int
	CacheBytes   int
	// WarmBytes bounds what compiling the tools of designs entering the
	// cache in the background adds to the designs cached
	// (DefaultWarmBytes when zero; negative warms nothing): past it a
	// tool compiles on its first call.
	WarmBytes int
	// StaleMax bounds how long a cached design is served while it cannot
	// be revalidated (the database or its notifications are out); 5
	// minutes when zero.
	StaleMax time.Duration
	// Authorizer checks keys for auth_mode api_key servers; nil refuses
	// every request to such a server.
	Authorizer Authorizer
	// OAuth verifies the bearer tokens of auth_mode oauth servers; nil
	// refuses every request to such a server (401).
	OAuth oauthcfg.Verifier
	// BaseURL is the origin the service is reached at (config BASE_URL),
	// of the OAuth resource, issuer and metadata URLs; when empty, the
	// origin each request came in at.
	BaseURL string
	// RateLimit counts messages (each member of a batch) per organization
	// and client address (in production), at min(organization override,
	// PublicCeiling); ClientIP finds the address.
	RateLimit     *ratelimit.Limiter
	PublicCeiling int
	ClientIP      *clientip.Resolver
	// AllowedHosts, when set, refuses requests for other hosts (403).
	AllowedHosts *mcptransport.HostList
	// Journal receives every call; nil records nothing.
	Journal Recorder
	// Observer watches every message (the service's metrics); the zero
	// value watches none.
	Observer mcptransport.Observer
	// Sequences counts the calls of sequence scenarios; nil counts in
	// this instance's memory.
	Sequences Sequencer
	// MaxStreamsPerServer and MaxStreamsPerClient bound the open
	// subscriptions/listen streams of one server, in all and from one
	// client address (DefaultMaxStreamsPerServer and
	// DefaultMaxStreamsPerClient when zero); KeepAlive spaces the comments
	// sent on a quiet stream (DefaultKeepAlive when zero).
	MaxStreamsPerServer int
	MaxStreamsPerClient int
	KeepAlive           time.Duration
	// MaxStreamsPerAddress and MaxStreamsPerOrg bound the open streams
	// of one client address over every server, and of one organization's
	// servers together (DefaultMaxStreamsPerAddress and
	// DefaultMaxStreamsPerOrg when zero); StreamLifetime is how long one
	// stream lasts before it ends with its result, the client then
	// listening again (DefaultMaxStreamLifetime when zero).
	MaxStreamsPerAddress int
	MaxStreamsPerOrg     int
	StreamLifetime       time.Duration
	// RequestStateKeys sign the requestState of scenarios that ask the
	// client (HMAC-SHA256): the first signs, every one verifies. Without
	// any, a random key of this instance signs.
	RequestStateKeys [][]byte
	// Now is the clock requestState expiry reads; time.Now when nil.
	Now func() time.Time
	// AskTimeout is how long a round of questions to a legacy client
	// waits for its answers when the round has no timeout branch
	// (DefaultAskTimeout when zero); MaxPendingQuestions bounds the
	// questions of one server waiting on one instance
	// (DefaultMaxPendingQuestions when zero), and
	// MaxPendingQuestionsPerClient those of one server asked of one client
	// address (DefaultMaxPendingQuestionsPerClient when zero), so that one
	// client cannot take every one of a server's.
	AskTimeout                   time.Duration
	MaxPendingQuestions          int
	MaxPendingQuestionsPerClient int
	// Relay carries clients' answers to the instance waiting for them,
	// and the events of a resumed stream from the instance that keeps it;
	// nil when this instance serves alone.
	Relay Relay
	// Tasks keeps the tasks of the tasks extension; nil answers every
	// task's outcome at once, as to a client without the extension.
	Tasks Tasks
	// Upstream forwards calls to designs' upstreams; nil answers the calls
	// a design would forward with an error.
	Upstream Forwarder
	// States keeps the designs' live state, which scenarios read
	// (when_state) and change (set_state); nil answers a call of a tool
	// whose scenarios use it with an error.
	States LiveStates
}

// Handler serves the per-server MCP endpoint.
type Handler struct {
	tr      mcptransport.Transport
	designs Designs
	log     *slog.Logger
	opts    Options
	cache   *cache
	ready   chan struct{}
	// hub holds the open subscriptions/listen streams.
	hub    *hub
	states *stateSigner
	asks   *asker
}

// New returns a Handler serving the designs of st. Call Listen to keep its
// cache in step with them.
func New(st Designs, log *slog.Logger, opts Options) *Handler {
	if opts.CacheEntries <= 0 {
		opts.CacheEntries = 20_000
	}
	if opts.CacheBytes <= 0 {
		opts.CacheBytes = 384 << 20
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = 1 << 20
	}
	if opts.KeepAlive <= 0 {
		opts.KeepAlive = DefaultKeepAlive
	}
	if opts.StreamLifetime <= 0 {
		opts.StreamLifetime = DefaultMaxStreamLifetime
	}
	if opts.Sequences == nil {
		opts.Sequences = sequence.NewMemory(sequence.MemoryOptions{})
	}
	streams := mcptransport.NewStreams()
	if opts.Relay != nil { // a stream is resumed whichever instance the client reaches
		streams.Share(opts.Relay)
	}
	tr := mcptransport.Transport{MaxBodyBytes: opts.MaxBodyBytes, MaxBatchMessages: opts.MaxBatchMessages, Log: log,
		AllowedHosts: opts.AllowedHosts, Streams: streams}
	tr = tr.Observed(opts.Observer)
	h := &Handler{tr: tr, designs: st, log: log, opts: opts, ready: make(chan struct{}),
		hub: newHub(streamBounds{perServer: opts.MaxStreamsPerServer, perClient: opts.MaxStreamsPerClient,
			perAddress: opts.MaxStreamsPerAddress, perOrg: opts.MaxStreamsPerOrg}),
		states: newStateSigner(opts.RequestStateKeys, opts.Now),
		asks:   newAsker(opts.Relay, opts.MaxPendingQuestions, opts.MaxPendingQuestionsPerClient, log)}
	h.cache = newCache(opts.CacheEntries, opts.CacheBytes, opts.StaleMax, h.loadDesign)
	switch {
	case opts.WarmBytes == 0:
		h.cache.warmBudget = DefaultWarmBytes
	case opts.WarmBytes > 0:
		h.cache.warmBudget = opts.WarmBytes
	}
	return h
}

func (h *Handler) loadDesign(ctx context.Context, id uuid.UUID) (*compiled, error) {
	d, err := h.designs.ServedDesign(ctx, id)
	if err != nil {
		return nil, err
	}
	c, err := compile(d)
	if err == nil && c.needsReload() {
		c.modern.reload = func(ctx context.Context) (design.Design, error) { return h.designs.ServedDesign(ctx, id) }
	}
	return c, err
}

// Listen keeps the cache in step with the database until ctx ends: every
// change to a design drops its compiled copy, and the server's open
// subscriptions/listen streams are told what changed. While the connection
// is lost cached designs are served stale (within Options.StaleMax); once
// it is back every one is revalidated on its next use, and every server
// with open streams compared, since changes made meanwhile were not
// announced.
func (h *Handler) Listen(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { h.asks.listen(ctx) })
	wg.Go(func() { h.tr.Streams.Listen(ctx) })
	var once sync.Once
	h.designs.ListenDesigns(ctx,
		func(payload string) {
			if id, err := uuid.Parse(payload); err == nil {
				h.cache.invalidate(id)
				if h.hub.count(id) > 0 {
					go h.designChanged(ctx, id)
				}
			}
		},
		h.cache.lost,
		func() {
			h.cache.live()
			once.Do(func() { close(h.ready) })
			for _, id := range h.hub.watched() {
				go h.designChanged(ctx, id)
			}
		},
		func(err error) {
			h.log.Warn("design notifications interrupted; serving cached designs as stale until they are revalidated", "error", err.Error())
		},
	)
}

// Ready is closed once the cache listens for changes.
func (h *Handler) Ready() <-chan struct{} { return h.ready }

// CacheStats reports how many designs are cached and their approximate size.
func (h *Handler) CacheStats() (entries, bytes int) { return h.cache.stats() }

// CacheCounts reports what the design cache did since New, and its size now.
func (h *Handler) CacheCounts() CacheCounts { return h.cache.snapshot() }

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
		h.countRefused(w, r, nil)
		mcptransport.WriteProblem(w, http.StatusNotFound, "server not found")
		return
	}
	d, err := h.cache.get(r.Context(), id)
	if err != nil {
		h.countRefused(w, r, nil)
		h.writeLoadError(w, r, id, err)
		return
	}
	// The body is read before the rate limit, which counts its messages.
	// A GET resuming a stream has none, and is authorized as a POST.
	var p mcptransport.Payload
	resume := tr.Resumes(r)
	if !resume {
		if status, detail := tr.ReadBody(r, &p); status != 0 {
			h.countRefused(w, r, d)
			mcptransport.WriteProblem(w, status, detail)
			return
		}
		defer p.Release()
	}
	var addr string // resolved here for the rate limit, else when first needed
	if h.rateLimited() {
		addr = h.opts.ClientIP.Of(r).String()
		messages := p.Messages()
		if resume {
			messages = 1
		}
		dec := h.opts.RateLimit.AdmitN(r.Context(), w.Header(), ratelimit.PublicKey(d.orgKey, addr),
			ratelimit.PublicLimit(d.publicLimit, h.opts.PublicCeiling), messages)
		if !dec.Allowed {
			h.rejected(d, addr, start, http.StatusTooManyRequests, "")
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
				mcptransport.WriteUnavailable(w)
				return
			}
			h.rejected(d, addr, start, http.StatusUnauthorized, "")
			h.writeUnauthorized(w, err)
			return
		}
	}
	if d.oauth != nil {
		if f := h.checkOAuth(r, d, &p); f != nil {
			if f.status != http.StatusServiceUnavailable {
				h.rejected(d, addr, start, f.status, f.journal)
			}
			h.writeRefusal(w, f)
			return
		}
	}
	if resume {
		tr.Resume(w, r)
		return
	}
	if d.needsReload() && d.modern.view.Load() == nil && p.MayBeModern(r) {
		// The modern form of this design reads it again: built before
		// dispatch (once per cached design), so that the reading can fail
		// as loading one does. Once built, nothing here looks at the body.
		if _, err := d.forModern(r.Context()); err != nil {
			h.writeLoadError(w, r, id, err)
			return
		}
	}
	st := newState(r)
	st.serverSide = serverSide{rec: h.opts.Journal, d: d, clientAddr: addr, seq: h.opts.Sequences, log: h.log, ips: h.opts.ClientIP,
		hub: h.hub, keepAlive: h.opts.KeepAlive, lifetime: h.opts.StreamLifetime,
		states: h.states, asks: h.asks, askTimeout: h.opts.AskTimeout, tasks: h.opts.Tasks, clock: h.opts.Now,
		fwd: h.opts.Upstream, liveStates: h.opts.States}
	answered := tr.Serve(w, r, st, &p)
	st.release()
	if h.log.Enabled(r.Context(), slog.LevelDebug) {
		h.log.LogAttrs(r.Context(), slog.LevelDebug, "mcp request", slog.String("server_id", id.String()),
			slog.Int("responses", answered), slog.Float64("duration_ms", logline.Milliseconds(time.Since(start))))
	}
}

// writeLoadError answers a request whose design could not be read: 404
// when it is gone or a draft, 503 while the database is out, 500 else.
func (h *Handler) writeLoadError(w http.ResponseWriter, r *http.Request, id uuid.UUID, err error) {
	switch {
	case failure.Is(err, failure.ErrNotFound):
		mcptransport.WriteProblem(w, http.StatusNotFound, "server not found or not enabled")
	case failure.Is(err, failure.ErrUnavailable):
		mcptransport.WriteUnavailable(w)
	case r.Context().Err() != nil: // the caller left while the design loaded
	default:
		h.log.Error("load design", "server_id", id.String(), "error", err.Error())
		mcptransport.WriteProblem(w, http.StatusInternalServerError, "the design could not be loaded")
	}
}

// countRefused counts a request refused before its messages could be
// counted (no such server, a body too large or unreadable) as one message,
// in production, and sets the rate-limit headers of its counter on the
// answer, which stays the refusal. A request for a known server d counts
// against its organization's counter for the client address, as its
// messages would; one whose server is unknown (d nil) against the
// address's own counter, at MAX_PUBLIC_RATE_LIMIT.
func (h *Handler) countRefused(w http.ResponseWriter, r *http.Request, d *compiled) {
	if !h.rateLimited() {
		return
	}
	addr := h.opts.ClientIP.Of(r).String()
	org, limit := "", h.opts.PublicCeiling
	if d != nil {
		org, limit = d.orgKey, ratelimit.PublicLimit(d.publicLimit, h.opts.PublicCeiling)
	}
	h.opts.RateLimit.AdmitN(r.Context(), w.Header(), ratelimit.PublicKey(org, addr), limit, 1)
}

func (h *Handler) rateLimited() bool {
	return h.opts.RateLimit != nil && h.opts.RateLimit.Enabled()
}

// rejected records a request refused before any of its messages was
// answered, and why when the status does not say it all.
func (h *Handler) rejected(d *compiled, addr string, start time.Time, status int, why string) {
	if h.opts.Journal == nil || !h.opts.Journal.Admit(d.orgID, d.id) {
		return
	}
	h.opts.Journal.Record(journal.Entry{OrgID: d.orgID, ServerID: d.id, ReceivedAt: start, Latency: time.Since(start),
		ClientAddr: addr, Outcome: journal.OutcomeRejected, Step: -1,
		Answer: []byte(rejection(status, why))})
}

// rejection is the journal's answer of a refused request: "401
// Unauthorized", or "401 invalid_token: expired" when why is known.
func rejection(status int, why string) string {
	if why == "" {
		return strconv.Itoa(status) + " " + http.StatusText(status)
	}
	return strconv.Itoa(status) + " " + why
}

func (h *Handler) authorize(r *http.Request, d *compiled) error {
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
	mcptransport.WriteRPCError(w, http.StatusUnauthorized, nil, fmt.Errorf("%w: %s", jsonrpc.ErrUnauthorized, detail))
}

// EndpointPath is the path of server id's MCP endpoint.
func EndpointPath(id uuid.UUID) string { return oauthcfg.EndpointPath(id) }

const endpointPrefix, endpointSuffix = oauthcfg.EndpointPrefix, oauthcfg.EndpointSuffix

// serverID reads {server_id} from /api/platform/{server_id}/mcp.
func serverID(path string) (uuid.UUID, bool) {
	if !strings.HasPrefix(path, endpointPrefix) || !strings.HasSuffix(path, endpointSuffix) {
		return uuid.Nil, false
	}
	id, err := uuid.Parse(path[len(endpointPrefix) : len(path)-len(endpointSuffix)])
	return id, err == nil
}
