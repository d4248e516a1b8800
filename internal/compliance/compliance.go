// Package compliance runs the rules a policy engine checks an MCP server
// definition against, and reports every finding with the JSON path of what
// it concerns. It works on a Definition, built from a stored design or from a
// candidate definition a caller sends, and never fails: a broken definition
// is a list of findings.
package compliance

import "encoding/json"

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
}

// Scenario is one mock scenario of a tool.
type Scenario struct {
	Name      string
	Condition json.RawMessage // nil, null or {} always match
	Response  json.RawMessage
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
