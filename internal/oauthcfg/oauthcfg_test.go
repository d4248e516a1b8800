package oauthcfg_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

func TestTokenLifetime(t *testing.T) {
	for name, tc := range map[string]struct {
		seconds int
		want    time.Duration
	}{
		"unset":    {0, oauthcfg.DefaultTokenLifetime},
		"set":      {90, 90 * time.Second},
		"too long": {7 * 24 * 3600, oauthcfg.MaxTokenLifetime},
	} {
		require.Equal(t, tc.want, oauthcfg.Settings{TokenLifetimeSeconds: tc.seconds}.TokenLifetime(), name)
	}
}

func TestScopes(t *testing.T) {
	d := oauthcfg.Design{Settings: oauthcfg.Settings{RequiredScopes: []string{"mcp:read"}},
		ToolScopes: map[string][]string{"write": {"mcp:write", "mcp:read"}, "admin": {"mcp:admin"}}}
	require.Equal(t, []string{"mcp:read", "mcp:admin", "mcp:write"}, d.Scopes(),
		"the required scopes, then the tools' by tool name, as the protected resource metadata lists them")
	d.Settings.ScopesSupported = []string{"only"}
	require.Equal(t, []string{"only"}, d.Scopes(), "the design's own list wins")
	require.Empty(t, oauthcfg.Design{}.Scopes())
}

func TestExpiresToken(t *testing.T) {
	at := time.Date(2026, 7, 28, 12, 0, 0, 500_000_000, time.UTC)
	d := oauthcfg.Design{TokensNotBefore: at}
	require.True(t, d.ExpiresToken(oauthcfg.Claims{IssuedAt: at.Add(-2 * time.Second).Truncate(time.Second)}))
	require.False(t, d.ExpiresToken(oauthcfg.Claims{IssuedAt: at.Add(300 * time.Millisecond).Truncate(time.Second)}),
		"issued just after, its iat rounded down")
	require.False(t, oauthcfg.Design{}.ExpiresToken(oauthcfg.Claims{IssuedAt: at}), "never set")
}
