package agentcard

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// A2AProtocolVersion is the A2A version the rendering follows.
const A2AProtocolVersion = "1.0"

// A2ACapabilitiesExtensionURI identifies the AgentExtension that carries the
// capabilities of a card that A2A has no field for.
const A2ACapabilitiesExtensionURI = "urn:mockmcp:agent-card:capabilities"

// Publisher is what the rendering needs beside the card: who publishes it and
// where the exchange shows it.
type Publisher struct {
	OrgName string // the organization's name: provider.organization
	CardURL string // the card's page in the exchange, the provider URL when the card names no homepage or repository
	// AgentURL is the card's mock A2A agent endpoint (JSON-RPC binding),
	// listed first in supportedInterfaces; none when empty.
	AgentURL string
	// AgentRESTURL is the same agent in the HTTP+JSON binding, listed
	// second; none when empty.
	AgentRESTURL string
}

// AgentCard is a card in the A2A 1.0 AgentCard shape: the proto3 JSON
// mapping of message AgentCard in specification/a2a.proto (package
// lf.a2a.v1). The fields A2A 1.0 removed (url, preferredTransport and
// protocolVersion at the card level, additionalInterfaces,
// supportsAuthenticatedExtendedCard, security) have no place here, and
// signatures and iconUrl are never rendered.
type AgentCard struct {
	Name                 string                       `json:"name"`
	Description          string                       `json:"description"`
	SupportedInterfaces  []A2AInterface               `json:"supportedInterfaces"`
	Provider             *A2AProvider                 `json:"provider,omitempty"`
	Version              string                       `json:"version"`
	DocumentationURL     string                       `json:"documentationUrl,omitempty"`
	Capabilities         A2ACapabilities              `json:"capabilities"`
	SecuritySchemes      map[string]A2ASecurityScheme `json:"securitySchemes,omitempty"`
	SecurityRequirements []A2ASecurityRequirement     `json:"securityRequirements,omitempty"`
	DefaultInputModes    []string                     `json:"defaultInputModes"`
	DefaultOutputModes   []string                     `json:"defaultOutputModes"`
	Skills               []A2ASkill                   `json:"skills"`
}

// A2AInterface is A2A's AgentInterface: a URL, the protocol binding spoken
// there and the A2A version it exposes.
type A2AInterface struct {
	URL string `json:"url"`
	// ProtocolBinding is open-form; the core values are JSONRPC, GRPC and
	// HTTP+JSON.
	ProtocolBinding string `json:"protocolBinding"`
	Tenant          string `json:"tenant,omitempty"`
	ProtocolVersion string `json:"protocolVersion"`
}

// A2AProvider is A2A's AgentProvider.
type A2AProvider struct {
	URL          string `json:"url"`
	Organization string `json:"organization"`
}

// A2ACapabilities is A2A's AgentCapabilities. Streaming and
// PushNotifications are always written, false included.
type A2ACapabilities struct {
	Streaming         bool           `json:"streaming"`
	PushNotifications bool           `json:"pushNotifications"`
	Extensions        []A2AExtension `json:"extensions,omitempty"`
	ExtendedAgentCard *bool          `json:"extendedAgentCard,omitempty"`
}

// A2AExtension is A2A's AgentExtension. Params is a google.protobuf.Struct:
// any JSON object.
type A2AExtension struct {
	URI         string         `json:"uri"`
	Description string         `json:"description,omitempty"`
	Required    bool           `json:"required"`
	Params      map[string]any `json:"params,omitempty"`
}

// A2ASecurityScheme is A2A's SecurityScheme, a oneof: exactly one field is
// set. Only the schemes a card's authentication type can be rendered as are
// modelled; oauth2SecurityScheme and openIdConnectSecurityScheme need
// details a card does not hold.
type A2ASecurityScheme struct {
	APIKey   *A2AAPIKeySecurityScheme   `json:"apiKeySecurityScheme,omitempty"`
	HTTPAuth *A2AHTTPAuthSecurityScheme `json:"httpAuthSecurityScheme,omitempty"`
	MTLS     *A2AMTLSSecurityScheme     `json:"mtlsSecurityScheme,omitempty"`
}

// A2AAPIKeySecurityScheme is A2A's APIKeySecurityScheme. Location is
// "query", "header" or "cookie".
type A2AAPIKeySecurityScheme struct {
	Description string `json:"description,omitempty"`
	Location    string `json:"location"`
	Name        string `json:"name"`
}

