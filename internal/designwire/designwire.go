// Package designwire converts between the REST wire types of a design
// (gen/api: the create bodies and the answers) and the design model
// (internal/design). The REST handlers and design documents
// (internal/designdoc) share it, so a body means the same in both.
package designwire

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// ServerFromCreate is the server a create body describes, with the
// defaults of absent fields; it has no id yet and is a draft.
func ServerFromCreate(b api.CreateServerRequest) design.Server {
	d := design.ServerDefaults()
	return design.Server{
		Name: strings.TrimSpace(b.Name), Description: Deref(b.Description),
		Version: Or(b.Version, "1.0.0"), ProviderName: b.ProviderName, ProviderURL: b.ProviderUrl,
		Type:            string(Or(b.Type, api.CreateServerRequestTypeMock)),
		ProtocolVersion: string(Or(b.ProtocolVersion, api.ProtocolVersion(protocol.Default))),
		Eras:            Or((*string)(b.Eras), d.Eras),
		CacheTTLMs:      Or(b.CacheTtlMs, d.CacheTTLMs),
		CacheScope:      Or((*string)(b.CacheScope), d.CacheScope),
		AuthMode:        string(Or(b.AuthMode, api.AuthModeNone)),
		OAuth:           Deref(b.Oauth),
		Fault:           b.Fault,
		State:           Deref(b.State),
		Seed:            b.Seed,
		Skills:          Deref(b.Skills),
	}
}

// PatchServer applies to v the fields an update body gives: absent ones
// keep their value, and a null provider or fault removes it. The name is
// trimmed; the upstream, whose header values are sealed, is the caller's.
func PatchServer(v *design.Server, b api.UpdateServerRequest) {
	if b.Name != nil {
		v.Name = strings.TrimSpace(*b.Name)
	}
	v.Description = Or(b.Description, v.Description)
	v.Version = Or(b.Version, v.Version)
	v.ProviderName = PatchString(v.ProviderName, b.ProviderName)
	v.ProviderURL = PatchString(v.ProviderURL, b.ProviderUrl)
	v.Type = Or((*string)(b.Type), v.Type)
	v.Enabled = Or(b.Enabled, v.Enabled)
	v.ProtocolVersion = Or((*string)(b.ProtocolVersion), v.ProtocolVersion)
	v.Eras = Or((*string)(b.Eras), v.Eras)
	v.CacheTTLMs = Or(b.CacheTtlMs, v.CacheTTLMs)
	v.CacheScope = Or((*string)(b.CacheScope), v.CacheScope)
	v.AuthMode = Or((*string)(b.AuthMode), v.AuthMode)
	v.OAuth = Or(b.Oauth, v.OAuth)
	v.State = Or(b.State, v.State)
	v.Skills = Or(b.Skills, v.Skills)
	if b.Seed.IsSpecified() {
		v.Seed = nil
		if seed, err := b.Seed.Get(); err == nil {
			v.Seed = &seed
		}
	}
	if b.Fault.IsSpecified() {
		v.Fault = nil
		if f, err := b.Fault.Get(); err == nil {
			v.Fault = &f
		}
	}
}

// patchString is cur with a nullable update applied: unspecified keeps
// it, null removes it.
func PatchString(cur *string, v nullable.Nullable[string]) *string {
	if !v.IsSpecified() {
		return cur
	}
	if v.IsNull() {
		return nil
	}
	s := v.MustGet()
	return &s
}

// ToolFromCreate is the tool a create body describes; it has no ids yet.
func ToolFromCreate(b api.CreateToolRequest) design.Tool {
	t := design.Tool{Name: b.Name, Description: Deref(b.Description),
		InputSchema: Or(b.InputSchema, design.DefaultInputSchema), Scenarios: []design.Scenario{},
		RequiredClientCapabilities: StoreCapabilities(Deref(b.RequiredClientCapabilities)),
		RequiredScopes:             StoreScopes(Deref(b.RequiredScopes)), Fault: b.Fault, Meta: Deref(b.Meta)}
	if v, err := b.OutputSchema.Get(); err == nil {
		t.OutputSchema = v
	}
	if b.MockScenarios != nil {
		t.Scenarios = StoreScenarios(*b.MockScenarios)
	}
	return t
}

// ResourceFromCreate is the resource a create body describes; it has no
// ids yet. It fails when the body gives both content and blob, or neither.
func ResourceFromCreate(b api.CreateResourceRequest) (design.Resource, error) {
	r := design.Resource{Name: b.Name, URI: b.Uri, Description: Deref(b.Description), MimeType: b.MimeType,
		Ask: Deref(b.Ask), Then: Deref(b.Then), Meta: Deref(b.Meta)}
	if b.Completions != nil {
		r.Completions = *b.Completions
	}
	err := SetResourceContent(&r, b.Content, b.Blob, true)
	return r, err
}

