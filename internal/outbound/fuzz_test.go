package outbound_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/outbound"
)

// refusedV4 are IPv4 ranges the policy must refuse, written out here
// rather than taken from the package: loopback, private, link-local,
// carrier-grade NAT, "this network", multicast and reserved (broadcast
// included).
var refusedV4 = []struct {
	base uint32
	bits int
}{
	{0x7f000000, 8},  // 127.0.0.0/8
	{0x0a000000, 8},  // 10.0.0.0/8
	{0xac100000, 12}, // 172.16.0.0/12
	{0xc0a80000, 16}, // 192.168.0.0/16
	{0xa9fe0000, 16}, // 169.254.0.0/16
	{0x64400000, 10}, // 100.64.0.0/10
	{0x00000000, 8},  // 0.0.0.0/8
	{0xe0000000, 4},  // 224.0.0.0/4
	{0xf0000000, 4},  // 240.0.0.0/4
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

func inRefusedV4(a uint32) bool {
	for _, r := range refusedV4 {
		if a>>(32-r.bits) == r.base>>(32-r.bits) {
			return true
		}
	}
	return false
}

func v4(a uint32) netip.Addr {
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], a)
	return netip.AddrFrom4(b)
}

// v6With returns the IPv6 address prefix (bytes) followed by zeros, with the
// IPv4 address a written at byte offset at.
func v6With(prefix []byte, a uint32, at int) netip.Addr {
	var b [16]byte
	copy(b[:], prefix)
	binary.BigEndian.PutUint32(b[at:], a)
	return netip.AddrFrom16(b)
}

// FuzzIsForbiddenAddr checks the address policy on arbitrary addresses:
// a refusal always says why; every IPv4 address of the refused ranges is
// refused, and so is every IPv6 address that reaches it (IPv4-mapped,
// IPv4-compatible, NAT64, 6to4); an IPv4-mapped address gets its IPv4
// address's verdict; a zone changes nothing; and the verdict survives the
// address's round trip through its text form, which is how the dialer
// hands it over.
func FuzzIsForbiddenAddr(f *testing.F) {
	for _, b := range [][]byte{
		{127, 0, 0, 1}, {10, 1, 2, 3}, {172, 31, 255, 255}, {172, 32, 0, 0}, {192, 168, 0, 1},
		{169, 254, 169, 254}, {100, 64, 0, 0}, {100, 127, 255, 255}, {100, 128, 0, 0}, {0, 0, 0, 0},
		{255, 255, 255, 255}, {224, 0, 0, 1}, {8, 8, 8, 8}, {1, 1, 1, 1}, {100, 100, 100, 200},
		netip.MustParseAddr("::ffff:127.0.0.1").AsSlice(),
		netip.MustParseAddr("::127.0.0.1").AsSlice(),
		netip.MustParseAddr("64:ff9b::a9fe:a9fe").AsSlice(),
		netip.MustParseAddr("2002:c0a8:0101::1").AsSlice(),
		netip.MustParseAddr("fe80::1").AsSlice(),
		netip.MustParseAddr("fd00:ec2::254").AsSlice(),
		netip.MustParseAddr("2606:4700::1111").AsSlice(),
		netip.MustParseAddr("2001::1").AsSlice(),
		netip.MustParseAddr("::").AsSlice(),
		netip.MustParseAddr("::1").AsSlice(),
		{},
		{1, 2, 3},
	} {
		f.Add(b, "")
		f.Add(b, "eth0")
	}
	f.Fuzz(func(t *testing.T, raw []byte, zone string) {
		ip, ok := netip.AddrFromSlice(raw)
		reason, forbidden := outbound.IsForbiddenAddr(ip)
		require.Equal(t, forbidden, reason != "", "verdict %v with reason %q for %v", forbidden, reason, ip)
		if !ok {
			require.True(t, forbidden, "an invalid address is allowed")
			return
		}
		if zone != "" && ip.Is6() && !strings.ContainsAny(zone, "%]") {
			_, zoned := outbound.IsForbiddenAddr(ip.WithZone(zone))
			require.Equal(t, forbidden, zoned, "the zone %q changes the verdict on %v", zone, ip)
		}
		if parsed, err := netip.ParseAddr(ip.String()); err == nil {
			_, again := outbound.IsForbiddenAddr(parsed)
			require.Equal(t, forbidden, again, "%v forbidden %v, its text form %v", ip, forbidden, again)
		}

		if ip.Is4In6() {
			_, v4Verdict := outbound.IsForbiddenAddr(ip.Unmap())
			require.Equal(t, v4Verdict, forbidden, "the IPv4-mapped %v and its IPv4 address differ", ip)
		}
		if !ip.Is4() {
			// NAT64's well-known prefix reaches the IPv4 address it embeds,
			// which is judged instead (above for refused ones).
			if !netip.MustParsePrefix("2000::/3").Contains(ip) && !ip.Is4In6() && !nat64.Contains(ip) {
				require.True(t, forbidden, "%v lies outside global unicast and is allowed", ip)
			}
			return
		}
		a := binary.BigEndian.Uint32(raw)
		if inRefusedV4(a) {
			require.True(t, forbidden, "%v is allowed", ip)
		}
		for _, alt := range []netip.Addr{
			netip.AddrFrom16(ip.As16()),                        // ::ffff:a.b.c.d
			v6With(nil, a, 12),                                 // ::a.b.c.d
			v6With([]byte{0, 0x64, 0xff, 0x9b}, a, 12),         // 64:ff9b::a.b.c.d
			v6With([]byte{0x20, 0x02}, a, 2),                   // 2002:aabb:ccdd::
			v6With([]byte{0x20, 0x02, 0, 0, 0, 0, 0xff}, a, 2), // 6to4 with a subnet
		} {
			_, altForbidden := outbound.IsForbiddenAddr(alt)
			if forbidden {
				require.True(t, altForbidden, "%v is refused, %v is allowed", ip, alt)
			}
		}
	})
}

