package httpapi

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/compliance"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/store"
)

// The policy routes serve policy engines, which call them with API keys
// (authorize has refused everyone else). A key reaches the servers of its
// own organization, and a policy-scoped one only those it is bound to; the
// binding is checked after the server is found, so that another
// organization's server is 404 and never 403.

// loadPolicyDesign reads a server and what it owns for the calling key, and
// runs more in the same transaction when given.
func (s *Server) loadPolicyDesign(ctx context.Context, id uuid.UUID, more func(*store.Tx) error) (design.Design, error) {
	var d design.Design
	err := s.tenant(ctx, func(tx *store.Tx, p auth.Principal) error {
		srv, err := tx.Server(ctx, id)
		if err != nil {
			return err
		}
		if !p.Reaches(id) {
			return failure.Forbidden(msgKeyNotBound)
		}
		if d, err = tx.DesignOf(ctx, srv); err != nil {
			return err
		}
		if more != nil {
			return more(tx)
		}
		return nil
	})
	return d, err
}

// GetPolicySpec answers the server's definition with its hash.
func (s *Server) GetPolicySpec(ctx context.Context, req api.GetPolicySpecRequestObject) (api.GetPolicySpecResponseObject, error) {
	d, err := s.loadPolicyDesign(ctx, req.ServerId, nil)
	if err != nil {
		return nil, err
	}
	spec, err := policySpec(d)
	if err != nil {
		return nil, err
	}
	return api.GetPolicySpec200JSONResponse(spec), nil
}

// ValidatePolicy runs the compliance rules on the stored definition, or on
// the candidate in the body.
func (s *Server) ValidatePolicy(ctx context.Context, req api.ValidatePolicyRequestObject) (api.ValidatePolicyResponseObject, error) {
	d, err := s.loadPolicyDesign(ctx, req.ServerId, nil)
	if err != nil {
		return nil, err
	}
	if c := req.Body; c != nil && (c.Tools != nil || c.Resources != nil || c.Prompts != nil) {
		return api.ValidatePolicy200JSONResponse(apiValidation(compliance.Check(candidateDefinition(*c)), api.Candidate)), nil
	}
	return api.ValidatePolicy200JSONResponse(apiValidation(compliance.Check(storedDefinition(d)), api.Stored)), nil
}

// GetPolicyEvidence answers a record of the server's state a policy engine
// can file.
func (s *Server) GetPolicyEvidence(ctx context.Context, req api.GetPolicyEvidenceRequestObject) (api.GetPolicyEvidenceResponseObject, error) {
	var calls []store.RouteCalls
	d, err := s.loadPolicyDesign(ctx, req.ServerId, func(tx *store.Tx) (err error) {
		calls, err = tx.PolicyCalls(ctx, req.ServerId)
		return err
	})
	if err != nil {
		return nil, err
	}
	spec, err := policySpec(d)
	if err != nil {
		return nil, err
	}
	ev := api.PolicyEvidence{
		ServerId: d.Server.ID, SpecSha256: spec.SpecSha256, GeneratedAt: time.Now().UTC(),
		Validation: apiValidation(compliance.Check(storedDefinition(d)), api.Stored),
		Enabled:    d.Server.Enabled, UpdatedAt: d.Server.UpdatedAt.UTC(),
	}
	ev.PolicyCalls.LastAt.SetNull()
	for _, c := range calls {
		ev.PolicyCalls.Count += c.Calls
		switch c.Route {
		case "spec":
			ev.PolicyCalls.ByRoute.Spec = c.Calls
		case "validate":
			ev.PolicyCalls.ByRoute.Validate = c.Calls
		case "evidence":
			ev.PolicyCalls.ByRoute.Evidence = c.Calls
		}
		if last, err := ev.PolicyCalls.LastAt.Get(); err != nil || c.LastAt.After(last) {
			ev.PolicyCalls.LastAt.Set(c.LastAt.UTC())
		}
	}
	if ev.EvidenceSha256, err = canonicalSHA256(ev, "evidence_sha256"); err != nil {
		return nil, err
	}
	return api.GetPolicyEvidence200JSONResponse(ev), nil
}

