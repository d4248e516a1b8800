// Package service assembles one instance of mockmcp: it prepares the
// database, builds the HTTP handlers and serves them until told to stop,
// then shuts down gracefully. cmd/mockmcp is a thin shell over it, and tests
// boot it on :0.
package service

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"
	"github.com/redis/go-redis/v9"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/agentjournal"
	"github.com/mockmcp/mockmcp/internal/audit"
	"github.com/mockmcp/mockmcp/internal/batch"
	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/console"
	"github.com/mockmcp/mockmcp/internal/docpage"
	"github.com/mockmcp/mockmcp/internal/httpapi"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/keys"
	"github.com/mockmcp/mockmcp/internal/localmode"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/metrics"
	"github.com/mockmcp/mockmcp/internal/oauthas"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/outbound"
	"github.com/mockmcp/mockmcp/internal/platformmcp"
	"github.com/mockmcp/mockmcp/internal/problem"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
	"github.com/mockmcp/mockmcp/internal/readiness"
	"github.com/mockmcp/mockmcp/internal/redisconn"
	"github.com/mockmcp/mockmcp/internal/sequence"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/tasksweep"
	"github.com/mockmcp/mockmcp/internal/upstream"
)

// Version is the build's version, set with -ldflags at build time.
var Version = "dev"

// Service is one running instance.
type Service struct {
	cfg   config.Config
	log   *slog.Logger
	store *store.Store
	mcp   *mcpserve.Handler
	keys  *keys.Authenticator
	audit *audit.Writer
	// journal records the calls to the per-server endpoints; nil when
	// JOURNAL_ENABLED is false.
	journal *journal.Writer
	// agentJournal records the messages to the mock A2A agents; nil when
	// JOURNAL_ENABLED is false.
	agentJournal *agentjournal.Writer
	// tasks deletes expired MCP tasks.
	tasks *tasksweep.Sweeper
	limit *ratelimit.Limiter
	ready *readiness.Checker
	redis *redis.Client // nil without REDIS_URL
	seq   mcpserve.Sequencer
	// stateKeys sign the requestState of calls that ask the client.
	stateKeys [][]byte
	// cards caches the published cards the mock A2A agents serve.
	cards *a2aserve.CardCache
	// upstreamKey seals the header values of designs' upstreams.
	upstreamKey *upstream.Key
	// oauthKeys sign the access tokens of designs' authorization servers;
	// oauthVerifier checks them.
	oauthKeys     *oauthas.Keys
	oauthVerifier *oauthas.Verifier
	http          *http.Server
	ln            net.Listener
	// metrics are served on their own listener, metricsLn; all three nil
	// when METRICS_ADDR is empty.
	metrics     *metrics.Metrics
	metricsHTTP *http.Server
	metricsLn   net.Listener
	// serverRoute is the per-server endpoint as routed, with its request
	// metrics.
	serverRoute http.Handler
	out         io.Writer          // local mode's output: endpoints, broken design files
	cancel      context.CancelFunc // stops background work
	done        chan struct{}

	// oauthLimit bounds the authorization servers' requests per address,
	// in every mode.
	oauthLimit *ratelimit.Limiter
}

// Prepare creates the database when missing and applies the migrations.
func Prepare(ctx context.Context, cfg config.Config, log *slog.Logger) error {
	if err := store.EnsureDatabase(ctx, cfg.DatabaseURL); err != nil {
		return err
	}
	return store.Migrate(ctx, cfg.DatabaseURL, log)
}

