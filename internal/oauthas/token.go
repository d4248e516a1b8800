package oauthas

import (
	"cmp"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/store"
)

// RefreshLifetime is how long a refresh token can be used.
const RefreshLifetime = 30 * 24 * time.Hour

// maxForm bounds a token, registration or revocation request body.
const maxForm = 64 << 10

// tokenError is an RFC 6749 error of the token endpoint with its status.
type tokenError struct {
	status      int
	Error       string `json:"error"`
	Description string `json:"error_description,omitempty"`
	basic       bool   // the client authenticated with HTTP Basic
	chaos       string // the chaos switch that caused it, for the journal
}

func badRequest(code, description string) *tokenError {
	return &tokenError{status: http.StatusBadRequest, Error: code, Description: description}
}

func invalidGrant(description string) *tokenError { return badRequest("invalid_grant", description) }

// tokenResponse is a successful token answer.
type tokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope,omitempty"`
}

// token is the token endpoint.
func (h *Handler) token(w http.ResponseWriter, r *http.Request) {
	start, s, ok := h.begin(w, r, "request", false)
	if !ok {
		return
	}
	w.Header().Set("Pragma", "no-cache")
	r.Body = http.MaxBytesReader(w, r.Body, maxForm)
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, oauthError{Error: "invalid_request",
			Description: "the request body must be an application/x-www-form-urlencoded form of at most 64 KiB: " + describeForm(err)})
		return
	}
	grant := r.PostForm.Get("grant_type")
	ev := event{method: "oauth/token", params: map[string]string{"grant_type": grant, "client_id": r.PostForm.Get("client_id"),
		"scope": r.PostForm.Get("scope"), "resource": r.PostForm.Get("resource")}}
	res, terr := h.grant(r, s, grant)
	if terr != nil {
		ev.outcome = journal.OutcomeError
		if terr.status == http.StatusUnauthorized {
			ev.outcome = journal.OutcomeRejected
		}
		answer := map[string]string{"error": terr.Error, "error_description": terr.Description}
		if terr.chaos != "" {
			answer["chaos"] = terr.chaos
		}
		ev.answer = answer
		h.record(r, s, start, ev)
		if terr.basic {
			w.Header().Set("WWW-Authenticate", `Basic realm="`+s.issuer+`"`)
		}
		writeJSON(w, terr.status, terr)
		return
	}
	ev.outcome = journal.OutcomeResult
	ev.answer = map[string]any{"token_type": res.TokenType, "expires_in": res.ExpiresIn, "scope": res.Scope,
		"refresh_token": res.RefreshToken != ""}
	h.record(r, s, start, ev)
	writeJSON(w, http.StatusOK, res)
}

// grant runs one grant of the token endpoint.
func (h *Handler) grant(r *http.Request, s site, grant string) (tokenResponse, *tokenError) {
	if r.PostForm == nil {
		return tokenResponse{}, badRequest("invalid_request", "the body must be application/x-www-form-urlencoded")
	}
	if res := r.PostForm.Get("resource"); res != "" && res != s.resource {
		return tokenResponse{}, badRequest("invalid_target", "resource must be this server's MCP endpoint, "+s.resource)
	}
	switch grant {
	case "authorization_code", "refresh_token", "client_credentials":
	case "":
		return tokenResponse{}, badRequest("invalid_request", "grant_type is required")
	default:
		return tokenResponse{}, badRequest("unsupported_grant_type", "grant_type must be authorization_code, refresh_token or client_credentials")
	}
	c, terr := h.authenticate(r, s)
	if terr != nil {
		return tokenResponse{}, terr
	}
	if !allows(c, grant) {
		return tokenResponse{}, badRequest("unauthorized_client", "the client did not register the "+grant+" grant")
	}
	switch grant {
	case "authorization_code":
		return h.codeGrant(r, s, c)
	case "refresh_token":
		return h.refreshGrant(r, s, c)
	default:
		return h.clientCredentialsGrant(r, s, c)
	}
}

