package agentcard

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/schema"
)

func a2aRef[T any](v T) *T { return &v }

// a2aSchema compiles the JSON Schema written from the A2A 1.0 specification.
func a2aSchema(t *testing.T) *schema.Schema {
	t.Helper()
	raw, err := os.ReadFile("testdata/a2a-agent-card-1.0.schema.json")
	require.NoError(t, err)
	s, err := schema.Compile(raw)
	require.NoError(t, err)
	return s
}

// a2aJSON renders c as the service would serve it and decodes it back.
func a2aJSON(t *testing.T, c Card, p Publisher) map[string]any {
	t.Helper()
	raw, err := json.Marshal(A2A(c, p))
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(raw, &v))
	return v
}

// clone copies a decoded JSON value, so a test can break a copy.
func a2aClone(t *testing.T, v map[string]any) map[string]any {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}

func fullA2ACard() Card {
	return Card{
		Name:        "travel-planner",
		Version:     "1.2.0",
		Description: "Plans trips.",
		Author:      a2aRef("Ada"),
		License:     a2aRef("MIT"),
		Homepage:    a2aRef("https://travel.example.com"),
		Repository:  a2aRef("https://github.com/example/travel"),
		Skills: []Skill{
			{
				Name:        "search_flights",
				Description: "Finds flights.",
				Parameters:  json.RawMessage(`{"type":"object"}`),
				Returns:     a2aRef("a list of flights"),
				Examples:    []json.RawMessage{json.RawMessage(`"Flights from Paris to Rome"`), json.RawMessage(`{ "from": "CDG" }`)},
				MCPServer:   a2aRef("flights"),
				MCPTool:     a2aRef("search"),
			},
			{Name: "book_hotel", Description: "Books hotels."},
		},
		Capabilities: &Capabilities{
			Languages:       []string{"en", "fr"},
			Domains:         []string{"travel"},
			InputModes:      []string{"text", "voice", "text", "file"},
			OutputModes:     []string{"json", "text", "speech"},
			Streaming:       true,
			Async:           false,
			StateManagement: true,
			RateLimit:       a2aRef("100/minute"),
		},
		Invocation: &Invocation{
			Protocol:       "mcp",
			Endpoint:       "https://travel.example.com/mcp",
			Authentication: &Authentication{Type: a2aRef("bearer"), Required: true},
			Method:         "POST",
			Format:         a2aRef("json-rpc"),
		},
		Examples: []Example{
			{Skill: "search_flights", Description: a2aRef("Cheapest flight to Rome"), Input: json.RawMessage(`{"to":"FCO"}`)},
			{Skill: "book_hotel", Input: json.RawMessage(`{ "city" : "Rome" }`), Output: json.RawMessage(`{"ok":true}`)},
		},
		Metadata: &Metadata{
			CreatedAt:  a2aRef("2025-01-01T00:00:00Z"),
			Tags:       []string{"travel", "booking"},
			Categories: []string{"productivity", "travel"},
		},
	}
}

func minimalA2ACard() Card {
	return Card{
		Name:        "echo",
		Version:     "0.1.0",
		Description: "Echoes.",
		Skills:      []Skill{{Name: "echo", Description: "Echoes its input."}},
		Invocation:  &Invocation{Protocol: "rest", Endpoint: "https://echo.example.com"},
	}
}

var a2aPublisher = Publisher{OrgName: "Example Org", CardURL: "https://exchange.example.com/cards/echo"}