// New prepares the database, connects to it and builds the handlers.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (*Service, error) {
	if cfg.Designs != "" {
		if err := localmode.CheckDir(cfg.Designs); err != nil {
			return nil, fmt.Errorf("local mode (MOCKMCP_DESIGNS, --designs): %w", err)
		}
	}
	if err := Prepare(ctx, cfg, log); err != nil {
		return nil, err
	}
	spec, err := api.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	s := &Service{cfg: cfg, log: log, out: os.Stdout, done: make(chan struct{})}
	if err := s.connect(ctx); err != nil {
		_ = s.disconnect()
		return nil, err
	}
	s.newWriters()
	s.ready = s.readiness()
	if cfg.MetricsAddr != "" {
		s.metrics = metrics.New()
	}
	mux, err := s.routes(spec)
	if err != nil {
		_ = s.disconnect()
		return nil, err
	}
	if err := s.serveMetrics(); err != nil {
		_ = s.disconnect()
		return nil, err
	}
	s.http = newHTTPServer(mux, log)
	// Open subscriptions/listen streams never go idle: the shutdown ends
	// them, else it would wait its whole timeout on them.
	s.http.RegisterOnShutdown(s.mcp.CloseStreams)
	// From here on Close releases everything.
	s.startBackground()
	if err := s.awaitSubscriptions(); err != nil {
		_ = s.Close()
		return nil, err
	}
	return s, nil
}

// connect opens the database pool and, when REDIS_URL is set, one Redis
// connection pool, which holds every counter shared between instances: the
// sequence counters and the rate limits. On error the caller releases what
// was opened with disconnect.
func (s *Service) connect(ctx context.Context) error {
	var err error
	if s.store, err = store.Open(ctx, s.cfg.DatabaseURL); err != nil {
		return err
	}
	if s.cfg.RedisURL != "" {
		redisconn.UseLogger(s.log)
		if s.redis, err = redisconn.Open(ctx, s.cfg.RedisURL); err != nil {
			return err
		}
	}
	s.seq = newSequencer(s.redis)
	if s.stateKeys, err = requestStateKeys(ctx, s.cfg, s.store); err != nil {
		return err
	}
	if s.upstreamKey, err = upstreamKey(ctx, s.store); err != nil {
		return err
	}
	if err = s.connectOAuth(ctx); err != nil {
		return err
	}
	s.limit, err = ratelimit.New(ctx, s.log, ratelimit.Options{Enabled: s.cfg.Production(), Redis: s.redis, Window: s.cfg.RateWindow})
	return err
}

// disconnect releases what connect opened: the database pool, the rate
// limiters (their leases on their way) and the Redis pool, those that are
// open.
func (s *Service) disconnect() error {
	var err error
	if s.store != nil {
		s.store.Close()
	}
	if s.limit != nil {
		err = s.limit.Close()
	}
	if s.oauthLimit != nil {
		err = errors.Join(err, s.oauthLimit.Close())
	}
	if s.redis != nil {
		err = errors.Join(err, s.redis.Close())
	}
	return err
}

// newWriters builds the background workers over the store: the key
// checker, the policy audit writer, the sweeper of expired MCP tasks and,
// when JOURNAL_ENABLED, the call journal writer. startBackground runs them.
func (s *Service) newWriters() {
	cfg := s.cfg
	s.keys = keys.New(s.store, s.log, keys.Options{TouchInterval: cfg.KeyTouchInterval, StaleMax: cfg.DesignStaleMax})
	s.audit = audit.New(s.store, s.log, audit.Options{})
	s.tasks = tasksweep.New(s.store, s.log, tasksweep.Options{})
	if cfg.JournalEnabled {
		s.journal = journal.New(s.store, s.log, journal.Options{Batch: batch.Options{QueueSize: cfg.JournalQueue},
			MaxRate: cfg.JournalMaxRate, MaxRatePerOrg: cfg.JournalMaxRatePerOrg,
			MaxRatePerServer: cfg.JournalMaxRatePerServer, Retention: cfg.JournalRetention, MaxPerServer: cfg.JournalMaxPerServer,
			PruneInterval: cfg.JournalPruneInterval})
		s.agentJournal = agentjournal.New(s.store, s.log, agentjournal.Options{Batch: batch.Options{QueueSize: cfg.JournalQueue},
			Retention: cfg.JournalRetention, MaxPerCard: cfg.JournalMaxPerServer, PruneInterval: cfg.JournalPruneInterval})
	}
}