// PromptFromCreate is the prompt a create body describes; it has no ids
// yet.
func PromptFromCreate(b api.CreatePromptRequest) design.Prompt {
	return design.Prompt{Name: b.Name, Description: Deref(b.Description),
		Arguments: StoreArguments(Deref(b.Arguments)), Messages: StoreMessages(Deref(b.Messages)),
		Ask: Deref(b.Ask), Then: Deref(b.Then)}
}

// Server is the REST answer for a server, served at endpointURL.
func Server(v design.Server, endpointURL string) api.Server {
	out := api.Server{
		Id: v.ID, Name: v.Name, Description: v.Description, Version: v.Version,
		ProviderName: NullableString(v.ProviderName), ProviderUrl: NullableString(v.ProviderURL),
		Type: api.ServerType(v.Type), Enabled: v.Enabled, ProtocolVersion: api.ProtocolVersion(v.ProtocolVersion),
		Eras: api.Eras(v.Eras), CacheTtlMs: v.CacheTTLMs, CacheScope: api.CacheScope(v.CacheScope),
		AuthMode: api.AuthMode(v.AuthMode), Oauth: OAuthSettings(v.OAuth),
		OauthTokensNotBefore:  nullableTime(v.OAuthTokensNotBefore),
		OauthRefreshNotBefore: nullableTime(v.OAuthRefreshNotBefore),
		EndpointUrl:           endpointURL,
		State:                 State(v.State),
		Skills:                Skills(v.Skills),
		Seed:                  nullable.NewNullNullable[api.Seed](),
		Source:                nullable.NewNullNullable[json.RawMessage](),
		CreatedBy:             v.CreatedBy, CreatedAt: v.CreatedAt.UTC(), UpdatedAt: v.UpdatedAt.UTC(),
	}
	if len(v.Source) > 0 {
		out.Source = nullable.NewNullableWithValue(v.Source)
	}
	if v.Seed != nil {
		out.Seed = nullable.NewNullableWithValue(*v.Seed)
	}
	out.Fault = nullableFault(v.Fault)
	out.Upstream = nullable.NewNullNullable[api.UpstreamInfo]()
	if u := v.Upstream; u != nil {
		names := u.HeaderNames
		if names == nil {
			names = []string{}
		}
		out.Upstream = nullable.NewNullableWithValue(api.UpstreamInfo{Url: u.URL, Mode: api.UpstreamMode(u.Mode), HeaderNames: names})
	}
	return out
}

// Skills is a design's skills as answered: [] when it has none.
func Skills(v []design.Skill) []design.Skill {
	if v == nil {
		return []design.Skill{}
	}
	return v
}

// Tool is the REST answer for a tool.
func Tool(t design.Tool) api.Tool {
	out := api.Tool{Id: t.ID, ServerId: t.ServerID, Name: t.Name, Description: t.Description,
		InputSchema: t.InputSchema, MockScenarios: t.Scenarios,
		RequiredClientCapabilities: Capabilities(t.RequiredClientCapabilities),
		RequiredScopes:             Scopes(t.RequiredScopes),
		CreatedAt:                  t.CreatedAt.UTC(), UpdatedAt: t.UpdatedAt.UTC()}
	if len(t.OutputSchema) > 0 {
		out.OutputSchema = nullable.NewNullableWithValue(json.RawMessage(t.OutputSchema))
	} else {
		out.OutputSchema = nullable.NewNullNullable[json.RawMessage]()
	}
	out.Fault = nullableFault(t.Fault)
	out.Meta = NullableMeta(t.Meta)
	return out
}

// NullableMeta is a tool's or a resource's meta in an answer: null when
// there is none.
func NullableMeta(meta json.RawMessage) nullable.Nullable[json.RawMessage] {
	if len(meta) == 0 || string(meta) == "null" {
		return nullable.NewNullNullable[json.RawMessage]()
	}
	return nullable.NewNullableWithValue(meta)
}

// PatchMeta is the meta an update body's member v makes of cur: cur when
// absent, none when null, else the one given.
func PatchMeta(cur json.RawMessage, v nullable.Nullable[json.RawMessage]) json.RawMessage {
	if !v.IsSpecified() {
		return cur
	}
	if m, err := v.Get(); err == nil {
		return m
	}
	return nil
}

// nullableFault is a fault in an answer: null when there is none.
func nullableFault(f *mockspec.Fault) nullable.Nullable[api.Fault] {
	if f == nil {
		return nullable.NewNullNullable[api.Fault]()
	}
	return nullable.NewNullableWithValue(*f)
}