func (h *Handler) codeGrant(r *http.Request, s site, c store.OAuthClient) (tokenResponse, *tokenError) {
	f := r.PostForm
	code, verifier := f.Get("code"), f.Get("code_verifier")
	switch {
	case code == "":
		return tokenResponse{}, badRequest("invalid_request", "code is required")
	case verifier == "":
		return tokenResponse{}, badRequest("invalid_request", "code_verifier is required (PKCE)")
	}
	// A replayed code: what was issued from it is revoked (RFC 6749
	// 4.1.2), for the code may have been stolen.
	hash := auth.HashToken(code)
	g, reused, err := h.spendOnce(r, s, func(tx *store.Tx) (store.OAuthGrant, error) {
		return tx.TakeOAuthCode(r.Context(), s.design.ServerID, hash)
	}, func(tx *store.Tx) (string, error) {
		return tx.ReplayedOAuthCode(r.Context(), s.design.ServerID, hash)
	})
	if reused {
		return tokenResponse{}, invalidGrant("the authorization code was used already: the tokens issued from it are revoked")
	}
	if terr := storeError(err, "the authorization code is unknown, expired or was used already"); terr != nil {
		return tokenResponse{}, terr
	}
	sum := sha256.Sum256([]byte(verifier))
	switch {
	case g.ClientID != c.ClientID:
		return tokenResponse{}, invalidGrant("the authorization code was issued to another client")
	case !h.now().Before(g.ExpiresAt):
		return tokenResponse{}, invalidGrant("the authorization code expired")
	case f.Get("redirect_uri") != g.RedirectURI:
		return tokenResponse{}, invalidGrant("redirect_uri differs from the authorization request's")
	case subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(g.CodeChallenge)) != 1:
		return tokenResponse{}, invalidGrant("code_verifier does not match the code_challenge (PKCE)")
	}
	return h.issue(r, s, c, g.Subject, strings.Fields(g.Scope), cmp.Or(g.FamilyID, newID()))
}

func (h *Handler) refreshGrant(r *http.Request, s site, c store.OAuthClient) (tokenResponse, *tokenError) {
	refresh := r.PostForm.Get("refresh_token")
	if refresh == "" {
		return tokenResponse{}, badRequest("invalid_request", "refresh_token is required")
	}
	if s.design.Settings.Chaos.RefuseRefresh {
		terr := invalidGrant("the refresh token is refused (the design's refuse_refresh chaos)")
		terr.chaos = "refuse_refresh"
		return tokenResponse{}, terr
	}
	// A rotated (or revoked) refresh token used again: the family is
	// revoked (RFC 9700 4.14.2), for one of its users is not its owner.
	hash := auth.HashToken(refresh)
	g, reused, err := h.spendOnce(r, s, func(tx *store.Tx) (store.OAuthGrant, error) {
		return tx.SpendOAuthRefreshToken(r.Context(), s.design.ServerID, c.ClientID, hash)
	}, func(tx *store.Tx) (string, error) {
		return tx.SpentOAuthRefreshToken(r.Context(), s.design.ServerID, c.ClientID, hash)
	})
	if reused {
		return tokenResponse{}, invalidGrant("the refresh token was used already: every token of its grant is revoked")
	}
	if terr := storeError(err, "the refresh token is unknown, was used or revoked, or was issued to another client"); terr != nil {
		return tokenResponse{}, terr
	}
	switch {
	case !h.now().Before(g.ExpiresAt):
		return tokenResponse{}, invalidGrant("the refresh token expired")
	case !s.design.RefreshNotBefore.IsZero() && g.IssuedAt.Before(s.design.RefreshNotBefore):
		return tokenResponse{}, invalidGrant("the refresh token was revoked (all tokens of this server were revoked)")
	}
	scopes := strings.Fields(g.Scope)
	if asked := strings.Fields(r.PostForm.Get("scope")); len(asked) > 0 {
		if !subset(asked, scopes) {
			return tokenResponse{}, badRequest("invalid_scope", "scope must be among the granted "+g.Scope)
		}
		scopes = asked
	}
	return h.issue(r, s, c, g.Subject, scopes, cmp.Or(g.FamilyID, newID()))
}

