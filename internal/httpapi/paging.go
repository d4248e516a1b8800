package httpapi

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// pageFunc reads up to limit items after the key (nil: from the start) and
// the key of the next page (nil: the last page).
type pageFunc[T any] func(tx *store.Tx, ctx context.Context, after *store.PageKey, limit int) ([]T, *store.PageKey, error)

// listPage reads one keyset page in the caller's organization: it decodes
// the request's cursor, applies the default limit, reads the page with
// read, converts each item with conv and encodes the next cursor.
func listPage[T, A any](ctx context.Context, s *Server, cursor *string, limit *int, def int,
	read pageFunc[T], conv func(T) A) ([]A, nullable.Nullable[string], error) {
	after, err := decodeCursor(deref(cursor))
	if err != nil {
		return nil, nullable.Nullable[string]{}, err
	}
	var (
		items []T
		next  *store.PageKey
	)
	err = s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) (err error) {
		items, next, err = read(tx, ctx, after, or(limit, def))
		return err
	})
	if err != nil {
		return nil, nullable.Nullable[string]{}, err
	}
	return mapEach(items, conv), cursorOf(next), nil
}

// pageUnder reads a page of what the organization's item parent holds
// (the runs of a test or of a suite), after reading the item with owner so
// that an item of another organization is not found.
func pageUnder[P, T any](parent uuid.UUID, owner func(*store.Tx, context.Context, uuid.UUID) (P, error),
	read func(*store.Tx, context.Context, uuid.UUID, *store.PageKey, int) ([]T, *store.PageKey, error)) pageFunc[T] {
	return func(tx *store.Tx, ctx context.Context, after *store.PageKey, limit int) ([]T, *store.PageKey, error) {
		if _, err := owner(tx, ctx, parent); err != nil {
			return nil, nil, err
		}
		return read(tx, ctx, parent, after, limit)
	}
}

// cursorOf is the cursor of the next page, null on the last one.
func cursorOf(next *store.PageKey) nullable.Nullable[string] {
	if next == nil {
		return nullableString(nil)
	}
	c := encodeCursor(*next)
	return nullableString(&c)
}

// Cursors are opaque to clients: base64url of "<unix nanos>:<id>".
func encodeCursor(k store.PageKey) string { return cursorText(k.CreatedAt, k.ID.String()) }

func decodeCursor(c string) (*store.PageKey, error) {
	at, id, err := readCursor(c, func(id string) bool { return uuid.Validate(id) == nil })
	if err != nil || id == "" {
		return nil, err
	}
	return &store.PageKey{CreatedAt: at, ID: uuid.MustParse(id)}, nil
}

// cursorText encodes the key of a page's first row: when the row was
// created and its id.
func cursorText(created time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(created.UnixNano(), 10) + ":" + id))
}

// readCursor decodes a cursor cursorText made, whose id valid accepts;
// "" reads as no cursor (a zero time and id).
func readCursor(c string, valid func(id string) bool) (time.Time, string, error) {
	if c == "" {
		return time.Time{}, "", nil
	}
	bad := failure.BadRequest("the cursor is invalid", failure.Field("cursor", "not a cursor this service returned"))
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return time.Time{}, "", bad
	}
	nanos, id, ok := strings.Cut(string(raw), ":")
	if !ok || !valid(id) {
		return time.Time{}, "", bad
	}
	n, err := strconv.ParseInt(nanos, 10, 64)
	if err != nil {
		return time.Time{}, "", bad
	}
	return time.Unix(0, n), id, nil
}
