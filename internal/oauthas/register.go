package oauthas

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/store"
)

// MaxClients bounds the clients registered with one design's
// authorization server: registration is open to anyone.
const MaxClients = 1000

// registration is an RFC 7591 client registration request.
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name"`
	Scope                   string   `json:"scope"`
}

// register is the dynamic client registration endpoint.
func (h *Handler) register(w http.ResponseWriter, r *http.Request) {
	start, s, ok := h.begin(w, r, "register", false)
	if !ok {
		return
	}
	ev := event{method: "oauth/register", params: map[string]string{}}
	fail := func(code, description string) {
		ev.outcome, ev.answer = journal.OutcomeError, oauthError{Error: code, Description: description}
		h.record(r, s, start, ev)
		writeJSON(w, http.StatusBadRequest, ev.answer)
	}
	var req registration
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxForm))
	if err := dec.Decode(&req); err != nil {
		fail("invalid_client_metadata", describeJSON(err, "the body"))
		return
	}
	ev.params["client_name"] = req.ClientName
	ev.params["token_endpoint_auth_method"] = req.TokenEndpointAuthMethod
	if req.TokenEndpointAuthMethod == "" {
		req.TokenEndpointAuthMethod = "client_secret_basic" // RFC 7591's default
	}
	if len(req.GrantTypes) == 0 {
		req.GrantTypes = []string{"authorization_code"}
	}
	if !slices.Contains(authMethods, req.TokenEndpointAuthMethod) {
		fail("invalid_client_metadata", "token_endpoint_auth_method must be one of "+strings.Join(authMethods, ", "))
		return
	}
	for _, g := range req.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" && g != "client_credentials" {
			fail("invalid_client_metadata", "grant_types: "+g+" is not supported (authorization_code, refresh_token, client_credentials)")
			return
		}
	}
	for _, t := range req.ResponseTypes {
		if t != "code" {
			fail("invalid_client_metadata", "response_types: only code is supported")
			return
		}
	}
	public := req.TokenEndpointAuthMethod == "none"
	if public && slices.Contains(req.GrantTypes, "client_credentials") {
		fail("invalid_client_metadata", "grant_types: client_credentials needs a confidential client (token_endpoint_auth_method not none)")
		return
	}
	if slices.Contains(req.GrantTypes, "authorization_code") && len(req.RedirectURIs) == 0 {
		fail("invalid_redirect_uri", "redirect_uris is required for the authorization_code grant")
		return
	}
	if code, description := checkMetadata(s, req.ClientName, req.RedirectURIs, req.Scope); code != "" {
		fail(code, description)
		return
	}
	c := store.OAuthClient{ClientID: newID(), ServerID: s.design.ServerID, Name: req.ClientName, RedirectURIs: req.RedirectURIs,
		GrantTypes: req.GrantTypes, AuthMethod: req.TokenEndpointAuthMethod, Scope: req.Scope}
	secret := ""
	if !public {
		secret = newID() + newID()
		c.SecretHash = auth.HashToken(secret)
	}
	created := false
	err := h.opts.Store.WithTx(r.Context(), store.Scope{OrgID: s.design.OrgID}, func(tx *store.Tx) (err error) {
		created, err = tx.CreateOAuthClientCapped(r.Context(), c, MaxClients)
		return err
	})
	if err == nil && !created {
		fail("invalid_client_metadata", fmt.Sprintf("this authorization server has its %d clients already (the design's owner can delete them; unused ones expire)", MaxClients))
		return
	}
	if err != nil {
		h.opts.Log.Error("register an OAuth client", "server_id", s.design.ServerID, "error", err)
		writeJSON(w, http.StatusServiceUnavailable, oauthError{Error: "temporarily_unavailable"})
		return
	}
	out := map[string]any{
		"client_id":                  c.ClientID,
		"client_id_issued_at":        start.Unix(),
		"client_name":                c.Name,
		"redirect_uris":              nonNilList(c.RedirectURIs),
		"grant_types":                c.GrantTypes,
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": c.AuthMethod,
	}
	if c.Scope != "" {
		out["scope"] = c.Scope
	}
	if secret != "" {
		out["client_secret"] = secret
		out["client_secret_expires_at"] = 0
	}
	ev.outcome, ev.answer = journal.OutcomeResult, map[string]string{"client_id": c.ClientID, "token_endpoint_auth_method": c.AuthMethod}
	h.record(r, s, start, ev)
	writeJSON(w, http.StatusCreated, out)
}

// Bounds of a client's metadata.
const (
	maxClientName  = 200
	maxRedirectURI = 2000
	maxRedirects   = 20
)

// checkMetadata checks the metadata a client registers or its client ID
// metadata document gives: the RFC 7591 error code and a description
// naming the field, or "" when they are good.
func checkMetadata(s site, name string, redirects []string, scope string) (code, description string) {
	if !utf8.ValidString(name) || strings.ContainsRune(name, 0) || utf8.RuneCountInString(name) > maxClientName {
		return "invalid_client_metadata", fmt.Sprintf("client_name must be UTF-8 text without NUL, at most %d characters", maxClientName)
	}
	if len(redirects) > maxRedirects {
		return "invalid_redirect_uri", fmt.Sprintf("redirect_uris: at most %d, got %d", maxRedirects, len(redirects))
	}
	for i, uri := range redirects {
		if msg := checkRedirect(uri); msg != "" {
			return "invalid_redirect_uri", fmt.Sprintf("redirect_uris[%d]: %s", i, msg)
		}
	}
	if scopes := strings.Fields(scope); !subset(scopes, s.design.Scopes()) {
		return "invalid_client_metadata", "scope must be among " + strings.Join(s.design.Scopes(), " ")
	}
	return "", ""
}

