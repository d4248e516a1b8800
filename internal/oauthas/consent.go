package oauthas

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/errtext"
)

// consentLifetime is how long a consent page's form can be submitted.
const consentLifetime = 10 * time.Minute

// consentToken binds a consent form to its authorization request: the
// HMAC, under the service's consent key, of the design, the request's
// parameters and the form's expiry, so that only a form this server
// rendered for this very request approves it, on any instance.
func (h *Handler) consentToken(s site, q url.Values, expires time.Time) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	return exp + "." + base64.RawURLEncoding.EncodeToString(h.consentMAC(s, q, exp))
}

func (h *Handler) consentMAC(s site, q url.Values, exp string) []byte {
	mac := hmac.New(sha256.New, h.opts.Keys.consentKey)
	mac.Write([]byte(s.design.ServerID.String()))
	for _, p := range authorizeParams {
		mac.Write([]byte{0})
		mac.Write([]byte(p + "=" + q.Get(p)))
	}
	mac.Write([]byte{0})
	mac.Write([]byte(exp))
	return mac.Sum(nil)
}

// consentRefusal says why a consent form's submission is refused, "" when
// it is good: it must come from this server's own page (Origin, or
// Referer when a browser sends no Origin) and carry the token of this
// request, not expired.
func (h *Handler) consentRefusal(r *http.Request, s site) string {
	own := originOf(s.base)
	switch origin := r.Header.Get("Origin"); {
	case origin != "":
		if origin != own {
			return "The consent form was submitted from another site."
		}
	case originOf(r.Header.Get("Referer")) != own:
		return "The consent form must be submitted from this authorization server's own page."
	}
	exp, mac, ok := strings.Cut(r.PostForm.Get("csrf_token"), ".")
	secs, err := strconv.ParseInt(exp, 10, 64)
	if !ok || err != nil {
		return "The consent form's token is missing: open the authorization page again."
	}
	got, err := base64.RawURLEncoding.DecodeString(mac)
	if err != nil || !hmac.Equal(got, h.consentMAC(s, r.Form, exp)) {
		return "The consent form's token does not match this authorization request: open the authorization page again."
	}
	if !h.now().Before(time.Unix(secs, 0)) {
		return "The consent form expired: open the authorization page again."
	}
	return ""
}

// originOf is the scheme://host of a URL in lower case, "" when it has
// none: errtext.Target, which says the same of a URL for messages.
func originOf(raw string) string {
	return strings.ToLower(errtext.Target(raw))
}
