package mcpserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// compiled is an enabled server design compiled for serving: schemas compiled,
// conditions compiled, and every answer that does not depend on the request
// encoded once, so a warm request only matches and copies bytes.
type compiled struct {
	id       uuid.UUID
	orgID    uuid.UUID
	authMode string
	// orgKey is orgID as text, the rate-limit counter's prefix; publicLimit
	// the organization's override of the per-address limit.
	orgKey      string
	publicLimit *int32

	initialize    []byte // initialize result
	toolsList     []byte
	resourcesList []byte
	templatesList []byte
	promptsList   []byte

	tools     map[string]*tool
	resources map[string]*resource // by exact URI
	templates []*resource          // URI templates, in order
	prompts   map[string]*prompt

	version string // the protocol version served
	// usesSequences: some scenario answers a sequence.
	usesSequences bool
	// fault is the server's default fault, nil when it has none.
	fault *fault

	size int // approximate bytes held, for the cache's budget
}

// fault is a server's default fault compiled: the share of calls it takes,
// its wait and its error (nil for a fault that only slows calls).
type fault struct {
	rate  float64
	delay time.Duration
	err   *jsonrpc.Scripted
}

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
}

type resource struct {
	uri      string
	mimeType string
	text     string         // the content as served
	binary   bool           // text holds base64, served as a blob
	pattern  *regexp.Regexp // templates only
	params   []string       // templates only, in order
	// completions are the values of completion/complete per template
	// parameter.
	completions map[string][]string
	// jsonContent: the content is JSON, not text, so template values
	// substituted into it are escaped.
	jsonContent bool
}

type prompt struct {
	description string
	arguments   []design.PromptArgument
	messages    []design.PromptMessage
}

// compile turns a stored design into its served form. A design that cannot
// be compiled (a schema saved before a rule tightened) is refused whole: it
// is better to answer 500 for that server than to serve it half-checked.
func compile(d design.Design) (*compiled, error) {
	out := &compiled{
		id: d.Server.ID, orgID: d.Server.OrgID, authMode: d.Server.AuthMode,
		orgKey: d.Server.OrgID.String(), publicLimit: d.PublicLimit,
		version: d.Server.ProtocolVersion,
	}
	var err error
	if out.fault, err = compileFault(d.Server.Fault); err != nil {
		return nil, fmt.Errorf("fault: %w", err)
	}
	if err = out.compileTools(d.Tools); err != nil {
		return nil, err
	}
	if err = out.compileResources(d.Resources); err != nil {
		return nil, err
	}
	if err = out.compilePrompts(d.Prompts); err != nil {
		return nil, err
	}
	if out.initialize, err = out.initializeResult(d); err != nil {
		return nil, err
	}
	out.size += len(out.toolsList) + len(out.resourcesList) + len(out.promptsList) + 1024
	return out, nil
}

