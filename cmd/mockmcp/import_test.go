package main

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// TestImportOpenAPICommand imports a kept document into an organization
// named by slug, as a setup script would.
func TestImportOpenAPICommand(t *testing.T) {
	dsn := testdb.New(t)
	t.Setenv("DATABASE_URL", dsn)
	t.Setenv("LOG_LEVEL", "error")
	ctx := context.Background()
	st, err := store.Open(ctx, dsn)
	require.NoError(t, err)
	defer st.Close()
	org, user := uuid.New(), uuid.New()
	var slug string
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org, UserID: user}, func(tx *store.Tx) error {
		_, o, err := tx.CreateAccount(ctx, store.NewAccount{UserID: user, Email: "ops@example.com",
			PasswordHash: "x", OrgID: org, OrgName: "Import Team"})
		slug = o.Slug
		return err
	}))

	out, err := runOut(t, "import", "openapi", "../../internal/oasimport/testdata/petstore-3.0.yaml", "--org", slug, "--name", "Pets")
	require.NoError(t, err, out)
	id, err := uuid.Parse(strings.Fields(out)[0])
	require.NoError(t, err, out)

	var (
		srv   design.Server
		tools []design.Tool
	)
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) (err error) {
		if srv, err = tx.Server(ctx, id); err != nil {
			return err
		}
		tools, err = tx.Tools(ctx, id)
		return err
	}))
	require.Equal(t, "Pets", srv.Name)
	require.Equal(t, "openapi", srv.Type)
	require.False(t, srv.Enabled)
	require.Contains(t, string(srv.Source), `"kind":"openapi"`)
	require.NotEmpty(t, tools)
	require.Contains(t, out, srv.Name)

	_, err = runOut(t, "import", "openapi", "../../internal/oasimport/testdata/not-openapi.json", "--org", slug)
	require.ErrorContains(t, err, "document")
	_, err = runOut(t, "import", "openapi", "../../internal/oasimport/testdata/petstore-3.0.yaml", "--org", "no-such-org")
	require.ErrorContains(t, err, `no organization with slug "no-such-org"`)
	_, err = runOut(t, "import", "openapi", "--org", slug)
	require.ErrorContains(t, err, "usage")
}