func TestA2AFullCardMatchesSchema(t *testing.T) {
	s := a2aSchema(t)
	pub := a2aPublisher
	pub.AgentURL = "https://exchange.example.com/cards/travel-planner/a2a"
	v := a2aJSON(t, fullA2ACard(), pub)
	require.Empty(t, s.Validate(v))

	require.Equal(t, "travel-planner", v["name"])
	require.Equal(t, "1.2.0", v["version"])
	require.Equal(t, "https://travel.example.com", v["documentationUrl"])
	require.Equal(t, map[string]any{"organization": "Example Org", "url": "https://travel.example.com"}, v["provider"])
	// The mock agent first, for A2A clients; the MCP endpoint is not A2A.
	require.Equal(t, []any{map[string]any{
		"url":             pub.AgentURL,
		"protocolBinding": "JSONRPC",
		"protocolVersion": "1.0",
	}, map[string]any{
		"url":             "https://travel.example.com/mcp",
		"protocolBinding": "MCP",
		"protocolVersion": "1.0",
	}}, v["supportedInterfaces"])

	caps := v["capabilities"].(map[string]any)
	require.Equal(t, true, caps["streaming"])
	require.Equal(t, false, caps["pushNotifications"])
	require.Equal(t, []any{map[string]any{
		"uri":         A2ACapabilitiesExtensionURI,
		"description": "Capabilities of the mockmcp card format that A2A has no field for",
		"required":    false,
		"params": map[string]any{
			"languages":        []any{"en", "fr"},
			"domains":          []any{"travel"},
			"state_management": true,
			"rate_limit":       "100/minute",
		},
	}}, caps["extensions"])

	require.Equal(t, []any{"text/plain", "audio/*", "application/octet-stream"}, v["defaultInputModes"])
	require.Equal(t, []any{"application/json", "text/plain", "audio/*"}, v["defaultOutputModes"])

	require.Equal(t, map[string]any{
		"bearer": map[string]any{"httpAuthSecurityScheme": map[string]any{"scheme": "Bearer"}},
	}, v["securitySchemes"])
	require.Equal(t, []any{map[string]any{
		"schemes": map[string]any{"bearer": map[string]any{"list": []any{}}},
	}}, v["securityRequirements"])

	skills := v["skills"].([]any)
	require.Len(t, skills, 2)
	require.Equal(t, map[string]any{
		"id":          "search_flights",
		"name":        "search_flights",
		"description": "Finds flights.",
		"tags":        []any{"travel", "booking", "productivity"},
		"examples":    []any{"Cheapest flight to Rome", "Flights from Paris to Rome", `{"from":"CDG"}`},
	}, skills[0])
	require.Equal(t, []any{`{"city":"Rome"}`}, skills[1].(map[string]any)["examples"])

	a2aRequireNoV03Fields(t, v)
}

func TestA2AMinimalCardMatchesSchema(t *testing.T) {
	s := a2aSchema(t)
	v := a2aJSON(t, minimalA2ACard(), a2aPublisher)
	require.Empty(t, s.Validate(v))

	require.Equal(t, map[string]any{"organization": "Example Org", "url": a2aPublisher.CardURL}, v["provider"])
	require.NotContains(t, v, "documentationUrl")
	iface := v["supportedInterfaces"].([]any)[0].(map[string]any)
	require.Equal(t, "HTTP+JSON", iface["protocolBinding"])
	require.Equal(t, "1.0", iface["protocolVersion"])
	require.Equal(t, map[string]any{"streaming": false, "pushNotifications": false}, v["capabilities"])
	require.Equal(t, []any{"text/plain"}, v["defaultInputModes"])
	require.Equal(t, []any{"text/plain"}, v["defaultOutputModes"])
	require.NotContains(t, v, "securitySchemes")
	require.NotContains(t, v, "securityRequirements")
	require.Equal(t, []any{map[string]any{
		"id": "echo", "name": "echo", "description": "Echoes its input.", "tags": []any{"echo"},
	}}, v["skills"])
	a2aRequireNoV03Fields(t, v)
}

func a2aRequireNoV03Fields(t *testing.T, v map[string]any) {
	t.Helper()
	for _, k := range []string{"url", "preferredTransport", "protocolVersion", "additionalInterfaces", "supportsAuthenticatedExtendedCard", "security", "signatures", "iconUrl"} {
		require.NotContains(t, v, k)
	}
}

func TestA2AProviderURLPrefersHomepageThenRepository(t *testing.T) {
	c := minimalA2ACard()
	c.Repository = a2aRef("https://github.com/example/echo")
	a := A2A(c, a2aPublisher)
	require.Equal(t, "https://github.com/example/echo", a.Provider.URL)
	require.Empty(t, a.DocumentationURL)

	c.Homepage = a2aRef("https://echo.example.com/about")
	a = A2A(c, a2aPublisher)
	require.Equal(t, "https://echo.example.com/about", a.Provider.URL)
	require.Equal(t, "https://echo.example.com/about", a.DocumentationURL)
}

func TestA2ASecuritySchemes(t *testing.T) {
	s := a2aSchema(t)
	for _, tc := range []struct {
		auth    *Authentication
		schemes map[string]any // nil: no securitySchemes
		require bool
	}{
		{auth: nil},
		{auth: &Authentication{Type: a2aRef("none")}},
		{auth: &Authentication{Type: a2aRef("oauth2"), Required: true}},
		{
			auth:    &Authentication{Type: a2aRef("basic"), Required: true},
			schemes: map[string]any{"basic": map[string]any{"httpAuthSecurityScheme": map[string]any{"scheme": "Basic"}}},
			require: true,
		},
		{
			auth:    &Authentication{Type: a2aRef("api_key"), Required: false},
			schemes: map[string]any{"api_key": map[string]any{"apiKeySecurityScheme": map[string]any{"location": "header", "name": "X-API-Key"}}},
		},
		{
			auth:    &Authentication{Type: a2aRef("mtls"), Required: true},
			schemes: map[string]any{"mtls": map[string]any{"mtlsSecurityScheme": map[string]any{}}},
			require: true,
		},
	} {
		c := minimalA2ACard()
		c.Invocation.Authentication = tc.auth
		v := a2aJSON(t, c, a2aPublisher)
		require.Empty(t, s.Validate(v))
		if tc.schemes == nil {
			require.NotContains(t, v, "securitySchemes")
			require.NotContains(t, v, "securityRequirements")
			continue
		}
		require.Equal(t, tc.schemes, v["securitySchemes"])
		if !tc.require {
			require.NotContains(t, v, "securityRequirements")
			continue
		}
		for name := range tc.schemes {
			require.Equal(t, []any{map[string]any{"schemes": map[string]any{name: map[string]any{"list": []any{}}}}}, v["securityRequirements"])
		}
	}
}

