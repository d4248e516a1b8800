package mcpserve

import "github.com/google/uuid"

// Cached reports whether the cache holds an entry (a design or a miss) for
// id; for tests only.
func (h *Handler) Cached(id uuid.UUID) bool {
	h.cache.mu.Lock()
	defer h.cache.mu.Unlock()
	_, ok := h.cache.items[id]
	return ok
}