// PatchFault is the fault an update body's member v makes of cur: cur
// when absent, none when null, else the one given.
func PatchFault(cur *mockspec.Fault, v nullable.Nullable[api.Fault]) *mockspec.Fault {
	if !v.IsSpecified() {
		return cur
	}
	if f, err := v.Get(); err == nil {
		return &f
	}
	return nil
}

// Capabilities converts a tool's required client capabilities, [] when it
// requires none.
func Capabilities(caps []string) api.RequiredClientCapabilities {
	out := make(api.RequiredClientCapabilities, len(caps))
	for i, c := range caps {
		out[i] = api.ClientCapability(c)
	}
	return out
}

// OAuthSettings is a server's OAuth settings as answered: the defaults of
// absent members spelled out (consent, token lifetime).
func OAuthSettings(o oauthcfg.Settings) api.OAuthSettings {
	if o.Consent == "" {
		o.Consent = oauthcfg.ConsentAuto
	}
	if o.TokenLifetimeSeconds == 0 {
		o.TokenLifetimeSeconds = int(oauthcfg.DefaultTokenLifetime / time.Second)
	}
	return o
}

// Scopes converts a tool's required scopes, [] when it requires none.
func Scopes(scopes []string) []string {
	if scopes == nil {
		return []string{}
	}
	return scopes
}

// StoreScopes converts required scopes for storage.
func StoreScopes(in []string) []string {
	return append([]string{}, in...)
}

func nullableTime(t time.Time) nullable.Nullable[time.Time] {
	if t.IsZero() {
		return nullable.NewNullNullable[time.Time]()
	}
	return nullable.NewNullableWithValue(t.UTC())
}

// StoreCapabilities converts required client capabilities for storage.
func StoreCapabilities(in api.RequiredClientCapabilities) []string {
	out := make([]string, len(in))
	for i, c := range in {
		out[i] = string(c)
	}
	return out
}

// StoreScenarios normalizes scenarios for storage: a null condition is an
// absent one.
func StoreScenarios(in []api.MockScenario) []design.Scenario {
	for i := range in {
		if string(in[i].Condition) == "null" {
			in[i].Condition = nil
		}
	}
	return in
}

// Resource is the REST answer for a resource.
func Resource(r design.Resource) api.Resource {
	out := api.Resource{Id: r.ID, ServerId: r.ServerID, Name: r.Name, Uri: r.URI, Description: r.Description,
		MimeType: NullableString(r.MimeType), Content: r.Content, Blob: nullable.NewNullNullable[string](),
		Completions: api.Completions(r.Completions), Meta: NullableMeta(r.Meta),
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
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

// SetResourceContent sets r's content from a request's content or blob:
// one of the two, never both; on create, one is required.
func SetResourceContent(r *design.Resource, content *api.ResourceContent, blob *api.ResourceBlob, create bool) error {
	switch {
	case content != nil && blob != nil:
		return failure.Invalid(failure.Field("blob", "give content (text or JSON) or blob (binary, base64), not both"))
	case blob != nil:
		raw, _ := json.Marshal(*blob) // a string always encodes
		r.Content, r.Binary = raw, true
	case content != nil:
		r.Content, r.Binary = *content, false
	case create:
		return failure.Invalid(failure.Field("content", "is required: text or a JSON value (or give blob, base64, for binary content)"))
	}
	return nil
}

// Prompt is the REST answer for a prompt.
func Prompt(p design.Prompt) api.Prompt {
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

// StoreArguments converts a prompt's arguments for storage.
func StoreArguments(in []api.PromptArgument) []design.PromptArgument {
	out := make([]design.PromptArgument, len(in))
	for i, a := range in {
		out[i] = design.PromptArgument{Name: a.Name, Description: Deref(a.Description), Required: Deref(a.Required)}
		if a.Completions != nil {
			out[i].Completions = *a.Completions
		}
	}
	return out
}

// StoreMessages converts a prompt's messages for storage.
func StoreMessages(in []api.PromptMessage) []design.PromptMessage {
	out := make([]design.PromptMessage, len(in))
	for i, m := range in {
		out[i] = design.PromptMessage{Role: string(m.Role), Text: Deref(m.Text)}
		if m.Content != nil {
			out[i].Content = *m.Content
		}
	}
	return out
}

// NullableString is p as a nullable wire field: null when p is nil.
func NullableString(p *string) nullable.Nullable[string] {
	if p == nil {
		return nullable.NewNullNullable[string]()
	}
	return nullable.NewNullableWithValue(*p)
}

// Deref is *p, or the zero value when p is nil.
func Deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// Or is *p, or def when p is nil.
func Or[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// State is a design's initial state as answered: {} when it has none.
func State(v json.RawMessage) json.RawMessage {
	if len(v) == 0 || string(v) == "null" {
		return json.RawMessage("{}")
	}
	return v
}
