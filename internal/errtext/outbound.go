// Package errtext turns errors that come from outside the service into
// short phrases fit to show the service's users: the errors of outbound
// requests (a forwarded MCP call, a REST API test run, an import, a client
// metadata document) and the errors of decoders that refused a document.
//
// Such errors are written for Go programmers and operators. Their text
// names what the user never gave and must not learn: the address a host
// name resolved to and its port ("dial tcp 10.0.3.7:443"), the resolver of
// the service's network, Go types and struct names ("json: cannot unmarshal
// number into Go struct field registration.redirect_uris of type string").
// Every phrase here is built from fixed words, status codes and the names
// of fields; nothing of an error's own text passes through, so nothing the
// network or the runtime wrote can leak. The errors themselves belong in
// logs.
package errtext

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/mockmcp/mockmcp/internal/outbound"
)

// Outbound says in a short phrase why a request to subject ("the upstream",
// "the server", "the target") failed: "the upstream could not be reached
// (connection refused)", "the upstream did not answer in time", "the
// upstream's TLS certificate was refused", "the upstream's address is not
// allowed (loopback addresses are refused)". It is "" for a nil err.
//
// To name the target, callers add Target of the URL the user configured.
func Outbound(subject string, err error) string {
	if err == nil {
		return ""
	}
	var (
		status  *outbound.StatusError
		resolve *outbound.ResolveError
		dns     *net.DNSError
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
		verify  *tls.CertificateVerificationError
		record  tls.RecordHeaderError
		alert   tls.AlertError
		netErr  net.Error
		opErr   *net.OpError
	)
	switch {
	case errors.Is(err, outbound.ErrForbiddenTarget):
		if reason := outbound.RefusalReason(err); reason != "" {
			return subject + "'s address is refused: " + reason + " are not allowed"
		}
		return subject + "'s address is not allowed"
	case errors.As(err, &status):
		return subject + " answered HTTP " + strconv.Itoa(status.Code) + statusText(status.Code)
	case errors.Is(err, outbound.ErrBodyTooLarge):
		return subject + "'s answer is larger than the service accepts"
	case errors.Is(err, outbound.ErrTooManyRedirects):
		return subject + " redirected too many times"
	case errors.Is(err, outbound.ErrRedirectScheme):
		return subject + " redirected to a scheme other than http or https"
	case errors.As(err, &resolve), errors.As(err, &dns):
		return subject + "'s host name could not be resolved"
	case errors.As(err, &unknown), errors.As(err, &host), errors.As(err, &invalid), errors.As(err, &verify):
		return subject + "'s TLS certificate was refused" + certificateWhy(err)
	case errors.As(err, &record), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		// net/http reports the second case as a plain error.
		return subject + " did not answer in TLS (is the URL meant to be http://?)"
	case errors.As(err, &alert):
		return subject + " refused the TLS handshake"
	case errors.Is(err, context.Canceled):
		return "the request to " + subject + " was cancelled"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout():
		return subject + " did not answer in time"
	case errors.Is(err, syscall.ECONNREFUSED):
		return subject + " could not be reached (connection refused)"
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return subject + " could not be reached (no route to its host)"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return subject + " closed the connection before it answered"
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return subject + " could not be reached"
	case errors.As(err, &opErr):
		return subject + "'s connection failed"
	}
	return "the request to " + subject + " failed"
}

// statusText is " Not Found" for 404: the standard phrase, never the one
// the target sent.
func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return " " + t
	}
	return ""
}

// certificateWhy says, in parentheses, why a certificate was refused.
func certificateWhy(err error) string {
	var (
		unknown x509.UnknownAuthorityError
		host    x509.HostnameError
		invalid x509.CertificateInvalidError
	)
	switch {
	case errors.As(err, &unknown):
		return " (signed by an unknown authority)"
	case errors.As(err, &host):
		return " (issued for another host name)"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return " (expired or not yet valid)"
	}
	return ""
}

// Target is the scheme://host[:port] of a URL as the user configured it,
// for messages that name the target: never a path or a query (either may
// hold a key), never the address the host resolved to. It is "" for text
// that is not an absolute URL.
func Target(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return u.Scheme + "://" + u.Host
}
