package service

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/oauthas"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
)

// connectOAuth makes the access token signing keys, sealed under the
// service secret every instance shares, and the token verifier.
func (s *Service) connectOAuth(ctx context.Context) error {
	secret, err := sharedSecret(ctx, s.store, oauthas.SecretName, oauthas.SecretSize)
	if err != nil {
		return err
	}
	if s.oauthKeys, err = oauthas.NewKeys(s.store, oauthas.KeysOptions{Secret: secret, Now: s.cfg.Clock}); err != nil {
		return err
	}
	s.oauthVerifier = oauthas.NewVerifier(s.oauthKeys, s.store, s.log)
	// Enabled in development too: registration is open to anyone.
	s.oauthLimit, err = ratelimit.New(ctx, s.log, ratelimit.Options{Enabled: true, Redis: s.redis, Window: s.cfg.RateWindow})
	return err
}

// oauthRoutes routes every OAuth design's authorization server.
func (s *Service) oauthRoutes(mux *http.ServeMux, ips *clientip.Resolver) {
	var rec oauthas.Recorder // nil, not a nil *journal.Writer, when the journal is off
	if s.journal != nil {
		rec = s.journal
	}
	h := oauthas.New(oauthas.Options{Designs: s.store, Store: s.store, Keys: s.oauthKeys,
		Verifier: s.oauthVerifier, BaseURL: s.cfg.BaseURL, AllowPrivate: s.cfg.AllowPrivateTargets, Journal: rec,
		ClientAddr: func(r *http.Request) string { return ips.Of(r).String() }, Log: s.log, Now: s.cfg.Clock,
		Limiter: s.oauthLimit, RegisterLimit: s.cfg.OAuthRegisterRateLimit, RequestLimit: s.cfg.OAuthRateLimit})
	h.Routes(mux, s.metrics.Route)
}

// oauthSweeper deletes the authorization servers' expired and spent
// refresh tokens, expired codes and idle clients.
func (s *Service) oauthSweeper() *oauthas.Sweeper {
	return oauthas.NewSweeper(s.store, s.log, oauthas.SweeperOptions{ClientIdleTTL: s.cfg.OAuthClientIdleTTL, Now: s.cfg.Clock})
}

// OAuthVerifier checks the access tokens of designs' authorization
// servers, for their MCP endpoints.
func (s *Service) OAuthVerifier() *oauthas.Verifier { return s.oauthVerifier }

var errOAuthNotListening = errors.New("could not subscribe to revoked OAuth access tokens in the database")

// agentToken checks a bearer token sent to a mock A2A agent whose card
// requires one: it must be valid for the MCP server design the card names
// (issued by its authorization server, for its resource), as that
// design's endpoint would check it.
func (s *Service) agentToken(ctx context.Context, r *http.Request, agent a2aserve.Agent, token string) error {
	id, err := uuid.Parse(agent.Card.Auth.OAuthServer)
	if err != nil {
		return fmt.Errorf("%w: the card names no OAuth server design", a2aserve.ErrInvalidToken)
	}
	base := s.cfg.BaseURL
	if base == "" {
		base = clientip.Origin(r)
	}
	_, err = s.oauthVerifier.VerifyToken(ctx, token, oauthcfg.Issuer(base, id), oauthcfg.Resource(base, id))
	if errors.Is(err, oauthcfg.ErrInvalidToken) {
		why := strings.TrimPrefix(strings.TrimPrefix(err.Error(), oauthcfg.ErrInvalidToken.Error()), ": ")
		return fmt.Errorf("%w: %s", a2aserve.ErrInvalidToken, why)
	}
	return err
}
