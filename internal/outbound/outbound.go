// Package outbound is the one way the service makes HTTP requests to targets
// its users choose: REST API test runs, exploratory sessions, imports. Such
// requests are a server-side request forgery (SSRF) risk: a user could aim
// them at the service's own surroundings (its database, the cloud metadata
// endpoint, an admin port on loopback). So the client made here refuses
// loopback, private, link-local and other non-public addresses unless
// ALLOW_PRIVATE_TARGETS is set.
//
// The check runs on the exact address each connection is about to be made
// to, after DNS resolution and for every redirect alike, from the dialer's
// Control hook. Checking a URL's host before the request would not do: the
// name could resolve to a public address for the check and to a private one
// for the connection (DNS rebinding), and a redirect could point anywhere.
//
// The client also bounds what one request may cost: its time, its redirects
// and the response body it keeps.
package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mockmcp/mockmcp/internal/credential"
)

// DefaultTimeout bounds a whole request, redirects and body read included,
// when Options.Timeout is not set.
const DefaultTimeout = 10 * time.Second

// DefaultMaxBody is the response body size kept when Options.MaxBody is not
// set, and the limit ReadBody applies when given none.
const DefaultMaxBody int64 = 1 << 20

// DefaultMaxRedirects is how many redirects a request follows when
// Options.MaxRedirects is not set.
const DefaultMaxRedirects = 10

const (
	// dialTimeout is shorter than the request timeout so that a target
	// that does not answer reports a connect error, not a request timeout.
	dialTimeout = 5 * time.Second
	// maxHeaderBytes bounds response headers: a target could otherwise send
	// megabytes of them before the body limit applies.
	maxHeaderBytes = 64 << 10
)

// Options configures NewClient. The zero value is the production policy:
// public targets only, with the default limits.
type Options struct {
	// AllowPrivate lifts the address policy (ALLOW_PRIVATE_TARGETS), for
	// development and for deployments whose users are trusted with the
	// internal network.
	AllowPrivate bool
	// Timeout bounds a whole request: connecting, redirects and reading the
	// body. Zero or less means DefaultTimeout.
	Timeout time.Duration
	// MaxBody is how many bytes of a response body can be read: a read past
	// it fails with ErrBodyTooLarge, so a caller that reads everything (a
	// library decoding the body, say) cannot be made to hold an unbounded
	// amount. ReadBody keeps a truncated prefix instead of failing. Zero
	// means DefaultMaxBody; negative means no limit, for callers that
	// consume long streams and bound them themselves.
	MaxBody int64
	// MaxRedirects is how many redirects a request follows before it fails.
	// Zero means DefaultMaxRedirects; negative means none are followed and
	// the redirect response itself is returned, as a tester asserting on a
	// 3xx needs.
	MaxRedirects int
	// Local, with LocalOrigins, serves requests to the service's own
	// origins in process instead of over the network: a test of a mock
	// server hosted by this very service never leaves the process, so it
	// works behind any network setup and needs no private-address
	// exception. The handler sees the request as a server would, with
	// RemoteAddr 127.0.0.1:0, without the forwarding headers
	// (X-Forwarded-*, X-Real-Ip, Forwarded) the request carried, so that a
	// trusted proxy on loopback cannot be impersonated.
	// Redirects out of a local origin go through the address policy like
	// any other request.
	Local http.Handler
	// LocalOrigins lists the scheme://host[:port] origins Local serves
	// (paths are ignored; the comparison ignores case and default ports).
	// Entries that are not absolute http or https URLs match nothing.
	LocalOrigins []string
	// Kind is what the requests are for, one of Kinds ("other" when
	// empty or unknown), as they are counted (Count).
	Kind string

	// allowAddr, when it reports true, lets a connection to an address the
	// policy forbids through. Only tests set it (see export_test.go): every
	// server a test can start is on loopback, so telling an allowed target
	// from a forbidden one takes an exception for one port.
	allowAddr func(netip.AddrPort) bool
}

// NewClient returns the HTTP client for outbound requests, enforcing o. It
// never uses a proxy from the environment: the proxy would make the
// connection on our behalf and the address check would see only the proxy.
func NewClient(o Options) *http.Client {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxBody == 0 {
		o.MaxBody = DefaultMaxBody
	}
	if o.MaxRedirects == 0 {
		o.MaxRedirects = DefaultMaxRedirects
	}
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: 30 * time.Second}
	if !o.AllowPrivate {
		dialer.Control = guard(o.allowAddr)
	}
	rt := &router{
		network: &http.Transport{
			Proxy:                  nil,
			DialContext:            dialNamingHost(dialer),
			ForceAttemptHTTP2:      true,
			MaxIdleConns:           100,
			IdleConnTimeout:        90 * time.Second,
			TLSHandshakeTimeout:    min(dialTimeout, o.Timeout),
			ExpectContinueTimeout:  time.Second,
			ResponseHeaderTimeout:  o.Timeout,
			MaxResponseHeaderBytes: maxHeaderBytes,
		},
		maxBody: o.MaxBody,
		counts:  &counts[kindIndex(o.Kind)],
	}
	if o.Local != nil {
		rt.origins = make(map[string]bool)
		for _, s := range o.LocalOrigins {
			if u, err := url.Parse(s); err == nil && origin(u) != "" {
				rt.origins[origin(u)] = true
			}
		}
		if len(rt.origins) > 0 {
			rt.local = newLocalTransport(o.Local)
		}
	}
	return &http.Client{
		Transport:     rt,
		Timeout:       o.Timeout,
		CheckRedirect: checkRedirect(o.MaxRedirects),
	}
}