// spellings are ways to write the IPv4 address a as a URL host that some
// parser or resolver may read as a: plain, as one number (decimal, hex,
// octal), with octal or hex parts, shortened, zero-padded, and inside IPv6
// forms that embed it.
func spellings(a uint32) []string {
	b := [4]uint32{a >> 24, a >> 16 & 0xff, a >> 8 & 0xff, a & 0xff}
	ip := v4(a)
	return []string{
		ip.String(),
		strconv.FormatUint(uint64(a), 10),
		"0x" + strconv.FormatUint(uint64(a), 16),
		"0X" + strings.ToUpper(strconv.FormatUint(uint64(a), 16)),
		"0" + strconv.FormatUint(uint64(a), 8),
		fmt.Sprintf("0%o.0%o.0%o.0%o", b[0], b[1], b[2], b[3]),
		fmt.Sprintf("0x%x.0x%x.0x%x.0x%x", b[0], b[1], b[2], b[3]),
		fmt.Sprintf("%d.%d", b[0], a&0xffffff),
		fmt.Sprintf("%d.%d.%d", b[0], b[1], a&0xffff),
		fmt.Sprintf("%03d.%03d.%03d.%03d", b[0], b[1], b[2], b[3]),
		fmt.Sprintf("0x%x.%d.0%o.%d", b[0], b[1], b[2], b[3]),
		"[::ffff:" + ip.String() + "]",
		fmt.Sprintf("[::ffff:%x:%x]", a>>16, a&0xffff),
		fmt.Sprintf("[0:0:0:0:0:FFFF:%04X:%04X]", a>>16, a&0xffff),
		"[::" + ip.String() + "]",
		"[64:ff9b::" + ip.String() + "]",
		fmt.Sprintf("[2002:%x:%x::1]", a>>16, a&0xffff),
		"[::ffff:" + ip.String() + "%25eth0]",
	}
}

// decorate wraps host into a URL by one of the tricks that make a parser
// and a reader disagree about which host a URL names.
func decorate(host string, trick uint8) string {
	switch trick % 12 {
	case 0:
		return "http://" + host + "/"
	case 1:
		return "https://" + host + ":8443/path?q=1#f"
	case 2:
		return "http://" + host + "./"
	case 3:
		return "http://good.example@" + host + "/"
	case 4:
		return "http://good.example:80@" + host + ":80/"
	case 5:
		return "http://" + host + "#@good.example/"
	case 6:
		return "http://" + host + "?@good.example/"
	case 7:
		return "http://good.example\\@" + host + "/"
	case 8:
		return "HTTP://" + strings.ToUpper(host) + "/"
	case 9:
		return "http://" + host + ":0/"
	case 10:
		return "http://" + url.PathEscape(host) + "/"
	default:
		return "http://" + host + ":65535"
	}
}

