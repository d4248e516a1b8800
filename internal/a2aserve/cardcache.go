package a2aserve

import (
	"context"
	"sync"
	"time"
)

// CardChannel is the PostgreSQL notification channel on which every
// change to an agent card, or to an organization's slug, is announced.
const CardChannel = "mockmcp_agent_card"

// cardTTL bounds how long a cached card is served, even while the
// notifications keep quiet.
const cardTTL = time.Minute

// maxCachedCards bounds the cache; past it, it starts afresh.
const maxCachedCards = 10000

// CardCache keeps the published cards the endpoint looked up, so that a
// warm request reads no card from the database. Any change to a card
// drops them all (Flush, on a notification); while the notifications
// are not being received (Lost, until Live) nothing is cached. Only
// found cards are kept: a card published a moment ago answers at once.
type CardCache struct {
	lookup Lookup
	now    func() time.Time

	mu    sync.Mutex
	live  bool
	epoch uint64 // counts flushes, so that a look-up that raced one is not kept
	cards map[cardKey]cachedCard
}

type cardKey struct{ slug, name string }

type cachedCard struct {
	agent Agent
	at    time.Time
}

// NewCardCache caches lookup's found cards; it caches nothing until Live.
func NewCardCache(lookup Lookup) *CardCache {
	return &CardCache{lookup: lookup, now: time.Now, cards: map[cardKey]cachedCard{}}
}

// Lookup is the cached lookup.
func (c *CardCache) Lookup(ctx context.Context, orgSlug, name string) (Agent, error) {
	k := cardKey{orgSlug, name}
	c.mu.Lock()
	if e, ok := c.cards[k]; ok && c.live && c.now().Sub(e.at) < cardTTL {
		c.mu.Unlock()
		return e.agent, nil
	}
	epoch, live := c.epoch, c.live
	c.mu.Unlock()
	a, err := c.lookup(ctx, orgSlug, name)
	if err != nil || !live {
		return a, err
	}
	a.compiled = compileCard(a.Card)
	c.mu.Lock()
	if c.live && c.epoch == epoch {
		if len(c.cards) >= maxCachedCards {
			c.cards = map[cardKey]cachedCard{}
		}
		c.cards[k] = cachedCard{agent: a, at: c.now()}
	}
	c.mu.Unlock()
	return a, nil
}

// Flush drops every cached card: one changed.
func (c *CardCache) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	clear(c.cards)
}

// Lost stops caching: changes may go unannounced until Live.
func (c *CardCache) Lost() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = false
	c.epoch++
	clear(c.cards)
}

// Live starts caching: the notifications are being received.
func (c *CardCache) Live() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live = true
	c.epoch++
	clear(c.cards)
}
