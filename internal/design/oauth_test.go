package design

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

func TestCheckOAuth(t *testing.T) {
	t.Parallel()
	server := func(o oauthcfg.Settings) Server {
		return Server{Name: "W", Type: "mock", AuthMode: AuthModeOAuth, Eras: DefaultEras, CacheScope: DefaultCacheScope, OAuth: o}
	}
	for _, tc := range []struct {
		name   string
		err    error
		fields []string
	}{
		{"defaults", CheckServer(server(oauthcfg.Settings{})), nil},
		{"everything set", CheckServer(server(oauthcfg.Settings{ScopesSupported: []string{"a", "files:read", "x!#[]~"},
			RequiredScopes: []string{"a"}, TokenLifetimeSeconds: MaxTokenLifetimeSeconds, Consent: "page"})), nil},
		{"bad scopes", CheckServer(server(oauthcfg.Settings{ScopesSupported: []string{"a b", `a"`, `a\`, "", "é", "ok", "ok"}})),
			[]string{"oauth.scopes_supported[0]", "oauth.scopes_supported[1]", "oauth.scopes_supported[2]",
				"oauth.scopes_supported[3]", "oauth.scopes_supported[4]", "oauth.scopes_supported[6]"}},
		{"required not supported", CheckServer(server(oauthcfg.Settings{ScopesSupported: []string{"a"}, RequiredScopes: []string{"a", "b"}})),
			[]string{"oauth.required_scopes[1]"}},
		{"lifetime", CheckServer(server(oauthcfg.Settings{TokenLifetimeSeconds: MaxTokenLifetimeSeconds + 1})),
			[]string{"oauth.token_lifetime_seconds"}},
		{"negative lifetime", CheckServer(server(oauthcfg.Settings{TokenLifetimeSeconds: -1})), []string{"oauth.token_lifetime_seconds"}},
		{"consent", CheckServer(server(oauthcfg.Settings{Consent: "ask"})), []string{"oauth.consent"}},
		{"tool scopes", CheckTool(Tool{Name: "t", InputSchema: DefaultInputSchema, RequiredScopes: []string{"ok", "no way"}}),
			[]string{"required_scopes[1]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fields == nil {
				require.NoError(t, tc.err)
				return
			}
			f, ok := failure.As(tc.err)
			require.True(t, ok, "%v", tc.err)
			var got []string
			for _, e := range f.Fields {
				got = append(got, e.Field)
			}
			require.Equal(t, tc.fields, got)
		})
	}
}
