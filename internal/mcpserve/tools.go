package mcpserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mockspec"
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
	// The scenarios' conditions and answers, most of the rest, are
	// compiled on the first call too, from their JSON (cold): a design
	// that is only listed holds that text. They compiled when the design
	// was loaded, so compiling them again does not fail but for a fault
	// of the service.
	cold       []byte
	version    string
	structured bool
	playOnce   sync.Once
	play       *toolPlay
	playErr    error
	// requiredCaps are the client capabilities a modern request must
	// declare to call the tool; params, the arguments mirrored in
	// Mcp-Param-* headers.
	requiredCaps []string
	params       []paramHeader
	// outputRaw is the output schema a templated answer's
	// structuredContent is checked against, compiled on the first such
	// check; nil when results carry no structuredContent.
	outputRaw  []byte
	outputOnce sync.Once
	output     *schema.Schema
	outputErr  error
	// fault is the tool's fault, nil when it has none.
	fault *fault
}

// toolPlay is what a tool's calls are answered from.
type toolPlay struct {
	matcher *scenario.Matcher
	scenes  []*scene // the answers of each scenario
	names   []string // the scenarios' names, for the journal
	noMatch []byte
	size    int // approximate bytes held
	// state is how the scenarios match when some read or change the
	// design's live state; nil when none does, and the call then never
	// reaches the state.
	state *stateful
}

