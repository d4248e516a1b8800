package httpapi

import (
	"context"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/store"
)

// tenant runs fn in a transaction that sees the caller's current
// organization only.
func (s *Server) tenant(ctx context.Context, fn func(*store.Tx, auth.Principal) error) error {
	p := principal(ctx)
	if p.OrgID == uuid.Nil {
		return noOrganization()
	}
	return s.store.WithTx(ctx, store.Scope{OrgID: p.OrgID, UserID: p.UserID}, func(tx *store.Tx) error {
		return fn(tx, p)
	})
}

// inTenant runs fn as tenant does and returns the value fn produced.
func inTenant[T any](ctx context.Context, s *Server, fn func(*store.Tx, auth.Principal) (T, error)) (T, error) {
	var v T
	err := s.tenant(ctx, func(tx *store.Tx, p auth.Principal) (err error) {
		v, err = fn(tx, p)
		return err
	})
	return v, err
}

// inServer runs fn on a locked server, then marks the server as changed.
// The lock serializes changes to one server, so its limits hold under
// concurrent requests.
func (s *Server) inServer(ctx context.Context, server uuid.UUID, fn func(*store.Tx, store.Counts) error) error {
	return s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) error {
		if _, err := tx.LockServer(ctx, server); err != nil {
			return err
		}
		counts, err := tx.CountChildren(ctx, server)
		if err != nil {
			return err
		}
		if err := fn(tx, counts); err != nil {
			return err
		}
		return tx.TouchServer(ctx, server)
	})
}

// changeServer runs fn as inServer does and returns the value fn produced.
func changeServer[T any](ctx context.Context, s *Server, server uuid.UUID, fn func(*store.Tx, store.Counts) (T, error)) (T, error) {
	var v T
	err := s.inServer(ctx, server, func(tx *store.Tx, c store.Counts) (err error) {
		v, err = fn(tx, c)
		return err
	})
	return v, err
}

// listOfServer reads the items a server owns (its tools, resources or
// prompts) with read, after checking the server is the organization's, and
// converts each with conv.
func listOfServer[T, A any](ctx context.Context, s *Server, server uuid.UUID,
	read func(*store.Tx, context.Context, uuid.UUID) ([]T, error), conv func(T) A) ([]A, error) {
	_, items, err := withParent(ctx, s, server, (*store.Tx).Server, func(tx *store.Tx, _ design.Server) ([]T, error) {
		return read(tx, ctx, server)
	})
	if err != nil {
		return nil, err
	}
	return mapEach(items, conv), nil
}

// mapEach converts each item of a slice.
func mapEach[T, A any](items []T, conv func(T) A) []A {
	out := make([]A, len(items))
	for i, v := range items {
		out[i] = conv(v)
	}
	return out
}

// addToServer checks v and creates it in a server, unless the server
// already holds max items of its kind (count tells how many it holds).
func addToServer[T any](ctx context.Context, s *Server, server uuid.UUID, v T, check func(T) error, kind string, max int,
	count func(store.Counts) int64, create func(*store.Tx, context.Context, T) (T, error)) (T, error) {
	if err := check(v); err != nil {
		return v, err
	}
	return changeServer(ctx, s, server, func(tx *store.Tx, c store.Counts) (T, error) {
		if count(c) >= int64(max) {
			return v, design.Limit(kind, max)
		}
		return create(tx, ctx, v)
	})
}

// serverItem is how an item of a server (a tool, a resource or a prompt)
// is read: by the server's id and its own.
type serverItem[T any] func(tx *store.Tx, ctx context.Context, server, id uuid.UUID) (T, error)

// itemOfServer reads the item id of a server with read.
func itemOfServer[T any](ctx context.Context, s *Server, server, id uuid.UUID, read serverItem[T]) (T, error) {
	return inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (T, error) {
		return read(tx, ctx, server, id)
	})
}

// editInServer reads the item id of a server, lets edit change it, checks
// it and writes it back, all on the locked server.
func editInServer[T any](ctx context.Context, s *Server, server, id uuid.UUID, read serverItem[T],
	edit func(*T) error, check func(T) error, write func(*store.Tx, context.Context, T) (T, error)) (T, error) {
	return changeServer(ctx, s, server, func(tx *store.Tx, _ store.Counts) (T, error) {
		v, err := read(tx, ctx, server, id)
		if err != nil {
			return v, err
		}
		if err := edit(&v); err != nil {
			return v, err
		}
		if err := check(v); err != nil {
			return v, err
		}
		return write(tx, ctx, v)
	})
}

// removeFromServer deletes the item id of a server with del.
func removeFromServer(ctx context.Context, s *Server, server, id uuid.UUID,
	del func(*store.Tx, context.Context, uuid.UUID, uuid.UUID) error) error {
	return s.inServer(ctx, server, func(tx *store.Tx, _ store.Counts) error {
		return del(tx, ctx, server, id)
	})
}

// byID reads the organization's item id with read.
func byID[T any](ctx context.Context, s *Server, id uuid.UUID, read func(*store.Tx, context.Context, uuid.UUID) (T, error)) (T, error) {
	return inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (T, error) {
		return read(tx, ctx, id)
	})
}

// removeByID deletes the organization's item id with del.
func removeByID(ctx context.Context, s *Server, id uuid.UUID, del func(*store.Tx, context.Context, uuid.UUID) error) error {
	return s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) error {
		return del(tx, ctx, id)
	})
}

// editLocked locks the organization's item id with lock, lets edit change
// (and check) it in the same transaction, and writes it back with write.
func editLocked[T any](ctx context.Context, s *Server, id uuid.UUID, lock func(*store.Tx, context.Context, uuid.UUID) (T, error),
	edit func(*store.Tx, *T) error, write func(*store.Tx, context.Context, T) (T, error)) (T, error) {
	return inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (T, error) {
		v, err := lock(tx, ctx, id)
		if err != nil {
			return v, err
		}
		if err := edit(tx, &v); err != nil {
			return v, err
		}
		return write(tx, ctx, v)
	})
}

// withParent reads the organization's item id with parent and then, in the
// same transaction, what child reads under it.
func withParent[P, C any](ctx context.Context, s *Server, id uuid.UUID, parent func(*store.Tx, context.Context, uuid.UUID) (P, error),
	child func(*store.Tx, P) (C, error)) (P, C, error) {
	var c C
	p, err := inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (P, error) {
		p, err := parent(tx, ctx, id)
		if err != nil {
			return p, err
		}
		c, err = child(tx, p)
		return p, err
	})
	return p, c, err
}
