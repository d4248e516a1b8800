package mcpserve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

// oauthGuard is what the endpoint of a design whose auth_mode is oauth
// checks of every request, compiled with the design.
type oauthGuard struct {
	// required are the scopes every request needs; toolScopes the scopes
	// each tool needs besides them (tools that need none are absent).
	required   []string
	toolScopes map[string][]string
	// anyTool are the scopes of every tool: a token holding them all may
	// call any tool, and its body need not be looked at.
	anyTool []string
	// notBefore: access tokens issued before it are expired; zero when
	// never set.
	notBefore time.Time
	// name, scopes and moved are what the protected resource metadata
	// says: the server's name, the scopes supported, and whether the
	// authorization server is named where it is not (chaos).
	name   string
	scopes []string
	moved  bool
	// challenges are the answers' headers for the last origin served
	// (one, under BASE_URL), built once for it.
	challenges atomic.Pointer[challenges]
}

// challenges are a design's URLs and WWW-Authenticate values on one
// origin.
type challenges struct {
	base, resource, issuer string
	// missing answers a request without a token; metadataParam ends
	// every challenge.
	missing       []string
	metadataParam string
	// metadata is the protected resource metadata document.
	metadata []byte
}

// compileOAuth is the guard of a design whose auth_mode is oauth, nil for
// any other.
func compileOAuth(d design.Design) *oauthGuard {
	if d.Server.AuthMode != design.AuthModeOAuth {
		return nil
	}
	o := d.Server.OAuth
	g := &oauthGuard{required: o.RequiredScopes, notBefore: d.Server.OAuthTokensNotBefore,
		name: d.Server.Name, moved: o.Chaos.MovedAuthorizationServer}
	for _, t := range d.Tools {
		if len(t.RequiredScopes) > 0 {
			if g.toolScopes == nil {
				g.toolScopes = map[string][]string{}
			}
			g.toolScopes[t.Name] = t.RequiredScopes
			g.anyTool = union(g.anyTool, t.RequiredScopes)
		}
	}
	g.scopes = oauthcfg.EffectiveScopes(o, g.toolScopes)
	return g
}

// on returns the challenges of the design d guards on origin base.
func (g *oauthGuard) on(d *compiled, base string) *challenges {
	if c := g.challenges.Load(); c != nil && c.base == base {
		return c
	}
	c := &challenges{base: base, resource: oauthcfg.Resource(base, d.id), issuer: oauthcfg.Issuer(base, d.id)}
	c.metadataParam = `resource_metadata="` + oauthcfg.ProtectedResourceMetadata(base, d.id) + `"`
	missing := "Bearer " + c.metadataParam
	if len(g.required) > 0 {
		missing += `, scope="` + strings.Join(g.required, " ") + `"`
	}
	c.missing = []string{missing}
	as := c.issuer
	if g.moved {
		as = oauthcfg.MovedIssuer(base, d.id)
	}
	c.metadata, _ = json.Marshal(oauthcfg.ResourceMetadata{Resource: c.resource, AuthorizationServers: []string{as},
		ScopesSupported: g.scopes, BearerMethodsSupported: []string{"header"}, ResourceName: g.name}) // strings always encode
	g.challenges.Store(c)
	return c
}

// refusal is why a request to a design guarded by OAuth is refused.
type refusal struct {
	status int
	// challenge is the WWW-Authenticate value; detail the JSON-RPC
	// error's; journal what the call journal records.
	challenge, detail, journal string
}

// checkOAuth checks the bearer token of a request to d, whose body is p.
// It returns nil to let the request through.
func (h *Handler) checkOAuth(r *http.Request, d *compiled, p *mcptransport.Payload) *refusal {
	g := d.oauth
	c := g.on(d, h.base(r))
	token, ok := bearerToken(r)
	if !ok {
		return &refusal{status: http.StatusUnauthorized, challenge: c.missing[0],
			detail: "this server requires an OAuth access token (Authorization: Bearer)", journal: "no bearer token"}
	}
	invalid := func(why string) *refusal {
		return &refusal{status: http.StatusUnauthorized,
			challenge: `Bearer error="invalid_token", error_description="` + quotable(why) + `", ` + c.metadataParam,
			detail:    "invalid_token: " + why, journal: "invalid_token: " + why}
	}
	if h.opts.OAuth == nil {
		return invalid("tokens cannot be verified")
	}
	claims, err := h.opts.OAuth.VerifyToken(r.Context(), token, c.issuer, c.resource)
	switch {
	case err == nil:
	case failure.Is(err, failure.ErrUnavailable):
		return &refusal{status: http.StatusServiceUnavailable}
	case errors.Is(err, oauthcfg.ErrInvalidToken):
		why := strings.TrimPrefix(strings.TrimPrefix(err.Error(), oauthcfg.ErrInvalidToken.Error()), ": ")
		if why == "" {
			why = "the token is not valid"
		}
		return invalid(why)
	default:
		h.log.Warn("verify an access token", "server_id", d.id.String(), "error", err.Error())
		return invalid("the token could not be verified")
	}
	// The verifier checks these too; the endpoint does not rely on it.
	switch {
	case claims.Audience != c.resource:
		return invalid("the token is for another resource")
	case claims.Issuer != c.issuer:
		return invalid("the token is from another issuer")
	case (oauthcfg.Design{TokensNotBefore: g.notBefore}).ExpiresToken(claims):
		// iat counts whole seconds: a token issued within the second of
		// "expire all tokens now" is kept, so that the client's new one is.
		return invalid("expired")
	case !claims.Expiry.IsZero() && !time.Now().Before(claims.Expiry):
		return invalid("expired")
	}
	need := g.required
	if !hasScopes(claims.Scopes, need) {
		return g.insufficient(c, need)
	}
	if g.toolScopes == nil || hasScopes(claims.Scopes, g.anyTool) {
		return nil
	}
	p.EachMessage(func(msg []byte) bool {
		name, ok := toolCalled(msg)
		if !ok {
			return true
		}
		if ts := g.toolScopes[name]; len(ts) > 0 && !hasScopes(claims.Scopes, ts) {
			need = union(need, ts)
		}
		return true
	})
	if len(need) > len(g.required) {
		return g.insufficient(c, need)
	}
	return nil
}

