package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/keys"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// runOut runs the command line and returns what it printed.
func runOut(t *testing.T, args ...string) (string, error) {
	t.Helper()
	out, _, err := runOutErr(t, args...)
	return out, err
}

// runOutErr runs the command line and returns what it printed on standard
// output and on standard error.
func runOutErr(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	oldOut, oldErr := stdout, stderr
	stdout, stderr = &out, &errOut
	defer func() { stdout, stderr = oldOut, oldErr }()
	err := run(args)
	return out.String(), errOut.String(), err
}

// TestKeysCommands generates, lists and revokes keys of an organization
// named by slug, as a setup script would.
func TestKeysCommands(t *testing.T) {
	dsn := testdb.New(t)
	t.Setenv("DATABASE_URL", dsn)
	t.Setenv("LOG_LEVEL", "error")
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	require.NoError(t, err)
	defer st.Close()

	org, user, server := uuid.New(), uuid.New(), uuid.New()
	var slug string
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org, UserID: user}, func(tx *store.Tx) error {
		_, o, err := tx.CreateAccount(ctx, store.NewAccount{UserID: user, Email: "ops@example.com",
			PasswordHash: "x", OrgID: org, OrgName: "Ops Team"})
		slug = o.Slug
		if err != nil {
			return err
		}
		_, err = tx.CreateServer(ctx, design.Server{ID: server, Name: "s", Version: "1.0.0", Type: "mock",
			ProtocolVersion: "2024-11-05", AuthMode: "none",
			Eras: design.DefaultEras, CacheScope: design.DefaultCacheScope, CreatedBy: user.String()})
		return err
	}))

	out, err := runOut(t, "keys", "create", "--org", slug, "--name", "ci")
	require.NoError(t, err)
	raw := strings.TrimSpace(out)
	require.True(t, keys.WellFormed(raw), "stdout is the raw key alone: %q", out)

	// --bind takes a server's name as well as its id.
	out, err = runOut(t, "keys", "create", "--org", slug, "--name", "policy engine", "--bind", "s",
		"--expires", "2999-01-01T00:00:00Z")
	require.NoError(t, err)
	policyRaw := strings.TrimSpace(out)

	var ks []store.Key
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) (err error) {
		ks, err = tx.Keys(ctx)
		return err
	}))
	require.Len(t, ks, 2)
	require.Equal(t, auth.HashToken(policyRaw), ks[0].Hash)
	require.Equal(t, auth.ScopePolicy, ks[0].Scope)
	require.Equal(t, []uuid.UUID{server}, ks[0].BoundAssetIDs)
	require.NotNil(t, ks[0].ExpiresAt)
	require.Equal(t, auth.HashToken(raw), ks[1].Hash)
	require.Equal(t, auth.ScopeFull, ks[1].Scope)
	require.True(t, strings.HasPrefix(ks[1].CreatedBy, "operator"), ks[1].CreatedBy)

	out, err = runOut(t, "keys", "list", "--org", slug)
	require.NoError(t, err)
	require.Contains(t, out, ks[0].ID.String())
	require.Contains(t, out, "policy engine")
	require.Contains(t, out, server.String())
	require.NotContains(t, out, raw)
	require.NotContains(t, out, ks[1].Hash)

	out, err = runOut(t, "keys", "revoke", "--org", slug, ks[1].ID.String())
	require.NoError(t, err)
	require.Contains(t, out, "revoked")
	out, err = runOut(t, "keys", "list", "--org", slug)
	require.NoError(t, err)
	require.NotContains(t, out, ks[1].ID.String())

	for _, tc := range []struct {
		args []string
		want string
		code int
	}{
		{[]string{"keys"}, "needs a command: create, list, revoke", exitUsage},
		{[]string{"keys", "mint", "--org", slug}, `unknown command "mint"`, exitUsage},
		{[]string{"keys", "create", "--name", "x"}, "--org is required", exitUsage},
		{[]string{"keys", "create", "--org", "no-such-org", "--name", "x"}, `no organization with slug "no-such-org"`, exitFailed},
		{[]string{"keys", "create", "--org", slug}, "name: must not be blank", exitFailed},
		{[]string{"keys", "create", "--org", slug, "--name", "x", "--bind", "nope"}, `--bind: no server named "nope"`, exitFailed},
		{[]string{"keys", "create", "--org", slug, "--name", "x", "--bind", uuid.NewString()}, "--bind: names a server that does not exist", exitFailed},
		{[]string{"keys", "create", "--org", slug, "--name", "x", "--expires", "soon"}, "--expires", exitUsage},
		{[]string{"keys", "create", "--org", slug, "--name", "x", "--expires", "2001-01-01T00:00:00Z"}, "expires_at: must be in the future", exitFailed},
		{[]string{"keys", "create", "--org", slug, "--name", "x", "extra"}, "takes no arguments", exitUsage},
		{[]string{"keys", "list"}, "--org is required", exitUsage},
		{[]string{"keys", "revoke", "--org", slug}, "takes one KEY_ID", exitUsage},
		{[]string{"keys", "revoke", "--org", slug, "xyz"}, "is not a UUID", exitUsage},
		{[]string{"keys", "revoke", "--org", slug, ks[1].ID.String()}, "key not found", exitFailed},
	} {
		_, err := runOut(t, tc.args...)
		require.ErrorContains(t, err, tc.want, "%v", tc.args)
		require.Equal(t, tc.code, exitCode(err), "%v: %v", tc.args, err)
	}
	out, err = runOut(t, "keys", "list", "--org", slug)
	require.NoError(t, err)
	require.Equal(t, 2, strings.Count(out, "\n"), "the failed commands created nothing: %s", out)

	// Two servers named "s": --bind s must say which.
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org, UserID: user}, func(tx *store.Tx) error {
		_, err := tx.CreateServer(ctx, design.Server{ID: uuid.New(), Name: "s", Version: "1.0.0", Type: "mock",
			ProtocolVersion: "2024-11-05", AuthMode: "none",
			Eras: design.DefaultEras, CacheScope: design.DefaultCacheScope, CreatedBy: user.String()})
		return err
	}))
	_, err = runOut(t, "keys", "create", "--org", slug, "--name", "x", "--bind", "s")
	require.ErrorContains(t, err, `--bind: 2 servers are named "s": give the id of the one you mean`)
	require.Equal(t, exitFailed, exitCode(err))
}
