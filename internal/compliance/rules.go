package compliance

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// rule pairs a rule id with the severity of its findings, so the severity of
// each rule is stated once.
type rule struct {
	id       string
	severity string
}

var (
	toolNameRequired             = rule{"tool-name-required", SeverityError}
	toolNameSnakeCase            = rule{"tool-name-snake-case", SeverityError}
	toolNameUnique               = rule{"tool-name-unique", SeverityError}
	toolDescriptionRequired      = rule{"tool-description-required", SeverityError}
	toolDescriptionLength        = rule{"tool-description-length", SeverityWarning}
	inputSchemaValid             = rule{"input-schema-valid", SeverityError}
	inputSchemaDraft7            = rule{"input-schema-draft-7", SeverityWarning}
	outputSchemaValid            = rule{"output-schema-valid", SeverityError}
	scenarioConditionValid       = rule{"scenario-condition-valid", SeverityError}
	scenarioConditionDeclared    = rule{"scenario-condition-declared", SeverityError}
	scenarioResponseOutputSchema = rule{"scenario-response-output-schema", SeverityError}
	resourceURIRequired          = rule{"resource-uri-required", SeverityError}
	resourceURIValid             = rule{"resource-uri-valid", SeverityError}
	resourceURIUnique            = rule{"resource-uri-unique", SeverityError}
	resourceDescriptionRequired  = rule{"resource-description-required", SeverityWarning}
	promptNameRequired           = rule{"prompt-name-required", SeverityError}
	promptDescriptionRequired    = rule{"prompt-description-required", SeverityWarning}
	promptArgumentNameRequired   = rule{"prompt-argument-name-required", SeverityError}
	promptArgumentUnique         = rule{"prompt-argument-unique", SeverityError}
	toolViewExists               = rule{"tool-view-exists", SeverityError}
)

// minDescription is the tool description length, in characters, below which
// a model is unlikely to learn enough to pick the tool well.
const minDescription = 200

// draft7 is the dialect MCP clients expect input schemas in.
const draft7 = "http://json-schema.org/draft-07/schema#"

var snakeCase = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// Check runs every rule against d. Findings come in the order of the places
// they concern in the definition (tools, then resources, then prompts, each
// in field order), so the same definition always gives the same result.
func Check(d Definition) Result {
	c := checker{findings: []Finding{}}
	firstTool := map[string]int{}
	for i, t := range d.Tools {
		c.tool(fmt.Sprintf("tools[%d]", i), i, t, firstTool)
	}
	firstURI := map[string]int{}
	for i, r := range d.Resources {
		c.resource(fmt.Sprintf("resources[%d]", i), i, r, firstURI)
	}
	for i, t := range d.Tools {
		if _, ok := firstURI[t.View]; t.View != "" && !ok {
			c.add(toolViewExists, fmt.Sprintf("tools[%d]._meta.ui.resourceUri", i),
				"tool %q is linked to the MCP Apps view %q, which is none of the resources: a host fetches the view with resources/read", t.Name, t.View)
		}
	}
	for i, p := range d.Prompts {
		c.prompt(fmt.Sprintf("prompts[%d]", i), p)
	}
	valid := !slices.ContainsFunc(c.findings, func(f Finding) bool { return f.Severity == SeverityError })
	return Result{Valid: valid, Findings: c.findings}
}

type checker struct {
	findings []Finding
}

func (c *checker) add(r rule, path, format string, args ...any) {
	c.findings = append(c.findings, Finding{
		Rule:     r.id,
		Severity: r.severity,
		Path:     path,
		Message:  fmt.Sprintf(format, args...),
	})
}

// unique records i as the first index to use key or, when an earlier
// index did, adds a finding of r at path whose message is format applied
// to key and that index.
func (c *checker) unique(first map[string]int, key string, i int, r rule, path, format string) {
	if j, seen := first[key]; seen {
		c.add(r, path, format, key, j)
		return
	}
	first[key] = i
}

// tool checks tools[i]; first maps each tool name seen so far to the index
// of the tool that used it first.
func (c *checker) tool(at string, i int, t Tool, first map[string]int) {
	switch {
	case blank(t.Name):
		c.add(toolNameRequired, at+".name", "tool name is required")
	default:
		if !snakeCase.MatchString(t.Name) {
			c.add(toolNameSnakeCase, at+".name",
				"tool name %q is not snake_case: use lowercase letters and digits, starting with a letter, with single underscores between words (such as get_weather)", t.Name)
		}
		c.unique(first, t.Name, i, toolNameUnique, at+".name", "tool name %q is already used by tools[%d]")
	}

	if blank(t.Description) {
		c.add(toolDescriptionRequired, at+".description",
			"tool description is required: say what the tool does, when to use it and what it returns")
	} else if n := utf8.RuneCountInString(strings.TrimSpace(t.Description)); n < minDescription {
		c.add(toolDescriptionLength, at+".description",
			"tool description is %d characters long; at least %d help a model choose the tool well: say what it does, when to use it and what it returns", n, minDescription)
	}

	input := c.inputSchema(at+".inputSchema", t.InputSchema)
	output := c.outputSchema(at+".outputSchema", t.OutputSchema)
	for j, sc := range t.Scenarios {
		sat := fmt.Sprintf("%s.mock_scenarios[%d]", at, j)
		c.condition(sat, sc.Condition, input)
		if output == nil {
			continue
		}
		if !sc.Explicit {
			c.response(sat+".response", sc.Response, output)
		}
		for _, st := range sc.Structured {
			c.response(sat+"."+st.Path, st.Value, output)
		}
	}
}

