package mcpserve

import (
	"encoding/json"
	"fmt"

	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/schema"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Invocation is the answer of one tool run outside the MCP endpoint (an
// agent card's skill invoked through the REST API).
type Invocation struct {
	// Output is the matching scenario's response as stored, or the
	// no-match message.
	Output json.RawMessage
	// Scenario is the matching scenario's name; empty when none matched.
	Scenario string
}

// Invoke runs t on args exactly as tools/call does on the endpoint: args
// are checked against the tool's input schema, then its scenarios are
// matched in order, first match wins. Arguments that break the schema come
// back as violations, for the caller to report in its own terms.
func Invoke(t store.Tool, args map[string]any) (Invocation, []schema.Violation, error) {
	ct, err := compileTool(t, false)
	if err != nil {
		return Invocation{}, nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	input, err := ct.inputSchema()
	if err != nil {
		return Invocation{}, nil, fmt.Errorf("tool %q: stored input schema: %w", t.Name, err)
	}
	if args == nil {
		args = map[string]any{}
	}
	if vs := input.Validate(args); len(vs) > 0 {
		return Invocation{}, vs, nil
	}
	if i, ok := ct.matcher.Match(args); ok {
		return Invocation{Output: t.Scenarios[i].Response, Scenario: t.Scenarios[i].Name}, nil, nil
	}
	return Invocation{Output: json.RawMessage(scenario.NoMatchMessage(t.Name))}, nil, nil
}
