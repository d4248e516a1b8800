package scenariotests

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
)

// memStore is a server's tools and the tests stored from them, in memory.
type memStore struct {
	tools map[uuid.UUID]design.Tool
	tests []store.RestTest
	fail  error // answered by CreateRestTest when set
}

func (m *memStore) Tool(_ context.Context, server, id uuid.UUID) (design.Tool, error) {
	t, ok := m.tools[id]
	if !ok || t.ServerID != server {
		return t, failure.NotFound("tool")
	}
	return t, nil
}

func (m *memStore) CreateRestTest(_ context.Context, id uuid.UUID, c resttest.Case, from json.RawMessage, by string) (store.RestTest, error) {
	if m.fail != nil {
		return store.RestTest{}, m.fail
	}
	t := store.RestTest{ID: id, Case: c, GeneratedFrom: from, CreatedBy: by}
	m.tests = append(m.tests, t)
	return t, nil
}

// failureFields lists the fields err names, as "field: message".
func failureFields(t *testing.T, err error) []string {
	t.Helper()
	f, ok := failure.As(err)
	require.True(t, ok, "%v", err)
	var out []string
	for _, fe := range f.Fields {
		out = append(out, fe.Field+": "+fe.Message)
	}
	return out
}

// makeTool is a tool of one server with the given input schema and
// scenarios.
func makeTool(name, inputSchema string, scenarios ...design.Scenario) design.Tool {
	return design.Tool{ID: uuid.MustParse("11111111-1111-4111-8111-111111111111"),
		ServerID: uuid.MustParse("22222222-2222-4222-8222-222222222222"), Name: name,
		InputSchema: json.RawMessage(inputSchema), Scenarios: scenarios}
}

// scenario answers the scenario's name when its condition holds.
func scenario(name, cond string) design.Scenario {
	return design.Scenario{Name: name, Condition: json.RawMessage(cond), Response: json.RawMessage(`{"scenario":"` + name + `"}`)}
}

func TestSave(t *testing.T) {
	ctx := context.Background()
	tool := makeTool("get_weather", `{"type":"object","properties":{"city":{"type":"string"}}}`,
		scenario("paris", `{"city":"Paris"}`),
		scenario("paris again", `{"city":"Paris"}`), // never reached: paris wins first
		scenario("fallback", `{}`))
	m := &memStore{tools: map[uuid.UUID]design.Tool{tool.ID: tool}}

	saved, err := Save(ctx, m, tool.ServerID, tool.ID, "https://mock.example.com//", "ada@example.com")
	require.NoError(t, err)
	require.Equal(t, m.tests, saved.Tests)
	require.Len(t, saved.Tests, 3)
	for i, sc := range []string{"paris", "paris again", "fallback"} {
		got := saved.Tests[i]
		require.Equal(t, "https://mock.example.com", got.Case.BaseURL, "the base loses its trailing slashes")
		require.Equal(t, "ada@example.com", got.CreatedBy)
		require.JSONEq(t, `{"server_id":"`+tool.ServerID.String()+`","tool_id":"`+tool.ID.String()+
			`","tool":"get_weather","scenario":"`+sc+`"}`, string(got.GeneratedFrom))
	}
	require.Len(t, saved.Warnings, 1, "one warning: the scenario no arguments reach")
	require.Contains(t, saved.Warnings[0], `also match scenario "paris"`)

	_, err = Save(ctx, m, uuid.New(), tool.ID, "https://mock.example.com", "ada@example.com")
	require.True(t, failure.Is(err, failure.ErrNotFound), "another server's tool is not found: %v", err)

	bare := makeTool("bare", `{"type":"object"}`)
	bare.ID = uuid.New()
	m.tools[bare.ID] = bare
	_, err = Save(ctx, m, bare.ServerID, bare.ID, "https://mock.example.com", "ada@example.com")
	require.Equal(t, []string{"mock_scenarios: tool 'bare' has no mock scenarios to make tests from"}, failureFields(t, err))

	m.fail = errors.New("connection lost")
	saved, err = Save(ctx, m, tool.ServerID, tool.ID, "https://mock.example.com", "ada@example.com")
	require.ErrorIs(t, err, m.fail)
	require.Empty(t, saved.Tests)
}

func TestCheckBase(t *testing.T) {
	require.NoError(t, CheckBase("https://api.example.com"))
	err := CheckBase("ftp://api.example.com")
	require.Len(t, failureFields(t, err), 1)
	require.Regexp(t, "^base_url: ", failureFields(t, err)[0])
}