// compileFault compiles a server's default fault; nil when it has none.
func compileFault(f *mockspec.Fault) (*fault, error) {
	if f == nil || f.Rate <= 0 {
		return nil, nil
	}
	out := &fault{rate: f.Rate, delay: ms(f.DelayMS)}
	if f.Error != nil || f.DelayMS == 0 {
		e := mockspec.DefaultFaultError
		if f.Error != nil {
			e = *f.Error
		}
		var err error
		if out.err, err = scripted(e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// initializeResult encodes the answer to initialize: the protocol version,
// the server's name and the capabilities its content calls for. It runs
// after the tools, resources and prompts are compiled.
func (c *compiled) initializeResult(d design.Design) ([]byte, error) {
	caps := map[string]any{"logging": struct{}{}}
	if len(d.Tools) > 0 {
		caps["tools"] = struct{}{}
	}
	if len(d.Resources) > 0 {
		caps["resources"] = map[string]bool{"subscribe": true}
	}
	if len(d.Prompts) > 0 {
		caps["prompts"] = struct{}{}
	}
	if (len(d.Prompts) > 0 || len(c.templates) > 0) && protocol.HasCompletions(d.Server.ProtocolVersion) {
		caps["completions"] = struct{}{}
	}
	return json.Marshal(map[string]any{
		"protocolVersion": d.Server.ProtocolVersion,
		"serverInfo":      map[string]string{"name": d.Server.Name, "version": d.Server.Version},
		"capabilities":    caps,
	})
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
			c.usesSequences = c.usesSequences || sc.sequence
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

// toolSize estimates the bytes a compiled tool holds. Measured: a small
// schema's compiled tree holds about 8 KB live, most of a tool's footprint
// once it has been called.
func toolSize(t design.Tool, ct *tool) int {
	n := 2*len(t.InputSchema) + len(t.Description) + 1024 + compiledTreeBytes(len(t.InputSchema))
	for _, sc := range ct.scenes {
		for _, a := range sc.steps {
			n += 2*len(a.result) + 256
		}
		for _, note := range sc.notes {
			n += len(note.before) + len(note.after) + 64
		}
	}
	return n
}

// compileResources compiles every resource and encodes resources/list and
// resources/templates/list.
func (c *compiled) compileResources(resources []design.Resource) error {
	type resourceInfo struct {
		URI         string `json:"uri,omitempty"`
		URITemplate string `json:"uriTemplate,omitempty"`
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		MimeType    string `json:"mimeType"`
	}
	c.resources = make(map[string]*resource, len(resources))
	plain, templated := []resourceInfo{}, []resourceInfo{}
	for _, r := range resources {
		cr, err := compileResource(r)
		if err != nil {
			return fmt.Errorf("resource %q: %w", r.URI, err)
		}
		info := resourceInfo{Name: r.Name, Description: r.Description, MimeType: cr.mimeType}
		if cr.pattern != nil {
			info.URITemplate = r.URI
			templated = append(templated, info)
			c.templates = append(c.templates, cr)
		} else {
			info.URI = r.URI
			plain = append(plain, info)
			c.resources[r.URI] = cr
		}
		c.size += len(cr.text) + len(r.URI) + 256
	}
	var err error
	if c.resourcesList, err = json.Marshal(map[string]any{"resources": plain}); err != nil {
		return err
	}
	c.templatesList, err = json.Marshal(map[string]any{"resourceTemplates": templated})
	return err
}

// compilePrompts keeps every prompt and encodes prompts/list.
func (c *compiled) compilePrompts(prompts []design.Prompt) error {
	type promptInfo struct {
		Name        string                  `json:"name"`
		Description string                  `json:"description,omitempty"`
		Arguments   []design.PromptArgument `json:"arguments"`
	}
	c.prompts = make(map[string]*prompt, len(prompts))
	list := make([]promptInfo, 0, len(prompts))
	for _, p := range prompts {
		c.prompts[p.Name] = &prompt{description: p.Description, arguments: p.Arguments, messages: p.Messages}
		args := make([]design.PromptArgument, len(p.Arguments))
		for i, a := range p.Arguments {
			a.Completions = nil // served by completion/complete, not listed
			args[i] = a
		}
		list = append(list, promptInfo{Name: p.Name, Description: p.Description, Arguments: args})
		for _, m := range p.Messages {
			c.size += len(m.Text) + len(m.Content)
		}
		c.size += 256
	}
	var err error
	c.promptsList, err = json.Marshal(map[string]any{"prompts": list})
	return err
}

// inputSchema returns the tool's compiled input schema, compiling it once.
func (t *tool) inputSchema() (*schema.Schema, error) {
	t.inputOnce.Do(func() { t.input, t.inputErr = schema.Compile(t.inputRaw, schema.RequireObject) })
	return t.input, t.inputErr
}

func compileTool(t design.Tool, version string) (*tool, error) {
	var err error
	withStructured := protocol.HasOutputSchema(version) && len(t.OutputSchema) > 0
	ct := &tool{name: t.Name, inputRaw: t.InputSchema, scenes: make([]*scene, len(t.Scenarios)),
		names: make([]string, len(t.Scenarios))}
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

// compiledTreeBytes estimates the memory of a compiled schema of n bytes,
// counted up front so that the cache's byte budget bounds the worst case.
func compiledTreeBytes(n int) int { return 2048 + 16*n }

var templateParam = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

func compileResource(r design.Resource) (*resource, error) {
	cr := &resource{uri: r.URI, binary: r.Binary, completions: r.Completions}
	content := bytes.TrimSpace(r.Content)
	if r.Binary {
		if err := json.Unmarshal(content, &cr.text); err != nil {
			return nil, err
		}
		cr.mimeType = "application/octet-stream"
	} else if len(content) > 0 && content[0] == '"' {
		if err := json.Unmarshal(content, &cr.text); err != nil {
			return nil, err
		}
		cr.mimeType = "text/plain"
	} else {
		var compact bytes.Buffer
		if err := json.Compact(&compact, content); err != nil {
			return nil, err
		}
		cr.text = compact.String()
		cr.mimeType = "application/json"
		cr.jsonContent = true
	}
	if r.MimeType != nil && *r.MimeType != "" {
		cr.mimeType = *r.MimeType
	}
	if locs := templateParam.FindAllStringSubmatchIndex(r.URI, -1); len(locs) > 0 {
		var pat strings.Builder
		pat.WriteByte('^')
		last := 0
		for _, l := range locs {
			pat.WriteString(regexp.QuoteMeta(r.URI[last:l[0]]))
			pat.WriteString(`([^/?#]+)`)
			cr.params = append(cr.params, r.URI[l[2]:l[3]])
			last = l[1]
		}
		pat.WriteString(regexp.QuoteMeta(r.URI[last:]))
		pat.WriteByte('$')
		var err error
		if cr.pattern, err = regexp.Compile(pat.String()); err != nil {
			return nil, err
		}
	}
	return cr, nil
}
