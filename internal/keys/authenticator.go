package keys

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Channel is the database notification channel on which key changes are
// announced (see schema/00004_api_keys.sql).
const Channel = "mockmcp_key"

// Options tune an Authenticator; zero values take the defaults.
type Options struct {
	// CacheEntries bounds the number of cached checks (default 10,000).
	CacheEntries int
	// CacheTTL bounds how long a cached check is trusted even without a
	// notification (default 1 minute).
	CacheTTL time.Duration
	// TouchInterval is how often last_used_at is written: a busy key costs
	// at most one write per interval (default 5 seconds).
	TouchInterval time.Duration
	// StaleMax bounds how old a cached check may be and still answer while
	// the database cannot be reached (default 5 minutes): a key that
	// worked just before an outage keeps working through it.
	StaleMax time.Duration
}

// Authenticator checks raw keys against the database, caching the answers.
type Authenticator struct {
	store *store.Store
	log   *slog.Logger
	opts  Options

	// live is true while the change subscription is up; the cache is used
	// only then.
	live atomic.Bool
	// lostAt is when live last turned false, in Unix nanoseconds.
	lostAt atomic.Int64
	ready  chan struct{}
	once   sync.Once

	mu    sync.RWMutex
	cache map[string]cached // by key hash
	epoch uint64            // bumped by every flush, so a look-up that raced one is not cached

	touchMu sync.Mutex
	touches map[uuid.UUID]touch
	writes  atomic.Int64 // touch statements issued, for tests
}

type cached struct {
	key   store.Key
	found bool
	at    time.Time
}

type touch struct {
	org uuid.UUID
	at  time.Time
}

// New returns an Authenticator over st. Call Run to subscribe to changes
// and to write last-use times.
func New(st *store.Store, log *slog.Logger, opts Options) *Authenticator {
	if opts.CacheEntries <= 0 {
		opts.CacheEntries = 10_000
	}
	if opts.CacheTTL <= 0 {
		opts.CacheTTL = time.Minute
	}
	if opts.TouchInterval <= 0 {
		opts.TouchInterval = 5 * time.Second
	}
	if opts.StaleMax <= 0 {
		opts.StaleMax = 5 * time.Minute
	}
	return &Authenticator{
		store: st, log: log, opts: opts, ready: make(chan struct{}),
		cache: map[string]cached{}, touches: map[uuid.UUID]touch{},
	}
}

// errInvalid is the one answer for unknown, revoked, expired and malformed
// keys: a caller learns nothing about which.
var errInvalid = failure.Unauthorized("the API key is invalid, revoked or expired")

// Authenticate resolves a raw key into the principal it stands for.
func (a *Authenticator) Authenticate(ctx context.Context, raw string) (auth.Principal, error) {
	if !WellFormed(raw) {
		return auth.Principal{}, errInvalid
	}
	hash := auth.HashToken(raw)
	k, found, err := a.lookup(ctx, hash)
	if err != nil {
		return auth.Principal{}, err
	}
	now := time.Now()
	if !found || (k.ExpiresAt != nil && !now.Before(*k.ExpiresAt)) {
		return auth.Principal{}, errInvalid
	}
	a.touch(k, now)
	return auth.Principal{OrgID: k.OrgID, KeyID: k.ID, Scope: k.Scope, BoundAssets: k.BoundAssetIDs}, nil
}

// Request checks the key a request presents in either header. raw is ""
// (and err nil) when it presents none; err is a 400 for two different keys,
// a 401 for a key that is not valid.
func (a *Authenticator) Request(ctx context.Context, r *http.Request) (p auth.Principal, raw string, err error) {
	raw, ok, err := FromRequest(r)
	if err != nil || !ok {
		return auth.Principal{}, "", err
	}
	p, err = a.Authenticate(ctx, raw)
	return p, raw, err
}

// AuthorizeServer lets a request use the MCP endpoint of a server whose
// auth_mode is api_key: it needs a key of the server's organization, of
// full scope or bound to the server.
func (a *Authenticator) AuthorizeServer(ctx context.Context, r *http.Request, org, server uuid.UUID) error {
	p, raw, err := a.Request(ctx, r)
	if err != nil {
		return err
	}
	if raw == "" {
		return failure.Unauthorized("this server requires an API key: send Authorization: Bearer <key> or X-API-Key: <key>")
	}
	if p.OrgID != org || !p.Reaches(server) {
		return failure.Unauthorized("the API key may not use this server")
	}
	return nil
}

