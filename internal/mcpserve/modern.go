package mcpserve

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// modernSide is what a design keeps for modern requests: the served form
// for them, built on the first one, and what every modern answer carries.
type modernSide struct {
	eras       mcptransport.Eras
	serverInfo []byte // {"name","version"}
	ttlMs      int64
	cacheScope string

	// reload reads the design again, for a modern form shaped apart from
	// the legacy one (a design whose protocol_version lacks some content
	// type): keeping the design as loaded until then would hold every
	// cached design twice. Set by the handler's loader.
	reload func(context.Context) (design.Design, error)
	// mu serializes building view, the modern form once built.
	mu   sync.Mutex
	view atomic.Pointer[compiled]
	// charge, set by the cache, counts the bytes of the modern form once
	// it is built.
	charge atomic.Pointer[func(int)]
}

// Eras is what the design answers: legacy requests, modern ones or both.
func (c *compiled) Eras() mcptransport.Eras { return c.modern.eras }

// ServerInfo is the design's Implementation object, for modern results.
func (c *compiled) ServerInfo() []byte { return c.modern.serverInfo }

// SupportedVersions lists the modern revision: legacy clients negotiate
// theirs with initialize.
func (c *compiled) SupportedVersions() []string { return supportedModern }

var supportedModern = []string{protocol.Modern}

// compileModern records what modern answers carry. The form served to
// modern requests is built when the first one comes.
func (c *compiled) compileModern(d design.Design) (err error) {
	s := &c.modern
	s.eras, s.ttlMs, s.cacheScope = erasOf(d.Server), int64(d.Server.CacheTTLMs), d.Server.CacheScope
	if s.cacheScope == "" {
		s.cacheScope = design.DefaultCacheScope
	}
	if s.serverInfo, err = json.Marshal(map[string]string{"name": d.Server.Name, "version": d.Server.Version}); err != nil {
		return err
	}
	return nil
}

// needsReload reports whether the modern form is built from the design
// read again rather than from the legacy form.
func (c *compiled) needsReload() bool {
	return c.modern.eras&mcptransport.Modern != 0 && !shapedAsModern(c.version)
}

// erasOf is what a server design answers.
func erasOf(s design.Server) mcptransport.Eras {
	switch s.Eras {
	case design.ErasLegacyOnly:
		return mcptransport.Legacy
	case design.ErasModernOnly:
		return mcptransport.Modern
	}
	return mcptransport.BothEras
}

// shapedAsModern reports whether answers shaped for legacy revision v are
// what a modern request gets too (every content type and structured
// content exist in v).
func shapedAsModern(v string) bool {
	return protocol.HasAudio(v) && protocol.HasStructuredContent(v) && protocol.HasOutputSchema(v) &&
		protocol.HasResourceLinks(v) && protocol.HasCompletions(v)
}

