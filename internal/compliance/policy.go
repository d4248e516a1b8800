package compliance

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
)

// What a policy engine reads of a server: its surface (Spec), the rules'
// findings on it (Validation) and a record to file (Evidence). Spec and
// Evidence carry the SHA-256 of their own canonical JSON, so the JSON
// names of their members are part of what the hash covers: they are the
// documents the policy routes answer.

// Spec is the surface of a server a policy engine pins: the server and
// its tools, resources and prompts as clients see them (no scenarios).
type Spec struct {
	Server    SpecServer     `json:"server"`
	Tools     []SpecTool     `json:"tools"`
	Resources []SpecResource `json:"resources"`
	Prompts   []SpecPrompt   `json:"prompts"`
	SHA256    string         `json:"spec_sha256"` // of the document without this member
}

// SpecServer is the server of a Spec.
type SpecServer struct {
	ID              uuid.UUID `json:"id"`
	Name            string    `json:"name"`
	Version         string    `json:"version"`
	Description     string    `json:"description"`
	ProtocolVersion string    `json:"protocol_version"`
	Enabled         bool      `json:"enabled"`
}

// SpecTool is a tool of a Spec.
type SpecTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// SpecResource is a resource of a Spec.
type SpecResource struct {
	URI         string  `json:"uri"`
	Name        string  `json:"name"`
	Description string  `json:"description"`
	MimeType    *string `json:"mimeType,omitempty"`
}

// SpecPrompt is a prompt of a Spec.
type SpecPrompt struct {
	Name        string               `json:"name"`
	Description string               `json:"description"`
	Arguments   []SpecPromptArgument `json:"arguments"`
}

// SpecPromptArgument is an argument of a SpecPrompt.
type SpecPromptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

// Sources of a Validation.
const (
	SourceStored    = "stored"    // the server's stored definition
	SourceCandidate = "candidate" // a definition the caller sent
)

// Validation is a Result with what it checked.
type Validation struct {
	Valid    bool      `json:"valid"`
	Source   string    `json:"source"`
	Findings []Finding `json:"findings"` // never nil
}

// Validate runs the rules on d, checked from source.
func Validate(d Definition, source string) Validation {
	r := Check(d)
	findings := append([]Finding{}, r.Findings...)
	return Validation{Valid: r.Valid, Source: source, Findings: findings}
}

// Routes of the policy calls the audit trail counts.
const (
	RouteSpec     = "spec"
	RouteValidate = "validate"
	RouteEvidence = "evidence"
)

// RouteCalls is what the audit trail holds about one route of one server.
type RouteCalls struct {
	Route  string
	Calls  int64
	LastAt time.Time
}

// Calls counts the policy calls on a server.
type Calls struct {
	Count   int64      `json:"count"`
	ByRoute ByRoute    `json:"by_route"`
	LastAt  *time.Time `json:"last_at"` // nil when none
}

// ByRoute counts the policy calls on a server per route.
type ByRoute struct {
	Spec     int64 `json:"spec"`
	Validate int64 `json:"validate"`
	Evidence int64 `json:"evidence"`
}

// Evidence is a record of a server's state a policy engine can file.
type Evidence struct {
	ServerID    uuid.UUID  `json:"server_id"`
	SpecSHA256  string     `json:"spec_sha256"`
	GeneratedAt time.Time  `json:"generated_at"`
	Validation  Validation `json:"validation"`
	Enabled     bool       `json:"enabled"`
	UpdatedAt   time.Time  `json:"updated_at"`
	PolicyCalls Calls      `json:"policy_calls"`
	SHA256      string     `json:"evidence_sha256"` // of the document without this member
}

