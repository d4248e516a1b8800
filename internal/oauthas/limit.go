package oauthas

import (
	"fmt"
	"net/http"

	"github.com/mockmcp/mockmcp/internal/ratelimit"
)

// Default per-address limits of the authorization servers' endpoints, in
// requests a minute: registration is rarer than the rest, and each one
// keeps a row.
const (
	DefaultRegisterLimit = 60
	DefaultRequestLimit  = 600
)

// limited counts the request against its client address's limit for
// endpoint ("register", or "request" for token, authorize and revoke
// together), across every design: one address flooding many designs is one
// flood. Over the limit it answers 429 with Retry-After, an OAuth error body
// or, for the authorization endpoint that a browser shows (page), an error
// page, and reports true. Preflights are not counted.
func (h *Handler) limited(w http.ResponseWriter, r *http.Request, endpoint string, page bool) bool {
	if h.opts.Limiter == nil || r.Method == http.MethodOptions {
		return false
	}
	limit := h.opts.RequestLimit
	if endpoint == "register" {
		limit = h.opts.RegisterLimit
	}
	d := h.opts.Limiter.Admit(r.Context(), w.Header(), ratelimit.OAuthKey(endpoint, h.opts.ClientAddr(r)), limit)
	if d.Allowed {
		return false
	}
	msg := fmt.Sprintf("too many requests from this address (at most %d a minute): retry in %d s", limit, d.RetryAfter())
	if page {
		errorPage(w, http.StatusTooManyRequests, msg)
		return true
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusTooManyRequests, oauthError{Error: "temporarily_unavailable", Description: msg})
	return true
}