// forModern returns the design as served to modern requests: its answers
// shaped for the modern revision, its lists with caching hints, and
// server/discover. It is built on the first modern request, which reads the
// design again when its answers are shaped apart (an error then is the
// reading's: not found or unavailable); later ones find it built.
func (c *compiled) forModern(ctx context.Context) (*compiled, error) {
	s := &c.modern
	if v := s.view.Load(); v != nil {
		return v, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v := s.view.Load(); v != nil {
		return v, nil
	}
	m, err := c.buildModern(ctx)
	if err != nil {
		return nil, err
	}
	// What m's tools compile on their first calls counts for c too.
	m.modern.charge.Store(s.charge.Load())
	s.view.Store(m)
	c.charge(m.size)
	return m, nil
}

// charge counts n more bytes for the design in the cache (once it is
// cached: a design outside the cache counts nothing).
func (c *compiled) charge(n int) {
	if charge := c.modern.charge.Load(); charge != nil {
		(*charge)(n)
	}
}

func (c *compiled) buildModern(ctx context.Context) (*compiled, error) {
	var m *compiled
	if !c.needsReload() {
		m = c.shallowCopy()
		m.size = 0 // what it shares is counted for c
	} else {
		if c.modern.reload == nil {
			return nil, fmt.Errorf("modern form of server %s: no way to read the design", c.id)
		}
		d, err := c.modern.reload(ctx)
		if err != nil {
			return nil, err
		}
		d.Server.ProtocolVersion = protocol.Modern
		if m, err = compile(d); err != nil {
			return nil, fmt.Errorf("modern form: %w", err)
		}
	}
	m.version = protocol.Modern
	hints := c.cacheHints()
	m.toolsList = withHints(m.toolsList, hints)
	m.resourcesList = withHints(m.resourcesList, hints)
	m.templatesList = withHints(m.templatesList, hints)
	m.promptsList = withHints(m.promptsList, hints)
	var err error
	if m.discover, err = c.discoverResult(m, hints); err != nil {
		return nil, err
	}
	m.readHints = hints
	// Its size is what it holds beyond c: the lists and answers encoded
	// again (and its own tools, resources and prompts when shaped apart).
	m.size += len(m.toolsList) + len(m.resourcesList) + len(m.templatesList) + len(m.promptsList) + len(m.discover)
	return m, nil
}

// shallowCopy is c sharing its tools, resources and prompts, its upstream
// and its OAuth guard, without its modern side.
func (c *compiled) shallowCopy() *compiled {
	return &compiled{
		id: c.id, orgID: c.orgID, authMode: c.authMode, orgKey: c.orgKey, publicLimit: c.publicLimit,
		initialize: c.initialize, toolsList: c.toolsList, resourcesList: c.resourcesList,
		templatesList: c.templatesList, promptsList: c.promptsList,
		tools: c.tools, resources: c.resources, templates: c.templates, prompts: c.prompts,
		version: c.version, usesSequences: c.usesSequences, fault: c.fault, size: c.size,
		description: c.description, hasCompletions: c.hasCompletions,
		upstream: c.upstream, record: c.record, oauth: c.oauth,
	}
}

// cacheHints is `,"ttlMs":N,"cacheScope":"S"`, appended to every cacheable
// result.
func (c *compiled) cacheHints() []byte {
	out := []byte(`,"ttlMs":`)
	out = strconv.AppendInt(out, c.modern.ttlMs, 10)
	out = append(out, `,"cacheScope":`...)
	out = strconv.AppendQuote(out, c.modern.cacheScope)
	return out
}

// withHints is the encoded object list with the caching hints appended.
func withHints(list, hints []byte) []byte {
	if len(list) < 2 {
		return list
	}
	out := make([]byte, 0, len(list)+len(hints))
	out = append(out, list[:len(list)-1]...)
	out = append(out, hints...)
	return append(out, '}')
}

// discoverResult encodes the answer to server/discover: the revisions
// served, capabilities matching the methods the design answers, the
// description as instructions, and the caching hints.
func (c *compiled) discoverResult(m *compiled, hints []byte) ([]byte, error) {
	// Changes reach subscriptions/listen streams: listChanged and
	// subscribe say so.
	caps := map[string]any{
		"tools":     map[string]bool{"listChanged": true},
		"resources": map[string]bool{"listChanged": true, "subscribe": true},
		"prompts":   map[string]bool{"listChanged": true},
		"logging":   struct{}{},
		// Any tool's scenario may be a task.
		"extensions": map[string]struct{}{mockspec.TasksExtension: {}},
	}
	if m.hasCompletions {
		caps["completions"] = struct{}{}
	}
	body, err := json.Marshal(struct {
		SupportedVersions []string       `json:"supportedVersions"`
		Capabilities      map[string]any `json:"capabilities"`
		Instructions      string         `json:"instructions,omitempty"`
	}{supportedModern, caps, c.description})
	if err != nil {
		return nil, err
	}
	return withHints(body, hints), nil
}

func discover(_ context.Context, _ *Exchange, d *compiled, _ json.RawMessage) (json.RawMessage, error) {
	return d.discover, nil
}

// requireCapabilities answers MissingRequiredClientCapability (-32021,
// HTTP 400) when the modern request's client capabilities lack one the
// tool requires.
func requireCapabilities(x *Exchange, needed []string) error {
	m := x.Meta()
	for _, c := range needed {
		if !m.HasCapability(c) {
			return missingCapability(map[string]struct{}{c: {}}, "this tool requires the %s capability; declare it in _meta.%s",
				c, mcptransport.MetaClientCapabilities)
		}
	}
	return nil
}

// missingCapability is MissingRequiredClientCapability (-32021) with the
// message format gives, and the capabilities required in
// data.requiredCapabilities.
func missingCapability(required any, format string, args ...any) error {
	return jsonrpc.WithData(fmt.Errorf("%w: "+format, append([]any{jsonrpc.ErrMissingClientCapability}, args...)...),
		map[string]any{"requiredCapabilities": required})
}

// logWanted reports whether a modern request asking for log level
// requested ("" for none) gets a log notification of rank level.
func logWanted(requested string, level int) bool {
	min, ok := protocol.LogLevelRank(requested)
	return ok && level >= min
}