// checkRedirect says what is wrong with a redirect URI, "" when nothing:
// the MCP authorization specification takes https URLs, and http ones
// only on a loopback host (a native client's local listener). Anything
// else (javascript:, data:, file:, plain http elsewhere) would hand codes
// or error redirects to whoever controls it.
func checkRedirect(uri string) string {
	if len(uri) > maxRedirectURI {
		return fmt.Sprintf("at most %d bytes", maxRedirectURI)
	}
	u, err := url.Parse(uri)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return fmt.Sprintf("%q must be an absolute https URL", uri)
	}
	if u.Fragment != "" || strings.Contains(uri, "#") {
		return fmt.Sprintf("%q must not have a fragment", uri)
	}
	if u.User != nil {
		return fmt.Sprintf("%q must not carry user information", uri)
	}
	switch u.Scheme {
	case "https":
		return ""
	case "http":
		if isLoopback(u.Hostname()) {
			return ""
		}
		return fmt.Sprintf("%q: http is allowed only on a loopback host (localhost, 127.0.0.1, [::1]); use https", uri)
	}
	return fmt.Sprintf("%q: the scheme must be https (or http on a loopback host)", uri)
}

// isLoopback reports whether host names the local machine as the MCP
// authorization specification's loopback redirect URIs do.
func isLoopback(host string) bool {
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

func nonNilList(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// revoke is the RFC 7009 revocation endpoint: refresh tokens, and access
// tokens by their jti. An unknown token is no error.
func (h *Handler) revoke(w http.ResponseWriter, r *http.Request) {
	start, s, ok := h.begin(w, r, "request", false)
	if !ok {
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, oauthError{Error: "invalid_request", Description: "the body must be application/x-www-form-urlencoded"})
		return
	}
	ev := event{method: "oauth/revoke", params: map[string]string{"client_id": r.PostForm.Get("client_id"),
		"token_type_hint": r.PostForm.Get("token_type_hint")}}
	c, terr := h.authenticate(r, s)
	if terr != nil {
		ev.outcome, ev.answer = journal.OutcomeRejected, terr
		h.record(r, s, start, ev)
		if terr.basic {
			w.Header().Set("WWW-Authenticate", `Basic realm="`+s.issuer+`"`)
		}
		writeJSON(w, terr.status, terr)
		return
	}
	token := r.PostForm.Get("token")
	if token == "" {
		ev.outcome, ev.answer = journal.OutcomeError, oauthError{Error: "invalid_request", Description: "token is required"}
		h.record(r, s, start, ev)
		writeJSON(w, http.StatusBadRequest, ev.answer)
		return
	}
	revoked := "none"
	var err error
	if strings.Count(token, ".") == 2 {
		claims, perr := h.opts.Keys.parse(r.Context(), token)
		if perr != nil && !errors.Is(perr, oauthcfg.ErrInvalidToken) {
			err = perr // the keys could not be read: the token may be good
		} else if perr == nil && claims.Issuer == s.issuer && claims.ClientID == c.ClientID && h.now().Before(claims.Expiry) {
			err = h.opts.Store.WithTx(r.Context(), store.Scope{OrgID: s.design.OrgID}, func(tx *store.Tx) error {
				return tx.RevokeOAuthAccessToken(r.Context(), s.design.ServerID, claims.ID, claims.Expiry)
			})
			if err == nil {
				if h.opts.Verifier != nil {
					h.opts.Verifier.revoke(claims.ID, claims.Expiry)
				}
				revoked = "access_token"
			}
		}
	} else {
		// A refresh token is revoked with its grant: every refresh token
		// of its family and the access tokens issued with them (RFC 7009
		// 2.1).
		var tokens []store.RevokedToken
		err = h.opts.Store.WithTx(r.Context(), store.Scope{OrgID: s.design.OrgID}, func(tx *store.Tx) error {
			g, err := tx.SpendOAuthRefreshToken(r.Context(), s.design.ServerID, c.ClientID, auth.HashToken(token))
			if err != nil {
				return err
			}
			if g.FamilyID == "" && g.AccessJTI != "" && h.now().Before(g.AccessExpiresAt) {
				tokens = []store.RevokedToken{{JTI: g.AccessJTI, ExpiresAt: g.AccessExpiresAt}}
				return tx.RevokeOAuthAccessToken(r.Context(), s.design.ServerID, g.AccessJTI, g.AccessExpiresAt)
			}
			tokens, err = tx.RevokeOAuthFamily(r.Context(), s.design.ServerID, g.FamilyID, h.now())
			return err
		})
		h.revoked(tokens)
		if err == nil {
			revoked = "refresh_token"
		} else if failure.Is(err, failure.ErrNotFound) {
			err = nil // unknown, spent or another client's: nothing to revoke
		}
	}
	if err != nil {
		h.opts.Log.Error("revoke a token", "server_id", s.design.ServerID, "error", err)
		writeJSON(w, http.StatusServiceUnavailable, oauthError{Error: "temporarily_unavailable"})
		return
	}
	ev.outcome, ev.answer = journal.OutcomeResult, map[string]string{"revoked": revoked}
	h.record(r, s, start, ev)
	w.WriteHeader(http.StatusOK)
}