// SpecOf is the spec of a design, with its hash.
func SpecOf(d design.Design) (Spec, error) {
	v := d.Server
	out := Spec{
		Server: SpecServer{ID: v.ID, Name: v.Name, Version: v.Version, Description: v.Description,
			ProtocolVersion: v.ProtocolVersion, Enabled: v.Enabled},
		Tools:     make([]SpecTool, len(d.Tools)),
		Resources: make([]SpecResource, len(d.Resources)),
		Prompts:   make([]SpecPrompt, len(d.Prompts)),
	}
	for i, t := range d.Tools {
		out.Tools[i] = SpecTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		if len(t.OutputSchema) > 0 {
			out.Tools[i].OutputSchema = t.OutputSchema
		}
	}
	for i, r := range d.Resources {
		out.Resources[i] = SpecResource{URI: r.URI, Name: r.Name, Description: r.Description, MimeType: r.MimeType}
	}
	for i, p := range d.Prompts {
		out.Prompts[i] = SpecPrompt{Name: p.Name, Description: p.Description, Arguments: make([]SpecPromptArgument, len(p.Arguments))}
		for j, a := range p.Arguments {
			out.Prompts[i].Arguments[j] = SpecPromptArgument{Name: a.Name, Description: a.Description, Required: a.Required}
		}
	}
	var err error
	out.SHA256, err = canonicalSHA256(out, "spec_sha256")
	return out, err
}

// EvidenceOf is the evidence of a design, given the policy calls on its
// server, generated at now, with its hash.
func EvidenceOf(d design.Design, calls []RouteCalls, now time.Time) (Evidence, error) {
	spec, err := SpecOf(d)
	if err != nil {
		return Evidence{}, err
	}
	ev := Evidence{
		ServerID: d.Server.ID, SpecSHA256: spec.SHA256, GeneratedAt: now.UTC(),
		Validation: Validate(Stored(d), SourceStored),
		Enabled:    d.Server.Enabled, UpdatedAt: d.Server.UpdatedAt.UTC(),
		PolicyCalls: counted(calls),
	}
	if ev.SHA256, err = canonicalSHA256(ev, "evidence_sha256"); err != nil {
		return Evidence{}, err
	}
	return ev, nil
}

// counted sums the calls of each route, and keeps the latest.
func counted(calls []RouteCalls) Calls {
	var out Calls
	for _, c := range calls {
		out.Count += c.Calls
		switch c.Route {
		case RouteSpec:
			out.ByRoute.Spec = c.Calls
		case RouteValidate:
			out.ByRoute.Validate = c.Calls
		case RouteEvidence:
			out.ByRoute.Evidence = c.Calls
		}
		if out.LastAt == nil || c.LastAt.After(*out.LastAt) {
			last := c.LastAt.UTC()
			out.LastAt = &last
		}
	}
	return out
}

// Stored is the definition the rules see of a stored design.
func Stored(d design.Design) Definition {
	var out Definition
	for _, t := range d.Tools {
		ct := Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
			View: design.ToolView(t.Meta)}
		for _, sc := range t.Scenarios {
			ct.Scenarios = append(ct.Scenarios, MockScenario(sc))
		}
		out.Tools = append(out.Tools, ct)
	}
	for _, r := range d.Resources {
		res := Resource{URI: r.URI, Name: r.Name, Description: r.Description}
		if r.MimeType != nil {
			res.MimeType = *r.MimeType
		}
		out.Resources = append(out.Resources, res)
	}
	for _, p := range d.Prompts {
		cp := Prompt{Name: p.Name, Description: p.Description}
		for _, a := range p.Arguments {
			cp.Arguments = append(cp.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out.Prompts = append(out.Prompts, cp)
	}
	return out
}

// canonicalSHA256 is the SHA-256 hex of v's canonical JSON without its
// member drop: object keys sorted, no insignificant white space, numbers as
// written, no HTML escaping.
func canonicalSHA256(v any, drop string) (string, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode for hashing: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return "", fmt.Errorf("decode for hashing: %w", err)
	}
	delete(doc, drop)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return "", fmt.Errorf("encode for hashing: %w", err)
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return hex.EncodeToString(sum[:]), nil
}