func (h *Handler) clientCredentialsGrant(r *http.Request, s site, c store.OAuthClient) (tokenResponse, *tokenError) {
	if c.SecretHash == "" {
		return tokenResponse{}, badRequest("unauthorized_client", "client_credentials needs a confidential client")
	}
	supported := s.design.Scopes()
	scopes := strings.Fields(r.PostForm.Get("scope"))
	if !subset(scopes, supported) {
		return tokenResponse{}, badRequest("invalid_scope", "scope must be among "+strings.Join(supported, " "))
	}
	if len(scopes) == 0 {
		scopes = supported
	}
	return h.issue(r, s, c, c.ClientID, scopes, "")
}

// issue signs an access token and, with a family (the grant's), stores a
// new refresh token in it, which keeps the access token's id so that
// revoking the family revokes it too.
func (h *Handler) issue(r *http.Request, s site, c store.OAuthClient, subject string, scopes []string, family string) (tokenResponse, *tokenError) {
	now := h.now()
	lifetime := s.design.Settings.TokenLifetime()
	claims := oauthcfg.Claims{Issuer: s.issuer, Audience: s.resource, Subject: subject, ClientID: c.ClientID,
		Scopes: scopes, IssuedAt: now, Expiry: now.Add(lifetime), ID: newID()}
	access, err := h.opts.Keys.sign(r.Context(), claims)
	if err != nil {
		h.opts.Log.Error("sign an access token", "error", err)
		return tokenResponse{}, &tokenError{status: http.StatusServiceUnavailable, Error: "temporarily_unavailable"}
	}
	res := tokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int(lifetime / time.Second), Scope: strings.Join(scopes, " ")}
	if family == "" {
		return res, nil
	}
	res.RefreshToken = newID() + newID()
	err = h.opts.Store.WithTx(r.Context(), store.Scope{OrgID: s.design.OrgID}, func(tx *store.Tx) error {
		return tx.CreateOAuthRefreshToken(r.Context(), auth.HashToken(res.RefreshToken), store.OAuthGrant{ServerID: s.design.ServerID,
			ClientID: c.ClientID, Scope: res.Scope, Subject: subject, IssuedAt: now, ExpiresAt: now.Add(RefreshLifetime),
			FamilyID: family, AccessJTI: claims.ID, AccessExpiresAt: claims.Expiry})
	})
	if err != nil {
		h.opts.Log.Error("store a refresh token", "error", err)
		return tokenResponse{}, &tokenError{status: http.StatusServiceUnavailable, Error: "temporarily_unavailable"}
	}
	return res, nil
}

// spendOnce spends a single-use credential (a code, a refresh token) with
// take, in one transaction. When take finds none, spent looks for one
// already spent: its family is then revoked, committed, and reused is true.
// Otherwise it returns take's grant and error.
func (h *Handler) spendOnce(r *http.Request, s site, take func(*store.Tx) (store.OAuthGrant, error),
	spent func(*store.Tx) (string, error)) (g store.OAuthGrant, reused bool, err error) {
	var revoked []store.RevokedToken
	err = h.opts.Store.WithTx(r.Context(), store.Scope{OrgID: s.design.OrgID}, func(tx *store.Tx) error {
		var err error
		if g, err = take(tx); !failure.Is(err, failure.ErrNotFound) {
			return err
		}
		family, ferr := spent(tx)
		if ferr != nil {
			return errors.Join(err, ferr)
		}
		if revoked, ferr = tx.RevokeOAuthFamily(r.Context(), s.design.ServerID, family, h.now()); ferr != nil {
			return ferr
		}
		reused = true // committed: the revocation stands
		return nil
	})
	h.revoked(revoked)
	return g, reused, err
}

// revoked tells this instance's verifier at once of access tokens just
// revoked (every instance hears of them through the notification).
func (h *Handler) revoked(tokens []store.RevokedToken) {
	if h.opts.Verifier == nil {
		return
	}
	for _, t := range tokens {
		h.opts.Verifier.revoke(t.JTI, t.ExpiresAt)
	}
}

// storeError turns a store failure into the token endpoint's error: not
// found is invalid_grant with notFound.
func storeError(err error, notFound string) *tokenError {
	switch {
	case err == nil:
		return nil
	case failure.Is(err, failure.ErrNotFound):
		return invalidGrant(notFound)
	default:
		return &tokenError{status: http.StatusServiceUnavailable, Error: "temporarily_unavailable"}
	}
}
