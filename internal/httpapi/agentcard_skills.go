package httpapi

import (
	"context"
	"encoding/json"

	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/store"
)

// ListAgentCardSkills lists a card's skills in order.
func (s *Server) ListAgentCardSkills(ctx context.Context, req api.ListAgentCardSkillsRequestObject) (api.ListAgentCardSkillsResponseObject, error) {
	var skills []agentcard.Skill
	err := s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) error {
		a, err := tx.AgentCard(ctx, req.CardId)
		skills = a.Card.Skills
		return err
	})
	if err != nil {
		return nil, err
	}
	return api.ListAgentCardSkills200JSONResponse{Items: nonNil(skills)}, nil
}

// CreateAgentCardSkill appends a skill to a card.
func (s *Server) CreateAgentCardSkill(ctx context.Context, req api.CreateAgentCardSkillRequestObject) (api.CreateAgentCardSkillResponseObject, error) {
	sk := *req.Body
	var out agentcard.SkillChange
	err := s.editCard(ctx, req.CardId, func(c *agentcard.Card) error {
		return c.AddSkill(sk)
	}, func(view api.AgentCard, _ agentcard.Card) {
		out = agentcard.SkillChange{Skill: sk, Warnings: view.Warnings}
	})
	if err != nil {
		return nil, err
	}
	return api.CreateAgentCardSkill201JSONResponse(out), nil
}

// GetAgentCardSkill reads one skill of a card.
func (s *Server) GetAgentCardSkill(ctx context.Context, req api.GetAgentCardSkillRequestObject) (api.GetAgentCardSkillResponseObject, error) {
	var sk agentcard.Skill
	err := s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) error {
		a, err := tx.AgentCard(ctx, req.CardId)
		if err != nil {
			return err
		}
		var ok bool
		if sk, _, ok = a.Card.Skill(req.SkillName); !ok {
			return failure.NotFound("skill")
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return api.GetAgentCardSkill200JSONResponse(sk), nil
}

// UpdateAgentCardSkill changes the given fields of a skill. A rename takes
// the card's examples of the skill along.
func (s *Server) UpdateAgentCardSkill(ctx context.Context, req api.UpdateAgentCardSkillRequestObject) (api.UpdateAgentCardSkillResponseObject, error) {
	b := req.Body
	var out agentcard.SkillChange
	patch := agentcard.SkillPatch{Name: b.Name, Description: b.Description, Returns: patchOf(b.Returns),
		MCPServer: patchOf(b.McpServer), MCPTool: patchOf(b.McpTool), Parameters: patchOf(b.Parameters), Examples: patchOf(b.Examples)}
	err := s.editCard(ctx, req.CardId, func(c *agentcard.Card) (err error) {
		out.Skill, err = c.UpdateSkill(req.SkillName, patch)
		return err
	}, func(view api.AgentCard, _ agentcard.Card) { out.Warnings = view.Warnings })
	if err != nil {
		return nil, err
	}
	return api.UpdateAgentCardSkill200JSONResponse(out), nil
}

// DeleteAgentCardSkill removes a skill and the card's examples of it.
func (s *Server) DeleteAgentCardSkill(ctx context.Context, req api.DeleteAgentCardSkillRequestObject) (api.DeleteAgentCardSkillResponseObject, error) {
	err := s.editCard(ctx, req.CardId, func(c *agentcard.Card) error {
		return c.RemoveSkill(req.SkillName)
	}, func(api.AgentCard, agentcard.Card) {})
	if err != nil {
		return nil, err
	}
	return api.DeleteAgentCardSkill204Response{}, nil
}

// InvokeAgentCardSkill runs the mock tool a skill links to, as the
// server's MCP endpoint would run tools/call.
func (s *Server) InvokeAgentCardSkill(ctx context.Context, req api.InvokeAgentCardSkillRequestObject) (api.InvokeAgentCardSkillResponseObject, error) {
	var input map[string]any
	if req.Body != nil && req.Body.Input != nil {
		input = *req.Body.Input
	}
	tool, err := inTenant(ctx, s, func(tx *store.Tx, _ auth.Principal) (design.Tool, error) {
		a, err := tx.AgentCard(ctx, req.CardId)
		if err != nil {
			return design.Tool{}, err
		}
		return agentcard.LinkedTool(ctx, tx, a.Card, req.SkillName)
	})
	if err != nil {
		return nil, err
	}
	res, violations, err := mcpserve.Invoke(tool, input)
	if err != nil {
		return nil, err
	}
	if len(violations) > 0 {
		fields := make([]failure.FieldError, len(violations))
		for i, v := range violations {
			field := "input"
			if v.Field != "" {
				field += "." + v.Field
			}
			fields[i] = failure.Field(field, "%s", v.Message)
		}
		return nil, &failure.Error{Kind: failure.KindInvalid, Fields: fields,
			Detail: "the input does not match the input schema of tool '" + tool.Name + "'"}
	}
	out := api.InvokeAgentCardSkill200JSONResponse{
		Output: nullable.NewNullableWithValue(json.RawMessage(res.Output)), MatchedScenario: nullableString(nil),
		ServerId: tool.ServerID, Tool: tool.Name,
	}
	if res.Scenario != "" {
		out.MatchedScenario = nullableString(&res.Scenario)
	}
	return out, nil
}

// The invocation finds the linked tool in the handler's transaction.
var _ agentcard.ToolFinder[design.Tool] = (*store.Tx)(nil)

// patchOf is a nullable PATCH member as a skill's patch: absent keeps the
// member, null clears it.
func patchOf[T any](v nullable.Nullable[T]) agentcard.Patch[T] {
	if !v.IsSpecified() {
		return agentcard.Patch[T]{}
	}
	if v.IsNull() {
		return agentcard.Patch[T]{Set: true}
	}
	to := v.MustGet()
	return agentcard.Patch[T]{Set: true, To: &to}
}