// inputSchema checks a tool's inputSchema and returns it decoded, for the
// check of scenario conditions, or nil when it does not compile.
func (c *checker) inputSchema(path string, raw json.RawMessage) any {
	if absent(raw) {
		c.add(inputSchemaValid, path, `inputSchema is required: a JSON Schema with "type": "object" describing the tool's arguments`)
		return nil
	}
	s, err := schema.Compile(raw, schema.RequireObject)
	if err != nil {
		c.add(inputSchemaValid, path, "%s", err.Error())
		return nil
	}
	if d := s.Dialect(); strings.TrimSuffix(d, "#") != strings.TrimSuffix(draft7, "#") {
		c.add(inputSchemaDraft7, path,
			`inputSchema is written in the dialect %s; MCP clients expect Draft 7 (%s), and some cannot read other dialects`, d, draft7)
	}
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil // unreachable: it compiled
	}
	return doc
}

// outputSchema checks a tool's outputSchema when it has one and returns it
// compiled, or nil.
func (c *checker) outputSchema(path string, raw json.RawMessage) *schema.Schema {
	if absent(raw) {
		return nil
	}
	s, err := schema.Compile(raw, schema.RequireObject) // MCP output schemas describe structuredContent, an object
	if err != nil {
		c.add(outputSchemaValid, path, "%s", err.Error())
		return nil
	}
	return s
}

// condition checks a scenario's condition at scenario path at; input is the
// tool's decoded inputSchema, nil when it did not compile.
func (c *checker) condition(at string, raw json.RawMessage, input any) {
	cond, errs := scenario.Compile(raw)
	for _, e := range errs {
		c.add(scenarioConditionValid, at+"."+e.Field, "%s", e.Message)
	}
	if len(errs) > 0 || input == nil {
		return
	}
	// The location within the condition is not reported: Paths does not say
	// whether a path came from an operator's "field" or a plain key, and the
	// message quotes the path.
	for _, p := range cond.Paths() {
		if msg := undeclared(input, p); msg != "" {
			c.add(scenarioConditionDeclared, at+".condition", "%s", msg)
		}
	}
}

// response checks a value a scenario serves as structuredContent (its
// response, or a result's structuredContent) against the tool's compiled
// outputSchema.
func (c *checker) response(path string, raw json.RawMessage, output *schema.Schema) {
	v, err := decode(raw)
	if err != nil {
		c.add(scenarioResponseOutputSchema, path, "response cannot be checked against outputSchema: %v", err)
		return
	}
	for _, vi := range output.Validate(v) {
		c.add(scenarioResponseOutputSchema, path+suffix(vi.Field), "%s", vi.Message)
	}
}

// suffix turns a Violation's Field ("", "address.city", "items[0].id",
// "[2]") into the end of a JSON path.
func suffix(field string) string {
	if field == "" || strings.HasPrefix(field, "[") {
		return field
	}
	return "." + field
}

// decode decodes a JSON value as schema.Validate expects it, keeping numbers
// exact as json.Number.
func decode(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, errors.New("it is empty")
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("it is not valid JSON: %v", err)
	}
	if d.More() {
		return nil, errors.New("it is not valid JSON: unexpected data after the value")
	}
	return v, nil
}

// resource checks resources[i]; first maps each URI seen so far to the
// index of the resource that used it first.
func (c *checker) resource(at string, i int, r Resource, first map[string]int) {
	if blank(r.URI) {
		c.add(resourceURIRequired, at+".uri", "resource uri is required")
	} else {
		if msg := design.URIProblem(r.URI); msg != "" {
			c.add(resourceURIValid, at+".uri", "resource uri %q %s", r.URI, msg)
		}
		c.unique(first, r.URI, i, resourceURIUnique, at+".uri", "resource uri %q is already used by resources[%d]")
	}
	if blank(r.Description) {
		c.add(resourceDescriptionRequired, at+".description",
			"resource description is missing: say what the resource holds so a client knows when to read it")
	}
}

func (c *checker) prompt(at string, p Prompt) {
	if blank(p.Name) {
		c.add(promptNameRequired, at+".name", "prompt name is required")
	}
	if blank(p.Description) {
		c.add(promptDescriptionRequired, at+".description",
			"prompt description is missing: say what the prompt is for so a user knows when to pick it")
	}
	// Names compare trimmed, as design.CheckPrompt compares them.
	first := map[string]int{}
	for k, a := range p.Arguments {
		aat := fmt.Sprintf("%s.arguments[%d].name", at, k)
		name := strings.TrimSpace(a.Name)
		if name == "" {
			c.add(promptArgumentNameRequired, aat, "argument name is required")
			continue
		}
		c.unique(first, name, k, promptArgumentUnique, aat, "argument %q is already declared by arguments[%d]")
	}
}

func blank(s string) bool {
	return strings.TrimSpace(s) == ""
}

// absent reports whether an optional JSON member was left out or is null.
func absent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}
