package design

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/oauthcfg"
)

// Server is an MCP server design.
type Server struct {
	ID              uuid.UUID
	OrgID           uuid.UUID
	Name            string
	Description     string
	Version         string
	ProviderName    *string
	ProviderURL     *string
	Type            string
	Enabled         bool
	ProtocolVersion string
	// Eras is which MCP protocol eras the endpoint answers, one of
	// ErasValues: modern clients (per-request _meta), legacy clients (an
	// initialize handshake), or both. ProtocolVersion is what initialize
	// reports to the latter.
	Eras string
	// CacheTTLMs and CacheScope are the caching hints (ttlMs, cacheScope)
	// on list, read and discover results for modern clients.
	CacheTTLMs int
	CacheScope string
	// AuthMode is one of AuthModes.
	AuthMode string
	// OAuth are the settings of the design's mock authorization server
	// and of its endpoint as a protected resource, used when AuthMode is
	// AuthModeOAuth (and kept otherwise).
	OAuth oauthcfg.Settings
	// OAuthTokensNotBefore and OAuthRefreshNotBefore are read-only: the
	// access tokens (refresh tokens) issued before them are expired
	// (revoked); zero when never set.
	OAuthTokensNotBefore  time.Time
	OAuthRefreshNotBefore time.Time
	CreatedBy             string
	// Fault is the server's default fault; nil when it has none.
	Fault *mockspec.Fault
	// Source records where an imported design came from; nil for designs
	// made by hand.
	Source json.RawMessage
	// Upstream is the real MCP server the endpoint forwards to; nil when
	// none.
	Upstream *Upstream
	// State is the design's initial state, a JSON object (nil stands for
	// {}): the live state its scenarios read and change starts from it,
	// and a reset returns to it.
	State json.RawMessage
	// Seed seeds the random values of the design's answer templates, so
	// that runs repeat; nil when they are not seeded.
	Seed *int64
	// Skills are the Agent Skills the design serves through the MCP
	// skills extension, in order.
	Skills    []Skill
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Upstream modes: forward the tools/call no scenario answers, or every one.
const (
	UpstreamFallback = "fallback"
	UpstreamRecord   = "record"
)

// UpstreamModes are the modes an upstream may have.
var UpstreamModes = []string{UpstreamFallback, UpstreamRecord}

// Upstream is a real MCP server a design forwards calls to.
type Upstream struct {
	URL  string
	Mode string // one of UpstreamModes
	// HeaderNames are the names of the headers sent to the upstream, in
	// the order given; their values are in SealedHeaders only.
	HeaderNames []string
	// SealedHeaders are the headers' values, sealed (internal/upstream);
	// nil when there are none. Never returned by the API nor journaled.
	SealedHeaders []byte
}

// Scenario is one mock scenario of a tool, stored in order with the tool.
type Scenario = mockspec.Scenario

// Tool is a tool of a server design.
type Tool struct {
	ID           uuid.UUID
	ServerID     uuid.UUID
	Name         string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage // nil when the tool has none
	Scenarios    []Scenario
	// RequiredClientCapabilities are the client capabilities (of
	// ClientCapabilities) a modern request must declare to call the
	// tool; none when empty.
	RequiredClientCapabilities []string
	// RequiredScopes are the OAuth scopes a token must hold to call the
	// tool when the server's AuthMode is AuthModeOAuth; none when empty.
	RequiredScopes []string
	// Fault is the tool's fault, which its calls get instead of the
	// server's (a matched scenario's own fault wins over it); nil when it
	// has none.
	Fault *mockspec.Fault
	// Meta is the tool's _meta, a JSON object served as is in tools/list
	// (MCP Apps link the tool to its view in its ui member); nil when none.
	Meta      json.RawMessage
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Resource is a resource of a server design. Content is a JSON value: a
// string is served as text, anything else JSON-encoded; when Binary, it is
// a string holding base64, served as a blob.
type Resource struct {
	ID          uuid.UUID
	ServerID    uuid.UUID
	Name        string
	URI         string
	Description string
	MimeType    *string
	Content     json.RawMessage
	Binary      bool
	// Completions are the values completion/complete offers for each
	// parameter of a URI template.
	Completions map[string][]string
	// Ask and Then, when set, ask the client questions first; the branch
	// the answers take may answer content of its own (see
	// mockspec.Branch), else Content answers.
	Ask  map[string]mockspec.InputRequest
	Then []mockspec.Branch
	// Meta is the resource's _meta, a JSON object served as is in
	// resources/list and with its contents in resources/read (an MCP Apps
	// view describes its sandbox in its ui member); nil when none.
	Meta      json.RawMessage
	CreatedAt time.Time
	UpdatedAt time.Time
}

// PromptArgument is one declared argument of a prompt.
type PromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
	// Completions are the values completion/complete offers.
	Completions []string `json:"completions,omitempty"`
}

// PromptMessage is one message template of a prompt: a text with
// {{argument}} placeholders, or a content block (image, audio, resource,
// resource_link, text) whose text fields and URIs may hold them.
type PromptMessage struct {
	Role    string          `json:"role"`
	Text    string          `json:"text,omitempty"`
	Content json.RawMessage `json:"content,omitempty"`
}

// Prompt is a prompt of a server design.
type Prompt struct {
	ID          uuid.UUID
	ServerID    uuid.UUID
	Name        string
	Description string
	Arguments   []PromptArgument
	Messages    []PromptMessage
	// Ask and Then, when set, ask the client questions first: the
	// messages are those of the branch the answers take (see
	// mockspec.Branch), and Messages is empty.
	Ask       map[string]mockspec.InputRequest
	Then      []mockspec.Branch
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Design is everything an enabled server serves at its MCP endpoint.
type Design struct {
	Server Server
	// PublicLimit is the organization's override of the per-address rate
	// limit of its MCP endpoints; nil when it has none.
	PublicLimit *int32
	Tools       []Tool
	Resources   []Resource
	Prompts     []Prompt
}
