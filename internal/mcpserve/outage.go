package mcpserve

import "time"

// Listening reports whether design changes are being received: when false,
// cached designs are served stale and revalidated on use.
func (h *Handler) Listening() bool {
	h.cache.mu.Lock()
	defer h.cache.mu.Unlock()
	return h.cache.listening
}

// ListenState is Listening with, when it is false, the time the listening
// connection was lost (zero before the first subscription).
func (h *Handler) ListenState() (listening bool, since time.Time) {
	h.cache.mu.Lock()
	defer h.cache.mu.Unlock()
	return h.cache.listening, h.cache.lostAt
}
