package mcpserve

import (
	"context"
	"reflect"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// everyCoreField is a design that sets every part of a compiled core:
// identity, rate limit, description, OAuth guard, fault, skills, and an
// upstream every call goes to, for a server of protocol version v.
func everyCoreField(v string) design.Design {
	limit := int32(7)
	seed := int64(42)
	return design.Design{
		Server: design.Server{ID: uuid.New(), OrgID: uuid.New(), Name: "W", Version: "1", ProtocolVersion: v,
			Description: "what it does", AuthMode: design.AuthModeOAuth,
			Eras: design.ErasModernAndLegacy, CacheScope: design.CacheScopePrivate, CacheTTLMs: 1000,
			Fault: &mockspec.Fault{Rate: 0.5, DelayMS: 1}, Seed: &seed,
			Upstream: &design.Upstream{URL: "https://upstream.example/mcp", Mode: design.UpstreamRecord},
			Skills:   []design.Skill{{Name: "s", Description: "a skill", Body: "# S"}}},
		PublicLimit: &limit,
		Tools: []design.Tool{{Name: "t", InputSchema: []byte(`{"type":"object"}`),
			Scenarios: []design.Scenario{{Name: "s", Response: []byte(`{"ok":true}`)}}}},
	}
}

// TestViewsShareTheCore: both views of a design share one core, so the
// modern view cannot lose a part of it (an upstream, a record mode, an
// OAuth guard once were): every field of the core is set, and reads the
// same through either view. The modern view shares the legacy catalog
// too, unless its answers are shaped apart: then it has its own, compiled
// from the design read again, beside the same core.
func TestViewsShareTheCore(t *testing.T) {
	for _, tc := range []struct {
		name         string
		version      string
		shapedApart  bool
		sameCatalogs bool
	}{
		{name: "answers shaped alike", version: protocol.Latest, sameCatalogs: true},
		{name: "answers shaped apart", version: "2024-11-05", shapedApart: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := everyCoreField(tc.version)
			legacy, err := compile(d)
			require.NoError(t, err)
			require.Equal(t, tc.shapedApart, legacy.needsReload())
			reloads := 0
			legacy.modern.reload = func(context.Context) (design.Design, error) { reloads++; return d, nil }
			modern, err := legacy.forModern(context.Background())
			require.NoError(t, err)
			require.Equal(t, protocol.Modern, modern.version)
			require.Equal(t, tc.shapedApart, reloads == 1, "the design is read again only when shaped apart")

			require.Same(t, legacy.core, modern.core, "the modern view shares the legacy view's core")
			lv, mv := reflect.ValueOf(legacy).Elem(), reflect.ValueOf(modern).Elem()
			core := reflect.TypeOf(core{})
			for i := range core.NumField() {
				name := core.Field(i).Name
				// Read through each view as methods read them: a view
				// field of the same name would shadow the core's.
				l, m := lv.FieldByName(name), mv.FieldByName(name)
				require.False(t, l.IsZero(), "the design sets core field %s", name)
				require.False(t, m.IsZero(), "the modern view keeps core field %s", name)
				if name != "modern" { // holds a lock: compared by the core's identity above
					require.True(t, l.Equal(m), "core field %s differs between the views", name)
				}
			}
			require.NotNil(t, modern.upstream)
			require.True(t, modern.record)
			require.NotNil(t, modern.oauth)
			require.NotNil(t, modern.fault)

			if tc.sameCatalogs {
				require.Same(t, legacy.catalog, modern.catalog)
			} else {
				require.NotSame(t, legacy.catalog, modern.catalog, "answers shaped apart have their own catalog")
				require.Equal(t, legacy.tools["t"].name, modern.tools["t"].name)
			}
			require.NotEmpty(t, modern.discover)
			require.NotEmpty(t, modern.readHints)
			require.Empty(t, legacy.discover, "server/discover is the modern view's")
			again, err := legacy.forModern(context.Background())
			require.NoError(t, err)
			require.Same(t, modern, again, "built once")
		})
	}
}
