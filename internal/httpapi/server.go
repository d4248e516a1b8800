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
	"github.com/google/uuid"
	"github.com/labstack/echo/v4"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Server implements every REST operation of the OpenAPI document.
type Server struct {
	store   *store.Store
	cfg     config.Config
	log     *slog.Logger
	version string
}

var _ api.StrictServerInterface = (*Server)(nil)

// New builds the REST API's Echo instance. Routes that are not part of the
// OpenAPI document (the MCP endpoints) are added to it by their own packages.
func New(st *store.Store, cfg config.Config, log *slog.Logger, version string) (*echo.Echo, error) {
	spec, err := api.GetSpec()
	if err != nil {
		return nil, fmt.Errorf("load the OpenAPI document: %w", err)
	}
	s := &Server{store: st, cfg: cfg, log: log, version: version}

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = errorHandler(log)
	e.Use(recoverPanics(log), withRequestID, accessLog(log), limitBody(cfg.MaxBodyBytes))

	public := publicOperations(spec)
	strict := api.NewStrictHandler(s, []api.StrictMiddlewareFunc{requireAuth(public)})
	api.RegisterHandlers(routeGroup{e, []echo.MiddlewareFunc{
		s.authenticate, crossOriginCheck(cfg), requestValidator(spec),
	}}, strict)
	return e, nil
}

// publicOperations are the operations the document marks `security: []`.
func publicOperations(spec *openapi3.T) map[string]bool {
	out := map[string]bool{}
	for _, item := range spec.Paths.Map() {
		for _, op := range item.Operations() {
			if op.Security != nil && len(*op.Security) == 0 {
				out[op.OperationID] = true
			}
		}
	}
	return out
}

// requireAuth refuses every non-public operation without a principal.
func requireAuth(public map[string]bool) api.StrictMiddlewareFunc {
	return func(next api.StrictHandlerFunc, operationID string) api.StrictHandlerFunc {
		if public[operationID] {
			return next
		}
		return func(c echo.Context, req any) (any, error) {
			if _, ok := auth.FromContext(c.Request().Context()); !ok {
				return nil, failure.Unauthorized("sign in, or send an API key as Authorization: Bearer <key> or X-API-Key: <key>")
			}
			return next(c, req)
		}
	}
}

// routeGroup registers the generated routes with route-level middleware, so
// it runs only for the document's own routes, not for the MCP endpoints.
type routeGroup struct {
	e  *echo.Echo
	mw []echo.MiddlewareFunc
}

func (g routeGroup) add(method, path string, h echo.HandlerFunc, m []echo.MiddlewareFunc) *echo.Route {
	return g.e.Add(method, path, h, append(append([]echo.MiddlewareFunc{}, g.mw...), m...)...)
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

// principal returns the caller; requireAuth has already refused anonymous
// callers of every operation that calls it.
func principal(ctx context.Context) auth.Principal {
	p, _ := auth.FromContext(ctx)
	return p
}

// tenant runs fn in a transaction that sees the caller's current
// organization only.
func (s *Server) tenant(ctx context.Context, fn func(*store.Tx, auth.Principal) error) error {
	p := principal(ctx)
	if p.OrgID == uuid.Nil {
		return failure.Forbidden("you belong to no organization; create one first")
	}
	return s.store.WithTx(ctx, store.Scope{OrgID: p.OrgID, UserID: p.UserID}, func(tx *store.Tx) error {
		return fn(tx, p)
	})
}
