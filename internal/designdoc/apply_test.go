package designdoc_test

import (
	"context"
	"os"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/designdoc"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// newOrg makes a fresh store holding one organization, named name, with
// one member; it returns the store and the organization's id and slug.
func newOrg(t *testing.T, name string) (*store.Store, uuid.UUID, string) {
	t.Helper()
	st := testdb.Store(t)
	ctx := context.Background()
	org, user := uuid.New(), uuid.New()
	var slug string
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org, UserID: user}, func(tx *store.Tx) error {
		_, o, err := tx.CreateAccount(ctx, store.NewAccount{UserID: user, Email: uuid.NewString() + "@example.com",
			PasswordHash: "not-a-real-hash", OrgID: org, OrgName: name})
		slug = o.Slug
		return err
	}))
	return st, org, slug
}

// requireFailedField requires err to be a failure whose first field is
// field.
func requireFailedField(t *testing.T, err error, field string) {
	t.Helper()
	fe, ok := failure.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, field, fe.Fields[0].Field)
}

// TestApplyByOrganizationSlug is the operator's way in (local mode): the
// example file's bytes, applied to an organization named by slug.
func TestApplyByOrganizationSlug(t *testing.T) {
	st, orgID, slug := newOrg(t, "Local Designs")
	ctx := context.Background()
	raw, err := os.ReadFile("../../openapi/examples/designs/weather.yaml")
	require.NoError(t, err)

	dry, err := designdoc.Apply(ctx, st, store.OrgRef{Slug: slug}, raw, designdoc.ApplyOptions{DryRun: true, CreatedBy: "operator"})
	require.NoError(t, err)
	require.True(t, dry.DryRun)
	require.Equal(t, designdoc.Created, dry.Server.Action)
	require.Equal(t, uuid.Nil, dry.Server.ID)

	plan, err := designdoc.Apply(ctx, st, store.OrgRef{Slug: slug}, raw, designdoc.ApplyOptions{CreatedBy: "operator"})
	require.NoError(t, err)
	require.True(t, plan.Changed)
	require.Equal(t, designdoc.Created, plan.Server.Action)
	require.Equal(t, []designdoc.PartPlan{{Name: "get_forecast", Action: designdoc.Created}}, plan.Tools)
	require.Len(t, plan.Resources, 2)
	require.Equal(t, "weather://stations", plan.Resources[0].URI)

	var srv design.Server
	var d design.Design
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: orgID}, func(tx *store.Tx) error {
		if srv, err = tx.Server(ctx, plan.Server.ID); err != nil {
			return err
		}
		d, err = tx.DesignOf(ctx, srv)
		return err
	}))
	require.Equal(t, "operator", srv.CreatedBy)
	require.True(t, srv.Enabled)
	require.Len(t, d.Tools[0].Scenarios, 4)

	again, err := designdoc.Apply(ctx, st, store.OrgRef{ID: orgID}, raw, designdoc.ApplyOptions{})
	require.NoError(t, err)
	require.False(t, again.Changed)
	require.Equal(t, plan.Server.ID, again.Server.ID)

	_, err = designdoc.Apply(ctx, st, store.OrgRef{Slug: "no-such-org"}, raw, designdoc.ApplyOptions{})
	requireFailedField(t, err, "org")
}

// TestApplyNameTwice: a document without id that names two servers is a
// conflict naming "name", not a guess.
func TestApplyNameTwice(t *testing.T) {
	st, orgID, _ := newOrg(t, "Twins")
	ctx := context.Background()
	doc := []byte("apiVersion: mockmcp/v1\nkind: MCPServer\nname: Twin\n")
	for range 2 {
		// Each with its own id, so both are created.
		pinned := append([]byte("id: "+uuid.NewString()+"\n"), doc...)
		_, err := designdoc.Apply(ctx, st, store.OrgRef{ID: orgID}, pinned, designdoc.ApplyOptions{})
		require.NoError(t, err)
	}
	_, err := designdoc.Apply(ctx, st, store.OrgRef{ID: orgID}, doc, designdoc.ApplyOptions{})
	require.ErrorIs(t, err, failure.ErrConflict)
	requireFailedField(t, err, "name")
}

// TestApplyConcurrently: documents naming the same new server, applied at
// once, create it once.
func TestApplyConcurrently(t *testing.T) {
	st, orgID, _ := newOrg(t, "Racers")
	ctx := context.Background()
	doc := []byte("apiVersion: mockmcp/v1\nkind: MCPServer\nname: Raced\ntools:\n  - name: t\n")
	const n = 6
	errs := make(chan error, n)
	for range n {
		go func() {
			_, err := designdoc.Apply(ctx, st, store.OrgRef{ID: orgID}, doc, designdoc.ApplyOptions{})
			errs <- err
		}()
	}
	for range n {
		require.NoError(t, <-errs)
	}
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: orgID}, func(tx *store.Tx) error {
		named, err := tx.ServersNamed(ctx, "Raced")
		require.Len(t, named, 1)
		return err
	}))
}