// A2AHTTPAuthSecurityScheme is A2A's HTTPAuthSecurityScheme.
type A2AHTTPAuthSecurityScheme struct {
	Description  string `json:"description,omitempty"`
	Scheme       string `json:"scheme"`
	BearerFormat string `json:"bearerFormat,omitempty"`
}

// A2AMTLSSecurityScheme is A2A's MutualTlsSecurityScheme.
type A2AMTLSSecurityScheme struct {
	Description string `json:"description,omitempty"`
}

// A2ASecurityRequirement is A2A's SecurityRequirement: the schemes, by their
// names in securitySchemes, that a caller must satisfy together, each with
// the scopes it needs.
type A2ASecurityRequirement struct {
	Schemes map[string]A2AStringList `json:"schemes"`
}

// A2AStringList is A2A's StringList. List is never nil, so it is written as
// [] when empty.
type A2AStringList struct {
	List []string `json:"list"`
}

// A2ASkill is A2A's AgentSkill.
type A2ASkill struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Examples    []string `json:"examples,omitempty"`
	InputModes  []string `json:"inputModes,omitempty"`
	OutputModes []string `json:"outputModes,omitempty"`
	// SecurityRequirements override the card's for this skill.
	SecurityRequirements []A2ASecurityRequirement `json:"securityRequirements,omitempty"`
}

// A2A renders c in the A2A 1.0 AgentCard shape. It is meant for published
// cards, which have passed validation; a draft renders as far as it goes.
//
//   - name, description and version are as stored.
//   - provider is {organization: p.OrgName, url: the homepage, else the
//     repository, else p.CardURL}; documentationUrl is the homepage, absent
//     when there is none.
//   - supportedInterfaces holds the card's mock agent endpoint first
//     (p.AgentURL, JSONRPC, protocolVersion "1.0") when p names one, and
//     its HTTP+JSON binding (p.AgentRESTURL) when p names that, then
//     the invocation endpoint with its protocol binding and protocolVersion
//     "1.0". An mcp invocation is bound as MCP whatever its format: it
//     speaks JSON-RPC but not A2A, so an A2A client must not pick it. Other
//     bindings come from the invocation format when set (json-rpc →
//     JSONRPC, rest → HTTP+JSON, graphql → GRAPHQL), else from the protocol
//     (rest → HTTP+JSON; grpc → GRPC; graphql → GRAPHQL; websocket →
//     WEBSOCKET; anything else upper-cased). Without either the list is
//     empty.
//   - capabilities are {streaming, pushNotifications: async}, both always
//     written, false without capabilities. Languages, domains,
//     state_management and rate_limit, which A2A has no field for, go into
//     one extension, A2ACapabilitiesExtensionURI, with required false and
//     those of the four that are set (state_management when true) as
//     params, when at least one of them is.
//   - defaultInputModes are the input modes as media types (text →
//     text/plain, voice → audio/*, image → image/*, video → video/*, file →
//     application/octet-stream) and defaultOutputModes the output modes
//     (text → text/plain, json → application/json, speech → audio/*, image →
//     image/*, video → video/*, file → application/octet-stream), without
//     repeats and in the card's order; unknown modes are skipped, and either
//     list is ["text/plain"] when it would be empty.
//   - securitySchemes has one scheme named after the authentication type:
//     bearer and basic as httpAuthSecurityScheme with scheme Bearer or
//     Basic, api_key as apiKeySecurityScheme in the X-API-Key header, mtls
//     as mtlsSecurityScheme. oauth2 (whose flows a card does not describe),
//     none and no authentication render no scheme. securityRequirements
//     names that scheme, with no scopes, when authentication is required.
//   - each skill becomes {id and name: the skill's name, description, tags,
//     examples}. The tags are the card's metadata tags then its categories,
//     without repeats, or [the skill's name] when there are none. The
//     examples are the card-level examples of the skill (each one's
//     description, else its input as compact JSON), then the skill's own
//     examples (a JSON string as its value, anything else as compact JSON).
//   - signatures and iconUrl are never written.
func A2A(c Card, p Publisher) AgentCard {
	out := AgentCard{
		Name:                c.Name,
		Description:         c.Description,
		SupportedInterfaces: []A2AInterface{},
		Version:             c.Version,
		Skills:              make([]A2ASkill, 0, len(c.Skills)),
	}

	provider := &A2AProvider{Organization: p.OrgName, URL: p.CardURL}
	switch {
	case a2aSet(c.Homepage):
		provider.URL = *c.Homepage
		out.DocumentationURL = *c.Homepage
	case a2aSet(c.Repository):
		provider.URL = *c.Repository
	}
	out.Provider = provider

	if p.AgentURL != "" {
		out.SupportedInterfaces = append(out.SupportedInterfaces, A2AInterface{
			URL:             p.AgentURL,
			ProtocolBinding: a2aBindingJSONRPC,
			ProtocolVersion: A2AProtocolVersion,
		})
	}
	if p.AgentRESTURL != "" {
		out.SupportedInterfaces = append(out.SupportedInterfaces, A2AInterface{
			URL:             p.AgentRESTURL,
			ProtocolBinding: a2aBindingHTTPJSON,
			ProtocolVersion: A2AProtocolVersion,
		})
	}
	if inv := c.Invocation; inv != nil {
		out.SupportedInterfaces = append(out.SupportedInterfaces, A2AInterface{
			URL:             inv.Endpoint,
			ProtocolBinding: a2aProtocolBinding(*inv),
			ProtocolVersion: A2AProtocolVersion,
		})
		out.SecuritySchemes, out.SecurityRequirements = a2aSecurity(inv.Authentication)
	}
	if c.Auth != nil && p.AgentURL != "" {
		// The agent's interface is listed first; its scheme is the one a
		// caller must satisfy.
		name, scheme := a2aAgentSecurity(*c.Auth)
		if out.SecuritySchemes == nil {
			out.SecuritySchemes = map[string]A2ASecurityScheme{}
		}
		out.SecuritySchemes[name] = scheme
		out.SecurityRequirements = []A2ASecurityRequirement{{Schemes: map[string]A2AStringList{name: {List: []string{}}}}}
	}

	var inputModes, outputModes []string
	if caps := c.Capabilities; caps != nil {
		out.Capabilities.Streaming = caps.Streaming
		out.Capabilities.PushNotifications = caps.Async
		if ext, ok := a2aCapabilitiesExtension(*caps); ok {
			out.Capabilities.Extensions = []A2AExtension{ext}
		}
		inputModes, outputModes = caps.InputModes, caps.OutputModes
	}
	out.DefaultInputModes = a2aMediaTypes(inputModes, a2aInputMediaTypes)
	out.DefaultOutputModes = a2aMediaTypes(outputModes, a2aOutputMediaTypes)

	tags := a2aSkillTags(c.Metadata)
	for _, s := range c.Skills {
		skillTags := slices.Clone(tags)
		if len(skillTags) == 0 {
			skillTags = []string{s.Name}
		}
		out.Skills = append(out.Skills, A2ASkill{
			ID:          s.Name,
			Name:        s.Name,
			Description: s.Description,
			Tags:        skillTags,
			Examples:    a2aSkillExamples(c.Examples, s),
		})
	}
	return out
}

