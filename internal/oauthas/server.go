// Package oauthas is the mock OAuth 2.1 authorization server every design
// whose auth_mode is "oauth" has, at the issuer
// /api/platform/{server_id}/oauth: metadata (RFC 8414), authorization with
// PKCE (S256 only), the token endpoint (authorization code, refresh token
// with rotation, client credentials), dynamic client registration (RFC
// 7591), client ID metadata documents, revocation (RFC 7009) and the JWKS.
// Access tokens are JWTs signed with the service-wide rotating Keys and
// bound to the design's MCP endpoint (the audience); the Verifier checks
// them for that endpoint. The design's settings script consent answers and
// misbehaviours (a wrong iss, refused refreshes), which are journaled.
package oauthas

import (
	"cmp"
	"encoding/json"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Recorder receives the authorization server's events for the call
// journal; neither method may wait (journal.Writer).
type Recorder interface {
	Admit(org, server uuid.UUID) bool
	Record(e journal.Entry) bool
}

// Options configure New.
type Options struct {
	Designs  oauthcfg.Designs
	Store    *store.Store
	Keys     *Keys
	Verifier *Verifier
	// BaseURL is the service's public origin (BASE_URL); "" means the
	// request's own origin.
	BaseURL string
	// AllowPrivate lets client ID metadata documents be fetched from
	// private addresses, and over http (ALLOW_PRIVATE_TARGETS).
	AllowPrivate bool
	// Journal is nil when the journal is off.
	Journal Recorder
	// ClientAddr is the caller's address as the journal records it;
	// the connection's peer address (without its port) when nil.
	ClientAddr func(*http.Request) string
	Log        *slog.Logger
	// Now is time.Now when nil.
	Now func() time.Time
	// Limiter, when set, bounds the requests of one client address to the
	// registration endpoint (RegisterLimit a window) and to the token,
	// authorization and revocation endpoints together (RequestLimit); it
	// should be enabled in every mode, since registration is open to
	// anyone. Zero limits take DefaultRegisterLimit and DefaultRequestLimit.
	Limiter       *ratelimit.Limiter
	RegisterLimit int
	RequestLimit  int
}

// Handler serves every design's authorization server.
type Handler struct {
	opts      Options
	now       func() time.Time
	documents metadataCache
}

// New returns the authorization servers' handler.
func New(opts Options) *Handler {
	h := &Handler{opts: opts, now: opts.Now}
	if h.now == nil {
		h.now = time.Now
	}
	if h.opts.Log == nil {
		h.opts.Log = slog.Default()
	}
	if h.opts.RegisterLimit <= 0 {
		h.opts.RegisterLimit = DefaultRegisterLimit
	}
	if h.opts.RequestLimit <= 0 {
		h.opts.RequestLimit = DefaultRequestLimit
	}
	if h.opts.ClientAddr == nil {
		peers := clientip.New(nil)
		h.opts.ClientAddr = func(r *http.Request) string { return peers.Of(r).String() }
	}
	return h
}

// Issuer paths, below /api/platform/{server_id}.
const (
	issuerPath = "/api/platform/{server_id}/oauth"
	// AuthorizationServerMetadataPath is RFC 8414's path-inserted form.
	AuthorizationServerMetadataPath = "/.well-known/oauth-authorization-server" + issuerPath
	// OpenIDConfigurationPath and OpenIDConfigurationSuffixPath are
	// OpenID Connect Discovery's two forms.
	OpenIDConfigurationPath       = "/.well-known/openid-configuration" + issuerPath
	OpenIDConfigurationSuffixPath = issuerPath + "/.well-known/openid-configuration"
)

// Routes registers the authorization servers' endpoints on mux, each
// wrapped by wrap (metrics).
func (h *Handler) Routes(mux *http.ServeMux, wrap func(pattern string, h http.Handler) http.Handler) {
	route := func(method, pattern string, fn http.HandlerFunc) {
		handler := wrap(pattern, cors(fn))
		mux.Handle(method+" "+pattern, handler)
		if method != http.MethodGet || !strings.HasSuffix(pattern, "/authorize") {
			mux.Handle("OPTIONS "+pattern, handler)
		}
	}
	route(http.MethodGet, AuthorizationServerMetadataPath, h.metadata)
	route(http.MethodGet, OpenIDConfigurationPath, h.metadata)
	route(http.MethodGet, OpenIDConfigurationSuffixPath, h.metadata)
	mux.Handle("GET "+issuerPath+"/authorize", wrap(issuerPath+"/authorize", http.HandlerFunc(h.authorize)))
	mux.Handle("POST "+issuerPath+"/authorize", wrap(issuerPath+"/authorize", http.HandlerFunc(h.authorize)))
	route(http.MethodPost, issuerPath+"/token", h.token)
	route(http.MethodPost, issuerPath+"/register", h.register)
	route(http.MethodPost, issuerPath+"/revoke", h.revoke)
	route(http.MethodGet, issuerPath+"/jwks", h.jwks)
}

// cors lets browser-based clients read the answers of the endpoints they
// call with fetch.
func cors(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodOptions {
			w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next(w, r)
	}
}

// site is one request's design and its authorization server's URLs.
type site struct {
	design   oauthcfg.Design
	base     string
	issuer   string
	resource string
}

// begin starts answering a request to one of the endpoints: a request
// over endpoint's rate limit (page: answered with a page, not JSON) or for
// no served design using OAuth is answered here, and ok is false. start is
// when it began, for the journal. The answers of a JSON endpoint (not a
// page) carry credentials, so they are marked not to be stored.
func (h *Handler) begin(w http.ResponseWriter, r *http.Request, endpoint string, page bool) (start time.Time, s site, ok bool) {
	start = h.now()
	if h.limited(w, r, endpoint, page) {
		return start, site{}, false
	}
	s, ok = h.site(w, r)
	if ok && !page {
		w.Header().Set("Cache-Control", "no-store")
	}
	return start, s, ok
}

// site reads the design of the request's server_id; false (with a 404
// answered) when there is no such served design using OAuth.
func (h *Handler) site(w http.ResponseWriter, r *http.Request) (site, bool) {
	id, err := uuid.Parse(r.PathValue("server_id"))
	if err != nil {
		writeJSON(w, http.StatusNotFound, oauthError{Error: "not_found", Description: "no authorization server here"})
		return site{}, false
	}
	d, err := h.opts.Designs.OAuthDesign(r.Context(), id)
	if err != nil || !d.OAuth {
		if err != nil && !failure.Is(err, failure.ErrNotFound) {
			h.opts.Log.Error("read the design's OAuth settings", "server_id", id, "error", err)
			writeJSON(w, http.StatusServiceUnavailable, oauthError{Error: "temporarily_unavailable", Description: "the design could not be read"})
			return site{}, false
		}
		writeJSON(w, http.StatusNotFound, oauthError{Error: "not_found", Description: "this server has no OAuth authorization server (auth_mode is not oauth, or it is not enabled)"})
		return site{}, false
	}
	base := cmp.Or(h.opts.BaseURL, clientip.Origin(r))
	return site{design: d, base: base, issuer: oauthcfg.Issuer(base, id), resource: oauthcfg.Resource(base, id)}, true
}

// metadata answers RFC 8414 authorization server metadata.
func (h *Handler) metadata(w http.ResponseWriter, r *http.Request) {
	s, ok := h.site(w, r)
	if !ok {
		return
	}
	scopes := s.design.Scopes()
	if scopes == nil {
		scopes = []string{}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         s.issuer,
		"authorization_endpoint":                         s.issuer + "/authorize",
		"token_endpoint":                                 s.issuer + "/token",
		"registration_endpoint":                          s.issuer + "/register",
		"revocation_endpoint":                            s.issuer + "/revoke",
		"jwks_uri":                                       s.issuer + "/jwks",
		"scopes_supported":                               scopes,
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token", "client_credentials"},
		"code_challenge_methods_supported":               []string{"S256"},
		"token_endpoint_auth_methods_supported":          authMethods,
		"revocation_endpoint_auth_methods_supported":     authMethods,
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          true,
	})
}

