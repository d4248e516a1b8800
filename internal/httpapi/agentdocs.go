package httpapi

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/designdoc"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ApplyAgentCard creates or updates a card from an agent card document
// (see designdoc.ApplyAgent), JSON or YAML.
func (s *Server) ApplyAgentCard(ctx context.Context, req api.ApplyAgentCardRequestObject) (api.ApplyAgentCardResponseObject, error) {
	raw, err := documentBody(req.JSONBody, req.Body, "an agent card document")
	if err != nil {
		return nil, err
	}
	p := principal(ctx)
	if p.OrgID == uuid.Nil {
		return nil, noOrganization()
	}
	org := store.OrgRef{ID: p.OrgID, UserID: p.UserID}
	plan, err := designdoc.ApplyAgent(ctx, s.store, org, raw, designdoc.AgentApplyOptions{
		DryRun: deref(req.Params.DryRun), CreatedBy: p.Actor(), MaxJSONBytes: s.cfg.MaxBodyBytes})
	if err != nil {
		return nil, err
	}
	slug, err := inTenant(ctx, s, func(tx *store.Tx, p auth.Principal) (string, error) {
		o, err := tx.Organization(ctx, p.OrgID, "")
		return o.Slug, err
	})
	if err != nil {
		return nil, err
	}
	out := api.AgentApplyResult{DryRun: plan.DryRun, Changed: plan.Changed}
	out.Card.Name, out.Card.Action = plan.Name, api.ApplyAction(plan.Action)
	out.Card.Status = api.AgentApplyResultCardStatus(plan.Status)
	out.Card.Id = nullable.NewNullNullable[uuid.UUID]()
	if plan.ID != uuid.Nil {
		out.Card.Id = nullable.NewNullableWithValue(plan.ID)
	}
	out.Card.AgentUrl = s.baseURL(ctx) + a2aserve.EndpointPath(slug, plan.Name)
	if plan.Action == designdoc.Created && !plan.DryRun {
		return api.ApplyAgentCard201JSONResponse(out), nil
	}
	return api.ApplyAgentCard200JSONResponse(out), nil
}

// ExportAgentCard answers a card as an agent card document, JSON or YAML.
func (s *Server) ExportAgentCard(ctx context.Context, req api.ExportAgentCardRequestObject) (api.ExportAgentCardResponseObject, error) {
	a, err := inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (store.AgentCard, error) {
		return tx.AgentCard(ctx, req.CardId)
	})
	if err != nil {
		return nil, err
	}
	js, err := designdoc.ExportAgent(a)
	if err != nil {
		return nil, err
	}
	if req.Params.Format != nil && *req.Params.Format == api.AgentExportFormatYAML {
		y, err := designdoc.ToYAML(js)
		if err != nil {
			return nil, err
		}
		return agentDocument{document{body: y, contentType: "application/yaml"}}, nil
	}
	return agentDocument{document{body: js, contentType: "application/json"}}, nil
}

// agentDocument is an exported agent card document, written byte for byte.
type agentDocument struct{ document }

func (d agentDocument) VisitExportAgentCardResponse(w http.ResponseWriter) error { return d.write(w) }
