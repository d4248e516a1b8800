package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/store"
)

// TestOAuthDesign: the authorization server's view of a design is read by
// id alone, as the MCP endpoint reads it, and only while it is enabled.
func TestOAuthDesign(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	notBefore := time.Date(2031, 2, 3, 4, 5, 6, 0, time.UTC) // not the database's now
	st, a, b := seedTwo(t)
	settings := oauthcfg.Settings{ScopesSupported: []string{"r", "w"}, RequiredScopes: []string{"r"}, TokenLifetimeSeconds: 60,
		Consent: oauthcfg.ConsentPage, Chaos: oauthcfg.Chaos{RefuseRefresh: true}}
	var expired design.Server
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: a.OrgID, UserID: a.UserID}, func(tx *store.Tx) error {
		s, err := tx.Server(ctx, a.ServerID)
		if err != nil {
			return err
		}
		s.AuthMode, s.OAuth = design.AuthModeOAuth, settings
		if _, err := tx.UpdateServer(ctx, s); err != nil {
			return err
		}
		if _, err := tx.CreateTool(ctx, design.Tool{ServerID: a.ServerID, Name: "write", InputSchema: json.RawMessage(`{}`),
			RequiredScopes: []string{"w"}}); err != nil {
			return err
		}
		expired, err = tx.ExpireOAuthTokens(ctx, a.ServerID, false, notBefore)
		return err
	}))
	require.True(t, notBefore.Equal(expired.OAuthTokensNotBefore), "the caller's instant, which stamps the tokens, not the database's")
	require.True(t, expired.OAuthRefreshNotBefore.IsZero())

	_, err := st.OAuthDesign(ctx, a.ServerID)
	require.True(t, failure.Is(err, failure.ErrNotFound), "a draft has no authorization server: %v", err)

	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: a.OrgID, UserID: a.UserID}, func(tx *store.Tx) error {
		s, err := tx.Server(ctx, a.ServerID)
		if err != nil {
			return err
		}
		s.Enabled = true
		_, err = tx.UpdateServer(ctx, s)
		return err
	}))
	d, err := st.OAuthDesign(ctx, a.ServerID)
	require.NoError(t, err)
	require.Equal(t, a.ServerID, d.ServerID)
	require.Equal(t, a.OrgID, d.OrgID)
	require.True(t, d.OAuth)
	require.Equal(t, settings, d.Settings)
	require.Equal(t, map[string][]string{"write": {"w"}}, d.ToolScopes, "tools without scopes are left out")
	require.WithinDuration(t, expired.OAuthTokensNotBefore, d.TokensNotBefore, time.Microsecond)
	require.True(t, d.RefreshNotBefore.IsZero())

	// Another organization's draft is not found either.
	_, err = st.OAuthDesign(ctx, b.ServerID)
	require.True(t, failure.Is(err, failure.ErrNotFound), "%v", err)
}

// TestOAuthClientsListedInTheirOrganizationOnly: a server's clients are
// listed oldest first, without their secret hashes, and only to its
// organization, even given the server's id.
func TestOAuthClientsListedInTheirOrganizationOnly(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	var before []store.OAuthClient
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: a.OrgID, UserID: a.UserID}, func(tx *store.Tx) (err error) {
		before, err = tx.OAuthClients(ctx, a.ServerID)
		if err != nil {
			return err
		}
		if err := tx.CreateOAuthClient(ctx, store.OAuthClient{ClientID: "listed-secret", ServerID: a.ServerID, Name: "Robot",
			SecretHash: "hash-never-listed", AuthMethod: "client_secret_basic", GrantTypes: []string{"client_credentials"}}); err != nil {
			return err
		}
		return nil
	}))
	var got []store.OAuthClient
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: a.OrgID, UserID: a.UserID}, func(tx *store.Tx) (err error) {
		got, err = tx.OAuthClients(ctx, a.ServerID)
		return err
	}))
	require.Len(t, got, len(before)+1)
	last := got[len(got)-1]
	require.Equal(t, "listed-secret", last.ClientID)
	require.Equal(t, "Robot", last.Name)
	require.Equal(t, []string{"client_credentials"}, last.GrantTypes)
	require.Equal(t, "client_secret_basic", last.AuthMethod)
	require.False(t, last.CreatedAt.IsZero())
	require.False(t, last.LastUsedAt.IsZero())
	for _, c := range got {
		require.Empty(t, c.SecretHash, "never the secret hash")
	}

	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: b.OrgID, UserID: b.UserID}, func(tx *store.Tx) (err error) {
		got, err = tx.OAuthClients(ctx, a.ServerID)
		return err
	}))
	require.Empty(t, got, "another organization sees none of them")
}
