package oauthas

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/store"
)

// CodeLifetime is how long an authorization code can be exchanged.
const CodeLifetime = time.Minute

// Subject is the resource owner every authorization code grant is for:
// the mock has one user.
const Subject = "mockmcp-user"

// codeChallenge is a S256 code challenge: base64url of 32 bytes.
var codeChallenge = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// authorizeParams are the request's parameters kept through the consent
// page.
var authorizeParams = []string{"response_type", "client_id", "redirect_uri", "scope", "state",
	"code_challenge", "code_challenge_method", "resource"}

// authorize is the authorization endpoint: GET starts a request, POST is
// the consent page's answer.
func (h *Handler) authorize(w http.ResponseWriter, r *http.Request) {
	start, s, ok := h.begin(w, r, "request", true)
	if !ok {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	if err := r.ParseForm(); err != nil {
		errorPage(w, http.StatusBadRequest, "The request could not be read: "+describeForm(err))
		return
	}
	q := r.Form
	params := map[string]string{}
	for _, p := range authorizeParams {
		if v := q.Get(p); v != "" && p != "state" && p != "code_challenge" {
			params[p] = v
		}
	}
	ev := event{method: "oauth/authorize", params: params}
	c, err := h.client(r.Context(), s, q.Get("client_id"))
	if err != nil && !isPageError(err) {
		h.opts.Log.Error("read an OAuth client", "server_id", s.design.ServerID, "error", err)
		errorPage(w, http.StatusServiceUnavailable, "The authorization server is temporarily unavailable: try again.")
		return
	}
	if err != nil {
		ev.outcome, ev.answer = journal.OutcomeRejected, oauthError{Error: "invalid_client", Description: err.Error()}
		h.record(r, s, start, ev)
		errorPage(w, http.StatusBadRequest, err.Error())
		return
	}
	redirect := q.Get("redirect_uri")
	switch {
	case redirect == "" && len(c.RedirectURIs) == 1:
		redirect = c.RedirectURIs[0]
	case redirect == "":
		err = errorf("redirect_uri is required: the client has more than one")
	case !slices.Contains(c.RedirectURIs, redirect):
		err = errorf("redirect_uri %q is not one the client registered", redirect)
	}
	// A client registered before the redirect rules may hold one they
	// refuse: no code or error is ever sent there.
	if msg := checkRedirect(redirect); err == nil && msg != "" {
		err = errorf("redirect_uri: %s", msg)
	}
	if err == nil && !slices.Contains(c.GrantTypes, "authorization_code") {
		err = errorf("the client did not register the authorization_code grant")
	}
	if err != nil {
		ev.outcome, ev.answer = journal.OutcomeRejected, oauthError{Error: "invalid_request", Description: err.Error()}
		h.record(r, s, start, ev)
		errorPage(w, http.StatusBadRequest, err.Error())
		return
	}
	reply := func(fields url.Values) {
		fields.Set("state", q.Get("state"))
		if q.Get("state") == "" {
			fields.Del("state")
		}
		iss := s.issuer
		if s.design.Settings.Chaos.WrongIssuer {
			iss = wrongIssuer(s)
			ev.answer = map[string]any{"chaos": "wrong_issuer", "iss": iss, "error": fields.Get("error")}
		}
		fields.Set("iss", iss)
		h.record(r, s, start, ev)
		http.Redirect(w, r, withQuery(redirect, fields), http.StatusFound)
	}
	fail := func(code, description string) {
		ev.outcome, ev.answer = journal.OutcomeError, oauthError{Error: code, Description: description}
		reply(url.Values{"error": {code}, "error_description": {description}})
	}
	scopes := strings.Fields(q.Get("scope"))
	supported := s.design.Scopes()
	switch {
	case q.Get("response_type") != "code":
		fail("unsupported_response_type", "response_type must be code")
		return
	case q.Get("code_challenge") == "":
		fail("invalid_request", "code_challenge is required (PKCE)")
		return
	case q.Get("code_challenge_method") != "S256":
		fail("invalid_request", "code_challenge_method must be S256")
		return
	case !codeChallenge.MatchString(q.Get("code_challenge")):
		fail("invalid_request", "code_challenge must be the base64url SHA-256 of the code verifier (43 characters)")
		return
	case q.Get("resource") != "" && q.Get("resource") != s.resource:
		fail("invalid_target", "resource must be this server's MCP endpoint, "+s.resource)
		return
	case !subset(scopes, supported):
		fail("invalid_scope", "scope must be among "+strings.Join(supported, " "))
		return
	}
	if len(scopes) == 0 {
		scopes = supported
	}
	consent := s.design.Settings.Consent
	if consent == oauthcfg.ConsentPage && r.Method == http.MethodPost {
		if why := h.consentRefusal(r, s); why != "" {
			ev.outcome, ev.answer = journal.OutcomeRejected, oauthError{Error: "access_denied", Description: why}
			h.record(r, s, start, ev)
			errorPage(w, http.StatusForbidden, why)
			return
		}
		consent = oauthcfg.ConsentDeny
		if r.PostForm.Get("decision") == "allow" {
			consent = oauthcfg.ConsentAuto
		}
	}
	switch consent {
	case oauthcfg.ConsentDeny:
		ev.outcome, ev.answer = journal.OutcomeRejected, map[string]string{"error": "access_denied", "consent": "denied"}
		reply(url.Values{"error": {"access_denied"}, "error_description": {"the resource owner denied the request"}})
		return
	case oauthcfg.ConsentPage:
		h.consentPage(w, s, c, q, scopes)
		return
	}
	code := newID() + newID()
	err = h.opts.Store.WithTx(r.Context(), store.Scope{OrgID: s.design.OrgID}, func(tx *store.Tx) error {
		return tx.CreateOAuthCode(r.Context(), auth.HashToken(code), store.OAuthGrant{ServerID: s.design.ServerID, ClientID: c.ClientID,
			Scope: strings.Join(scopes, " "), Subject: Subject, RedirectURI: redirect, CodeChallenge: q.Get("code_challenge"),
			ExpiresAt: h.now().Add(CodeLifetime), FamilyID: newID()})
	})
	if err != nil {
		h.opts.Log.Error("store an authorization code", "server_id", s.design.ServerID, "error", err)
		fail("temporarily_unavailable", "the authorization code could not be stored")
		return
	}
	ev.outcome = journal.OutcomeResult
	if ev.answer == nil {
		ev.answer = map[string]string{"scope": strings.Join(scopes, " ")}
	}
	reply(url.Values{"code": {code}})
}

// wrongIssuer is the iss the wrong_issuer chaos gives: another URL.
func wrongIssuer(s site) string {
	return "https://wrong-issuer.invalid" + strings.TrimPrefix(s.issuer, s.base)
}

// withQuery adds fields to the query of uri.
func withQuery(uri string, fields url.Values) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	q := u.Query()
	for k, v := range fields {
		q[k] = v
	}
	u.RawQuery = q.Encode()
	return u.String()
}

