// Package scenariotests stores the REST tests generated from a tool's mock
// scenarios (package testgen makes them; this is the workflow behind
// POST /api/servers/{server_id}/tools/{tool_id}/generate-tests that checks and
// saves them).
package scenariotests

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/outbound"
	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testgen"
)

// Store is what saving generated tests reads and writes in one transaction
// of the caller's organization; *store.Tx is one.
type Store interface {
	Tool(ctx context.Context, server, id uuid.UUID) (design.Tool, error)
	CreateRestTest(ctx context.Context, id uuid.UUID, c resttest.Case, generatedFrom json.RawMessage, createdBy string) (store.RestTest, error)
}

// Saved is what Save stored: the tests in scenario order, and the warnings
// of those that would fail against the server.
type Saved struct {
	Tests    []store.RestTest
	Warnings []string
}

// CheckBase refuses a base URL a test could not be sent to.
func CheckBase(base string) error {
	if err := outbound.CheckURL(base); err != nil {
		return failure.Invalid(failure.Field("base_url", "%s", err.Error()))
	}
	return nil
}

// Save stores one test per scenario of the tool id of server, created by
// actor, each calling the per-server endpoint at base. A tool without
// scenarios, or a case that does not check out, stores nothing: the
// caller's transaction is to be rolled back on any error.
func Save(ctx context.Context, st Store, server, id uuid.UUID, base, actor string) (Saved, error) {
	tool, err := st.Tool(ctx, server, id)
	if err != nil {
		return Saved{}, err
	}
	if len(tool.Scenarios) == 0 {
		return Saved{}, failure.Invalid(failure.Field("mock_scenarios", "tool '%s' has no mock scenarios to make tests from", tool.Name))
	}
	out := Saved{Tests: []store.RestTest{}, Warnings: []string{}}
	for _, g := range testgen.FromTool(strings.TrimRight(base, "/"), tool) {
		t, err := saved(ctx, st, tool, g, actor)
		if err != nil {
			return Saved{}, err
		}
		out.Tests = append(out.Tests, t)
		if g.Warning != "" {
			out.Warnings = append(out.Warnings, g.Warning)
		}
	}
	return out, nil
}

// saved checks the case of g and stores it as a test generated from its
// scenario of tool.
func saved(ctx context.Context, st Store, tool design.Tool, g testgen.Generated, actor string) (store.RestTest, error) {
	resttest.Normalize(&g.Case)
	if errs := resttest.CheckCase(g.Case); len(errs) > 0 {
		return store.RestTest{}, failure.Invalid(errs...)
	}
	from, err := json.Marshal(map[string]any{"server_id": tool.ServerID, "tool_id": tool.ID, "tool": tool.Name,
		"scenario": g.Scenario})
	if err != nil {
		return store.RestTest{}, err
	}
	return st.CreateRestTest(ctx, uuid.New(), g.Case, from, actor)
}