func a2aSet(s *string) bool { return s != nil && *s != "" }

// Core protocol bindings of A2A 1.0, and the others a card's invocation can
// name.
const (
	a2aBindingJSONRPC   = "JSONRPC"
	a2aBindingGRPC      = "GRPC"
	a2aBindingHTTPJSON  = "HTTP+JSON"
	a2aBindingGraphQL   = "GRAPHQL"
	a2aBindingWebSocket = "WEBSOCKET"
	a2aBindingMCP       = "MCP"
)

var a2aFormatBindings = map[string]string{
	"json-rpc": a2aBindingJSONRPC,
	"rest":     a2aBindingHTTPJSON,
	"graphql":  a2aBindingGraphQL,
}

var a2aProtocolBindings = map[string]string{
	"rest":      a2aBindingHTTPJSON,
	"grpc":      a2aBindingGRPC,
	"graphql":   a2aBindingGraphQL,
	"websocket": a2aBindingWebSocket,
}

// a2aProtocolBinding names the A2A protocol binding of an invocation: MCP for
// an MCP endpoint, else from its
// format when that is set and known, else from its protocol. A protocol
// without a mapping is passed on upper-cased, the binding being open-form.
func a2aProtocolBinding(inv Invocation) string {
	if inv.Protocol == "mcp" {
		return a2aBindingMCP
	}
	if inv.Format != nil {
		if b, ok := a2aFormatBindings[*inv.Format]; ok {
			return b
		}
	}
	if b, ok := a2aProtocolBindings[inv.Protocol]; ok {
		return b
	}
	return strings.ToUpper(inv.Protocol)
}