// insufficient is the refusal of a token that lacks some of need, every
// scope the request needs: all of them are named in one challenge, so a
// client that asks for them (with those it holds) is not challenged again.
func (g *oauthGuard) insufficient(c *challenges, need []string) *refusal {
	scope := strings.Join(need, " ")
	return &refusal{status: http.StatusForbidden,
		challenge: `Bearer error="insufficient_scope", scope="` + scope + `", ` + c.metadataParam,
		detail:    "insufficient_scope: the request needs the scopes " + scope,
		journal:   "insufficient_scope: needs " + scope}
}

// writeRefusal answers a request refused by the OAuth guard.
func (h *Handler) writeRefusal(w http.ResponseWriter, f *refusal) {
	if f.status == http.StatusServiceUnavailable {
		mcptransport.WriteUnavailable(w)
		return
	}
	mcptransport.WriteRPCChallenge(w, f.status, f.challenge, nil, fmt.Errorf("%w: %s", jsonrpc.ErrUnauthorized, f.detail))
}

// bearerToken reads the token of an Authorization: Bearer header.
func bearerToken(r *http.Request) (string, bool) {
	v := r.Header.Get("Authorization")
	const scheme = "bearer "
	if len(v) <= len(scheme) || !strings.EqualFold(v[:len(scheme)], scheme) {
		return "", false
	}
	t := strings.TrimSpace(v[len(scheme):])
	return t, t != ""
}

// base is the origin of the OAuth URLs: BASE_URL, else the request's.
func (h *Handler) base(r *http.Request) string {
	if h.opts.BaseURL != "" {
		return h.opts.BaseURL
	}
	return clientip.Origin(r)
}

// toolCalled is the tool a tools/call message names, read as the method
// will read it.
func toolCalled(msg []byte) (string, bool) {
	req, err := jsonrpc.Parse(msg)
	if err != nil || req.Method != "tools/call" {
		return "", false
	}
	var p struct { // the name only: the arguments are not decoded
		Name string `json:"name"`
	}
	return p.Name, mcptransport.DecodeParams(req.Params, &p) == nil
}

// hasScopes reports whether granted has every scope of need.
func hasScopes(granted, need []string) bool {
	for _, s := range need {
		if !slices.Contains(granted, s) {
			return false
		}
	}
	return true
}

// union is a with the scopes of b it lacks appended.
func union(a, b []string) []string {
	out := slices.Clip(a)
	for _, s := range b {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// quotable makes s fit in a quoted-string of a challenge, whose
// error_description allows printable ASCII but '"' and '\'.
func quotable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '\''
		}
		return r
	}, s)
}

// ServeProtectedResourceMetadata answers GET (and its CORS preflight)
// /.well-known/oauth-protected-resource/api/platform/{server_id}/mcp: the
// protected resource metadata of an enabled design whose auth_mode is
// oauth, from the compiled design; 404 for any other path or design.
func (h *Handler) ServeProtectedResourceMetadata(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	if !h.tr.AllowedHosts.Allows(r) {
		mcptransport.WriteProblem(w, http.StatusForbidden, "the Host or Origin of the request is not one of ALLOWED_HOSTS")
		return
	}
	hdr["Access-Control-Allow-Origin"] = []string{"*"}
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		hdr["Access-Control-Allow-Methods"] = []string{"GET, OPTIONS"}
		hdr["Access-Control-Allow-Headers"] = []string{"MCP-Protocol-Version"}
		hdr["Access-Control-Max-Age"] = []string{"86400"}
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		hdr["Allow"] = []string{"GET, OPTIONS"}
		mcptransport.WriteProblem(w, http.StatusMethodNotAllowed, "protected resource metadata is read with GET")
		return
	}
	id, ok := serverID(strings.TrimPrefix(r.URL.Path, oauthcfg.ProtectedResourcePrefix))
	if !ok || !strings.HasPrefix(r.URL.Path, oauthcfg.ProtectedResourcePrefix+endpointPrefix) {
		mcptransport.WriteProblem(w, http.StatusNotFound, "no protected resource here: the metadata of a design's MCP endpoint is at "+
			oauthcfg.ProtectedResourcePrefix+"/api/platform/{server_id}/mcp")
		return
	}
	d, err := h.cache.get(r.Context(), id)
	if err != nil {
		h.writeLoadError(w, r, id, err)
		return
	}
	if d.oauth == nil {
		mcptransport.WriteProblem(w, http.StatusNotFound, "this server's endpoint is not protected by OAuth")
		return
	}
	c := d.oauth.on(d, h.base(r))
	hdr["Content-Type"] = []string{"application/json"}
	hdr["Cache-Control"] = []string{"no-store"}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(c.metadata)
}
