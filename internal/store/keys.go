package store

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/db"
)

// KeysTx is the part of a transaction that keeps API keys.
type KeysTx struct{ *txConn }

// MaxBoundAssets is the most servers one policy-scoped key can be bound to.
const MaxBoundAssets = 100

// Key is a platform API key, known by the SHA-256 hex of its raw value.
type Key struct {
	ID            uuid.UUID
	OrgID         uuid.UUID
	Hash          string
	Name          string
	Scope         string // auth.ScopeFull or auth.ScopePolicy
	BoundAssetIDs []uuid.UUID
	CreatedBy     string
	CreatedAt     time.Time
	ExpiresAt     *time.Time
	LastUsedAt    *time.Time
}

// CreateKey inserts k in the transaction's organization.
func (t KeysTx) CreateKey(ctx context.Context, k Key) (Key, error) {
	bound := k.BoundAssetIDs
	if bound == nil {
		bound = []uuid.UUID{}
	}
	row, err := t.q.CreateKey(ctx, t.tx, db.CreateKeyParams{
		ID: k.ID, KeyHash: k.Hash, Name: k.Name, Scope: k.Scope, BoundAssetIds: bound,
		CreatedBy: k.CreatedBy, ExpiresAt: k.ExpiresAt,
	})
	return keyFrom(row), err
}

// Keys lists the organization's keys, newest first.
func (t KeysTx) Keys(ctx context.Context) ([]Key, error) {
	rows, err := t.q.ListKeys(ctx, t.tx)
	out := make([]Key, len(rows))
	for i, r := range rows {
		out[i] = keyFrom(r)
	}
	return out, err
}

// Key reads one key of the organization.
func (t KeysTx) Key(ctx context.Context, id uuid.UUID) (Key, error) {
	row, err := t.q.GetKey(ctx, t.tx, id)
	return keyFrom(row), notFound(err, "key")
}

// DeleteKey revokes a key by removing its row.
func (t KeysTx) DeleteKey(ctx context.Context, id uuid.UUID) error {
	return removed("key")(t.q.DeleteKey(ctx, t.tx, id))
}

// KeyByHash finds the key whose raw value hashes to hash; the transaction's
// scope must carry the same KeyHash.
func (t KeysTx) KeyByHash(ctx context.Context, hash string) (Key, error) {
	row, err := t.q.KeyByHash(ctx, t.tx, hash)
	return keyFrom(row), notFound(err, "key")
}

// TouchKeys records that key ids[i] was last used at usedAt[i], never moving
// a later last use backwards.
func (t KeysTx) TouchKeys(ctx context.Context, ids []uuid.UUID, usedAt []time.Time) (int64, error) {
	return t.q.TouchKeys(ctx, t.tx, db.TouchKeysParams{Ids: ids, UsedAt: usedAt})
}

// CountServers counts how many of ids are servers of the organization.
func (t KeysTx) CountServers(ctx context.Context, ids []uuid.UUID) (int64, error) {
	return t.q.CountServersIn(ctx, t.tx, ids)
}

func keyFrom(r db.ApiKey) Key {
	return Key{
		ID: r.ID, OrgID: r.OrganizationID, Hash: r.KeyHash, Name: r.Name, Scope: r.Scope,
		BoundAssetIDs: r.BoundAssetIds, CreatedBy: r.CreatedBy, CreatedAt: r.CreatedAt,
		ExpiresAt: r.ExpiresAt, LastUsedAt: r.LastUsedAt,
	}
}
