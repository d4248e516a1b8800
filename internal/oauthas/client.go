package oauthas

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/errtext"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// maxMetadataDocument bounds a client ID metadata document.
const maxMetadataDocument = 64 << 10

// metadataTimeout bounds fetching one.
const metadataTimeout = 5 * time.Second

// isMetadataURL reports whether clientID names a client ID metadata
// document: an https URL with a path (http too when private targets are
// allowed, for development).
func (h *Handler) isMetadataURL(clientID string) bool {
	u, err := url.Parse(clientID)
	if err != nil || u.Host == "" || u.Path == "" || u.Path == "/" || u.Fragment != "" || u.User != nil {
		return false
	}
	return u.Scheme == "https" || (h.opts.AllowPrivate && u.Scheme == "http")
}

// client finds clientID: registered with the design, or the client ID
// metadata document it names, fetched through the outbound address
// policy. A pageError says why not, for the client's eyes; any other error
// is the service's.
func (h *Handler) client(ctx context.Context, s site, clientID string) (store.OAuthClient, error) {
	if clientID == "" {
		return store.OAuthClient{}, errorf("client_id is required")
	}
	if h.isMetadataURL(clientID) {
		return h.metadataClient(ctx, s, clientID)
	}
	var c store.OAuthClient
	if strings.ContainsRune(clientID, 0) || !utf8.ValidString(clientID) {
		return c, errorf("client_id %q is not registered with this authorization server", clientID)
	}
	err := h.opts.Store.WithTx(ctx, store.Scope{OrgID: s.design.OrgID}, func(tx *store.Tx) error {
		var err error
		if c, err = tx.OAuthClient(ctx, s.design.ServerID, clientID); err != nil {
			return err
		}
		// A client in use does not expire; the write is rare enough
		// not to weigh on the token path.
		if now := h.now(); now.Sub(c.LastUsedAt) >= store.ClientTouchInterval {
			return tx.TouchOAuthClient(ctx, s.design.ServerID, clientID, now)
		}
		return nil
	})
	if failure.Is(err, failure.ErrNotFound) {
		return c, errorf("client_id %q is not registered with this authorization server", clientID)
	}
	return c, err
}

// clientMetadata is the part of a client ID metadata document read here.
type clientMetadata struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	Scope                   string   `json:"scope"`
}

func (h *Handler) metadataClient(ctx context.Context, s site, clientID string) (store.OAuthClient, error) {
	doc, ok := h.documents.get(clientID, h.now())
	if !ok {
		body, ttl, err := h.fetchMetadata(ctx, clientID)
		if err != nil {
			return store.OAuthClient{}, errorf("client_id: the client ID metadata document could not be fetched: %s",
				errtext.Outbound("its host", err))
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			return store.OAuthClient{}, errorf("client_id: the client ID metadata document: %s", describeJSON(err, "the document"))
		}
		if doc.ClientID == clientID {
			h.documents.put(clientID, doc, h.now(), ttl)
		}
	}
	switch {
	case doc.ClientID != clientID:
		return store.OAuthClient{}, errorf("client_id: the metadata document's client_id %q is not its URL", doc.ClientID)
	case len(doc.RedirectURIs) == 0:
		return store.OAuthClient{}, errorf("client_id: the metadata document has no redirect_uris")
	case doc.TokenEndpointAuthMethod != "" && doc.TokenEndpointAuthMethod != "none":
		return store.OAuthClient{}, errorf("client_id: token_endpoint_auth_method %q is not supported for metadata documents (none only)", doc.TokenEndpointAuthMethod)
	}
	if code, description := checkMetadata(s, doc.ClientName, doc.RedirectURIs, doc.Scope); code != "" {
		return store.OAuthClient{}, errorf("client_id: the metadata document's %s", description)
	}
	return store.OAuthClient{ClientID: clientID, OrgID: s.design.OrgID, ServerID: s.design.ServerID, Name: doc.ClientName,
		RedirectURIs: doc.RedirectURIs, GrantTypes: []string{"authorization_code", "refresh_token"}, AuthMethod: "none",
		Scope: doc.Scope}, nil
}

// authenticate finds the client of a token or revocation request and
// checks its credentials (HTTP Basic or the form's client_secret); the
// error is an RFC 6749 error with its status.
func (h *Handler) authenticate(r *http.Request, s site) (store.OAuthClient, *tokenError) {
	id, secret, basic := r.BasicAuth()
	if basic {
		// RFC 6749 2.3.1: form-encoded before base64.
		if v, err := url.QueryUnescape(id); err == nil {
			id = v
		}
		if v, err := url.QueryUnescape(secret); err == nil {
			secret = v
		}
		if form := r.PostForm.Get("client_id"); form != "" && form != id {
			return store.OAuthClient{}, badRequest("invalid_request", "client_id in the form and in Authorization differ")
		}
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id == "" {
		return store.OAuthClient{}, &tokenError{status: http.StatusUnauthorized, Error: "invalid_client", Description: "client authentication is required: client_id is missing"}
	}
	var c store.OAuthClient
	if h.isMetadataURL(id) {
		// The document was checked when the code was issued, which is
		// bound to this client_id.
		c = store.OAuthClient{ClientID: id, AuthMethod: "none", GrantTypes: []string{"authorization_code", "refresh_token"}}
	} else {
		var err error
		if c, err = h.client(r.Context(), s, id); err != nil {
			if !isPageError(err) {
				h.opts.Log.Error("read an OAuth client", "server_id", s.design.ServerID, "error", err)
				return c, &tokenError{status: http.StatusServiceUnavailable, Error: "temporarily_unavailable"}
			}
			return c, &tokenError{status: http.StatusUnauthorized, Error: "invalid_client", Description: err.Error(), basic: basic}
		}
	}
	if c.SecretHash == "" {
		if secret != "" {
			return c, &tokenError{status: http.StatusUnauthorized, Error: "invalid_client", Description: "this client is public: it has no secret", basic: basic}
		}
		return c, nil
	}
	if secret == "" || subtle.ConstantTimeCompare([]byte(auth.HashToken(secret)), []byte(c.SecretHash)) != 1 {
		return c, &tokenError{status: http.StatusUnauthorized, Error: "invalid_client", Description: "the client secret is wrong or missing", basic: basic}
	}
	return c, nil
}

// allows reports whether the client may use grant.
func allows(c store.OAuthClient, grant string) bool {
	return slices.Contains(c.GrantTypes, grant)
}
