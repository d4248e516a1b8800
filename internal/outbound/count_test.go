package outbound_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/outbound"
)

// TestCountsByKindAndOutcome: every request is counted under its client's
// kind, as answered, refused by the address policy, or failed.
func TestCountsByKindAndOutcome(t *testing.T) {
	srv, _ := server(t, ok)
	before := func(kind, outcome string) func() uint64 {
		n := outbound.Count(kind, outcome)
		return func() uint64 { return outbound.Count(kind, outcome) - n }
	}
	answered, forbidden := before("session", "response"), before("session", "forbidden")
	failed, other := before("session", "error"), before("other", "response")

	open := outbound.NewClient(outbound.Options{AllowPrivate: true, Kind: "session"})
	resp, err := open.Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()
	guarded := outbound.NewClient(outbound.Options{Kind: "session"})
	_, err = guarded.Get(srv.URL)
	require.ErrorIs(t, err, outbound.ErrForbiddenTarget)
	_, err = open.Get("http://127.0.0.1:1/")
	require.Error(t, err)
	unnamed := outbound.NewClient(outbound.Options{AllowPrivate: true, Kind: "no such kind"})
	resp, err = unnamed.Get(srv.URL)
	require.NoError(t, err)
	resp.Body.Close()

	require.Equal(t, uint64(1), answered())
	require.Equal(t, uint64(1), forbidden())
	require.Equal(t, uint64(1), failed())
	require.Equal(t, uint64(1), other(), "an unknown kind counts as other")
	require.Zero(t, outbound.Count("session", "no such outcome"))
}
