// Package service assembles one instance of mockmcp: it prepares the
// database, builds the HTTP handlers and serves them until told to stop,
// then shuts down gracefully. cmd/mockmcp is a thin shell over it, and tests
// boot it on :0.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/audit"
	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/httpapi"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/keys"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/platformmcp"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
	"github.com/mockmcp/mockmcp/internal/redisconn"
	"github.com/mockmcp/mockmcp/internal/sequence"
	"github.com/mockmcp/mockmcp/internal/store"
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
	limit   *ratelimit.Limiter
	redis   *redis.Client // nil without REDIS_URL
	seq     mcpserve.Sequencer
	http    *http.Server
	ln      net.Listener
	cancel  context.CancelFunc // stops background work
	done    chan struct{}
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
	if err := Prepare(ctx, cfg, log); err != nil {
		return nil, err
	}
	spec, err := api.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	st, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	built := false
	defer func() {
		if !built {
			st.Close()
		}
	}()
	// One Redis connection pool, when REDIS_URL is set, holds every
	// counter shared between instances.
	var rc *redis.Client
	if cfg.RedisURL != "" {
		redisconn.UseLogger(log)
		if rc, err = redisconn.Open(ctx, cfg.RedisURL); err != nil {
			return nil, err
		}
		defer func() {
			if !built {
				_ = rc.Close()
			}
		}()
	}
	seq := newSequencer(rc)
	rl, err := ratelimit.New(ctx, log, ratelimit.Options{Enabled: cfg.Production(), Redis: rc, Window: cfg.RateWindow})
	if err != nil {
		return nil, err
	}
	defer func() {
		if !built {
			_ = rl.Close()
		}
	}()
	ks := keys.New(st, log, keys.Options{TouchInterval: cfg.KeyTouchInterval, StaleMax: cfg.DesignStaleMax})
	aw := audit.New(st, log, audit.Options{})
	var jw *journal.Writer
	if cfg.JournalEnabled {
		jw = journal.New(st, log, journal.Options{QueueSize: cfg.JournalQueue, MaxRate: cfg.JournalMaxRate, Retention: cfg.JournalRetention,
			MaxPerServer: cfg.JournalMaxPerServer, PruneInterval: cfg.JournalPruneInterval})
	}
	ips := clientip.New(cfg.TrustedProxies)
	var root http.Handler // the whole service, for test runs that target it
	e, err := httpapi.New(st, cfg, log, httpapi.Deps{Spec: spec, Keys: ks, Audit: aw, Journal: jw, RateLimit: rl, ClientIP: ips,
		Sequences: seq, Version: Version, Self: func() http.Handler { return root }})
	if err != nil {
		return nil, err
	}
	hosts, err := mcptransport.ParseHostList(cfg.AllowedHosts)
	if err != nil {
		return nil, fmt.Errorf("ALLOWED_HOSTS: %w", err)
	}
	var rec mcpserve.Recorder // nil, not a nil *journal.Writer, when the journal is off
	if jw != nil {
		rec = jw
	}
	mcp := mcpserve.New(st, log, mcpserve.Options{MaxBodyBytes: cfg.MaxBodyBytes, MaxBatchMessages: cfg.MaxBatchMessages, Authorizer: ks,
		RateLimit: rl, PublicCeiling: cfg.MaxPublicRateLimit, ClientIP: ips, AllowedHosts: hosts, Journal: rec, Sequences: seq,
		StaleMax: cfg.DesignStaleMax})
	platform, err := platformmcp.New(spec, e, ks, log, platformmcp.Options{MaxBodyBytes: cfg.MaxBodyBytes,
		MaxBatchMessages: cfg.MaxBatchMessages, Version: Version,
		RateLimit: rl, PlatformLimit: cfg.PlatformRateLimit, AllowedHosts: hosts})
	if err != nil {
		return nil, err
	}
	// The per-server MCP endpoint is the hot path: it is routed straight to
	// its handler, past the REST API's middleware.
	mux := http.NewServeMux()
	mux.Handle("/api/platform/{server_id}/mcp", mcp)
	mux.Handle(platformmcp.Path, platform)
	mux.Handle("/", e)
	root = mux

	built = true // from here on Close releases everything
	bg, cancel := context.WithCancel(context.Background())
	s := &Service{
		cfg: cfg, log: log, store: st, mcp: mcp, keys: ks, audit: aw, journal: jw, limit: rl, redis: rc, seq: seq, cancel: cancel, done: make(chan struct{}),
		http: &http.Server{
			Handler:           mux,
			ReadHeaderTimeout: 10 * time.Second,
			ReadTimeout:       60 * time.Second,
			IdleTimeout:       120 * time.Second,
			MaxHeaderBytes:    64 << 10,
			ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		},
	}
	go func() {
		defer close(s.done)
		var wg sync.WaitGroup
		wg.Go(func() { mcp.Listen(bg) })
		wg.Go(func() { ks.Run(bg) })
		wg.Go(func() { aw.Run(bg) })
		if jw != nil {
			wg.Go(func() { jw.Run(bg) })
		}
		wg.Wait()
	}()
	timeout := time.After(10 * time.Second)
	for _, ready := range []<-chan struct{}{mcp.Ready(), ks.Ready()} {
		select {
		case <-ready:
		case <-timeout:
			_ = s.Close()
			return nil, errors.New("could not subscribe to design and key changes in the database")
		}
	}
	return s, nil
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
// lets in-flight requests finish within the shutdown timeout.
func (s *Service) Run(ctx context.Context) error {
	if s.ln == nil {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	s.log.Info("serving", "addr", s.Addr(), "env", s.cfg.Env, "version", Version)
	errc := make(chan error, 1)
	go func() { errc <- s.http.Serve(s.ln) }()
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
	}
	s.cancel()
	<-s.done
	s.store.Close()
	err := s.limit.Close()
	if s.redis != nil {
		err = errors.Join(err, s.redis.Close())
	}
	return err
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
