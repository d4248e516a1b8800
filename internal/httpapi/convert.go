package httpapi

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/designwire"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Conversions from store types to the wire types of gen/api.

func apiUser(u store.User) api.User {
	return api.User{Id: u.ID, Email: u.Email, CreatedAt: u.CreatedAt.UTC()}
}

func apiOrg(o store.Organization) api.Organization {
	out := api.Organization{Id: o.ID, Name: o.Name, Slug: o.Slug, Role: api.OrganizationRole(o.Role),
		CreatedAt: o.CreatedAt.UTC(), UpdatedAt: o.UpdatedAt.UTC()}
	if o.MaxPublicRateLimit != nil {
		out.MaxPublicRateLimit = nullable.NewNullableWithValue(int(*o.MaxPublicRateLimit))
	} else {
		out.MaxPublicRateLimit = nullable.NewNullNullable[int]()
	}
	return out
}

func apiOrgs(os []store.Organization) []api.Organization {
	out := make([]api.Organization, len(os))
	for i, o := range os {
		out[i] = apiOrg(o)
	}
	return out
}

func apiMember(m store.Member) api.Member {
	return api.Member{UserId: m.UserID, Email: m.Email, Role: api.MemberRole(m.Role), CreatedAt: m.CreatedAt.UTC()}
}

func (s *Server) apiServer(ctx context.Context, v design.Server) api.Server {
	return designwire.Server(v, s.endpointURL(ctx, v))
}

// endpointURL is where the design is served once enabled: under BASE_URL,
// or else under the address the caller reached this instance at.
func (s *Server) endpointURL(ctx context.Context, v design.Server) string {
	base := s.cfg.BaseURL
	if base == "" {
		base = requestOrigin(ctx)
	}
	return base + mcpserve.EndpointPath(v.ID)
}

// The conversions of design parts are designwire's, shared with design
// documents.
var (
	apiTool           = designwire.Tool
	apiResource       = designwire.Resource
	apiPrompt         = designwire.Prompt
	storeCapabilities = designwire.StoreCapabilities
	storeScopes       = designwire.StoreScopes
	storeScenarios    = designwire.StoreScenarios
	storeArguments    = designwire.StoreArguments
	storeMessages     = designwire.StoreMessages
	nullableString    = designwire.NullableString
)

// patchString applies a nullable PATCH field: absent keeps cur, null clears.
func patchString(cur *string, v nullable.Nullable[string]) *string {
	return designwire.PatchString(cur, v)
}

func deref[T any](p *T) T { return designwire.Deref(p) }

func or[T any](p *T, def T) T { return designwire.Or(p, def) }

func nullableUUID(id uuid.UUID) nullable.Nullable[uuid.UUID] {
	if id == uuid.Nil {
		return nullable.NewNullNullable[uuid.UUID]()
	}
	return nullable.NewNullableWithValue(id)
}

func nullableTime(t *time.Time) nullable.Nullable[time.Time] {
	if t == nil {
		return nullable.NewNullNullable[time.Time]()
	}
	return nullable.NewNullableWithValue(t.UTC())
}
