package httpapi

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/keys"
	"github.com/mockmcp/mockmcp/internal/store"
)

// sessionLifetime is how long a browser session lasts.
const sessionLifetime = 30 * 24 * time.Hour

// sessionPrincipal finds the user a session token belongs to and the
// organization they currently work in.
func (s *Server) sessionPrincipal(ctx context.Context, token string) (auth.Principal, error) {
	hash := auth.HashToken(token)
	var p auth.Principal
	err := s.store.WithTx(ctx, store.Scope{SessionHash: hash}, func(tx *store.Tx) error {
		sess, err := tx.SessionByHash(ctx, hash)
		if err != nil {
			return err
		}
		if time.Now().After(sess.ExpiresAt) {
			return failure.Unauthorized("the session has expired")
		}
		if err := tx.SetUser(ctx, sess.UserID); err != nil {
			return err
		}
		u, orgs, err := userWithOrgs(ctx, tx, sess.UserID)
		if err != nil {
			return err
		}
		p = auth.Principal{UserID: u.ID, Email: u.Email}
		if o, ok := currentOrg(u, orgs); ok {
			p.OrgID, p.Role = o.ID, o.Role
		}
		return nil
	})
	return p, err
}

// currentOrg is the user's current organization, or their first one when
// they have left the current one since.
func currentOrg(u store.User, orgs []store.Organization) (store.Organization, bool) {
	for _, o := range orgs {
		if o.ID == u.CurrentOrgID {
			return o, true
		}
	}
	if len(orgs) > 0 {
		return orgs[0], true
	}
	return store.Organization{}, false
}

// sessionCookie is the Set-Cookie value that carries token; an empty token
// clears the cookie.
func (s *Server) sessionCookie(token string) string {
	c := http.Cookie{
		Name: auth.CookieName, Value: token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: s.cfg.Production(), MaxAge: int(sessionLifetime / time.Second),
	}
	if token == "" {
		c.MaxAge = -1
	}
	return c.String()
}

// crossOriginCheck refuses unsafe cross-site requests from browsers (checked
// with Sec-Fetch-Site, then Origin against Host). Requests that carry an API
// key and no session cookie are not ambient-credentialed, so they are not
// checked (a key header beside the cookie exempts nothing: the cookie would
// still authenticate); clients such as curl send neither header and pass.
func crossOriginCheck(cfg config.Config) echo.MiddlewareFunc {
	cop := http.NewCrossOriginProtection()
	if cfg.BaseURL != "" {
		_ = cop.AddTrustedOrigin(cfg.BaseURL)
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			req := c.Request()
			if keys.Present(req) && !hasSessionCookie(req) {
				return next(c)
			}
			if err := cop.Check(req); err != nil {
				return failure.Forbidden("cross-site request refused: " + err.Error())
			}
			return next(c)
		}
	}
}

func hasSessionCookie(r *http.Request) bool {
	ck, err := r.Cookie(auth.CookieName)
	return err == nil && ck.Value != ""
}
