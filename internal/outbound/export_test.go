package outbound

import (
	"net/http"
	"net/netip"
	"net/url"
)

// WithAllowAddr returns o with a test-only exception to the address
// policy: every server a test can start is on loopback, so proving that a
// redirect to a forbidden address is refused needs one allowed loopback
// port to redirect from.
func WithAllowAddr(o Options, allow func(netip.AddrPort) bool) Options {
	o.allowAddr = allow
	return o
}

// ProxyOf returns the proxy function of c's network transport.
func ProxyOf(c *http.Client) func(*http.Request) (*url.URL, error) {
	return c.Transport.(*router).network.Proxy
}

// LeavesSite exposes leavesSite, whose https-to-http case needs a TLS
// target the client would trust to be exercised end to end.
var LeavesSite = leavesSite