// readiness checks what /readyz reports: the database answers, its
// migrations are applied, and the connections that keep the design cache
// and the key cache current listen (without them an instance would serve
// designs and keys that may have changed).
func (s *Service) readiness() *readiness.Checker {
	return readiness.New(s.log, 0,
		readiness.DatabaseCheck(s.store.Ping),
		readiness.Check{Name: "migrations", Run: s.store.CheckMigrations},
		readiness.ListenerCheck(map[string]func() (bool, time.Time){
			"design changes":       func() (bool, time.Time) { return s.mcp.ListenState() },
			"key changes":          s.keys.ListenState,
			"revoked OAuth tokens": s.oauthVerifier.ListenState,
		}))
}

// Readiness is what /readyz reports, for tests.
func (s *Service) Readiness() *readiness.Checker { return s.ready }

// routes builds the REST API, both MCP endpoints and the /docs page, and
// routes them. The per-server MCP endpoint is the hot path: it is routed
// straight to its handler, past the REST API's middleware.
func (s *Service) routes(spec *openapi3.T) (http.Handler, error) {
	ips := clientip.New(s.cfg.TrustedProxies)
	var root http.Handler // the whole service, for test runs that target it
	rest, err := s.restAPI(spec, ips, func() http.Handler { return root })
	if err != nil {
		return nil, err
	}
	hosts, err := mcptransport.ParseHostList(s.cfg.AllowedHosts)
	if err != nil {
		return nil, fmt.Errorf("ALLOWED_HOSTS: %w", err)
	}
	s.mcp = s.serverEndpoint(ips, hosts, func() http.Handler { return root })
	platform, err := s.platformEndpoint(spec, rest, hosts, ips)
	if err != nil {
		return nil, err
	}
	const serverPath = "/api/platform/{server_id}/mcp"
	s.serverRoute = s.metrics.Route(serverPath, s.mcp)
	rest.Pre(s.metrics.Echo(rest))
	mux := http.NewServeMux()
	mux.Handle(serverPath, s.serverRoute)
	// The protected resource metadata of OAuth designs (RFC 9728), from the
	// compiled designs; the bare well-known path names no design: 404.
	prm := s.metrics.Route(oauthcfg.ProtectedResourcePrefix+serverPath, http.HandlerFunc(s.mcp.ServeProtectedResourceMetadata))
	mux.Handle(oauthcfg.ProtectedResourcePrefix+serverPath, prm)
	mux.Handle(oauthcfg.ProtectedResourcePrefix, prm)
	mux.Handle(oauthcfg.ProtectedResourcePrefix+"/", prm)
	mux.Handle(platformmcp.Path, s.metrics.Route(platformmcp.Path, platform))
	s.cards = a2aserve.NewCardCache(s.publishedCard)
	rest.Use(s.flushCardsAfterChange)
	agents := a2aserve.New(s.cards.Lookup, s.store, s.log, uuid.NewString).WithPush(a2aserve.Push{
		Configs: s.store, Sealer: s.upstreamKey, AllowPrivate: s.cfg.AllowPrivateTargets,
		Client: outbound.NewClient(outbound.Options{AllowPrivate: s.cfg.AllowPrivateTargets, Timeout: 5 * time.Second,
			MaxBody: 64 << 10, MaxRedirects: -1})}).Tokens(s.agentToken)
	if s.agentJournal != nil {
		agents.Journal(s.agentJournal, func(r *http.Request) string { return ips.Of(r).String() })
	}
	mux.Handle(a2aserve.Route, s.metrics.Route(a2aserve.Route, s.exchangeRateLimit(ips, agents)))
	mux.Handle(a2aserve.RESTRoute, s.metrics.Route(a2aserve.RESTRoute, s.exchangeRateLimit(ips, agents.REST())))
	s.oauthRoutes(mux, ips)
	docs := s.metrics.Route(docpage.Path, docpage.New())
	mux.Handle("GET "+docpage.Path, docs)
	mux.Handle("GET "+docpage.Path+"/", docs)
	// The console at / for browsers; API clients asking for / still get
	// the REST API's 404.
	page := s.metrics.Route("/", console.New())
	mux.Handle("GET /{$}", console.ForBrowsers(page, rest))
	mux.Handle("GET "+console.AssetsPath, page)
	mux.Handle("/", rest)
	root = mux
	return mux, nil
}