// compileTools compiles every tool and encodes tools/list.
func (c *compiled) compileTools(tools []design.Tool) error {
	type toolInfo struct {
		Name         string          `json:"name"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
		Meta         json.RawMessage `json:"_meta,omitempty"`
	}
	structured := protocol.HasOutputSchema(c.version)
	c.tools = make(map[string]*tool, len(tools))
	// tools/list is encoded tool by tool, as json.Marshal encodes the whole
	// list; each tool's input schema is then read from it (compacted), so
	// that the design's text is not held twice.
	type span struct {
		t        *tool
		from, to int
	}
	spans := make([]span, 0, len(tools))
	var list bytes.Buffer
	list.WriteString(`{"tools":[`)
	for i, t := range tools {
		ct, play, err := compileTool(t, c.version)
		if err != nil {
			return fmt.Errorf("tool %q: %w", t.Name, err)
		}
		c.tools[t.Name] = ct
		for _, sc := range play.scenes {
			c.usesSequences = c.usesSequences || sc.usesSequence()
		}
		info := toolInfo{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema, Meta: t.Meta}
		if structured && len(t.OutputSchema) > 0 {
			info.OutputSchema = t.OutputSchema
		}
		one, err := json.Marshal(info)
		if err != nil {
			return fmt.Errorf("tool %q: %w", t.Name, err)
		}
		if i > 0 {
			list.WriteByte(',')
		}
		if from, to, ok := memberSpan(one, "inputSchema"); ok {
			spans = append(spans, span{ct, list.Len() + from, list.Len() + to})
		}
		list.Write(one)
		c.size += toolSize(ct) // play is dropped: the tool's first call compiles it again
	}
	list.WriteString("]}")
	c.toolsList = bytes.Clone(list.Bytes()) // without the buffer's spare room
	for _, s := range spans {
		s.t.inputRaw = c.toolsList[s.from:s.to:s.to]
	}
	return nil
}

// memberSpan is where the value of member name lies in the JSON object obj.
func memberSpan(obj []byte, name string) (from, to int, ok bool) {
	jsonrpc.Members(obj, func(k, v []byte) bool {
		if string(k) == name {
			from, ok = cap(obj)-cap(v), true
			to = from + len(v)
		}
		return !ok
	})
	return from, to, ok
}

// toolSize estimates the bytes a loaded tool holds: its scenarios' text
// and the tool itself (its input schema is inside tools/list). What its
// first call compiles counts from then: the scenarios (tool.playing) and
// the input schema, at what it keeps (schema.Schema.Footprint: a schema of
// common keywords keeps only its fast path; one the library must validate
// keeps the library's tree, most of a called tool's memory).
func toolSize(ct *tool) int {
	return len(ct.cold) + 512
}

// playing returns what the tool's calls are answered from, compiling it on
// the first call and counting its bytes for d in the cache.
func (t *tool) playing(d *compiled) (*toolPlay, error) {
	t.playOnce.Do(func() {
		var scenarios []mockspec.Scenario
		if err := json.Unmarshal(t.cold, &scenarios); err != nil {
			t.playErr = fmt.Errorf("tool %q: read its scenarios again: %w", t.name, err)
			return
		}
		if t.play, t.playErr = compilePlay(t.name, scenarios, t.version, t.structured); t.playErr == nil {
			d.charge(t.play.size)
		}
	})
	return t.play, t.playErr
}

// inputSchema returns the tool's compiled input schema, compiling it once and
// counting what it keeps for d in the cache (nil: outside the cache).
func (t *tool) inputSchema(d *compiled) (*schema.Schema, error) {
	t.inputOnce.Do(func() {
		if t.input, t.inputErr = schema.Compile(t.inputRaw, schema.RequireObject, schema.Unchanging); t.inputErr == nil && d != nil {
			d.charge(t.input.Footprint())
		}
	})
	return t.input, t.inputErr
}

// compileTool compiles one tool for a server of the given protocol version,
// and returns it with what its calls are answered from, compiled (which
// the tool compiles again on its first call: see tool.cold).
func compileTool(t design.Tool, version string) (*tool, *toolPlay, error) {
	withStructured := protocol.HasOutputSchema(version) && len(t.OutputSchema) > 0
	play, err := compilePlay(t.Name, t.Scenarios, version, withStructured)
	if err != nil {
		return nil, nil, err
	}
	var cold bytes.Buffer
	enc := json.NewEncoder(&cold)
	enc.SetEscapeHTML(false) // the text as stored, but for white space
	if err := enc.Encode(t.Scenarios); err != nil {
		return nil, nil, err
	}
	f, err := compileFault(t.Fault)
	if err != nil {
		return nil, nil, fmt.Errorf("fault: %w", err)
	}
	ct := &tool{name: t.Name, inputRaw: t.InputSchema, params: paramHeaders(t.InputSchema),
		requiredCaps: t.RequiredClientCapabilities, version: version, structured: withStructured,
		cold: bytes.Clone(bytes.TrimSuffix(cold.Bytes(), []byte("\n"))), fault: f}
	if withStructured {
		ct.outputRaw = t.OutputSchema
	}
	return ct, play, nil
}

// compilePlay compiles a tool's conditions, and the answers of its
// scenarios and of no match.
func compilePlay(name string, scenarios []mockspec.Scenario, version string, withStructured bool) (*toolPlay, error) {
	var err error
	p := &toolPlay{scenes: make([]*scene, len(scenarios)), names: make([]string, len(scenarios))}
	conds := make([]scenario.Condition, len(scenarios))
	for i, sc := range scenarios {
		// A condition saved before a check it now fails (a pattern over
		// the limits) matches nothing, rather than take the whole design
		// down: Compile returns it so.
		conds[i], _ = scenario.Compile(sc.Condition)
		if p.scenes[i], err = compileScene(name, i, sc, version, withStructured); err != nil {
			return nil, fmt.Errorf("scenario %q: %w", sc.Name, err)
		}
		p.names[i] = sc.Name
		p.size += p.scenes[i].size() + len(sc.Condition)*4
		if p.scenes[i].change, err = compileSetState(sc.SetState); err != nil {
			return nil, fmt.Errorf("scenario %q: set_state: %w", sc.Name, err)
		}
		p.scenes[i].changeFill = setStateTemplate(sc.SetState)
		p.size += len(sc.WhenState)*4 + len(sc.SetState)
	}
	p.matcher = scenario.NewMatcher(conds)
	p.state = compileStateful(scenarios, conds, p.readsState())
	// Every result of a tool with a listed output schema carries
	// structuredContent, the no-match result too: clients reject a result
	// without it.
	if p.noMatch, err = textResult(json.RawMessage(scenario.NoMatchMessage(name)), withStructured); err != nil {
		return nil, err
	}
	p.size += len(p.noMatch) + 256
	return p, nil
}

// compileSetState is a scenario's set_state as one change; nil when it
// changes nothing.
func compileSetState(raw json.RawMessage) (*mockspec.StateChange, error) {
	c, err := mockspec.SplitSetState(raw)
	if err != nil || c.Sets == nil {
		return nil, err
	}
	return &c, nil
}
