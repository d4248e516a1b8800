// Package clientip finds the address a request came from. X-Forwarded-For
// is believed only when the connection comes from a trusted proxy, and then
// only as far back as the chain of trusted proxies reaches: the first
// address, from the right, that is not a trusted proxy is the client.
package clientip

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Resolver resolves client addresses with a fixed set of trusted proxies.
type Resolver struct {
	trusted []netip.Prefix
}

// New returns a Resolver that trusts X-Forwarded-For from the given
// networks; with none it always answers the connection's peer address.
func New(trusted []netip.Prefix) *Resolver {
	return &Resolver{trusted: trusted}
}

// Of returns the client address of r, or the zero Addr when the peer
// address cannot be parsed.
func (res *Resolver) Of(r *http.Request) netip.Addr {
	peer := peerAddr(r.RemoteAddr)
	if !peer.IsValid() || !res.isTrusted(peer) {
		return peer
	}
	hops := r.Header.Values("X-Forwarded-For")
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		parts := strings.Split(hops[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.TrimSpace(parts[j]))
			if err != nil {
				// A hop we cannot read: the trusted chain ends with the
				// last address we could.
				return client
			}
			client = a.Unmap()
			if !res.isTrusted(client) {
				return client
			}
		}
	}
	return client
}

func (res *Resolver) isTrusted(a netip.Addr) bool {
	for _, p := range res.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

func peerAddr(remote string) netip.Addr {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	return a.Unmap()
}

// Origin is the scheme://host the request came in at (https when it came
// over TLS).
func Origin(r *http.Request) string {
	if r.TLS != nil {
		return "https://" + r.Host
	}
	return "http://" + r.Host
}
