package mcpserve

import (
	"encoding/json"
	"fmt"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// Invocation is the answer of one tool run outside the MCP endpoint (an
// agent card's skill invoked through the REST API).
type Invocation struct {
	// Output is the matching scenario's answer as stored: its response,
	// its explicit result, or {"error": {...}} for a scripted error; for a
	// sequence, its first step (an invocation counts no calls); for a
	// scenario that asks the client, a tool error result saying so. Or
	// the no-match message.
	Output json.RawMessage
	// Scenario is the matching scenario's name; empty when none matched.
	Scenario string
}

// Invoke runs t on args exactly as tools/call does on the endpoint: args
// are checked against the tool's input schema, then its scenarios are
// matched in order, first match wins. Arguments that break the schema come
// back as violations, for the caller to report in its own terms.
func Invoke(t design.Tool, args map[string]any) (Invocation, []schema.Violation, error) {
	ct, play, err := compileTool(t, protocol.V20250618)
	if err != nil {
		return Invocation{}, nil, fmt.Errorf("tool %q: %w", t.Name, err)
	}
	input, err := ct.inputSchema(nil)
	if err != nil {
		return Invocation{}, nil, fmt.Errorf("tool %q: stored input schema: %w", t.Name, err)
	}
	if args == nil {
		args = map[string]any{}
	}
	if vs := input.Validate(args); len(vs) > 0 {
		return Invocation{}, vs, nil
	}
	if i, ok := play.matcher.Match(args); ok {
		sc := t.Scenarios[i]
		if tk := sc.Task; tk != nil { // no client is there to poll: the outcome at once
			sc.Ask, sc.Response, sc.Result, sc.Error = tk.Ask, tk.Response, tk.Result, tk.Error
		}
		if sc.Ask != nil {
			// No client is there to answer the questions.
			out, err := askLegacy(sc.Name)
			return Invocation{Output: out, Scenario: sc.Name}, nil, err
		}
		response, result, rpcErr := sc.Response, sc.Result, sc.Error
		if sc.Sequence != nil && len(sc.Sequence.Steps) > 0 {
			st := sc.Sequence.Steps[0]
			response, result, rpcErr = st.Response, st.Result, st.Error
		}
		out := response
		switch {
		case rpcErr != nil:
			if out, err = json.Marshal(map[string]any{"error": rpcErr}); err != nil {
				return Invocation{}, nil, err
			}
		case len(result) > 0:
			out = result
		}
		return Invocation{Output: out, Scenario: sc.Name}, nil, nil
	}
	return Invocation{Output: json.RawMessage(scenario.NoMatchMessage(t.Name))}, nil, nil
}
