// Package httpapi serves the REST API: the generated Echo strict server of
// gen/api, implemented over the store, behind request ids, logging, body
// limits, authentication, CSRF protection and OpenAPI request validation.
package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/agentjournal"
	"github.com/mockmcp/mockmcp/internal/audit"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/keys"
	"github.com/mockmcp/mockmcp/internal/logline"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
	"github.com/mockmcp/mockmcp/internal/readiness"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/upstream"
)

// Server implements every REST operation of the OpenAPI document.
type Server struct {
	store   *store.Store
	keys    *keys.Authenticator
	audit   *audit.Writer
	journal *journal.Writer
	// agentJournal records the messages to the mock A2A agents; nil when
	// the journal is disabled.
	agentJournal *agentjournal.Writer
	limit        *ratelimit.Limiter
	seq          mcpserve.Sequencer
	ips          *clientip.Resolver
	cfg          config.Config
	log          *slog.Logger
	version      string
	ready        *readiness.Checker
	// self is the service's whole HTTP handler, which test runs reach in
	// process when they target the service's own origin.
	self func() http.Handler
	// upstreamKey seals the header values of designs' upstreams.
	upstreamKey *upstream.Key
}

var _ api.StrictServerInterface = (*Server)(nil)

// Deps are what the REST API works with beside the database.
type Deps struct {
	Spec  *openapi3.T // the OpenAPI document, from api.GetSpec
	Keys  *keys.Authenticator
	Audit *audit.Writer // records policy-route calls
	// Journal records the calls to the per-server MCP endpoints (nil when
	// disabled); the journal routes flush it before verifying.
	Journal *journal.Writer
	// AgentJournal records the messages to the mock A2A agents (nil when
	// disabled).
	AgentJournal *agentjournal.Writer
	// RateLimit counts policy-route calls per organization (in production).
	RateLimit *ratelimit.Limiter
	ClientIP  *clientip.Resolver // the caller's address in audit records
	// Sequences count the calls of sequence scenarios, which
	// resetSequences starts over; the per-server endpoint shares them.
	Sequences mcpserve.Sequencer
	// UpstreamKey seals the header values of designs' upstreams; nil
	// seals them with a random key of this instance (fit for tests only:
	// another instance, or a restart, cannot open them).
	UpstreamKey *upstream.Key
	Version     string
	// Readiness decides what /readyz answers.
	Readiness *readiness.Checker
	// Self returns the service's whole HTTP handler (REST API and MCP
	// endpoints), once it is built.
	Self func() http.Handler
}

// New builds the REST API's Echo instance. Routes that are not part of the
// OpenAPI document (the MCP endpoints) are added to it by their own packages.
func New(st *store.Store, cfg config.Config, log *slog.Logger, deps Deps) (*echo.Echo, error) {
	spec := deps.Spec
	s := &Server{
		store: st, keys: deps.Keys, audit: deps.Audit, journal: deps.Journal, agentJournal: deps.AgentJournal, limit: deps.RateLimit, seq: deps.Sequences, ips: deps.ClientIP,
		cfg: cfg, log: log, version: deps.Version, ready: deps.Readiness, self: deps.Self, upstreamKey: deps.UpstreamKey,
	}
	if s.upstreamKey == nil {
		var err error
		if s.upstreamKey, err = upstream.RandomKey(); err != nil {
			return nil, err
		}
	}
	if s.ready == nil { // a REST API without the MCP endpoints: the database is all it needs
		s.ready = readiness.New(log, 0, readiness.DatabaseCheck(st.Ping))
	}

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	// Echo's own logger writes its own format; the service's log is JSON
	// lines: each of its lines, "LEVEL message", becomes a record's detail.
	e.Logger.SetHeader("${level}")
	e.Logger.SetOutput(logline.Writer(log, slog.LevelWarn, "echo"))
	e.HTTPErrorHandler = errorHandler(log)
	e.JSONSerializer = bodySerializer{spec: spec, log: log}
	e.Use(recoverPanics(log), withRequestID, s.auditPolicyCalls, accessLog(log), limitBody(cfg.MaxBodyBytes))

	strict := api.NewStrictHandler(s, nil)
	validate := requestValidator(spec, false)
	// Operations whose handler checks the body itself (a design document,
	// JSON or YAML) have their parameters validated only.
	validateParams := requestValidator(spec, true)
	cop := crossOriginCheck(cfg)
	var missing []string
	api.RegisterHandlers(routeGroup{e, func(method, path string) []echo.MiddlewareFunc {
		op := operationAt(spec, method, path)
		if op == nil {
			missing = append(missing, method+" "+path)
			return nil
		}
		a := accessOf(spec, op)
		mw := []echo.MiddlewareFunc{s.authorize(a)}
		if a.policyScope {
			mw = []echo.MiddlewareFunc{s.anonymousRateLimit, s.authorize(a), s.platformRateLimit}
		}
		if op.Extensions["x-rate-limit"] == "public" {
			mw = append(mw, s.publicRateLimit)
		}
		if op.Extensions["x-body-checked-by"] == "handler" {
			return append(mw, cop, yamlAliases, validateParams, textGuard)
		}
		return append(mw, cop, validate, textGuard)
	}}, strict)
	if len(missing) > 0 {
		return nil, fmt.Errorf("routes without an operation in the OpenAPI document: %v", missing)
	}
	return e, nil
}

// routeGroup registers the generated routes with route-level middleware
// chosen per operation, so it runs only for the document's own routes, not
// for the MCP endpoints.
type routeGroup struct {
	e  *echo.Echo
	mw func(method, path string) []echo.MiddlewareFunc
}

func (g routeGroup) add(method, path string, h echo.HandlerFunc, m []echo.MiddlewareFunc) *echo.Route {
	return g.e.Add(method, path, h, append(g.mw(method, path), m...)...)
}

func (g routeGroup) CONNECT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return g.add(http.MethodConnect, p, h, m)
}
func (g routeGroup) DELETE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return g.add(http.MethodDelete, p, h, m)
}
func (g routeGroup) GET(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return g.add(http.MethodGet, p, h, m)
}
func (g routeGroup) HEAD(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return g.add(http.MethodHead, p, h, m)
}
func (g routeGroup) OPTIONS(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return g.add(http.MethodOptions, p, h, m)
}
func (g routeGroup) PATCH(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return g.add(http.MethodPatch, p, h, m)
}
func (g routeGroup) POST(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return g.add(http.MethodPost, p, h, m)
}
func (g routeGroup) PUT(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return g.add(http.MethodPut, p, h, m)
}
func (g routeGroup) TRACE(p string, h echo.HandlerFunc, m ...echo.MiddlewareFunc) *echo.Route {
	return g.add(http.MethodTrace, p, h, m)
}

// principal returns the caller; authorize has already refused anonymous
// callers of every operation that calls it.
func principal(ctx context.Context) auth.Principal {
	p, _ := auth.FromContext(ctx)
	return p
}

// noOrganization refuses work in an organization to a caller who belongs
// to none.
func noOrganization() error {
	return failure.Forbidden("you belong to no organization; create one first")
}
