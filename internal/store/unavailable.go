package store

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// unreachable reports whether err says the database cannot be reached (or
// stopped answering) rather than that it refused the statement: the
// request may succeed once the connection is back, so the caller is told
// 503, not 500.
func unreachable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch code := pgErr.Code; {
		case strings.HasPrefix(code, "08"): // connection_exception
			return true
		case code == "57P01", code == "57P02", code == "57P03": // admin_shutdown, crash_shutdown, cannot_connect_now
			return true
		case code == "53300": // too_many_connections
			return true
		}
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.As(err, &connectErr), errors.As(err, &netErr):
		return true
	case errors.Is(err, pgconn.ErrConnClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return true
	case pgconn.Timeout(err), errors.Is(err, context.DeadlineExceeded):
		// A pool that cannot hand out a connection in time, or a
		// statement cut off by its deadline.
		return true
	}
	return false
}
