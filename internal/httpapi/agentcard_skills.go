package httpapi

import (
	"context"
	"encoding/json"
	"strconv"

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
		if _, _, ok := c.Skill(sk.Name); ok {
			return failure.Conflict("a skill named '%s' already exists in this card", sk.Name)
		}
		c.Skills = append(c.Skills, sk)
		return nil
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
	err := s.editCard(ctx, req.CardId, func(c *agentcard.Card) error {
		sk, i, ok := c.Skill(req.SkillName)
		if !ok {
			return failure.NotFound("skill")
		}
		if b.Name != nil && *b.Name != sk.Name {
			if _, _, clash := c.Skill(*b.Name); clash {
				return failure.Conflict("a skill named '%s' already exists in this card", *b.Name)
			}
			for j := range c.Examples {
				if c.Examples[j].Skill == sk.Name {
					c.Examples[j].Skill = *b.Name
				}
			}
			sk.Name = *b.Name
		}
		sk.Description = or(b.Description, sk.Description)
		sk.Returns = patchString(sk.Returns, b.Returns)
		sk.MCPServer = patchString(sk.MCPServer, b.McpServer)
		sk.MCPTool = patchString(sk.MCPTool, b.McpTool)
		if b.Parameters.IsSpecified() {
			sk.Parameters = nil
			if v, err := b.Parameters.Get(); err == nil {
				sk.Parameters = v
			}
		}
		if b.Examples.IsSpecified() {
			sk.Examples = nil
			if v, err := b.Examples.Get(); err == nil {
				sk.Examples = v
			}
		}
		c.Skills[i] = sk
		out.Skill = sk
		return nil
	}, func(view api.AgentCard, _ agentcard.Card) { out.Warnings = view.Warnings })
	if err != nil {
		return nil, err
	}
	return api.UpdateAgentCardSkill200JSONResponse(out), nil
}

// DeleteAgentCardSkill removes a skill and the card's examples of it.
func (s *Server) DeleteAgentCardSkill(ctx context.Context, req api.DeleteAgentCardSkillRequestObject) (api.DeleteAgentCardSkillResponseObject, error) {
	err := s.editCard(ctx, req.CardId, func(c *agentcard.Card) error {
		_, i, ok := c.Skill(req.SkillName)
		if !ok {
			return failure.NotFound("skill")
		}
		c.Skills = append(c.Skills[:i], c.Skills[i+1:]...)
		examples := c.Examples[:0]
		for _, e := range c.Examples {
			if e.Skill != req.SkillName {
				examples = append(examples, e)
			}
		}
		c.Examples = examples
		return nil
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
	var (
		tool design.Tool
		at   string
	)
	err := s.tenant(ctx, func(tx *store.Tx, _ auth.Principal) error {
		a, err := tx.AgentCard(ctx, req.CardId)
		if err != nil {
			return err
		}
		sk, i, ok := a.Card.Skill(req.SkillName)
		if !ok {
			return failure.NotFound("skill")
		}
		at = skillPath(i)
		if sk.MCPServer == nil || *sk.MCPServer == "" || sk.MCPTool == nil || *sk.MCPTool == "" {
			return failure.Invalid(failure.Field(at+".mcp_tool",
				"skill '%s' is not linked to a mock tool: set mcp_server and mcp_tool", sk.Name))
		}
		links, err := tx.LinkedServers(ctx, []string{*sk.MCPServer})
		if err != nil {
			return err
		}
		srv := links[*sk.MCPServer]
		switch {
		case srv == nil:
			return failure.Invalid(failure.Field(at+".mcp_server", "no MCP server with this id or name in the organization"))
		case srv.Ambiguous:
			return failure.Invalid(failure.Field(at+".mcp_server",
				"several MCP servers of the organization are named '%s'; use the server id", *sk.MCPServer))
		}
		tool, err = tx.ToolByName(ctx, srv.ID, *sk.MCPTool)
		if failure.Is(err, failure.ErrNotFound) {
			return failure.Invalid(failure.Field(at+".mcp_tool", "server '%s' has no tool named '%s'", srv.Name, *sk.MCPTool))
		}
		return err
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

func skillPath(i int) string { return "skills[" + strconv.Itoa(i) + "]" }