// Kinds are what outbound requests are made for: REST API test runs
// (tests and suites), exploratory sessions, OpenAPI and MCP imports, calls
// forwarded to designs' upstreams.
var Kinds = [...]string{"test_run", "session", "openapi_import", "mcp_import", "upstream", "other"}

// Outcomes are how an outbound request (each redirect followed is one)
// ended: an answer of any status, refused by the address policy, or failed
// (the name did not resolve, the connection or the time ran out).
var Outcomes = [...]string{"response", "forbidden", "error"}

// counts are the requests made in this process, by kind and outcome.
var counts [len(Kinds)][len(Outcomes)]atomic.Uint64

func kindIndex(kind string) int {
	for i, k := range Kinds {
		if k == kind {
			return i
		}
	}
	return len(Kinds) - 1
}

// Count reports how many requests of kind (one of Kinds) ended with
// outcome (one of Outcomes) in this process.
func Count(kind, outcome string) uint64 {
	for o, name := range Outcomes {
		if name == outcome {
			return counts[kindIndex(kind)][o].Load()
		}
	}
	return 0
}

// router sends each request either to the in-process handler or over the
// guarded network, and caps every response body on the way back.
type router struct {
	network *http.Transport
	local   *http.Transport // nil without local origins
	origins map[string]bool
	maxBody int64
	counts  *[len(Outcomes)]atomic.Uint64
}

func (rt *router) RoundTrip(req *http.Request) (*http.Response, error) {
	next := rt.network
	if rt.local != nil && rt.origins[origin(req.URL)] {
		next = rt.local
	}
	resp, err := next.RoundTrip(req)
	switch {
	case err == nil:
		rt.counts[0].Add(1)
	case errors.Is(err, ErrForbiddenTarget):
		rt.counts[1].Add(1)
	default:
		rt.counts[2].Add(1)
	}
	if err != nil || rt.maxBody < 0 {
		return resp, err
	}
	resp.Body = &cappedBody{rc: resp.Body, left: rt.maxBody, limit: rt.maxBody}
	return resp, nil
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the
// network transport's pool.
func (rt *router) CloseIdleConnections() {
	rt.network.CloseIdleConnections()
	if rt.local != nil {
		rt.local.CloseIdleConnections()
	}
}

// origin returns u's lowercased scheme://host:port with the default port
// spelled out, so that equivalent spellings of an origin compare equal, or
// "" when u is not an absolute http or https URL.
func origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	port := u.Port()
	if host == "" {
		return ""
	}
	switch {
	case scheme != "http" && scheme != "https":
		return ""
	case port == "" && scheme == "http":
		port = "80"
	case port == "":
		port = "443"
	}
	return scheme + "://" + net.JoinHostPort(host, port)
}

// ResolveError is a host name that could not be resolved. Its message
// names the host and not the resolver, whose address belongs to the
// service's own network; the DNS error stays reachable with errors.As.
type ResolveError struct {
	Host string
	err  *net.DNSError
}

func (e *ResolveError) Error() string { return "the host name could not be resolved: " + e.Host }

func (e *ResolveError) Unwrap() error { return e.err }

// dialNamingHost dials through d, turning a failed name resolution into a
// ResolveError.
func dialNamingHost(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		var dnsErr *net.DNSError
		if err != nil && errors.As(err, &dnsErr) {
			return nil, &ResolveError{Host: dnsErr.Name, err: dnsErr}
		}
		return c, err
	}
}

// Redirects the client refuses to follow fail with these (test with
// errors.Is).
var (
	ErrTooManyRedirects = errors.New("outbound: too many redirects")
	ErrRedirectScheme   = errors.New("outbound: refused redirect: only http and https are allowed")
)

// checkRedirect returns the client's redirect policy: at most limit
// redirects (none, returning the 3xx itself, when limit is negative), only to
// http and https, and without credentials once a redirect has left the first
// request's site. The address policy needs nothing here: each redirect dials
// through the same guard.
func checkRedirect(limit int) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if limit < 0 {
			return http.ErrUseLastResponse
		}
		if len(via) > limit {
			return fmt.Errorf("%w: stopped after %d redirects", ErrTooManyRedirects, limit)
		}
		if s := req.URL.Scheme; s != "http" && s != "https" {
			return fmt.Errorf("%w, not %q", ErrRedirectScheme, s)
		}
		first := via[0]
		leaked := leavesSite(first.URL, req.URL)
		for _, hop := range via[1:] {
			leaked = leaked || leavesSite(first.URL, hop.URL)
		}
		if leaked {
			for name := range req.Header {
				if credential.Is(name) {
					delete(req.Header, name)
				}
			}
		}
		// The client adds a Referer naming the previous URL, query string
		// (and any key in it) included, for whichever host the redirect
		// chose. Keep only a Referer the caller set.
		if ref := first.Header.Values("Referer"); len(ref) > 0 && !leaked {
			req.Header["Referer"] = ref
		} else {
			req.Header.Del("Referer")
		}
		return nil
	}
}

// leavesSite reports whether credentials meant for from must not be sent to
// to: to is neither from's host nor one of its subdomains (the rule by which
// net/http drops Authorization and Cookie), or the redirect downgrades
// https to http, which would send them in clear text.
func leavesSite(from, to *url.URL) bool {
	if from.Scheme == "https" && to.Scheme == "http" {
		return true
	}
	parent := strings.ToLower(from.Hostname())
	sub := strings.ToLower(to.Hostname())
	if sub == parent {
		return false
	}
	if strings.ContainsAny(sub, ":%") { // an IPv6 address is nobody's subdomain
		return true
	}
	return !strings.HasSuffix(sub, "."+parent)
}
