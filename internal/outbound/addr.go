package outbound

import (
	"errors"
	"fmt"
	"net/netip"
	"syscall"
)

// ErrForbiddenTarget is what a request refused by the address policy fails
// with (test it with errors.Is); the error itself names the address and why,
// for example "outbound: refused 127.0.0.1:8080: loopback addresses are not
// allowed (set ALLOW_PRIVATE_TARGETS=true to allow private targets)".
var ErrForbiddenTarget = errors.New("outbound: target address not allowed")

// forbiddenError is a refusal of one address; it is unexported because its
// message is all a caller needs beyond errors.Is(err, ErrForbiddenTarget).
type forbiddenError struct {
	addr   string
	reason string
}

func (e *forbiddenError) Error() string {
	return fmt.Sprintf("outbound: refused %s: %s are not allowed (set ALLOW_PRIVATE_TARGETS=true to allow private targets)", e.addr, e.reason)
}

func (e *forbiddenError) Unwrap() error { return ErrForbiddenTarget }

// RefusalReason is why the address policy refused err's target, as a plural
// noun phrase ("loopback addresses"), without the address itself: the
// address is what the target's name resolved to, which belongs to the
// service's network, not to the user. It is "" when err is no refusal.
func RefusalReason(err error) string {
	var fe *forbiddenError
	if errors.As(err, &fe) {
		return fe.reason
	}
	return ""
}

// guard returns the dialer's Control hook. The dialer calls it after DNS
// resolution, with the literal address it is about to connect to, for
// every connection (each address a name resolves to, each redirect), so
// nothing can swap the address between the check and the connect.
func guard(allow func(netip.AddrPort) bool) func(network, address string, c syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			// Cannot happen with the net package's dialer, which passes
			// ip:port; refuse rather than connect somewhere unchecked.
			return &forbiddenError{addr: address, reason: "unparsable addresses"}
		}
		if allow != nil && allow(ap) {
			return nil
		}
		if reason, forbidden := IsForbiddenAddr(ap.Addr()); forbidden {
			return &forbiddenError{addr: ap.String(), reason: reason}
		}
		return nil
	}
}

// special is a range of addresses the policy refuses, and why.
type special struct {
	prefix netip.Prefix
	reason string
}

func ranges(reason string, prefixes ...string) []special {
	out := make([]special, len(prefixes))
	for i, p := range prefixes {
		out[i] = special{netip.MustParsePrefix(p), reason}
	}
	return out
}

// metadata lists cloud instance metadata endpoints, which hand out
// credentials: they fall in refused ranges anyway, but the error should say
// what the target was.
var metadata = ranges("cloud metadata addresses",
	"169.254.169.254/32", // AWS, GCP, Azure, OpenStack, DigitalOcean, ...
	"169.254.170.2/32",   // AWS ECS task metadata
	"100.100.100.200/32", // Alibaba Cloud
	"192.0.0.192/32",     // Oracle Cloud (legacy)
	"fd00:ec2::254/128",  // AWS over IPv6
)

// v4Special lists the IPv4 ranges IANA's special-purpose registry marks
// not globally reachable, plus multicast and broadcast: a user's target is
// a public server, and anything else is the service's own surroundings.
// The first match gives the reason, so narrower ranges come first.
var v4Special = concat(
	ranges("unspecified addresses", "0.0.0.0/32"),
	ranges(`"this network" addresses`, "0.0.0.0/8"),
	ranges("loopback addresses", "127.0.0.0/8"),
	ranges("private addresses", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"),
	ranges("carrier-grade NAT addresses", "100.64.0.0/10"),
	ranges("link-local addresses", "169.254.0.0/16"),
	ranges("IETF protocol assignment addresses", "192.0.0.0/24"),
	ranges("documentation addresses", "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24"),
	ranges("benchmarking addresses", "198.18.0.0/15"),
	ranges("multicast addresses", "224.0.0.0/4"),
	ranges("broadcast addresses", "255.255.255.255/32"),
	ranges("reserved addresses", "240.0.0.0/4"),
)

// v6Special is v4Special's counterpart for IPv6; ranges that embed an IPv4
// address are handled in IsForbiddenAddr.
var v6Special = concat(
	ranges("unspecified addresses", "::/128"),
	ranges("loopback addresses", "::1/128"),
	ranges("local-use NAT64 addresses", "64:ff9b:1::/48"),
	ranges("discard-only addresses", "100::/64"),
	ranges("private (unique local) addresses", "fc00::/7"),
	ranges("link-local addresses", "fe80::/10"),
	ranges("site-local addresses", "fec0::/10"),
	ranges("multicast addresses", "ff00::/8"),
	// Includes Teredo (2001::/32), whose embedded IPv4 addresses are
	// obfuscated and so cannot be checked.
	ranges("IETF protocol assignment addresses", "2001::/23"),
	ranges("documentation addresses", "2001:db8::/32", "3fff::/20"),
)

// Ranges whose addresses stand for an IPv4 address embedded in them: the
// IPv4 address is what such a connection reaches, so it is what is judged.
var (
	v4Compatible = netip.MustParsePrefix("::/96")        // deprecated; bits 96-127
	nat64        = netip.MustParsePrefix("64:ff9b::/96") // bits 96-127
	sixToFour    = netip.MustParsePrefix("2002::/16")    // bits 16-47
	globalV6     = netip.MustParsePrefix("2000::/3")     // all IPv6 unicast allocated so far
)

func concat(lists ...[]special) []special {
	var out []special
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// IsForbiddenAddr reports whether the address policy refuses connections to
// ip, and if so why, as a plural noun phrase ("loopback addresses"). Only
// globally reachable unicast addresses are allowed: loopback, unspecified,
// private, carrier-grade NAT, link-local (cloud metadata included),
// multicast, broadcast, reserved, documentation and similar ranges are
// refused, and so are IPv6 addresses that embed a refused IPv4 address
// (IPv4-mapped, IPv4-compatible, NAT64, 6to4), since the connection would
// reach that IPv4 address.
func IsForbiddenAddr(ip netip.Addr) (reason string, forbidden bool) {
	if !ip.IsValid() {
		return "invalid addresses", true
	}
	// A zone only says which interface reaches a link-local address.
	ip = ip.WithZone("").Unmap()
	for _, s := range metadata {
		if s.prefix.Contains(ip) {
			return s.reason, true
		}
	}
	if ip.Is4() {
		for _, s := range v4Special {
			if s.prefix.Contains(ip) {
				return s.reason, true
			}
		}
		return "", false
	}
	for _, s := range v6Special {
		if s.prefix.Contains(ip) {
			return s.reason, true
		}
	}
	b := ip.As16()
	switch {
	case v4Compatible.Contains(ip):
		if reason, bad := IsForbiddenAddr(netip.AddrFrom4([4]byte(b[12:]))); bad {
			return "IPv4-compatible addresses embedding " + reason, true
		}
		// Deprecated since 2006, used by no one legitimately, and some
		// stacks may still route them to the embedded address.
		return "deprecated IPv4-compatible addresses", true
	case nat64.Contains(ip):
		if reason, bad := IsForbiddenAddr(netip.AddrFrom4([4]byte(b[12:]))); bad {
			return "NAT64 addresses embedding " + reason, true
		}
	case sixToFour.Contains(ip):
		if reason, bad := IsForbiddenAddr(netip.AddrFrom4([4]byte(b[2:6]))); bad {
			return "6to4 addresses embedding " + reason, true
		}
	case !globalV6.Contains(ip):
		return "reserved addresses", true
	}
	return "", false
}
