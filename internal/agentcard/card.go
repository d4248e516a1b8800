// Package agentcard holds agent cards as organizations design them: the
// fields of the specification's agent card table, the checks a card must
// pass before it is published, the semantic-versioning advice given when a
// card changes, and the card's rendering in the A2A 1.0 AgentCard shape.
//
// The types here are also the wire form of the REST API's nested card
// objects (the OpenAPI document points at them with x-go-type), so field
// names and JSON tags are the contract.
package agentcard

import (
	"encoding/json"

	"github.com/google/uuid"
)

// Card is an agent card as designed. A draft may be incomplete: every
// field except Name may be absent or wrong until the card is published.
type Card struct {
	Name         string        `json:"name"`
	Version      string        `json:"version"`
	Description  string        `json:"description"`
	Author       *string       `json:"author,omitempty"`
	License      *string       `json:"license,omitempty"`
	Homepage     *string       `json:"homepage,omitempty"`
	Repository   *string       `json:"repository,omitempty"`
	Skills       []Skill       `json:"skills"`
	Capabilities *Capabilities `json:"capabilities,omitempty"`
	Invocation   *Invocation   `json:"invocation,omitempty"`
	Examples     []Example     `json:"examples"`
	Metadata     *Metadata     `json:"metadata,omitempty"`
	// Replies script the card's mock A2A agent (see Reply).
	Replies []Reply `json:"replies,omitempty"`
	// Auth is what the mock A2A agent requires of a caller; nil lets
	// anyone call it.
	Auth *AgentAuth `json:"auth,omitempty"`
}

// Skill is one ability of an agent. A skill linked to a mock tool
// (MCPServer names a server of the card's organization by id or by name,
// MCPTool a tool on it) can be invoked.
type Skill struct {
	Name        string            `json:"name"`
	Description string            `json:"description"`
	Parameters  json.RawMessage   `json:"parameters,omitempty"`
	Returns     *string           `json:"returns,omitempty"`
	Examples    []json.RawMessage `json:"examples,omitempty"`
	MCPServer   *string           `json:"mcp_server,omitempty"`
	MCPTool     *string           `json:"mcp_tool,omitempty"`
}

// Capabilities describe how an agent can be talked to.
type Capabilities struct {
	Languages       []string `json:"languages,omitempty"`
	Domains         []string `json:"domains,omitempty"`
	InputModes      []string `json:"input_modes,omitempty"`
	OutputModes     []string `json:"output_modes,omitempty"`
	Streaming       bool     `json:"streaming"`
	Async           bool     `json:"async"`
	StateManagement bool     `json:"state_management"`
	RateLimit       *string  `json:"rate_limit,omitempty"`
}

// Invocation says where and how an agent is called.
type Invocation struct {
	Protocol       string          `json:"protocol"`
	Endpoint       string          `json:"endpoint"`
	Authentication *Authentication `json:"authentication,omitempty"`
	// Method is the HTTP method; empty means POST.
	Method string  `json:"method,omitempty"`
	Format *string `json:"format,omitempty"`
}

// Authentication is what a caller of the agent must present.
type Authentication struct {
	Type     *string `json:"type,omitempty"`
	Required bool    `json:"required"`
}

// Example is one worked call of a skill.
type Example struct {
	Skill       string          `json:"skill"`
	Description *string         `json:"description,omitempty"`
	Input       json.RawMessage `json:"input,omitempty"`
	Output      json.RawMessage `json:"output,omitempty"`
}

// Metadata is free description of the card. CreatedAt and UpdatedAt are the
// author's own ISO 8601 timestamps, distinct from the service's record of
// when the card was stored.
type Metadata struct {
	CreatedAt  *string  `json:"created_at,omitempty"`
	UpdatedAt  *string  `json:"updated_at,omitempty"`
	Tags       []string `json:"tags,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// LinkedServer is an MCP server of the card's organization that a skill's
// mcp_server names, with the names of its tools.
type LinkedServer struct {
	ID    uuid.UUID
	Name  string
	Tools map[string]bool
	// Ambiguous: mcp_server is a name that several servers of the
	// organization share, so it names none of them.
	Ambiguous bool
	// OAuth: the server's auth_mode is oauth, so its authorization
	// server issues the tokens a bearer auth names it for.
	OAuth bool
}

// Links resolves the mcp_server values of a card's skills, as written,
// to the servers they name; a value that names nothing is absent.
type Links map[string]*LinkedServer

// ServerRefs lists the distinct mcp_server values of c's skills, and the
// oauth_server of a bearer auth, for the caller to resolve into Links
// before validating.
func (c Card) ServerRefs() []string {
	seen := map[string]bool{}
	var out []string
	add := func(ref string) {
		if ref != "" && !seen[ref] {
			seen[ref] = true
			out = append(out, ref)
		}
	}
	for _, s := range c.Skills {
		if s.MCPServer != nil {
			add(*s.MCPServer)
		}
	}
	if c.Auth != nil && c.Auth.Scheme == AuthBearer {
		if _, err := uuid.Parse(c.Auth.OAuthServer); err == nil {
			add(c.Auth.OAuthServer)
		}
	}
	return out
}

// Skill returns the skill called name, and its index.
func (c Card) Skill(name string) (Skill, int, bool) {
	for i, s := range c.Skills {
		if s.Name == name {
			return s, i, true
		}
	}
	return Skill{}, -1, false
}

// SkillChange is a skill as saved, with the semantic-versioning advice
// about the change (see VersionWarnings).
type SkillChange struct {
	Skill
	Warnings []string `json:"warnings"`
}
