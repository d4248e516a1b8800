package mcpserve

import (
	"net/http"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// WriteUnavailable answers 503 with Retry-After: the database cannot be
// reached and the request needs it (a design that is not cached, or a key
// to check).
func WriteUnavailable(w http.ResponseWriter) {
	WriteProblem(w, http.StatusServiceUnavailable, failure.Unavailable(nil).Detail)
}

// Listening reports whether design changes are being received: when false,
// cached designs are served stale and revalidated on use.
func (h *Handler) Listening() bool {
	h.cache.mu.Lock()
	defer h.cache.mu.Unlock()
	return h.cache.listening
}
