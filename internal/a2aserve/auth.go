package a2aserve

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/agentjournal"
	"github.com/mockmcp/mockmcp/internal/problem"
)

// ErrInvalidToken is what a TokenCheck returns, wrapped with the reason,
// for a token it refuses; any other error means the token could not be
// checked.
var ErrInvalidToken = errors.New("invalid_token")

// TokenCheck checks a bearer token for the agent whose card requires one
// (card.Auth.OAuthServer names the design whose authorization server
// issues them); r is the request, for its origin.
type TokenCheck func(ctx context.Context, r *http.Request, agent Agent, token string) error

// Tokens makes h check the bearer tokens of cards that require them with
// check; without it such a card refuses every request. It returns h.
func (h *Handler) Tokens(check TokenCheck) *Handler {
	h.tokens = check
	return h
}

// refuse answers 401 (or 503 when a token cannot be checked) and journals
// the refusal when the card requires a credential the request lacks; it
// reports whether it answered.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, agent Agent, binding string) bool {
	a := agent.Card.Auth
	if a == nil {
		return false
	}
	var challenge, why string
	switch a.Scheme {
	case agentcard.AuthAPIKey:
		key := r.Header.Get(a.KeyHeader())
		if a.KeyMatches(key) {
			return false
		}
		challenge = `ApiKey header="` + a.KeyHeader() + `"`
		why = "this agent requires its API key in the " + a.KeyHeader() + " header"
		if key != "" {
			why = "the API key in the " + a.KeyHeader() + " header is not this agent's"
		}
	case agentcard.AuthBearer:
		token, ok := bearer(r)
		if !ok {
			challenge, why = `Bearer realm="mock-agent"`, "this agent requires an OAuth access token (Authorization: Bearer)"
			break
		}
		err := errors.New("tokens cannot be checked")
		if h.tokens != nil {
			err = h.tokens(r.Context(), r, agent, token)
		}
		if err == nil {
			return false
		}
		if !errors.Is(err, ErrInvalidToken) {
			h.log.WarnContext(r.Context(), "agent token check failed", "error", err.Error())
			problem.Write(w, problem.New(http.StatusServiceUnavailable, "the access token could not be checked; try again"))
			return true
		}
		reason := strings.TrimPrefix(strings.TrimPrefix(err.Error(), ErrInvalidToken.Error()), ": ")
		challenge = `Bearer realm="mock-agent", error="invalid_token", error_description="` +
			strings.NewReplacer(`"`, "'", `\`, "/").Replace(reason) + `"`
		why = "invalid_token: " + reason
	default:
		challenge, why = `ApiKey`, "this agent's credentials are not configured"
	}
	// problem.Write would set its own Bearer challenge.
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("WWW-Authenticate", challenge)
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write(problem.New(http.StatusUnauthorized, why).JSON())
	if x := h.begin(r, agent, time.Now(), binding); x != nil {
		x.e.Outcome, x.e.Latency = agentjournal.OutcomeRejected, time.Since(x.start)
		x.e.Answer = []byte(why)
		x.rec.Record(x.e)
	}
	return true
}

// bearer is the token of an Authorization: Bearer header.
func bearer(r *http.Request) (string, bool) {
	v := r.Header.Get("Authorization")
	const scheme = "bearer "
	if len(v) <= len(scheme) || !strings.EqualFold(v[:len(scheme)], scheme) {
		return "", false
	}
	t := strings.TrimSpace(v[len(scheme):])
	return t, t != ""
}
