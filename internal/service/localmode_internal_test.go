package service

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEndpointBase(t *testing.T) {
	for _, tc := range []struct{ name, baseURL, addr, want string }{
		{"BASE_URL wins", "https://mocks.example.com", "[::]:8080", "https://mocks.example.com"},
		{"every interface, IPv6", "", "[::]:8080", "http://127.0.0.1:8080"},
		{"every interface, IPv4", "", "0.0.0.0:9000", "http://127.0.0.1:9000"},
		{"no host", "", ":8080", "http://127.0.0.1:8080"},
		{"loopback", "", "127.0.0.1:41234", "http://127.0.0.1:41234"},
		{"IPv6 loopback", "", "[::1]:8080", "http://[::1]:8080"},
		{"a named host", "", "mocks.internal:8080", "http://mocks.internal:8080"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, endpointBase(tc.baseURL, tc.addr))
		})
	}
}
