package mcpserve

import (
	"time"

	"github.com/google/uuid"
)

// Cached reports whether the cache holds an entry (a design or a miss) for
// id; for tests only.
func (h *Handler) Cached(id uuid.UUID) bool {
	h.cache.mu.Lock()
	defer h.cache.mu.Unlock()
	_, ok := h.cache.items[id]
	return ok
}

// SetStreams sets the bounds of subscriptions/listen streams and the
// spacing of their keep-alive comments (zero for the defaults); for tests only, before the first
// request.
func (h *Handler) SetStreams(perServer, perClient int, keepAlive time.Duration) {
	h.hub.mu.Lock()
	b := streamBounds{perServer: perServer, perClient: perClient,
		perAddress: h.hub.bounds.perAddress, perOrg: h.hub.bounds.perOrg}
	h.hub.bounds = b.withDefaults()
	h.hub.mu.Unlock()
	if keepAlive > 0 {
		h.opts.KeepAlive = keepAlive
	}
}

// OpenStreams is how many subscriptions/listen streams of server id are
// open; for tests only.
func (h *Handler) OpenStreams(id uuid.UUID) int { return h.hub.count(id) }

// AnswersRelayed is closed once answers relayed from other instances reach
// this one.
func (h *Handler) AnswersRelayed() <-chan struct{} { return h.asks.subscribed }

// PendingQuestions is how many questions of server wait for answers here.
func (h *Handler) PendingQuestions(id uuid.UUID) int {
	h.asks.mu.Lock()
	defer h.asks.mu.Unlock()
	return h.asks.perServer[id]
}

// Forget drops the cached design of id, as a change to it does; for tests
// only.
func (h *Handler) Forget(id uuid.UUID) { h.cache.invalidate(id) }

// WarmIdle reports whether no design is being warmed; for tests only.
func (h *Handler) WarmIdle() bool {
	h.cache.mu.Lock()
	defer h.cache.mu.Unlock()
	return !h.cache.warming
}
