package mcpserve

// Listening reports whether design changes are being received: when false,
// cached designs are served stale and revalidated on use.
func (h *Handler) Listening() bool {
	h.cache.mu.Lock()
	defer h.cache.mu.Unlock()
	return h.cache.listening
}
