package agentcard

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// failureOf is err as a failure of kind invalid, with its fields in order.
func failureOf(t *testing.T, err error) (detail string, fields []string) {
	t.Helper()
	f, ok := failure.As(err)
	require.True(t, ok, "%v", err)
	require.Equal(t, failure.KindInvalid, f.Kind)
	return f.Detail, fieldsOf(t, f.Fields)
}

func TestCheckStructure(t *testing.T) {
	require.NoError(t, CheckStructure(Card{Name: "draft-agent"}), "a draft need not be publishable")
	_, fields := failureOf(t, CheckStructure(Card{Name: "Not A Name"}))
	require.Equal(t, []string{"name"}, fields)
}

func TestPublishable(t *testing.T) {
	require.NoError(t, Publishable(validCard(), nil))
	require.NoError(t, StaysPublishable(validCard(), nil))

	c := validCard()
	c.Version, c.Description = "one", "short"
	detail, fields := failureOf(t, Publishable(c, nil))
	require.Equal(t, "the card cannot be published until every problem listed is fixed", detail)
	require.Equal(t, []string{"version", "description"}, fields)
	detail, fields = failureOf(t, StaysPublishable(c, nil))
	require.Equal(t, "the card is published and the change would make it invalid; unpublish it to edit it freely", detail)
	require.Equal(t, []string{"version", "description"}, fields)

	c = validCard()
	c.Skills[0].MCPServer, c.Skills[0].MCPTool = textPtr("missing"), textPtr("forecast")
	_, fields = failureOf(t, Publishable(c, weatherLinks))
	require.Equal(t, []string{"skills[0].mcp_server"}, fields, "a skill's server must resolve")
	c.Skills[0].MCPServer = textPtr("weather")
	require.NoError(t, Publishable(c, weatherLinks))
}

func TestFirstPublished(t *testing.T) {
	first := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := first.Add(48 * time.Hour)
	require.Equal(t, now, *FirstPublished(nil, now))
	require.Equal(t, first, *FirstPublished(&first, now), "republishing keeps the first publication")
}

func TestDuplicate(t *testing.T) {
	src := validCard()
	named := "weather-agent-2"

	c, err := Duplicate(src, &named)
	require.NoError(t, err)
	require.Equal(t, named, c.Name)
	require.Equal(t, src.Skills, c.Skills)

	c, err = Duplicate(src, nil)
	require.NoError(t, err)
	require.Equal(t, "weather-agent-copy", c.Name)

	src.Name = strings.Repeat("a", MaxNameLength)
	c, err = Duplicate(src, nil)
	require.NoError(t, err)
	require.Equal(t, strings.Repeat("a", MaxNameLength-len("-copy"))+"-copy", c.Name, "the default name fits the limit")

	bad := "Bad Name"
	_, err = Duplicate(src, &bad)
	_, fields := failureOf(t, err)
	require.Equal(t, []string{"name"}, fields)
}

func TestClone(t *testing.T) {
	src := validCard()
	c := src.Clone()
	c.Skills[0].Name = "renamed"
	c.Skills = append(c.Skills, Skill{Name: "added"})
	require.Equal(t, "get_forecast", src.Skills[0].Name, "the clone's skills are its own")
	require.Len(t, src.Skills, 1)
	require.NotNil(t, Card{}.Clone().Skills, "a clone's lists are never nil")
}
