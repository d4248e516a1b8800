package localmode_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/localmode"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// localOrgs counts the organizations with the local slug, seen past
// row-level security.
func localOrgs(t *testing.T, st *store.Store) (count int, name string) {
	t.Helper()
	require.NoError(t, st.Pool().QueryRow(context.Background(),
		`SELECT count(*), coalesce(max(name), '') FROM organizations WHERE slug = $1`, localmode.OrgSlug).Scan(&count, &name))
	return count, name
}

func TestEnsureOrgTwice(t *testing.T) {
	st := testdb.Store(t)
	ctx := context.Background()

	first, err := localmode.EnsureOrg(ctx, st)
	require.NoError(t, err)
	require.NotEqual(t, uuid.Nil, first.ID)
	require.Equal(t, "local", first.Slug)
	again, err := localmode.EnsureOrg(ctx, st)
	require.NoError(t, err)
	require.Equal(t, first, again)
	n, name := localOrgs(t, st)
	require.Equal(t, 1, n)
	require.Equal(t, "Local", name)

	// The reference works for writing designs into the organization, under
	// row-level security.
	var srv design.Server
	err = st.InOrg(ctx, first, func(tx *store.Tx) error {
		var err error
		srv, err = tx.CreateDesign(ctx, design.Design{
			Server: design.Server{Name: "Weather", Version: "1.0.0", Type: "mock", ProtocolVersion: "2024-11-05",
				AuthMode: "none", Eras: design.DefaultEras, CacheScope: design.DefaultCacheScope},
			Tools: []design.Tool{{Name: "get_weather", InputSchema: design.DefaultInputSchema,
				Scenarios: []design.Scenario{{Name: "ok", Response: json.RawMessage(`{"temp":20}`)}}}},
		}, "local")
		return err
	})
	require.NoError(t, err)
	require.Equal(t, first.ID, srv.OrgID)
}

func TestEnsureOrgConcurrently(t *testing.T) {
	dsn := testdb.New(t)
	ctx := context.Background()
	// Each instance has its own pool, as separate processes would.
	const instances = 8
	stores := make([]*store.Store, instances)
	for i := range stores {
		st, err := store.Open(ctx, dsn)
		require.NoError(t, err)
		t.Cleanup(st.Close)
		stores[i] = st
	}
	refs := make([]store.OrgRef, instances)
	errs := make([]error, instances)
	var wg sync.WaitGroup
	startLine := make(chan struct{})
	for i := range stores {
		wg.Go(func() {
			<-startLine
			refs[i], errs[i] = localmode.EnsureOrg(ctx, stores[i])
		})
	}
	close(startLine)
	wg.Wait()
	for i := range refs {
		require.NoError(t, errs[i], "instance %d", i)
		require.Equal(t, refs[0], refs[i], "instance %d", i)
	}
	n, _ := localOrgs(t, stores[0])
	require.Equal(t, 1, n)
}

func TestEnsureOrgKeepsAnExistingOrganization(t *testing.T) {
	st := testdb.Store(t)
	ctx := context.Background()
	id := uuid.New()
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: id}, func(tx *store.Tx) error {
		_, err := tx.CreateOrganization(ctx, id, "Our local mocks", "local")
		return err
	}))
	ref, err := localmode.EnsureOrg(ctx, st)
	require.NoError(t, err)
	require.Equal(t, id, ref.ID)
	_, name := localOrgs(t, st)
	require.Equal(t, "Our local mocks", name, "the existing organization is not renamed")
}
