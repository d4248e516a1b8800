package httpapi

import (
	"regexp"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/labstack/echo/v4"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
)

// The 403 messages of the key-scope table, exactly.
const (
	msgPolicyKeyDataPlane = "Policy-scoped keys cannot access the data plane"
	msgKeyNotBound        = "Key not bound to this asset"
)

// access is who may call one operation, read from its security
// requirements in the OpenAPI document: the contract is the source of truth.
type access struct {
	public  bool // `security: []`: anyone; a session, when sent, is still resolved
	session bool // a browser session may call it
	key     bool // an API key may call it
	// policyScope: policy-scoped keys may call it too (the policy routes,
	// marked `x-key-scope: policy`); their binding is checked per server by
	// the handler, after the server is found, so that another
	// organization's server answers 404 rather than 403.
	policyScope bool
}

// accessOf derives an operation's access from the document.
func accessOf(spec *openapi3.T, op *openapi3.Operation) access {
	reqs := op.Security
	if reqs == nil {
		reqs = &spec.Security
	}
	if len(*reqs) == 0 {
		return access{public: true}
	}
	var a access
	for _, req := range *reqs {
		for name := range req {
			switch name {
			case "sessionCookie":
				a.session = true
			case "bearerAuth", "apiKeyHeader":
				a.key = true
			}
		}
	}
	a.policyScope = op.Extensions["x-key-scope"] == "policy"
	return a
}

var echoParam = regexp.MustCompile(`:([A-Za-z0-9_]+)`)

// operationAt finds the document's operation for a route as Echo spells it
// (`/api/servers/:server_id`).
func operationAt(spec *openapi3.T, method, path string) *openapi3.Operation {
	item := spec.Paths.Value(echoParam.ReplaceAllString(path, "{$1}"))
	if item == nil {
		return nil
	}
	return item.GetOperation(method)
}

// authorize establishes the principal of a request to an operation with
// access a, or refuses it:
//   - a key, in either header, must be valid (401), allowed on the route
//     (403 for routes that need a signed-in user) and of a scope the route
//     takes (403 for policy-scoped keys off the policy routes);
//   - otherwise the session cookie, where sessions are allowed;
//   - neither: 401.
//
// Public routes ignore keys and resolve a session only if one is sent.
func (s *Server) authorize(a access) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			ctx := req.Context()
			if a.public {
				// A session that cannot be checked while the database is
				// out is left unresolved: the route answers for itself
				// (health reports the database unavailable).
				if p, ok, err := s.sessionFromCookie(c); err != nil && !failure.Is(err, failure.ErrUnavailable) {
					return err
				} else if ok {
					c.SetRequest(req.WithContext(auth.WithPrincipal(ctx, p)))
				}
				return next(c)
			}
			p, raw, err := s.keys.Request(ctx, req)
			switch {
			case err != nil:
				return err
			case raw != "":
				if !a.key {
					return failure.Forbidden("this route needs a signed-in user; API keys cannot use it")
				}
				if p.Scope != auth.ScopeFull && !a.policyScope {
					return failure.Forbidden(msgPolicyKeyDataPlane)
				}
			case !a.session:
				return failure.Unauthorized("this route needs an API key: send Authorization: Bearer <key> or X-API-Key: <key>")
			default:
				var ok bool
				if p, ok, err = s.sessionFromCookie(c); err != nil {
					return err
				} else if !ok {
					return failure.Unauthorized("sign in, or send an API key as Authorization: Bearer <key> or X-API-Key: <key>")
				}
			}
			c.SetRequest(req.WithContext(auth.WithPrincipal(ctx, p)))
			return next(c)
		}
	}
}

// sessionFromCookie resolves the session cookie, when there is a live one.
// A stale cookie is the same as none.
func (s *Server) sessionFromCookie(c echo.Context) (auth.Principal, bool, error) {
	cookie, err := c.Cookie(auth.CookieName)
	if err != nil || cookie.Value == "" {
		return auth.Principal{}, false, nil
	}
	p, err := s.sessionPrincipal(c.Request().Context(), cookie.Value)
	if err != nil {
		if failure.Is(err, failure.ErrUnauthorized) {
			return auth.Principal{}, false, nil
		}
		return auth.Principal{}, false, err
	}
	return p, true, nil
}

// platformRateLimit counts a policy-route call against its organization's
// platform limit (in production), shared with the service endpoint. It
// runs after authorize: calls without a valid key have no organization to
// count against.
func (s *Server) platformRateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return s.rateLimit(func(c echo.Context) (string, int, bool) {
		p, ok := auth.FromContext(c.Request().Context())
		return ratelimit.PlatformKey(p.OrgID.String()), s.cfg.PlatformRateLimit, ok
	})(next)
}

// anonymousRateLimit counts a policy-route call refused for want of a
// valid key (401), which has no organization to count against, against
// the client address's own counter at MAX_PUBLIC_RATE_LIMIT (the counter
// of a per-server endpoint's unknown server), in production: the refusal
// carries the headers, and stays what it is past the limit.
func (s *Server) anonymousRateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := next(c)
		if err == nil || !failure.Is(err, failure.ErrUnauthorized) || s.limit == nil || !s.limit.Enabled() {
			return err
		}
		addr := s.ips.Of(c.Request()).String()
		s.limit.Admit(c.Request().Context(), c.Response().Header(), ratelimit.PublicKey("", addr), s.cfg.MaxPublicRateLimit)
		return err
	}
}

// publicRateLimit counts a call to a public route (the agent card
// exchange) per client address against MAX_PUBLIC_RATE_LIMIT, in
// production.
func (s *Server) publicRateLimit(next echo.HandlerFunc) echo.HandlerFunc {
	return s.rateLimit(func(c echo.Context) (string, int, bool) {
		return ratelimit.ExchangeKey(s.ips.Of(c.Request()).String()), s.cfg.MaxPublicRateLimit, true
	})(next)
}

// rateLimit admits a request against the counter and limit counter names
// (in production), answering 429 past the limit. Requests counter cannot
// place (ok false) pass.
func (s *Server) rateLimit(counter func(echo.Context) (key string, limit int, ok bool)) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			if s.limit == nil || !s.limit.Enabled() {
				return next(c)
			}
			key, limit, ok := counter(c)
			if !ok {
				return next(c)
			}
			dec := s.limit.Admit(c.Request().Context(), c.Response().Header(), key, limit)
			if !dec.Allowed {
				return failure.TooMany(dec.RetryAfter())
			}
			return next(c)
		}
	}
}
