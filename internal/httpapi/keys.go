package httpapi

import (
	"context"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/keys"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ListKeys lists the organization's keys; never a raw key or a hash.
func (s *Server) ListKeys(ctx context.Context, _ api.ListKeysRequestObject) (api.ListKeysResponseObject, error) {
	ks, err := inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) ([]store.Key, error) {
		return tx.Keys(ctx)
	})
	if err != nil {
		return nil, err
	}
	return api.ListKeys200JSONResponse{Items: mapEach(ks, apiKey)}, nil
}

// CreateKey mints a key: full scope, or policy scope bound to servers.
func (s *Server) CreateKey(ctx context.Context, req api.CreateKeyRequestObject) (api.CreateKeyResponseObject, error) {
	b := req.Body
	n := keys.NewKey{Name: b.Name, ExpiresAt: b.ExpiresAt, BoundField: "bound_server_ids"}
	if b.BoundServerId != nil {
		n.Bound = append(n.Bound, *b.BoundServerId)
		n.BoundField = "bound_server_id"
	}
	if b.BoundServerIds != nil {
		n.Bound = append(n.Bound, *b.BoundServerIds...)
		n.BoundField = "bound_server_ids"
	}
	var (
		k   store.Key
		raw string
	)
	err := s.tenant(ctx, func(tx *store.Tx, p auth.Principal) (err error) {
		n.CreatedBy = p.Actor()
		k, raw, err = keys.Create(ctx, tx, n)
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.CreateKey201JSONResponse{Key: apiKey(k), RawKey: raw}, nil
}

// DeleteKey revokes a key: its row is removed, and every instance drops it.
func (s *Server) DeleteKey(ctx context.Context, req api.DeleteKeyRequestObject) (api.DeleteKeyResponseObject, error) {
	if err := removeByID(ctx, s, req.KeyId, (*store.Tx).DeleteKey); err != nil {
		return nil, err
	}
	// The row is gone: this instance stops trusting its cached check before
	// answering; the others follow on the change notification.
	s.keys.Revoked(req.KeyId)
	return api.DeleteKey204Response{}, nil
}

func apiKey(k store.Key) api.ApiKey {
	bound := k.BoundAssetIDs
	if bound == nil {
		bound = []uuid.UUID{}
	}
	return api.ApiKey{
		Id: k.ID, Name: k.Name, Scope: api.ApiKeyScope(k.Scope), BoundAssetIds: bound, CreatedBy: k.CreatedBy,
		CreatedAt: k.CreatedAt.UTC(), ExpiresAt: nullableTime(k.ExpiresAt), LastUsedAt: nullableTime(k.LastUsedAt),
	}
}
