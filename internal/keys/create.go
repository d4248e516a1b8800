package keys

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// NewKey is what an operator asks for when generating a key.
type NewKey struct {
	Name      string
	Bound     []uuid.UUID // servers to bind to; none gives scope full
	ExpiresAt *time.Time
	CreatedBy string
	// BoundField names the request field that carried Bound, for errors.
	BoundField string
}

// Create checks a request for a key and mints it in the transaction's
// organization. It returns the stored key and, this once, the raw key.
func Create(ctx context.Context, tx *store.Tx, n NewKey) (store.Key, string, error) {
	field := n.BoundField
	if field == "" {
		field = "bound_server_ids"
	}
	var f failure.Fields
	name := strings.TrimSpace(n.Name)
	switch {
	case name == "":
		f.Add("name", "must not be blank")
	case len([]rune(name)) > 200:
		f.Add("name", "must be at most 200 characters")
	case strings.ContainsRune(name, 0):
		f.Add("name", "must not contain the NUL character (U+0000)")
	}
	bound := slices.Clone(n.Bound)
	slices.SortFunc(bound, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	bound = slices.Compact(bound)
	if len(bound) > store.MaxBoundAssets {
		f.Add(field, "a key can be bound to at most %d servers, got %d", store.MaxBoundAssets, len(bound))
	}
	if n.ExpiresAt != nil && !n.ExpiresAt.After(time.Now()) {
		f.Add("expires_at", "must be in the future")
	}
	if err := f.Err(); err != nil {
		return store.Key{}, "", err
	}
	if len(bound) > 0 {
		found, err := tx.CountServers(ctx, bound)
		if err != nil {
			return store.Key{}, "", err
		}
		if found != int64(len(bound)) {
			return store.Key{}, "", failure.Invalid(failure.Field(field, "names a server that does not exist in this organization"))
		}
	}
	raw, hash := Generate()
	k := store.Key{
		ID: uuid.New(), Hash: hash, Name: name, Scope: auth.ScopeFull, BoundAssetIDs: bound,
		CreatedBy: n.CreatedBy, ExpiresAt: n.ExpiresAt,
	}
	if len(bound) > 0 {
		k.Scope = auth.ScopePolicy
	}
	k, err := tx.CreateKey(ctx, k)
	if err != nil {
		return store.Key{}, "", err
	}
	return k, raw, nil
}
