package store

import (
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// Query results become domain values here: found converts the row of a
// single-row query, each the rows of a list, pageOf the rows of a keyset
// page. Each takes a query's two results as they come, so a read is one line:
//
//	return found("tool", toolFrom)(t.q.GetTool(ctx, t.tx, params))

// found converts the row a single-row query read; no row becomes a
// not-found failure naming what.
func found[R, T any](what string, conv func(R) (T, error)) func(R, error) (T, error) {
	return func(row R, err error) (T, error) {
		if err != nil {
			var zero T
			return zero, notFound(err, what)
		}
		return conv(row)
	}
}

// converted converts the row a write returned.
func converted[R, T any](conv func(R) (T, error)) func(R, error) (T, error) {
	return func(row R, err error) (T, error) {
		if err != nil {
			var zero T
			return zero, err
		}
		return conv(row)
	}
}

// removed checks the count of rows a delete removed: none becomes a
// not-found failure naming what.
func removed(what string) func(int64, error) error {
	return func(n int64, err error) error {
		if err == nil && n == 0 {
			return failure.NotFound(what)
		}
		return err
	}
}

// each converts every row a list query read.
func each[R, T any](conv func(R) (T, error)) func([]R, error) ([]T, error) {
	return func(rows []R, err error) ([]T, error) {
		if err != nil {
			return nil, err
		}
		out := make([]T, len(rows))
		for i, r := range rows {
			if out[i], err = conv(r); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// pageOf converts the rows a keyset query read with limit+1 into one page,
// as page does.
func pageOf[R, T any](limit int, key func(R) PageKey, conv func(R) (T, error)) func([]R, error) ([]T, *PageKey, error) {
	return func(rows []R, err error) ([]T, *PageKey, error) {
		if err != nil {
			return nil, nil, err
		}
		return page(rows, limit, key, conv)
	}
}

// page cuts rows fetched with limit+1 to one page, converting each, and
// returns the position after the last one when more rows follow.
func page[R, T any](rows []R, limit int, key func(R) PageKey, conv func(R) (T, error)) ([]T, *PageKey, error) {
	var next *PageKey
	if len(rows) > limit {
		rows = rows[:limit]
		k := key(rows[limit-1])
		next = &k
	}
	out := make([]T, len(rows))
	for i, r := range rows {
		var err error
		if out[i], err = conv(r); err != nil {
			return nil, nil, err
		}
	}
	return out, next, nil
}

// infallible adapts a conversion that cannot fail to page.
func infallible[R, T any](f func(R) T) func(R) (T, error) {
	return func(r R) (T, error) { return f(r), nil }
}

// pageParams turns a page position into the listing queries' parameters.
func pageParams(after *PageKey) (*time.Time, uuid.NullUUID) {
	if after == nil {
		return nil, uuid.NullUUID{}
	}
	return &after.CreatedAt, uuid.NullUUID{UUID: after.ID, Valid: true}
}
