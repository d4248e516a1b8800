package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"github.com/mockmcp/mockmcp/internal/errtext"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/problem"
)

// Problem is an RFC 9457 problem document.
type Problem = problem.Problem

// statusOf is the one table from failure kinds to HTTP statuses.
var statusOf = map[failure.Kind]int{
	failure.KindInvalid:      http.StatusUnprocessableEntity,
	failure.KindBadRequest:   http.StatusBadRequest,
	failure.KindUnauthorized: http.StatusUnauthorized,
	failure.KindForbidden:    http.StatusForbidden,
	failure.KindNotFound:     http.StatusNotFound,
	failure.KindConflict:     http.StatusConflict,
	failure.KindTooLarge:     http.StatusRequestEntityTooLarge,
	failure.KindTooMany:      http.StatusTooManyRequests,
	failure.KindUnavailable:  http.StatusServiceUnavailable,
}

// problemFor converts any error into the problem the caller sees. Failures
// keep their detail; echo's own HTTP errors keep their status; anything else
// is a fault of ours, reported as a generic 500.
func problemFor(err error) (Problem, bool) {
	if f, ok := failure.As(err); ok {
		status := statusOf[f.Kind]
		detail := f.Detail
		if detail == "" {
			detail = http.StatusText(status)
		}
		return Problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: errtext.Text(detail),
			Errors: plainFields(f.Fields)}, true
	}
	var he *echo.HTTPError
	if errors.As(err, &he) && he.Code < 500 {
		detail := http.StatusText(he.Code)
		if m, ok := he.Message.(string); ok {
			detail = errtext.Text(m)
		}
		return Problem{Type: "about:blank", Title: http.StatusText(he.Code), Status: he.Code, Detail: detail}, true
	}
	return Problem{Type: "about:blank", Title: http.StatusText(500), Status: 500,
		Detail: "the service failed to handle the request; quote the request id when reporting it"}, false
}

// plainFields are fields whose messages errtext.Text passed: a handler
// that quoted a decoder's or the network's error shows the caller the
// field in JSON's words, never Go's or an address the service dialed.
func plainFields(fields []failure.FieldError) []failure.FieldError {
	var out []failure.FieldError // a copy, once one message changes
	for i, f := range fields {
		if msg := errtext.Text(f.Message); msg != f.Message {
			if out == nil {
				out = slices.Clone(fields)
			}
			out[i].Message = msg
		}
	}
	if out == nil {
		return fields
	}
	return out
}

// writeProblem writes p as application/problem+json; a 405 names the
// methods of the REST routes unless the route named its own.
func writeProblem(w http.ResponseWriter, p Problem) {
	if h := w.Header(); p.Status == http.StatusMethodNotAllowed && h.Get("Allow") == "" {
		h.Set("Allow", "GET, POST, PUT, PATCH, DELETE")
	}
	problem.Write(w, p)
}

// errorHandler is echo's HTTPErrorHandler: every error a handler or
// middleware returns ends here, once.
func errorHandler(log *slog.Logger) echo.HTTPErrorHandler {
	return func(err error, c echo.Context) {
		if c.Response().Committed {
			return
		}
		p, known := problemFor(err)
		p.RequestID = requestID(c.Request().Context())
		if p.Status == http.StatusServiceUnavailable {
			log.WarnContext(c.Request().Context(), "database unavailable", "request_id", p.RequestID,
				"method", c.Request().Method, "path", c.Path(), "error", causeOf(err))
		}
		if !known {
			log.ErrorContext(c.Request().Context(), "request failed", "request_id", p.RequestID,
				"method", c.Request().Method, "path", c.Path(), "error", err.Error())
		}
		writeProblem(c.Response(), p)
	}
}

// causeOf is the error behind a failure (what made the database
// unreachable), for logs.
func causeOf(err error) string {
	if f, ok := failure.As(err); ok && errors.Unwrap(f) != nil {
		return errors.Unwrap(f).Error()
	}
	return err.Error()
}
