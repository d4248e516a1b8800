package httpapi

import (
	"context"
	"encoding/json"
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
	spec, err := compliance.SpecOf(d)
	if err != nil {
		return nil, err
	}
	return api.GetPolicySpec200JSONResponse(apiPolicySpec(spec)), nil
}

// ValidatePolicy runs the compliance rules on the stored definition, or on
// the candidate in the body.
func (s *Server) ValidatePolicy(ctx context.Context, req api.ValidatePolicyRequestObject) (api.ValidatePolicyResponseObject, error) {
	d, err := s.loadPolicyDesign(ctx, req.ServerId, nil)
	if err != nil {
		return nil, err
	}
	if c := req.Body; c != nil && (c.Tools != nil || c.Resources != nil || c.Prompts != nil) {
		return api.ValidatePolicy200JSONResponse(apiValidation(compliance.Validate(candidateDefinition(*c), compliance.SourceCandidate))), nil
	}
	return api.ValidatePolicy200JSONResponse(apiValidation(compliance.Validate(compliance.Stored(d), compliance.SourceStored))), nil
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
	ev, err := compliance.EvidenceOf(d, mapEach(calls, func(c store.RouteCalls) compliance.RouteCalls {
		return compliance.RouteCalls{Route: c.Route, Calls: c.Calls, LastAt: c.LastAt}
	}), time.Now())
	if err != nil {
		return nil, err
	}
	return api.GetPolicyEvidence200JSONResponse(apiEvidence(ev)), nil
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

func apiValidation(v compliance.Validation) api.PolicyValidation {
	out := api.PolicyValidation{Valid: v.Valid, Source: api.PolicyValidationSource(v.Source), Findings: make([]api.Finding, len(v.Findings))}
	for i, f := range v.Findings {
		out.Findings[i] = api.Finding{Rule: f.Rule, Severity: api.FindingSeverity(f.Severity), Path: f.Path, Message: f.Message}
	}
	return out
}

func apiPolicySpec(v compliance.Spec) api.PolicySpec {
	sv := v.Server
	out := api.PolicySpec{
		Server: api.SpecServer{Id: sv.ID, Name: sv.Name, Version: sv.Version, Description: sv.Description,
			ProtocolVersion: sv.ProtocolVersion, Enabled: sv.Enabled},
		Tools:      make([]api.SpecTool, len(v.Tools)),
		Resources:  make([]api.SpecResource, len(v.Resources)),
		Prompts:    make([]api.SpecPrompt, len(v.Prompts)),
		SpecSha256: v.SHA256,
	}
	for i, t := range v.Tools {
		out.Tools[i] = api.SpecTool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		if len(t.OutputSchema) > 0 {
			o := api.JSONSchema(t.OutputSchema)
			out.Tools[i].OutputSchema = &o
		}
	}
	for i, r := range v.Resources {
		out.Resources[i] = api.SpecResource{Uri: r.URI, Name: r.Name, Description: r.Description, MimeType: r.MimeType}
	}
	for i, p := range v.Prompts {
		out.Prompts[i] = api.SpecPrompt{Name: p.Name, Description: p.Description,
			Arguments: make([]api.SpecPromptArgument, len(p.Arguments))}
		for j, a := range p.Arguments {
			out.Prompts[i].Arguments[j] = api.SpecPromptArgument{Name: a.Name, Description: a.Description, Required: a.Required}
		}
	}
	return out
}

func apiEvidence(v compliance.Evidence) api.PolicyEvidence {
	out := api.PolicyEvidence{
		ServerId: v.ServerID, SpecSha256: v.SpecSHA256, GeneratedAt: v.GeneratedAt, Validation: apiValidation(v.Validation),
		Enabled: v.Enabled, UpdatedAt: v.UpdatedAt, EvidenceSha256: v.SHA256,
	}
	calls := &out.PolicyCalls
	calls.Count = v.PolicyCalls.Count
	calls.ByRoute.Spec, calls.ByRoute.Validate, calls.ByRoute.Evidence =
		v.PolicyCalls.ByRoute.Spec, v.PolicyCalls.ByRoute.Validate, v.PolicyCalls.ByRoute.Evidence
	calls.LastAt.SetNull()
	if v.PolicyCalls.LastAt != nil {
		calls.LastAt.Set(*v.PolicyCalls.LastAt)
	}
	return out
}