// lookup answers from the cache when it may, else from the database. A
// check cached within StaleMax answers when the database cannot be
// reached: no key can be revoked while it is out, and every check made
// while notifications were down was written back from the database.
func (a *Authenticator) lookup(ctx context.Context, hash string) (store.Key, bool, error) {
	live := a.live.Load()
	a.mu.RLock()
	c, hit := a.cache[hash]
	epoch := a.epoch
	a.mu.RUnlock()
	if live && hit && time.Since(c.at) < a.opts.CacheTTL {
		return c.key, c.found, nil
	}

	var k store.Key
	err := a.store.WithTx(ctx, store.Scope{KeyHash: hash}, func(tx *store.Tx) (err error) {
		k, err = tx.KeyByHash(ctx, hash)
		return err
	})
	found := err == nil
	if err != nil && !errors.Is(err, failure.ErrNotFound) {
		if hit && errors.Is(err, failure.ErrUnavailable) && time.Since(c.at) < a.opts.StaleMax {
			return c.key, c.found, nil
		}
		return store.Key{}, false, err
	}
	// Cached even while notifications are down: only live checks answer
	// from the cache, but an outage falls back on the latest answer.
	a.mu.Lock()
	if a.epoch == epoch {
		if len(a.cache) >= a.opts.CacheEntries {
			for h := range a.cache { // evict one arbitrary entry
				delete(a.cache, h)
				break
			}
		}
		a.cache[hash] = cached{key: k, found: found, at: time.Now()}
	}
	a.mu.Unlock()
	return k, found, nil
}

// Flush forgets every cached check.
func (a *Authenticator) Flush() {
	a.mu.Lock()
	a.epoch++
	clear(a.cache)
	a.mu.Unlock()
}

// Revoked forgets the cached checks of the key id, so that the instance
// that revoked it refuses it from its next request on; the others learn it
// from the change notification. A look-up that read the key before the
// revocation and ends after this call is not cached either.
func (a *Authenticator) Revoked(id uuid.UUID) {
	a.mu.Lock()
	a.epoch++
	for h, c := range a.cache {
		if c.found && c.key.ID == id {
			delete(a.cache, h)
		}
	}
	a.mu.Unlock()
}

// Cached reports how many checks are cached, for tests.
func (a *Authenticator) Cached() int {
	a.mu.RLock()
	defer a.mu.RUnlock()
	return len(a.cache)
}

// ListenState reports whether the change subscription is up and, when it
// is not, since when it is lost (zero before the first subscription).
func (a *Authenticator) ListenState() (listening bool, since time.Time) {
	if a.live.Load() {
		return true, time.Time{}
	}
	if ns := a.lostAt.Load(); ns != 0 {
		return false, time.Unix(0, ns)
	}
	return false, time.Time{}
}

// Ready is closed once the change subscription is first up.
func (a *Authenticator) Ready() <-chan struct{} { return a.ready }

// Run subscribes to key changes and writes last-use times until ctx ends,
// then writes the pending ones.
func (a *Authenticator) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() {
		a.store.Listen(ctx, Channel,
			func(string) { a.Flush() },
			// Entries are kept for outages; none answers until the
			// subscription is back, which flushes them.
			func() {
				if a.live.Swap(false) {
					a.lostAt.Store(time.Now().UnixNano())
				}
			},
			func() { a.Flush(); a.live.Store(true); a.once.Do(func() { close(a.ready) }) },
			func(err error) {
				a.log.Warn("key change subscription lost; checking keys in the database", "error", err)
			},
		)
		a.live.Store(false)
	})
	wg.Go(func() {
		t := time.NewTicker(a.opts.TouchInterval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
				a.FlushTouches(fctx)
				cancel()
				return
			case <-t.C:
				a.FlushTouches(ctx)
			}
		}
	})
	wg.Wait()
}

// touch notes a successful use; FlushTouches writes it.
func (a *Authenticator) touch(k store.Key, at time.Time) {
	a.touchMu.Lock()
	a.touches[k.ID] = touch{org: k.OrgID, at: at}
	a.touchMu.Unlock()
}

// FlushTouches writes the pending last-use times: one statement per
// organization, one time per key, whatever the number of uses since the
// last flush. Failures are logged and the times dropped: last_used_at is a
// hint, and never worth delaying a request.
func (a *Authenticator) FlushTouches(ctx context.Context) {
	a.touchMu.Lock()
	pending := a.touches
	if len(pending) == 0 {
		a.touchMu.Unlock()
		return
	}
	a.touches = make(map[uuid.UUID]touch, len(pending))
	a.touchMu.Unlock()

	type batch struct {
		ids []uuid.UUID
		at  []time.Time
	}
	byOrg := map[uuid.UUID]*batch{}
	for id, t := range pending {
		b := byOrg[t.org]
		if b == nil {
			b = &batch{}
			byOrg[t.org] = b
		}
		b.ids = append(b.ids, id)
		b.at = append(b.at, t.at)
	}
	for org, b := range byOrg {
		a.writes.Add(1)
		err := a.store.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) error {
			_, err := tx.TouchKeys(ctx, b.ids, b.at)
			return err
		})
		if err != nil && ctx.Err() == nil {
			a.log.Warn("could not record API key use", "keys", len(b.ids), "error", err)
		}
	}
}

// TouchWrites reports how many last-use statements were issued, for tests.
func (a *Authenticator) TouchWrites() int64 { return a.writes.Load() }