var authMethods = []string{"none", "client_secret_basic", "client_secret_post"}

// jwks answers the public keys.
func (h *Handler) jwks(w http.ResponseWriter, r *http.Request) {
	if _, ok := h.site(w, r); !ok {
		return
	}
	set, err := h.opts.Keys.JWKS(r.Context())
	if err != nil {
		h.opts.Log.Error("read the signing keys", "error", err)
		writeJSON(w, http.StatusServiceUnavailable, oauthError{Error: "temporarily_unavailable"})
		return
	}
	w.Header().Set("Cache-Control", "max-age=60")
	writeJSON(w, http.StatusOK, set)
}

// oauthError is an RFC 6749 error answer.
type oauthError struct {
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		http.Error(w, "encode the answer", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}

// hash is the SHA-256 hex of a secret value: how codes, refresh tokens and
// client secrets are stored.
// subset reports whether every one of want is in have.
func subset(want, have []string) bool {
	for _, s := range want {
		if !slices.Contains(have, s) {
			return false
		}
	}
	return true
}

// event is one journal entry of the authorization server.
type event struct {
	method  string
	params  map[string]string
	outcome string
	answer  any
}

// record journals ev for the design of s, when the journal admits it.
func (h *Handler) record(r *http.Request, s site, start time.Time, ev event) {
	if h.opts.Journal == nil || !h.opts.Journal.Admit(s.design.OrgID, s.design.ServerID) {
		return
	}
	params, _ := json.Marshal(ev.params)
	answer, _ := json.Marshal(ev.answer)
	h.opts.Journal.Record(journal.Entry{OrgID: s.design.OrgID, ServerID: s.design.ServerID, ReceivedAt: start,
		Latency: h.now().Sub(start), ClientAddr: h.opts.ClientAddr(r), Method: ev.method, Params: params,
		Outcome: ev.outcome, Step: -1, Answer: answer})
}