type pageError string

func (e pageError) Error() string { return string(e) }

// isPageError reports whether err is for the client's eyes.
func isPageError(err error) bool {
	var pe pageError
	return errors.As(err, &pe)
}

func errorf(s string, args ...any) error {
	if len(args) == 0 {
		return pageError(s)
	}
	return pageError(fmt.Sprintf(s, args...))
}

var consentTemplate = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorize {{.Client}}</title></head>
<body>
<h1>Authorize {{.Client}}?</h1>
<p>{{.Client}} asks to use the mock MCP server {{.Resource}} with the scopes: {{if .Scopes}}{{.Scopes}}{{else}}(none){{end}}.</p>
<form method="post" action="{{.Action}}">
{{range $k, $v := .Fields}}<input type="hidden" name="{{$k}}" value="{{$v}}">
{{end}}<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</body></html>
`))

var errorTemplate = template.Must(template.New("error").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Authorization error</title></head>
<body><h1>Authorization error</h1><p>{{.}}</p></body></html>
`))

func (h *Handler) consentPage(w http.ResponseWriter, s site, c store.OAuthClient, q url.Values, scopes []string) {
	fields := map[string]string{}
	for _, p := range authorizeParams {
		if v := q.Get(p); v != "" {
			fields[p] = v
		}
	}
	fields["csrf_token"] = h.consentToken(s, q, h.now().Add(consentLifetime))
	name := c.Name
	if name == "" {
		name = c.ClientID
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; form-action 'self'")
	w.Header().Set("X-Frame-Options", "DENY")
	_ = consentTemplate.Execute(w, map[string]any{"Client": name, "Resource": s.resource,
		"Scopes": strings.Join(scopes, " "), "Action": s.issuer + "/authorize", "Fields": fields})
}

// errorPage answers an authorization request that cannot be redirected.
func errorPage(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = errorTemplate.Execute(w, msg)
}
