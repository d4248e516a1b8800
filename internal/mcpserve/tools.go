package mcpserve

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// tool is a tool compiled for serving.
type tool struct {
	name string
	// The input schema was checked when it was saved; its validation tree,
	// the bulk of a compiled tool's memory, is built on the tool's first
	// call, so a cache full of designs holds only the trees in use.
	inputRaw  []byte
	inputOnce sync.Once
	input     *schema.Schema
	inputErr  error
	matcher   *scenario.Matcher
	scenes    []*scene // the answers of each scenario
	names     []string // the scenarios' names, for the journal
	noMatch   []byte
	// requiredCaps are the client capabilities a modern request must
	// declare to call the tool; params, the arguments mirrored in
	// Mcp-Param-* headers.
	requiredCaps []string
	params       []paramHeader
}

// compileTools compiles every tool and encodes tools/list.
func (c *compiled) compileTools(tools []design.Tool) error {
	type toolInfo struct {
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	}
	structured := protocol.HasOutputSchema(c.version)
	c.tools = make(map[string]*tool, len(tools))
	list := make([]toolInfo, 0, len(tools))
	for _, t := range tools {
		ct, err := compileTool(t, c.version)
		if err != nil {
			return fmt.Errorf("tool %q: %w", t.Name, err)
		}
		c.tools[t.Name] = ct
		for _, sc := range ct.scenes {
			c.usesSequences = c.usesSequences || sc.usesSequence()
		}
		info := toolInfo{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		if structured && len(t.OutputSchema) > 0 {
			info.OutputSchema = t.OutputSchema
		}
		list = append(list, info)
		c.size += toolSize(t, ct)
	}
	var err error
	c.toolsList, err = json.Marshal(map[string]any{"tools": list})
	return err
}

// toolSize estimates the bytes a compiled tool holds. Its input schema is
// compiled on the first call, so it is counted up front, at the most it
// can keep (schema.Footprint): a schema the library must validate keeps the
// library's tree, most of a tool's footprint; one of common keywords keeps
// only its fast path.
func toolSize(t design.Tool, ct *tool) int {
	n := 2*len(t.InputSchema) + len(t.Description) + 1024 + schema.Footprint(t.InputSchema)
	for _, sc := range ct.scenes {
		n += sc.size()
	}
	return n
}

// inputSchema returns the tool's compiled input schema, compiling it once.
func (t *tool) inputSchema() (*schema.Schema, error) {
	t.inputOnce.Do(func() { t.input, t.inputErr = schema.Compile(t.inputRaw, schema.RequireObject) })
	return t.input, t.inputErr
}

// compileTool compiles one tool for a server of the given protocol version:
// its conditions, and the answers of its scenarios and of no match.
func compileTool(t design.Tool, version string) (*tool, error) {
	var err error
	withStructured := protocol.HasOutputSchema(version) && len(t.OutputSchema) > 0
	ct := &tool{name: t.Name, inputRaw: t.InputSchema, scenes: make([]*scene, len(t.Scenarios)),
		names: make([]string, len(t.Scenarios)), params: paramHeaders(t.InputSchema),
		requiredCaps: t.RequiredClientCapabilities}
	conds := make([]scenario.Condition, len(t.Scenarios))
	for i, sc := range t.Scenarios {
		// A condition saved before a check it now fails (a pattern over
		// the limits) matches nothing, rather than take the whole design
		// down: Compile returns it so.
		conds[i], _ = scenario.Compile(sc.Condition)
		if ct.scenes[i], err = compileScene(t.Name, i, sc, version, withStructured); err != nil {
			return nil, fmt.Errorf("scenario %q: %w", sc.Name, err)
		}
		ct.names[i] = sc.Name
	}
	ct.matcher = scenario.NewMatcher(conds)
	// Every result of a tool with a listed output schema carries
	// structuredContent, the no-match result too: clients reject a result
	// without it.
	if ct.noMatch, err = textResult(json.RawMessage(scenario.NoMatchMessage(t.Name)), withStructured); err != nil {
		return nil, err
	}
	return ct, nil
}
