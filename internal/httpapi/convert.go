package httpapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
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
	out := api.Server{
		Id: v.ID, Name: v.Name, Description: v.Description, Version: v.Version,
		ProviderName: nullableString(v.ProviderName), ProviderUrl: nullableString(v.ProviderURL),
		Type: api.ServerType(v.Type), Enabled: v.Enabled, ProtocolVersion: api.ProtocolVersion(v.ProtocolVersion),
		Eras: api.Eras(v.Eras), CacheTtlMs: v.CacheTTLMs, CacheScope: api.CacheScope(v.CacheScope),
		AuthMode: api.ServerAuthMode(v.AuthMode), EndpointUrl: s.endpointURL(ctx, v),
		Source:    nullable.NewNullNullable[json.RawMessage](),
		CreatedBy: v.CreatedBy, CreatedAt: v.CreatedAt.UTC(), UpdatedAt: v.UpdatedAt.UTC(),
	}
	if len(v.Source) > 0 {
		out.Source = nullable.NewNullableWithValue(v.Source)
	}
	out.Fault = nullable.NewNullNullable[api.Fault]()
	if v.Fault != nil {
		out.Fault = nullable.NewNullableWithValue(*v.Fault)
	}
	return out
}

// endpointURL is where the design is served once enabled: under BASE_URL,
// or else under the address the caller reached this instance at.
func (s *Server) endpointURL(ctx context.Context, v design.Server) string {
	base := s.cfg.BaseURL
	if base == "" {
		base = requestOrigin(ctx)
	}
	return base + "/api/platform/" + v.ID.String() + "/mcp"
}

func apiTool(t design.Tool) api.Tool {
	out := api.Tool{Id: t.ID, ServerId: t.ServerID, Name: t.Name, Description: t.Description,
		InputSchema: t.InputSchema, MockScenarios: apiScenarios(t.Scenarios),
		RequiredClientCapabilities: apiCapabilities(t.RequiredClientCapabilities),
		CreatedAt:                  t.CreatedAt.UTC(), UpdatedAt: t.UpdatedAt.UTC()}
	if len(t.OutputSchema) > 0 {
		out.OutputSchema = nullable.NewNullableWithValue(json.RawMessage(t.OutputSchema))
	} else {
		out.OutputSchema = nullable.NewNullNullable[json.RawMessage]()
	}
	return out
}

// apiScenarios returns the scenarios as stored: the wire type is the
// store's.
func apiScenarios(scs []design.Scenario) []api.MockScenario { return scs }

// apiCapabilities converts a tool's required client capabilities, [] when
// it requires none.
func apiCapabilities(caps []string) api.RequiredClientCapabilities {
	out := make(api.RequiredClientCapabilities, len(caps))
	for i, c := range caps {
		out[i] = api.ClientCapability(c)
	}
	return out
}

// storeCapabilities converts required client capabilities for storage.
func storeCapabilities(in api.RequiredClientCapabilities) []string {
	out := make([]string, len(in))
	for i, c := range in {
		out[i] = string(c)
	}
	return out
}

// storeScenarios normalizes scenarios for storage: a null condition is an
// absent one.
func storeScenarios(in []api.MockScenario) []design.Scenario {
	for i := range in {
		if string(in[i].Condition) == "null" {
			in[i].Condition = nil
		}
	}
	return in
}

func apiResource(r design.Resource) api.Resource {
	out := api.Resource{Id: r.ID, ServerId: r.ServerID, Name: r.Name, Uri: r.URI, Description: r.Description,
		MimeType: nullableString(r.MimeType), Content: r.Content, Blob: nullable.NewNullNullable[string](),
		Completions: api.Completions(r.Completions), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if out.Completions == nil {
		out.Completions = api.Completions{}
	}
	if r.Ask != nil {
		out.Ask, out.Then = &r.Ask, &r.Then
	}
	if r.Binary {
		var blob string
		_ = json.Unmarshal(r.Content, &blob) // a binary resource's content is a JSON string
		out.Blob = nullable.NewNullableWithValue(blob)
		out.Content = json.RawMessage("null")
	}
	return out
}

func apiPrompt(p design.Prompt) api.Prompt {
	out := api.Prompt{Id: p.ID, ServerId: p.ServerID, Name: p.Name, Description: p.Description,
		Arguments: make([]api.PromptArgument, len(p.Arguments)), Messages: make([]api.PromptMessage, len(p.Messages)),
		CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC()}
	if p.Ask != nil {
		out.Ask, out.Then = &p.Ask, &p.Then
	}
	for i, a := range p.Arguments {
		out.Arguments[i] = api.PromptArgument{Name: a.Name, Description: &p.Arguments[i].Description, Required: &p.Arguments[i].Required}
		if len(a.Completions) > 0 {
			out.Arguments[i].Completions = &p.Arguments[i].Completions
		}
	}
	for i, m := range p.Messages {
		out.Messages[i] = api.PromptMessage{Role: api.PromptMessageRole(m.Role)}
		if len(m.Content) > 0 {
			out.Messages[i].Content = &p.Messages[i].Content
		} else {
			out.Messages[i].Text = &p.Messages[i].Text
		}
	}
	return out
}

func storeArguments(in []api.PromptArgument) []design.PromptArgument {
	out := make([]design.PromptArgument, len(in))
	for i, a := range in {
		out[i] = design.PromptArgument{Name: a.Name, Description: deref(a.Description), Required: deref(a.Required)}
		if a.Completions != nil {
			out[i].Completions = *a.Completions
		}
	}
	return out
}

func storeMessages(in []api.PromptMessage) []design.PromptMessage {
	out := make([]design.PromptMessage, len(in))
	for i, m := range in {
		out[i] = design.PromptMessage{Role: string(m.Role), Text: deref(m.Text)}
		if m.Content != nil {
			out[i].Content = *m.Content
		}
	}
	return out
}

func nullableString(p *string) nullable.Nullable[string] {
	if p == nil {
		return nullable.NewNullNullable[string]()
	}
	return nullable.NewNullableWithValue(*p)
}

// patchString applies a nullable PATCH field: absent keeps cur, null clears.
func patchString(cur *string, v nullable.Nullable[string]) *string {
	if !v.IsSpecified() {
		return cur
	}
	if v.IsNull() {
		return nil
	}
	s := v.MustGet()
	return &s
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

func or[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

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
