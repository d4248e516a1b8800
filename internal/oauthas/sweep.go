package oauthas

import (
	"context"
	"log/slog"
	"time"

	"github.com/mockmcp/mockmcp/internal/periodic"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Sweep defaults.
const (
	// DefaultClientIdleTTL is how long a registered client may go unused
	// before the sweep deletes it.
	DefaultClientIdleTTL = 30 * 24 * time.Hour
	// DefaultSweepInterval is how often the sweep runs.
	DefaultSweepInterval = 5 * time.Minute
	// spentKeep is how long a spent (rotated or revoked) refresh token is
	// kept, so that its reuse is recognized and revokes its family; past
	// it a reuse is only refused. A day covers every access token issued
	// with it (oauthcfg.MaxTokenLifetime).
	spentKeep = 24 * time.Hour
	// codeKeep is how long past its expiry a code is kept, so that its
	// replay is recognized.
	codeKeep = 10 * time.Minute
	// sweepBatch bounds the rows of each kind one statement deletes, so
	// each transaction stays short.
	sweepBatch = 5000
)

// SweeperOptions configure NewSweeper; zero values take the defaults.
type SweeperOptions struct {
	ClientIdleTTL time.Duration
	Interval      time.Duration
	// Now is time.Now when nil.
	Now func() time.Time
}

// Sweeper deletes, for every design at once, the refresh tokens that
// expired or were spent a day ago, the expired codes, the clients unused
// for ClientIdleTTL and the expired access token revocations: a job of
// its own, so the token path never pays for it.
type Sweeper struct {
	store *store.Store
	log   *slog.Logger
	opts  SweeperOptions
}

// NewSweeper returns the OAuth sweep over st.
func NewSweeper(st *store.Store, log *slog.Logger, opts SweeperOptions) *Sweeper {
	if opts.ClientIdleTTL <= 0 {
		opts.ClientIdleTTL = DefaultClientIdleTTL
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultSweepInterval
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Sweeper{store: st, log: log, opts: opts}
}

// Sweep deletes what is due now, in batches, until no kind fills its
// batch; it returns what it deleted.
func (s *Sweeper) Sweep(ctx context.Context) (store.OAuthSwept, error) {
	var total store.OAuthSwept
	for {
		n, err := s.store.SweepOAuth(ctx, store.OAuthSweep{Now: s.opts.Now(), ClientIdleTTL: s.opts.ClientIdleTTL,
			SpentKeep: spentKeep, CodeKeep: codeKeep, Batch: sweepBatch})
		total.RefreshTokens += n.RefreshTokens
		total.Codes += n.Codes
		total.Clients += n.Clients
		total.RevokedTokens += n.RevokedTokens
		if err != nil || max(n.RefreshTokens, n.Codes, n.Clients, n.RevokedTokens) < sweepBatch {
			return total, err
		}
	}
}

// Run sweeps every Interval until ctx ends. A failed sweep is logged and
// tried again at the next tick: every instance sweeps.
func (s *Sweeper) Run(ctx context.Context) {
	periodic.Sweep(ctx, s.opts.Interval, nil, s.Sweep,
		func(_ store.OAuthSwept, err error) { s.log.Warn("OAuth sweep failed", "error", err) },
		func(n store.OAuthSwept) {
			s.log.Debug("OAuth sweep", "refresh_tokens", n.RefreshTokens, "codes", n.Codes, "clients", n.Clients,
				"revocations", n.RevokedTokens)
		})
}
