// Package compliance runs the rules a policy engine checks an MCP server
// definition against, and reports every finding with the JSON path of what
// it concerns. It works on a Definition, built from a stored design or from a
// candidate definition a caller sends, and never fails: a broken definition
// is a list of findings.
package compliance

import (
	"encoding/json"
	"fmt"

	"github.com/mockmcp/mockmcp/internal/mockspec"
)

// Severities of findings. A definition is valid when no finding is an error.
const (
	SeverityError   = "error"
	SeverityWarning = "warning"
)

// Definition is what the rules look at.
type Definition struct {
	Tools     []Tool
	Resources []Resource
	Prompts   []Prompt
}

// Tool is one tool with its mock scenarios.
type Tool struct {
	Name         string
	Description  string
	InputSchema  json.RawMessage // nil when absent
	OutputSchema json.RawMessage // nil when absent
	Scenarios    []Scenario
	// View is the URI of the MCP Apps view the tool's _meta links it to
	// (ui.resourceUri, else the flat ui/resourceUri); "" when none.
	View string
}

// Scenario is one mock scenario of a tool.
type Scenario struct {
	Name      string
	Condition json.RawMessage // nil, null or {} always match
	// Response is the plain JSON response, checked against the output
	// schema since it is served as structuredContent.
	Response json.RawMessage
	// Explicit reports that the scenario answers with an explicit result,
	// a JSON-RPC error or a sequence instead of a plain Response, which is
	// then nil and not reported missing. Structured holds what of such an
	// answer is checked against the output schema.
	Explicit   bool
	Structured []Structured
}

// Structured is a value a scenario serves as structuredContent, at its
// path relative to the scenario ("result.structuredContent",
// "sequence.steps[1].response").
type Structured struct {
	Path  string
	Value json.RawMessage
}

// MockScenario is the Scenario the rules see of a stored mock scenario:
// its plain response, or, for the other answer forms, each value served as
// structuredContent (a result's structuredContent; a sequence step's
// response or structuredContent). A JSON-RPC error serves none, nor, here,
// a scenario that asks the client.
func MockScenario(sc mockspec.Scenario) Scenario {
	out := Scenario{Name: sc.Name, Condition: sc.Condition}
	switch {
	case sc.Sequence != nil:
		out.Explicit = true
		for i, st := range sc.Sequence.Steps {
			at := fmt.Sprintf("sequence.steps[%d]", i)
			switch {
			case len(st.Response) > 0:
				out.Structured = append(out.Structured, Structured{Path: at + ".response", Value: st.Response})
			case len(st.Result) > 0:
				out.Structured = appendStructured(out.Structured, at+".result", st.Result)
			}
		}
	case len(sc.Result) > 0:
		out.Explicit = true
		out.Structured = appendStructured(out.Structured, "result", sc.Result)
	case sc.Error != nil, sc.Ask != nil:
		// A scenario that asks answers in its branches, after the
		// client's answers.
		out.Explicit = true
	default:
		out.Response = sc.Response
	}
	return out
}

// appendStructured appends the structuredContent of a result, when it has
// one.
func appendStructured(out []Structured, at string, result json.RawMessage) []Structured {
	var r struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(result, &r) != nil || absent(r.StructuredContent) {
		return out
	}
	return append(out, Structured{Path: at + ".structuredContent", Value: r.StructuredContent})
}

// Resource is one resource (or resource template).
type Resource struct {
	URI         string
	Name        string
	Description string
	MimeType    string
}

// Prompt is one prompt template.
type Prompt struct {
	Name        string
	Description string
	Arguments   []PromptArgument
}

// PromptArgument is one declared prompt argument.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// Finding is one rule's complaint about one place in the definition.
type Finding struct {
	Rule     string `json:"rule"`
	Severity string `json:"severity"`
	Path     string `json:"path"`
	Message  string `json:"message"`
}

// Result is the outcome of Check.
type Result struct {
	Valid    bool      `json:"valid"`
	Findings []Finding `json:"findings"`
}
