// Package failure is the service's error vocabulary: the few kinds of failure
// a caller can be told about. Handlers and stores return these; the HTTP layer
// maps each kind to one status and an RFC 9457 problem document in one table.
// Any other error is a fault of the service and reaches the caller only as a
// generic 500.
package failure

import (
	"errors"
	"fmt"
)

// Kind classifies a failure for the caller.
type Kind int

// The kinds of failure, each answered with one HTTP status.
const (
	KindInvalid      Kind = iota + 1 // 422: the input is well-formed but wrong
	KindBadRequest                   // 400: the input cannot be read
	KindUnauthorized                 // 401: no valid credentials
	KindForbidden                    // 403: credentials valid, action not allowed
	KindNotFound                     // 404: nothing of that id visible to the caller
	KindConflict                     // 409: clashes with existing data
	KindTooLarge                     // 413: the body exceeds the limit
	KindTooMany                      // 429: over the rate limit
	KindUnavailable                  // 503: the database cannot be reached
)

// RetryAfterUnavailable is how many seconds a caller refused with an
// unavailable failure is told to wait (Retry-After): about as long as the
// service takes to notice that the database is back.
const RetryAfterUnavailable = 5

// FieldError names one input field at fault, as a JSON path into the request
// (`mock_scenarios[1].condition.operator`) or a parameter name.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// Error is a failure the caller may see: its Detail is written for them.
type Error struct {
	Kind   Kind
	Detail string
	Fields []FieldError
	// cause is the error behind an unavailable failure, for logs only: it
	// may name internal addresses, so Error never includes it.
	cause error
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return e.Detail
	}
	return fmt.Sprintf("%s: %s: %s", e.Detail, e.Fields[0].Field, e.Fields[0].Message)
}

// Unwrap returns the error behind the failure, if any, for logs.
func (e *Error) Unwrap() error { return e.cause }

// Is reports whether target is a failure of the same kind, so that
// errors.Is(err, failure.ErrNotFound) works for any not-found failure.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind && t.Detail == "" && t.Fields == nil
}

// Sentinels for errors.Is; they carry no detail of their own.
var (
	ErrInvalid      = &Error{Kind: KindInvalid}
	ErrNotFound     = &Error{Kind: KindNotFound}
	ErrConflict     = &Error{Kind: KindConflict}
	ErrForbidden    = &Error{Kind: KindForbidden}
	ErrUnauthorized = &Error{Kind: KindUnauthorized}
	ErrUnavailable  = &Error{Kind: KindUnavailable}
)

// NotFound reports that no object called what (e.g. "server") is visible.
func NotFound(what string) *Error {
	return &Error{Kind: KindNotFound, Detail: what + " not found"}
}

// Conflict reports a clash with existing data.
func Conflict(format string, args ...any) *Error {
	return &Error{Kind: KindConflict, Detail: fmt.Sprintf(format, args...)}
}

// Forbidden reports an action the caller may not take.
func Forbidden(detail string) *Error {
	return &Error{Kind: KindForbidden, Detail: detail}
}

// Unauthorized reports missing or invalid credentials.
func Unauthorized(detail string) *Error {
	return &Error{Kind: KindUnauthorized, Detail: detail}
}

// BadRequest reports input that cannot be read at all.
func BadRequest(detail string, fields ...FieldError) *Error {
	return &Error{Kind: KindBadRequest, Detail: detail, Fields: fields}
}

// TooLarge reports a body over the size limit.
func TooLarge(limit int64) *Error {
	return &Error{Kind: KindTooLarge, Detail: fmt.Sprintf("request body exceeds %d bytes", limit)}
}

// TooMany reports a request over its rate limit.
func TooMany(retryAfter int64) *Error {
	return &Error{Kind: KindTooMany, Detail: fmt.Sprintf("rate limit exceeded: retry after %d seconds", retryAfter)}
}

// Unavailable reports that the database cannot be reached, because of
// cause: the request may succeed if tried again shortly.
func Unavailable(cause error) *Error {
	return &Error{Kind: KindUnavailable, Detail: "the database cannot be reached; try again shortly", cause: cause}
}

// Invalid reports every field at fault at once.
func Invalid(fields ...FieldError) *Error {
	return &Error{Kind: KindInvalid, Detail: "the request is invalid", Fields: fields}
}

// Field is shorthand for one FieldError.
func Field(field, format string, args ...any) FieldError {
	return FieldError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// Fields collects field errors and turns them into one Invalid failure.
type Fields []FieldError

// Add records a problem with field.
func (f *Fields) Add(field, format string, args ...any) {
	*f = append(*f, Field(field, format, args...))
}

// Err returns nil when nothing was recorded, else an Invalid failure.
func (f Fields) Err() error {
	if len(f) == 0 {
		return nil
	}
	return Invalid(f...)
}

// As returns err as a *Error when it is (or wraps) one.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Is reports whether err is a failure of the same kind as target.
func Is(err error, target *Error) bool { return errors.Is(err, target) }