// a2aSecurity renders an authentication as the scheme it names and, when it is
// required, the requirement to satisfy that scheme.
func a2aSecurity(a *Authentication) (map[string]A2ASecurityScheme, []A2ASecurityRequirement) {
	if a == nil || a.Type == nil {
		return nil, nil
	}
	name := *a.Type
	var scheme A2ASecurityScheme
	switch name {
	case "bearer":
		scheme.HTTPAuth = &A2AHTTPAuthSecurityScheme{Scheme: "Bearer"}
	case "basic":
		scheme.HTTPAuth = &A2AHTTPAuthSecurityScheme{Scheme: "Basic"}
	case "api_key":
		scheme.APIKey = &A2AAPIKeySecurityScheme{Location: "header", Name: "X-API-Key"}
	case "mtls":
		scheme.MTLS = &A2AMTLSSecurityScheme{}
	default:
		// oauth2 needs flows a card does not describe; none needs nothing.
		return nil, nil
	}
	schemes := map[string]A2ASecurityScheme{name: scheme}
	if !a.Required {
		return schemes, nil
	}
	return schemes, []A2ASecurityRequirement{{Schemes: map[string]A2AStringList{name: {List: []string{}}}}}
}

// a2aCapabilitiesExtension carries the capabilities A2A has no field for, when
// the card has any of them.
func a2aCapabilitiesExtension(caps Capabilities) (A2AExtension, bool) {
	params := map[string]any{}
	if len(caps.Languages) > 0 {
		params["languages"] = slices.Clone(caps.Languages)
	}
	if len(caps.Domains) > 0 {
		params["domains"] = slices.Clone(caps.Domains)
	}
	if caps.StateManagement {
		params["state_management"] = true
	}
	if a2aSet(caps.RateLimit) {
		params["rate_limit"] = *caps.RateLimit
	}
	if len(params) == 0 {
		return A2AExtension{}, false
	}
	return A2AExtension{
		URI:         A2ACapabilitiesExtensionURI,
		Description: "Capabilities of the mockmcp card format that A2A has no field for",
		Params:      params,
	}, true
}

var a2aInputMediaTypes = map[string]string{
	"text":  "text/plain",
	"voice": "audio/*",
	"image": "image/*",
	"video": "video/*",
	"file":  "application/octet-stream",
}

var a2aOutputMediaTypes = map[string]string{
	"text":   "text/plain",
	"json":   "application/json",
	"speech": "audio/*",
	"image":  "image/*",
	"video":  "video/*",
	"file":   "application/octet-stream",
}

// a2aMediaTypes maps a card's modes to media types, without repeats and in
// order, skipping unknown modes; ["text/plain"] when none is left.
func a2aMediaTypes(modes []string, table map[string]string) []string {
	out := make([]string, 0, len(modes))
	for _, m := range modes {
		if t, ok := table[m]; ok {
			out = a2aAppendNew(out, t)
		}
	}
	if len(out) == 0 {
		out = append(out, "text/plain")
	}
	return out
}

// a2aSkillTags are the card's tags then its categories, without repeats.
func a2aSkillTags(m *Metadata) []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, t := range append(append([]string(nil), m.Tags...), m.Categories...) {
		if t != "" {
			out = a2aAppendNew(out, t)
		}
	}
	return out
}

// a2aSkillExamples are the card-level examples of s, then its own.
func a2aSkillExamples(examples []Example, s Skill) []string {
	var out []string
	for _, e := range examples {
		if e.Skill != s.Name {
			continue
		}
		if a2aSet(e.Description) {
			out = append(out, *e.Description)
		} else if in, ok := a2aCompactJSON(e.Input); ok {
			out = append(out, in)
		}
	}
	for _, raw := range s.Examples {
		var str string
		if err := json.Unmarshal(raw, &str); err == nil {
			if str != "" {
				out = append(out, str)
			}
		} else if v, ok := a2aCompactJSON(raw); ok {
			out = append(out, v)
		}
	}
	return out
}

// a2aCompactJSON writes raw without insignificant space; false when raw is
// absent or null.
func a2aCompactJSON(raw json.RawMessage) (string, bool) {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return "", false
	}
	var b bytes.Buffer
	if err := json.Compact(&b, trimmed); err != nil {
		return string(trimmed), true
	}
	return b.String(), true
}

func a2aAppendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}
