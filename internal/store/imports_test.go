package store_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// imported is a small design as an importer makes it: no ids, a source.
func imported(name string) design.Design {
	return design.Design{
		Server: design.Server{Name: name, Version: "1.0.0", Type: "openapi", ProtocolVersion: "2024-11-05",
			AuthMode: "none", Eras: design.DefaultEras, CacheScope: design.DefaultCacheScope,
			Source: json.RawMessage(`{"kind":"openapi"}`)},
		Tools: []design.Tool{{Name: "list_pets", InputSchema: design.DefaultInputSchema,
			Scenarios: []design.Scenario{{Name: "ok", Response: json.RawMessage(`{"pets":[]}`)}}}},
		Resources: []design.Resource{{Name: "guide", URI: "docs://guide", Content: json.RawMessage(`"text"`)}},
		Prompts:   []design.Prompt{{Name: "hello", Messages: []design.PromptMessage{{Role: "user", Text: "hi"}}}},
	}
}

// createIn creates d as a server of org, as the draft of an import is
// created: in one transaction of the organization the reference names.
func createIn(ctx context.Context, st *store.Store, org store.OrgRef, d design.Design, by string) (design.Server, error) {
	var srv design.Server
	err := st.InOrg(ctx, org, func(tx *store.Tx) error {
		var err error
		srv, err = tx.CreateDesign(ctx, d, by)
		return err
	})
	return srv, err
}

// TestCreateDesignInOrg creates an imported design in an organization named
// by id or by slug.
func TestCreateDesignInOrg(t *testing.T) {
	st, a, b := seedTwo(t)
	ctx := context.Background()

	// contents reads a server's design back as a member of its organization would.
	contents := func(t *testing.T, org uuid.UUID, srv design.Server) design.Design {
		t.Helper()
		var d design.Design
		require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) error {
			var err error
			d, err = tx.DesignOf(ctx, srv)
			return err
		}))
		return d
	}

	t.Run("by organization id", func(t *testing.T) {
		srv, err := createIn(ctx, st, store.OrgRef{ID: a.OrgID, UserID: a.UserID}, imported("Pets"), "user:a")
		require.NoError(t, err)
		require.NotEqual(t, uuid.Nil, srv.ID)
		require.Equal(t, a.OrgID, srv.OrgID)
		require.False(t, srv.Enabled, "an import is a draft")
		require.Equal(t, "user:a", srv.CreatedBy)
		require.JSONEq(t, `{"kind":"openapi"}`, string(srv.Source))
		d := contents(t, a.OrgID, srv)
		require.Len(t, d.Tools, 1)
		require.Equal(t, "list_pets", d.Tools[0].Name)
		require.Len(t, d.Tools[0].Scenarios, 1)
		require.Len(t, d.Resources, 1)
		require.Len(t, d.Prompts, 1)
		require.Empty(t, contents(t, b.OrgID, srv).Tools, "the other organization sees nothing of it")
	})

	t.Run("by organization slug", func(t *testing.T) {
		srv, err := createIn(ctx, st, store.OrgRef{Slug: b.Slug}, imported("Pets by slug"), "operator")
		require.NoError(t, err)
		require.Equal(t, b.OrgID, srv.OrgID)
		require.Len(t, contents(t, b.OrgID, srv).Tools, 1)
	})

	t.Run("unknown slug", func(t *testing.T) {
		_, err := createIn(ctx, st, store.OrgRef{Slug: "no-such-org"}, imported("Nowhere"), "operator")
		f, ok := failure.As(err)
		require.True(t, ok, "not a failure: %v", err)
		require.Equal(t, failure.KindInvalid, f.Kind)
		require.Equal(t, "org", f.Fields[0].Field)
		require.Contains(t, f.Fields[0].Message, `"no-such-org"`)
	})

}
