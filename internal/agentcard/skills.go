package agentcard

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// AddSkill appends sk to the card, unless the card has a skill of its name.
func (c *Card) AddSkill(sk Skill) error {
	if _, _, ok := c.Skill(sk.Name); ok {
		return failure.Conflict("a skill named '%s' already exists in this card", sk.Name)
	}
	c.Skills = append(c.Skills, sk)
	return nil
}

// Patch is the change of one optional member of a skill: without Set the
// member is kept; with Set it becomes To, and nil clears it.
type Patch[T any] struct {
	Set bool
	To  *T
}

// apply is the member cur after the patch.
func (p Patch[T]) apply(cur *T) *T {
	if !p.Set {
		return cur
	}
	return p.To
}

// SkillPatch is a change of a skill: nil Name and Description are kept.
type SkillPatch struct {
	Name, Description           *string
	Returns, MCPServer, MCPTool Patch[string]
	Parameters                  Patch[json.RawMessage]
	Examples                    Patch[[]json.RawMessage]
}

// UpdateSkill changes the skill called name as p says, and returns it. A
// rename takes the card's examples of the skill along, unless another
// skill has the new name.
func (c *Card) UpdateSkill(name string, p SkillPatch) (Skill, error) {
	sk, i, ok := c.Skill(name)
	if !ok {
		return Skill{}, failure.NotFound("skill")
	}
	if p.Name != nil && *p.Name != sk.Name {
		if _, _, clash := c.Skill(*p.Name); clash {
			return Skill{}, failure.Conflict("a skill named '%s' already exists in this card", *p.Name)
		}
		for j := range c.Examples {
			if c.Examples[j].Skill == sk.Name {
				c.Examples[j].Skill = *p.Name
			}
		}
		sk.Name = *p.Name
	}
	if p.Description != nil {
		sk.Description = *p.Description
	}
	sk.Returns = p.Returns.apply(sk.Returns)
	sk.MCPServer = p.MCPServer.apply(sk.MCPServer)
	sk.MCPTool = p.MCPTool.apply(sk.MCPTool)
	if p.Parameters.Set {
		sk.Parameters = deref(p.Parameters.To)
	}
	if p.Examples.Set {
		sk.Examples = deref(p.Examples.To)
	}
	c.Skills[i] = sk
	return sk, nil
}

// RemoveSkill removes the skill called name and the card's examples of it.
func (c *Card) RemoveSkill(name string) error {
	_, i, ok := c.Skill(name)
	if !ok {
		return failure.NotFound("skill")
	}
	c.Skills = append(c.Skills[:i], c.Skills[i+1:]...)
	examples := c.Examples[:0]
	for _, e := range c.Examples {
		if e.Skill != name {
			examples = append(examples, e)
		}
	}
	c.Examples = examples
	return nil
}

// ToolFinder finds the mock tool a skill links to: the servers its
// mcp_server names, then the tool by name. T is the tool as the finder
// holds it (design.Tool for *store.Tx), so that cards need not know the
// design.
type ToolFinder[T any] interface {
	LinkedServers(ctx context.Context, refs []string) (Links, error)
	ToolByName(ctx context.Context, server uuid.UUID, name string) (T, error)
}

// LinkedTool is the mock tool the skill called name links to, found with
// f. A skill without a link, or with a link to no server or tool of the
// organization, is invalid, under the skill's field.
func LinkedTool[T any](ctx context.Context, f ToolFinder[T], c Card, name string) (T, error) {
	var tool T
	sk, i, ok := c.Skill(name)
	if !ok {
		return tool, failure.NotFound("skill")
	}
	at := skillPath(i)
	if sk.MCPServer == nil || *sk.MCPServer == "" || sk.MCPTool == nil || *sk.MCPTool == "" {
		return tool, failure.Invalid(failure.Field(at+".mcp_tool",
			"skill '%s' is not linked to a mock tool: set mcp_server and mcp_tool", sk.Name))
	}
	links, err := f.LinkedServers(ctx, []string{*sk.MCPServer})
	if err != nil {
		return tool, err
	}
	srv := links[*sk.MCPServer]
	switch {
	case srv == nil:
		return tool, failure.Invalid(failure.Field(at+".mcp_server", "no MCP server with this id or name in the organization"))
	case srv.Ambiguous:
		return tool, failure.Invalid(failure.Field(at+".mcp_server",
			"several MCP servers of the organization are named '%s'; use the server id", *sk.MCPServer))
	}
	tool, err = f.ToolByName(ctx, srv.ID, *sk.MCPTool)
	if failure.Is(err, failure.ErrNotFound) {
		return tool, failure.Invalid(failure.Field(at+".mcp_tool", "server '%s' has no tool named '%s'", srv.Name, *sk.MCPTool))
	}
	return tool, err
}

// skillPath is the field path of the card's skill at index i.
func skillPath(i int) string { return "skills[" + strconv.Itoa(i) + "]" }

// deref is *p, or the zero value when p is nil.
func deref[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}
