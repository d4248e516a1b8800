package clientip_test

import (
	"net/http/httptest"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/clientip"
)

func TestOf(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}
	cases := []struct {
		name    string
		trusted []netip.Prefix
		remote  string
		xff     []string
		want    string
	}{
		{"no proxies trusted: the peer", nil, "203.0.113.5:1234", []string{"198.51.100.7"}, "203.0.113.5"},
		{"untrusted peer: its header ignored", trusted, "203.0.113.5:1234", []string{"198.51.100.7"}, "203.0.113.5"},
		{"trusted peer: the last hop", trusted, "10.1.2.3:80", []string{"198.51.100.7"}, "198.51.100.7"},
		{"spoofed left part ignored", trusted, "10.1.2.3:80", []string{"1.2.3.4, 198.51.100.7"}, "198.51.100.7"},
		{"chain of trusted proxies", trusted, "10.1.2.3:80", []string{"198.51.100.7, 10.9.9.9"}, "198.51.100.7"},
		{"several header lines", trusted, "10.1.2.3:80", []string{"1.2.3.4", "198.51.100.7, 10.0.0.2"}, "198.51.100.7"},
		{"all hops trusted: the leftmost", trusted, "10.1.2.3:80", []string{"10.0.0.9"}, "10.0.0.9"},
		{"garbage hop ends the chain", trusted, "10.1.2.3:80", []string{"198.51.100.7, nonsense"}, "10.1.2.3"},
		{"trusted peer without header", trusted, "10.1.2.3:80", nil, "10.1.2.3"},
		{"IPv6 peer", trusted, "[::1]:80", []string{"2001:db8::1"}, "2001:db8::1"},
		{"IPv4-mapped IPv6 unmapped", nil, "[::ffff:192.0.2.1]:80", nil, "192.0.2.1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			require.Equal(t, tc.want, clientip.New(tc.trusted).Of(r).String())
		})
	}
}

func TestOfUnparsablePeer(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "pipe"
	require.False(t, clientip.New(nil).Of(r).IsValid())
}