// FuzzForbiddenURL writes an address of a refused IPv4 range in many
// spellings and URL tricks and requires that no request gets through: the
// URL check refuses it, or its host is a name (which only DNS can turn into
// an address, and the dial-time check judges the address it yields), or
// the client refuses the connection before it is made, to an address that
// is indeed the one written.
func FuzzForbiddenURL(f *testing.F) {
	for i := range refusedV4 {
		f.Add(uint8(i), uint32(1), uint8(0), uint8(0))
		f.Add(uint8(i), uint32(0xffffffff), uint8(i), uint8(i+3))
	}
	f.Add(uint8(4), uint32(0xa9fe), uint8(11), uint8(3)) // 169.254.169.254 with userinfo
	f.Add(uint8(0), uint32(1), uint8(1), uint8(7))       // 127.0.0.1 as one number, backslash
	f.Add(uint8(0), uint32(1), uint8(17), uint8(2))      // IPv4-mapped with a zone, trailing dot

	var (
		mu     sync.Mutex
		dialed []netip.AddrPort
	)
	client := outbound.NewClient(outbound.WithAllowAddr(outbound.Options{Timeout: 2 * time.Second, MaxRedirects: -1},
		func(ap netip.AddrPort) bool {
			mu.Lock()
			dialed = append(dialed, ap)
			mu.Unlock()
			return false // the policy judges every address
		}))
	f.Fuzz(func(t *testing.T, rangeIndex uint8, hostBits uint32, spelling, trick uint8) {
		r := refusedV4[int(rangeIndex)%len(refusedV4)]
		a := r.base | hostBits&(1<<(32-r.bits)-1)
		all := spellings(a)
		raw := decorate(all[int(spelling)%len(all)], trick)

		checkErr := outbound.CheckURL(raw)
		u, err := url.Parse(raw)
		if err != nil {
			require.Error(t, checkErr, "CheckURL accepts %q, which does not parse", raw)
			return
		}
		literal, err := netip.ParseAddr(u.Hostname())
		if err != nil {
			// A name: nothing here turns it into an address, so nothing
			// here can wave it through; the dial-time check will judge
			// whatever DNS says.
			return
		}
		_, forbidden := outbound.IsForbiddenAddr(literal)
		require.True(t, forbidden, "%q names %v, which the policy allows", raw, literal)

		// The redirects a client follows are not checked by CheckURL, so
		// the client must refuse the address on its own.
		mu.Lock()
		dialed = dialed[:0]
		mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
		if err != nil {
			return
		}
		resp, err := client.Do(req)
		if resp != nil {
			resp.Body.Close()
		}
		require.Error(t, err, "%q was fetched", raw)
		mu.Lock()
		defer mu.Unlock()
		for _, ap := range dialed {
			_, refused := outbound.IsForbiddenAddr(ap.Addr())
			require.True(t, refused, "%q: the client dialed %v, which the policy allows", raw, ap)
			if literal.IsUnspecified() {
				continue // the dialer picks a local address for it
			}
			require.Equal(t, literal.WithZone("").Unmap(), ap.Addr().WithZone("").Unmap(),
				"%q names %v, the client dialed %v", raw, literal, ap)
		}
		if len(dialed) > 0 {
			require.True(t, errors.Is(err, outbound.ErrForbiddenTarget), "%q: %v", raw, err)
		}
	})
}

// FuzzCheckURL checks the up-front URL check on arbitrary input: what it
// accepts is an absolute http or https URL with a host, a port in range
// and no user information, and its messages never repeat the URL or a
// password in it.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"https://api.example.com/v1?x=1", "http://127.0.0.1:8080", "http://[::1]:0/", "http://h:65536/",
		"http://user:s3cret-pass@h/", "ftp://h/", "//h/p", "http:h", "http:///p", "https://h:port/",
		"http://h:+80/", "http://h:0080/", "HTTPS://H/", "http://%31%32%37.0.0.1/", "http://a b/",
		"http://h/\x00", "http://[fe80::1%25eth0]/", "http://[::1", "http://\xff/", "",
		"javascript:alert(1)", "http://h/" + strings.Repeat("a", 5000),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		err := outbound.CheckURL(raw)
		if err != nil {
			require.NotEmpty(t, err.Error())
			if len(raw) >= 12 {
				require.NotContains(t, err.Error(), raw, "the message repeats the URL")
			}
			if u, perr := url.Parse(raw); perr == nil && u.User != nil {
				if p, ok := u.User.Password(); ok && len(p) >= 4 {
					require.NotContains(t, err.Error(), p, "the message repeats the password")
				}
			}
			return
		}
		u, perr := url.Parse(raw)
		require.NoError(t, perr, "accepted %q, which does not parse", raw)
		require.Contains(t, []string{"http", "https"}, u.Scheme)
		require.NotEmpty(t, u.Hostname())
		require.Nil(t, u.User)
		require.Empty(t, u.Opaque)
		if p := u.Port(); p != "" {
			n, err := strconv.Atoi(p)
			require.NoError(t, err)
			require.True(t, n >= 1 && n <= 65535, "accepted the port %q", p)
		}
	})
}
