package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// The exit statuses of every command, so that scripts can tell a failed
// check from a mistyped command line from a service that is not there.
const (
	exitOK          = 0 // success
	exitFailed      = 1 // a check failed (failed tests), or any other error
	exitUsage       = 2 // unknown command or flag, missing or malformed argument
	exitUnreachable = 3 // the service, its database or another dependency could not be reached
)

// exitCode is the exit status for the error a command returned.
func exitCode(err error) int {
	var (
		usage   usageError
		unreach unreachableError
	)
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &usage):
		return exitUsage
	case errors.As(err, &unreach), unreachable(err):
		return exitUnreachable
	}
	return exitFailed
}

// usageError is a command line that cannot be run as written.
type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

// usagef is a usageError with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// unreachableError is an answer of the service saying that something
// beyond it could not be reached (the live server of a drift check).
type unreachableError struct{ error }

func (e unreachableError) Unwrap() error { return e.error }

// unreachable reports whether err says that something could not be
// reached, as opposed to having answered with a refusal: a refused or
// reset connection, a failed DNS lookup, a timed-out dial, a database the
// service reports unavailable (503).
func unreachable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// The database answered: a wrong password or a missing role is
		// not an outage.
		return false
	}
	var (
		opErr  *net.OpError
		dnsErr *net.DNSError
		apiErr *apiError
	)
	switch {
	case errors.As(err, &apiErr):
		return apiErr.Status == http.StatusServiceUnavailable || apiErr.Status == http.StatusBadGateway ||
			apiErr.Status == http.StatusGatewayTimeout
	case errors.As(err, &opErr), errors.As(err, &dnsErr):
		return true
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET):
		return true
	}
	return failure.Is(err, failure.ErrUnavailable)
}

// loggedError is an error already written to the JSON log, which main does
// not print again: the stderr of a serving instance holds JSON lines only.
type loggedError struct{ error }

func (e loggedError) Unwrap() error { return e.error }