func TestA2AWithoutInvocationRendersEmptyInterfaces(t *testing.T) {
	c := minimalA2ACard()
	c.Invocation = nil
	raw, err := json.Marshal(A2A(c, a2aPublisher))
	require.NoError(t, err)
	require.Contains(t, string(raw), `"supportedInterfaces":[]`)
}

func TestA2AProtocolBinding(t *testing.T) {
	for _, tc := range []struct {
		protocol string
		format   *string
		want     string
	}{
		{"mcp", nil, "MCP"},
		{"mcp", a2aRef("json-rpc"), "MCP"},
		{"rest", nil, "HTTP+JSON"},
		{"grpc", nil, "GRPC"},
		{"graphql", nil, "GRAPHQL"},
		{"websocket", nil, "WEBSOCKET"},
		{"rest", a2aRef("json-rpc"), "JSONRPC"},
		{"mcp", a2aRef("rest"), "MCP"},
		{"rest", a2aRef("graphql"), "GRAPHQL"},
		{"grpc", a2aRef(""), "GRPC"},
		{"websocket", a2aRef("ndjson"), "WEBSOCKET"},
	} {
		got := a2aProtocolBinding(Invocation{Protocol: tc.protocol, Format: tc.format})
		format := "<nil>"
		if tc.format != nil {
			format = *tc.format
		}
		require.Equal(t, tc.want, got, "protocol %q, format %q", tc.protocol, format)
	}
}

// The schema must be able to fail, or the tests above prove nothing.
func TestA2ASchemaRejects(t *testing.T) {
	s := a2aSchema(t)
	valid := a2aJSON(t, fullA2ACard(), a2aPublisher)
	require.Empty(t, s.Validate(valid))

	for name, tc := range map[string]struct {
		breakIt func(v map[string]any)
		keyword string
	}{
		"v0.3 url at the top level": {
			breakIt: func(v map[string]any) { v["url"] = "https://travel.example.com/mcp" },
			keyword: "additionalProperties",
		},
		"v0.3 preferredTransport": {
			breakIt: func(v map[string]any) { v["preferredTransport"] = "JSONRPC" },
			keyword: "additionalProperties",
		},
		"skill without tags": {
			breakIt: func(v map[string]any) { delete(v["skills"].([]any)[0].(map[string]any), "tags") },
			keyword: "required",
		},
		"skill with empty tags": {
			breakIt: func(v map[string]any) { v["skills"].([]any)[0].(map[string]any)["tags"] = []any{} },
			keyword: "minItems",
		},
		"empty supportedInterfaces": {
			breakIt: func(v map[string]any) { v["supportedInterfaces"] = []any{} },
			keyword: "minItems",
		},
		"no skills": {
			breakIt: func(v map[string]any) { v["skills"] = []any{} },
			keyword: "minItems",
		},
		"interface without protocolVersion": {
			breakIt: func(v map[string]any) {
				delete(v["supportedInterfaces"].([]any)[0].(map[string]any), "protocolVersion")
			},
			keyword: "required",
		},
		"security scheme with two oneof members": {
			breakIt: func(v map[string]any) {
				v["securitySchemes"].(map[string]any)["bearer"].(map[string]any)["mtlsSecurityScheme"] = map[string]any{}
			},
			keyword: "maxProperties",
		},
		"security scheme with no member": {
			breakIt: func(v map[string]any) { v["securitySchemes"].(map[string]any)["bearer"] = map[string]any{} },
			keyword: "minProperties",
		},
		"provider without organization": {
			breakIt: func(v map[string]any) { delete(v["provider"].(map[string]any), "organization") },
			keyword: "required",
		},
		"missing capabilities": {
			breakIt: func(v map[string]any) { delete(v, "capabilities") },
			keyword: "required",
		},
	} {
		t.Run(name, func(t *testing.T) {
			v := a2aClone(t, valid)
			tc.breakIt(v)
			vs := s.Validate(v)
			require.NotEmpty(t, vs)
			keywords := make([]string, 0, len(vs))
			for _, viol := range vs {
				keywords = append(keywords, viol.Keyword)
			}
			require.Contains(t, keywords, tc.keyword, "violations: %+v", vs)
		})
	}
}
