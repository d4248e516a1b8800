package testdb

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/store"
)

// Org inserts an organization named "Org" into st's database through the
// superuser pool (past row-level security) and returns its id, for tests
// of what belongs to one without going through sign-up.
func Org(t testing.TB, st *store.Store) uuid.UUID {
	t.Helper()
	id := uuid.New()
	if _, err := st.Pool().Exec(context.Background(), `INSERT INTO organizations (id, name, slug) VALUES ($1, 'Org', $2)`,
		id, "org-"+id.String()[:8]); err != nil {
		t.Fatalf("insert an organization: %v", err)
	}
	return id
}

// Server inserts an organization (see Org) and a draft server of it, as
// Org does, and returns both ids.
func Server(t testing.TB, st *store.Store) (org, server uuid.UUID) {
	t.Helper()
	org, server = Org(t, st), uuid.New()
	if _, err := st.Pool().Exec(context.Background(), `INSERT INTO mcp_servers (id, organization_id, name, created_by) VALUES ($1, $2, 's', 't')`,
		server, org); err != nil {
		t.Fatalf("insert a server: %v", err)
	}
	return org, server
}
