package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
)

func TestMapErrorUnreachable(t *testing.T) {
	for name, tc := range map[string]struct {
		err         error
		unavailable bool
	}{
		"admin shutdown":         {&pgconn.PgError{Code: "57P01"}, true},
		"crash shutdown":         {&pgconn.PgError{Code: "57P02"}, true},
		"cannot connect now":     {&pgconn.PgError{Code: "57P03"}, true},
		"connection failure":     {fmt.Errorf("begin: %w", &pgconn.PgError{Code: "08006"}), true},
		"too many connections":   {&pgconn.PgError{Code: "53300"}, true},
		"refused":                {&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		"reset":                  {fmt.Errorf("commit: %w", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), true},
		"eof":                    {fmt.Errorf("receive message: %w", io.ErrUnexpectedEOF), true},
		"closed":                 {fmt.Errorf("query: %w", pgconn.ErrConnClosed), true},
		"acquire timeout":        {context.DeadlineExceeded, true},
		"unique violation":       {&pgconn.PgError{Code: "23505"}, false},
		"undefined table":        {&pgconn.PgError{Code: "42P01"}, false},
		"query canceled":         {&pgconn.PgError{Code: "57014"}, false},
		"caller went away":       {context.Canceled, false},
		"anything else":          {errors.New("boom"), false},
		"a failure passes as is": {failure.NotFound("server"), false},
	} {
		t.Run(name, func(t *testing.T) {
			got := mapError(tc.err)
			require.Equal(t, tc.unavailable, failure.Is(got, failure.ErrUnavailable), "%v", got)
			if tc.unavailable {
				require.ErrorIs(t, got, tc.err, "the cause is kept for logs")
				f, _ := failure.As(got)
				require.Equal(t, "the database cannot be reached; try again shortly", f.Error())
			}
		})
	}
}
