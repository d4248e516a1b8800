package agentcard

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
)

func str(s string) *string { return &s }

// skillCard has two skills, each with an example.
func skillCard() Card {
	return Card{Name: "weather agent",
		Skills: []Skill{
			{Name: "forecast", Description: "Forecasts", Returns: str("a forecast"), MCPServer: str("weather"), MCPTool: str("get_forecast")},
			{Name: "alerts", Description: "Alerts"},
		},
		Examples: []Example{{Skill: "forecast", Input: json.RawMessage(`{"city":"Paris"}`)}, {Skill: "alerts"}},
	}
}

func requireKind(t *testing.T, err error, kind failure.Kind, detail string) {
	t.Helper()
	f, ok := failure.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, kind, f.Kind)
	require.Equal(t, detail, f.Detail)
}

func TestAddSkill(t *testing.T) {
	c := skillCard()
	require.NoError(t, c.AddSkill(Skill{Name: "tides"}))
	require.Equal(t, "tides", c.Skills[2].Name)
	requireKind(t, c.AddSkill(Skill{Name: "alerts"}), failure.KindConflict, "a skill named 'alerts' already exists in this card")
	require.Len(t, c.Skills, 3)
}

func TestUpdateSkill(t *testing.T) {
	cases := []struct {
		name     string
		skill    string
		patch    SkillPatch
		want     Skill
		examples []string // the skills of the card's examples after
	}{
		{"nothing given keeps everything", "forecast", SkillPatch{}, skillCard().Skills[0], []string{"forecast", "alerts"}},
		{"a rename takes the examples along", "forecast", SkillPatch{Name: str("outlook"), Description: str("Outlooks")},
			Skill{Name: "outlook", Description: "Outlooks", Returns: str("a forecast"), MCPServer: str("weather"), MCPTool: str("get_forecast")},
			[]string{"outlook", "alerts"}},
		{"null clears, a value sets", "forecast", SkillPatch{Returns: Patch[string]{Set: true}, MCPTool: Patch[string]{Set: true, To: str("t")},
			Parameters: Patch[json.RawMessage]{Set: true, To: &json.RawMessage{'{', '}'}},
			Examples:   Patch[[]json.RawMessage]{Set: true, To: &[]json.RawMessage{json.RawMessage(`1`)}}},
			Skill{Name: "forecast", Description: "Forecasts", MCPServer: str("weather"), MCPTool: str("t"),
				Parameters: json.RawMessage(`{}`), Examples: []json.RawMessage{json.RawMessage(`1`)}},
			[]string{"forecast", "alerts"}},
		{"the same name is no rename", "alerts", SkillPatch{Name: str("alerts")}, Skill{Name: "alerts", Description: "Alerts"},
			[]string{"forecast", "alerts"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := skillCard()
			got, err := c.UpdateSkill(tc.skill, tc.patch)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			saved, _, ok := c.Skill(tc.want.Name)
			require.True(t, ok)
			require.Equal(t, tc.want, saved)
			var examples []string
			for _, e := range c.Examples {
				examples = append(examples, e.Skill)
			}
			require.Equal(t, tc.examples, examples)
		})
	}

	c := skillCard()
	_, err := c.UpdateSkill("none", SkillPatch{})
	requireKind(t, err, failure.KindNotFound, "skill not found")
	_, err = c.UpdateSkill("forecast", SkillPatch{Name: str("alerts")})
	requireKind(t, err, failure.KindConflict, "a skill named 'alerts' already exists in this card")
	require.Equal(t, skillCard(), c, "a refused change changes nothing")
}

func TestRemoveSkill(t *testing.T) {
	c := skillCard()
	require.NoError(t, c.RemoveSkill("forecast"))
	require.Equal(t, []Skill{{Name: "alerts", Description: "Alerts"}}, c.Skills)
	require.Equal(t, []Example{{Skill: "alerts"}}, c.Examples)
	requireKind(t, c.RemoveSkill("forecast"), failure.KindNotFound, "skill not found")
}

// finder holds servers and their tools in memory; a tool is its name.
type finder struct {
	links Links
	tools map[uuid.UUID][]string
	err   error
}

func (f finder) LinkedServers(_ context.Context, refs []string) (Links, error) {
	out := Links{}
	for _, r := range refs {
		if s, ok := f.links[r]; ok {
			out[r] = s
		}
	}
	return out, f.err
}

func (f finder) ToolByName(_ context.Context, server uuid.UUID, name string) (string, error) {
	for _, t := range f.tools[server] {
		if t == name {
			return t, nil
		}
	}
	return "", failure.NotFound("tool")
}

func TestLinkedTool(t *testing.T) {
	weather := uuid.New()
	f := finder{links: Links{"weather": {ID: weather, Name: "weather"}, "twin": {Name: "twin", Ambiguous: true}},
		tools: map[uuid.UUID][]string{weather: {"get_forecast"}}}
	cases := []struct {
		name   string
		skill  Skill
		field  string
		reason string
	}{
		{"linked", Skill{Name: "s", MCPServer: str("weather"), MCPTool: str("get_forecast")}, "", ""},
		{"no link", Skill{Name: "s", MCPServer: str("weather")}, "skills[1].mcp_tool",
			"skill 's' is not linked to a mock tool: set mcp_server and mcp_tool"},
		{"an empty link", Skill{Name: "s", MCPServer: str(""), MCPTool: str("get_forecast")}, "skills[1].mcp_tool",
			"skill 's' is not linked to a mock tool: set mcp_server and mcp_tool"},
		{"no such server", Skill{Name: "s", MCPServer: str("moon"), MCPTool: str("t")}, "skills[1].mcp_server",
			"no MCP server with this id or name in the organization"},
		{"an ambiguous name", Skill{Name: "s", MCPServer: str("twin"), MCPTool: str("t")}, "skills[1].mcp_server",
			"several MCP servers of the organization are named 'twin'; use the server id"},
		{"no such tool", Skill{Name: "s", MCPServer: str("weather"), MCPTool: str("get_tide")}, "skills[1].mcp_tool",
			"server 'weather' has no tool named 'get_tide'"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Card{Skills: []Skill{{Name: "first"}, tc.skill}}
			tool, err := LinkedTool[string](context.Background(), f, c, "s")
			if tc.field == "" {
				require.NoError(t, err)
				require.Equal(t, "get_forecast", tool)
				return
			}
			fe, ok := failure.As(err)
			require.True(t, ok, "%v", err)
			require.Equal(t, []failure.FieldError{failure.Field(tc.field, "%s", tc.reason)}, fe.Fields)
		})
	}

	_, err := LinkedTool[string](context.Background(), f, Card{}, "s")
	requireKind(t, err, failure.KindNotFound, "skill not found")
	broken := errors.New("connection lost")
	_, err = LinkedTool[string](context.Background(), finder{err: broken}, skillCard(), "forecast")
	require.ErrorIs(t, err, broken)
}