// exchangeRateLimit counts each request to next, a public route of the
// exchange outside the REST API, against the client address's exchange
// counter at MAX_PUBLIC_RATE_LIMIT, as the exchange's REST routes are (in
// production): past the limit the answer is 429 with Retry-After.
func (s *Service) exchangeRateLimit(ips *clientip.Resolver, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.limit != nil && s.limit.Enabled() {
			key := ratelimit.ExchangeKey(ips.Of(r).String())
			if !s.limit.Admit(r.Context(), w.Header(), key, s.cfg.MaxPublicRateLimit).Allowed {
				problem.Write(w, problem.New(http.StatusTooManyRequests, "rate limit exceeded; retry after the time in Retry-After"))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// flushCardsAfterChange drops the agents' cached cards once a request that
// may change a card or an organization's slug has been answered, so that
// this instance's agents serve the change at once; the others follow the
// notification (a2aserve.CardChannel).
func (s *Service) flushCardsAfterChange(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		r := c.Request()
		if r.Method != http.MethodGet && r.Method != http.MethodHead && s.cards != nil &&
			(strings.HasPrefix(r.URL.Path, "/api/agent-cards") || strings.HasPrefix(r.URL.Path, "/api/organizations")) {
			s.cards.Flush()
		}
		return err
	}
}

// publishedCard reads a published card for its mock agent, as the exchange
// reads it: any organization's, published only.
func (s *Service) publishedCard(ctx context.Context, orgSlug, name string) (a a2aserve.Agent, err error) {
	err = s.store.WithTx(ctx, store.Scope{Exchange: true}, func(tx *store.Tx) error {
		e, err := tx.ExchangeCard(ctx, orgSlug, name)
		a = a2aserve.Agent{Card: e.Card, ID: e.ID, OrgID: e.OrgID}
		return err
	})
	return a, err
}

// serveMetrics registers the metrics read from the service's parts and
// starts serving them on METRICS_ADDR, when set. The listener is bound
// here, so a taken or bad address stops the start-up.
func (s *Service) serveMetrics() error {
	m := s.metrics
	if m == nil {
		return nil
	}
	m.DesignCache(s.mcp)
	m.Queue("audit", s.audit)
	if s.journal != nil {
		m.Queue("journal", s.journal)
		m.JournalDrops(s.journal)
	}
	m.RateLimit(s.limit)
	m.Outbound()
	m.Pool(s.store.Pool())
	ln, err := net.Listen("tcp", s.cfg.MetricsAddr)
	if err != nil {
		return fmt.Errorf("metrics: listen on METRICS_ADDR %s: %w", s.cfg.MetricsAddr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	if s.cfg.Pprof {
		mux.HandleFunc("GET /debug/pprof/", pprof.Index)
		mux.HandleFunc("GET /debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("GET /debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("GET /debug/pprof/trace", pprof.Trace)
	}
	s.metricsLn, s.metricsHTTP = ln, newHTTPServer(mux, s.log)
	s.log.Info("serving metrics", "addr", s.MetricsAddr())
	go func() {
		if err := s.metricsHTTP.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("metrics listener stopped", "error", err.Error())
		}
	}()
	return nil
}

// MetricsAddr is the bound address of the metrics listener, "" when
// METRICS_ADDR is empty.
func (s *Service) MetricsAddr() string {
	if s.metricsLn == nil {
		return ""
	}
	return s.metricsLn.Addr().String()
}

// ServerEndpoint is the per-server MCP endpoint as the service routes it,
// with its request metrics when they are on; for benchmarks.
func (s *Service) ServerEndpoint() http.Handler { return s.serverRoute }

// restAPI builds the REST API; self returns the whole service's handler.
func (s *Service) restAPI(spec *openapi3.T, ips *clientip.Resolver, self func() http.Handler) (*echo.Echo, error) {
	return httpapi.New(s.store, s.cfg, s.log, httpapi.Deps{Spec: spec, Keys: s.keys, Audit: s.audit, Journal: s.journal,
		AgentJournal: s.agentJournal, RateLimit: s.limit, ClientIP: ips, Sequences: s.seq, Version: Version, Readiness: s.ready, Self: self,
		UpstreamKey: s.upstreamKey})
}

// serverEndpoint builds the per-server MCP endpoint; self returns the whole
// service's handler, which serves upstreams on the service's own origin.
func (s *Service) serverEndpoint(ips *clientip.Resolver, hosts *mcptransport.HostList, self func() http.Handler) *mcpserve.Handler {
	cfg := s.cfg
	var rec mcpserve.Recorder // nil, not a nil *journal.Writer, when the journal is off
	if s.journal != nil {
		rec = s.journal
	}
	var relay mcpserve.Relay // clients' answers reach the instance waiting for them through Redis
	if s.redis != nil {
		relay = redisconn.NewRelay(s.redis)
	}
	return mcpserve.New(s.store, s.log, mcpserve.Options{MaxBodyBytes: cfg.MaxBodyBytes, MaxBatchMessages: cfg.MaxBatchMessages,
		Authorizer: s.keys, OAuth: s.tokenVerifier(), BaseURL: cfg.BaseURL, RateLimit: s.limit, PublicCeiling: cfg.MaxPublicRateLimit,
		ClientIP: ips, AllowedHosts: hosts, Journal: rec, Sequences: s.seq, StaleMax: cfg.DesignStaleMax,
		CacheEntries: cfg.DesignCacheEntries, CacheBytes: cfg.DesignCacheBytes, WarmBytes: warmBytes(cfg.DesignWarmBytes), RequestStateKeys: s.stateKeys, Now: cfg.Clock,
		AskTimeout: cfg.AskTimeout, MaxPendingQuestions: cfg.MaxPendingQuestions, Relay: relay, Tasks: taskStore{s.store}, States: stateStore{s.store},
		MaxPendingQuestionsPerClient: cfg.MaxPendingQuestionsPerClient, MaxStreamsPerAddress: cfg.ListenMaxPerAddress,
		MaxStreamsPerOrg: cfg.ListenMaxPerOrg, StreamLifetime: cfg.ListenMaxLifetime,
		Upstream: upstream.NewForwarder(upstream.ForwarderOptions{Key: s.upstreamKey, AllowPrivate: cfg.AllowPrivateTargets,
			Local: self, BaseURL: cfg.BaseURL, Timeout: cfg.UpstreamTimeout, MaxConcurrent: cfg.UpstreamMaxConcurrent}),
		Observer: s.metrics.Observer(metrics.EndpointServer, mcpserve.MethodNames())})
}

// tokenVerifier checks the bearer tokens of OAuth designs: the designs'
// authorization servers' verifier, unless the configuration names another
// (tests).
func (s *Service) tokenVerifier() oauthcfg.Verifier {
	if s.cfg.OAuthVerifier != nil {
		return s.cfg.OAuthVerifier
	}
	if s.oauthVerifier == nil {
		return nil
	}
	return s.oauthVerifier
}

// platformEndpoint builds the service MCP endpoint, whose tools call the
// REST API in process.
func (s *Service) platformEndpoint(spec *openapi3.T, rest http.Handler, hosts *mcptransport.HostList, ips *clientip.Resolver) (*platformmcp.Handler, error) {
	return platformmcp.New(spec, rest, s.keys, s.log, platformmcp.Options{MaxBodyBytes: s.cfg.MaxBodyBytes,
		MaxBatchMessages: s.cfg.MaxBatchMessages, Version: Version,
		RateLimit: s.limit, PlatformLimit: s.cfg.PlatformRateLimit, AllowedHosts: hosts,
		ClientIP: ips, PublicCeiling: s.cfg.MaxPublicRateLimit,
		Observer: s.metrics.Observer(metrics.EndpointPlatform, platformmcp.MethodNames())})
}

// newHTTPServer is the HTTP server over handler, with the service's
// timeouts and limits.
func newHTTPServer(handler http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// startBackground runs the cache listener and the writers until Close;
// done is closed once they have all returned.
func (s *Service) startBackground() {
	bg, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	go func() {
		defer close(s.done)
		var wg sync.WaitGroup
		wg.Go(func() { s.mcp.Listen(bg) })
		wg.Go(func() {
			s.store.Listen(bg, a2aserve.CardChannel, func(string) { s.cards.Flush() }, s.cards.Lost, s.cards.Live, nil)
		})
		wg.Go(func() { s.keys.Run(bg) })
		wg.Go(func() { s.oauthVerifier.Run(bg) })
		wg.Go(func() { s.audit.Run(bg) })
		wg.Go(func() { s.tasks.Run(bg) })
		wg.Go(func() { s.oauthSweeper().Run(bg) })
		if s.journal != nil {
			wg.Go(func() { s.journal.Run(bg) })
			wg.Go(func() { s.agentJournal.Run(bg) })
		}
		wg.Wait()
	}()
}

// awaitSubscriptions waits, for at most 10 seconds, until the design cache
// and the key checker listen for changes in the database.
func (s *Service) awaitSubscriptions() error {
	timeout := time.After(10 * time.Second)
	for _, ready := range []<-chan struct{}{s.mcp.Ready(), s.keys.Ready()} {
		select {
		case <-ready:
		case <-timeout:
			return errors.New("could not subscribe to design and key changes in the database")
		}
	}
	select {
	case <-s.oauthVerifier.Ready():
	case <-timeout:
		return errOAuthNotListening
	}
	return nil
}

// MCP is the per-server MCP endpoint's handler, for tests and benchmarks.
func (s *Service) MCP() *mcpserve.Handler { return s.mcp }

// Listen binds the configured address; with ":0" the kernel picks a port,
// which Addr then reports.
func (s *Service) Listen() error {
	ln, err := net.Listen("tcp", s.cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.cfg.ListenAddr, err)
	}
	s.ln = ln
	return nil
}

// Addr is the bound address, after Listen.
func (s *Service) Addr() string { return s.ln.Addr().String() }

// Handler is the service's HTTP handler, for in-process tests and benchmarks.
func (s *Service) Handler() http.Handler { return s.http.Handler }

// Store is the service's database adapter, for tests.
func (s *Service) Store() *store.Store { return s.store }

// Run serves until ctx is cancelled, then stops accepting connections and
// lets in-flight requests finish within the shutdown timeout. In local mode
// (MOCKMCP_DESIGNS) every design file is applied once before the first
// request is answered, so a ready health check means the designs are
// served; the folder is then watched until Run returns.
func (s *Service) Run(ctx context.Context) error {
	if s.ln == nil {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	watch, err := s.startLocal(ctx)
	if err != nil {
		_ = s.ln.Close()
		return err
	}
	s.log.Info("serving", "addr", s.Addr(), "env", s.cfg.Env, "version", Version)
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(s.ln) }()
	if watch != nil {
		wctx, stop := context.WithCancel(ctx)
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			_ = watch(wctx)
		}()
		// An apply in flight finishes (or is cancelled) before Close
		// releases the pool.
		defer func() { stop(); <-watched }()
	}
	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
	}
	s.log.Info("shutting down", "timeout", s.cfg.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := s.http.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return nil
}

// Keys is the service's API key checker, for tests.
func (s *Service) Keys() *keys.Authenticator { return s.keys }

// Audit is the service's policy audit writer, for tests.
func (s *Service) Audit() *audit.Writer { return s.audit }

// Journal is the service's call journal writer, nil when JOURNAL_ENABLED is
// false; for tests.
func (s *Service) Journal() *journal.Writer { return s.journal }

// Close writes the audit records still queued (within the shutdown
// timeout), stops background work and releases the database pool; call it
// after Run returns.
func (s *Service) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := s.audit.Close(ctx); err != nil {
		s.log.Warn("policy audit records left unwritten at shutdown", "error", err, "dropped", s.audit.Stats().Dropped)
	}
	if s.journal != nil {
		if err := s.journal.Close(ctx); err != nil {
			s.log.Warn("journal records left unwritten at shutdown", "error", err, "dropped", s.journal.Stats().Dropped)
		}
		if err := s.agentJournal.Close(ctx); err != nil {
			s.log.Warn("agent journal records left unwritten at shutdown", "error", err, "dropped", s.agentJournal.Stats().Dropped)
		}
	}
	if s.metricsHTTP != nil {
		// Scrapes are quick: the last one finishes, then the listener
		// closes.
		if err := s.metricsHTTP.Shutdown(ctx); err != nil {
			_ = s.metricsHTTP.Close()
		}
	}
	s.cancel()
	<-s.done
	return s.disconnect()
}

// RateLimit is the service's rate limiter, for tests.
func (s *Service) RateLimit() *ratelimit.Limiter { return s.limit }

// Sequences are the service's sequence-scenario counters, for tests.
func (s *Service) Sequences() mcpserve.Sequencer { return s.seq }

// newSequencer keeps sequence counters in Redis when there is one, shared
// by every instance, else in memory.
func newSequencer(rc *redis.Client) mcpserve.Sequencer {
	if rc != nil {
		return sequence.NewRedis(rc, sequence.RedisOptions{})
	}
	return sequence.NewMemory(sequence.MemoryOptions{})
}

// requestStateKeys are REQUEST_STATE_SECRETS, else the secret every
// instance shares through the database, generated by the first.
func requestStateKeys(ctx context.Context, cfg config.Config, st *store.Store) ([][]byte, error) {
	if len(cfg.RequestStateSecrets) > 0 {
		return cfg.RequestStateSecrets, nil
	}
	secret, err := sharedSecret(ctx, st, "request_state", 32)
	if err != nil {
		return nil, err
	}
	return [][]byte{secret}, nil
}

// sharedSecret is the service secret name of size random bytes, which the
// first instance to ask generates and every other reads.
func sharedSecret(ctx context.Context, st *store.Store, name string, size int) ([]byte, error) {
	fresh := make([]byte, size)
	if _, err := rand.Read(fresh); err != nil {
		return nil, err
	}
	return st.ServiceSecret(ctx, name, fresh)
}

// upstreamKey is the key sealing upstream header values, whose secret
// every instance shares through the database, generated by the first.
func upstreamKey(ctx context.Context, st *store.Store) (*upstream.Key, error) {
	secret, err := sharedSecret(ctx, st, "upstream_headers", upstream.KeySize)
	if err != nil {
		return nil, err
	}
	return upstream.NewKey(secret)
}

// warmBytes is the warm budget of the design cache: DESIGN_WARM_BYTES=0
// turns warming off, which Options says with a negative budget.
func warmBytes(n int) int {
	if n == 0 {
		return -1
	}
	return n
}
