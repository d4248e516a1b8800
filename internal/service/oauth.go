package service

import (
	"context"
	"errors"
	"net/http"

	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/oauthas"
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