// policySpec builds the spec document and its hash.
func policySpec(d design.Design) (api.PolicySpec, error) {
	v := d.Server
	out := api.PolicySpec{
		Server: api.SpecServer{Id: v.ID, Name: v.Name, Version: v.Version, Description: v.Description,
			ProtocolVersion: v.ProtocolVersion, Enabled: v.Enabled},
		Tools:     make([]api.SpecTool, len(d.Tools)),
		Resources: make([]api.SpecResource, len(d.Resources)),
		Prompts:   make([]api.SpecPrompt, len(d.Prompts)),
	}
	for i, t := range d.Tools {
		out.Tools[i] = api.SpecTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		if len(t.OutputSchema) > 0 {
			o := api.JSONSchema(t.OutputSchema)
			out.Tools[i].OutputSchema = &o
		}
	}
	for i, r := range d.Resources {
		out.Resources[i] = api.SpecResource{Uri: r.URI, Name: r.Name, Description: r.Description, MimeType: r.MimeType}
	}
	for i, p := range d.Prompts {
		out.Prompts[i] = api.SpecPrompt{Name: p.Name, Description: p.Description,
			Arguments: make([]api.SpecPromptArgument, len(p.Arguments))}
		for j, a := range p.Arguments {
			out.Prompts[i].Arguments[j] = api.SpecPromptArgument{Name: a.Name, Description: a.Description, Required: a.Required}
		}
	}
	var err error
	out.SpecSha256, err = canonicalSHA256(out, "spec_sha256")
	return out, err
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

func storedDefinition(d design.Design) compliance.Definition {
	var out compliance.Definition
	for _, t := range d.Tools {
		ct := compliance.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema}
		for _, sc := range t.Scenarios {
			ct.Scenarios = append(ct.Scenarios, compliance.MockScenario(sc))
		}
		out.Tools = append(out.Tools, ct)
	}
	for _, r := range d.Resources {
		out.Resources = append(out.Resources, compliance.Resource{URI: r.URI, Name: r.Name,
			Description: r.Description, MimeType: deref(r.MimeType)})
	}
	for _, p := range d.Prompts {
		cp := compliance.Prompt{Name: p.Name, Description: p.Description}
		for _, a := range p.Arguments {
			cp.Arguments = append(cp.Arguments, compliance.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
		}
		out.Prompts = append(out.Prompts, cp)
	}
	return out
}

func candidateDefinition(c api.PolicyCandidate) compliance.Definition {
	var out compliance.Definition
	for _, t := range deref(c.Tools) {
		ct := compliance.Tool{Name: deref(t.Name), Description: deref(t.Description),
			InputSchema: rawOrNil(t.InputSchema), OutputSchema: rawOrNil(t.OutputSchema)}
		for _, sc := range deref(t.MockScenarios) {
			ct.Scenarios = append(ct.Scenarios, compliance.Scenario{Name: deref(sc.Name),
				Condition: rawOrNil(sc.Condition), Response: rawOrNil(sc.Response)})
		}
		out.Tools = append(out.Tools, ct)
	}
	for _, r := range deref(c.Resources) {
		out.Resources = append(out.Resources, compliance.Resource{URI: deref(r.Uri), Name: deref(r.Name),
			Description: deref(r.Description), MimeType: deref(r.MimeType)})
	}
	for _, p := range deref(c.Prompts) {
		cp := compliance.Prompt{Name: deref(p.Name), Description: deref(p.Description)}
		for _, a := range deref(p.Arguments) {
			cp.Arguments = append(cp.Arguments, compliance.PromptArgument{Name: deref(a.Name),
				Description: deref(a.Description), Required: deref(a.Required)})
		}
		out.Prompts = append(out.Prompts, cp)
	}
	return out
}

// rawOrNil is the JSON value of a nullable member; absent and null are nil.
func rawOrNil(v interface {
	Get() (api.AnyJSON, error)
}) json.RawMessage {
	raw, err := v.Get()
	if err != nil || string(raw) == "null" {
		return nil
	}
	return json.RawMessage(raw)
}

func apiValidation(r compliance.Result, source api.PolicyValidationSource) api.PolicyValidation {
	out := api.PolicyValidation{Valid: r.Valid, Source: source, Findings: make([]api.Finding, len(r.Findings))}
	for i, f := range r.Findings {
		out.Findings[i] = api.Finding{Rule: f.Rule, Severity: api.FindingSeverity(f.Severity), Path: f.Path, Message: f.Message}
	}
	return out
}
