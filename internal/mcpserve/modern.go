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

// modernSide is what a design keeps for modern requests: its view for
// them, built on the first one, and what every modern answer carries.
type modernSide struct {
	eras       mcptransport.Eras
	serverInfo []byte // {"name","version"}
	ttlMs      int64
	cacheScope string

	// reload reads the design again, for a modern view shaped apart from
	// the legacy one (a design whose protocol_version lacks some content
	// type): keeping the design as loaded until then would hold every
	// cached design twice. Set by the handler's loader.
	reload func(context.Context) (design.Design, error)
	// mu serializes building view, the modern view once built.
	mu   sync.Mutex
	view atomic.Pointer[compiled]
	// charge, set by the cache, counts the bytes either view holds beyond
	// what was counted when the design was cached: the modern view once
	// built, and what tools compile on their first calls.
	charge atomic.Pointer[func(int)]
}

// Eras is what the design answers: legacy requests, modern ones or both.
func (c *core) Eras() mcptransport.Eras { return c.modern.eras }

// ServerInfo is the design's Implementation object, for modern results.
func (c *core) ServerInfo() []byte { return c.modern.serverInfo }

// SupportedVersions lists the modern revision: legacy clients negotiate
// theirs with initialize.
func (c *core) SupportedVersions() []string { return supportedModern }

// TargetParam is the member of a modern request's params its Mcp-Name
// header repeats, as the method table names it.
func (c *core) TargetParam(method string) string {
	return methods.TargetParam(method, mcptransport.Modern)
}

var supportedModern = []string{protocol.Modern}

// compileModern records what modern answers carry. The view served to
// modern requests is built when the first one comes.
func (c *core) compileModern(d design.Design) (err error) {
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

// needsReload reports whether the modern view is built from the design
// read again rather than from the legacy view.
func (c *compiled) needsReload() bool {
	return c.modern.eras.Has(mcptransport.Modern) && !shapedAsModern(c.version)
}

// erasOf is what a server design answers.
func erasOf(s design.Server) mcptransport.Eras {
	switch s.Eras {
	case design.ErasLegacyOnly:
		return mcptransport.LegacyOnly
	case design.ErasModernOnly:
		return mcptransport.ModernOnly
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

// forModern returns the design's modern view: its answers shaped for the
// modern revision, its lists with caching hints, and server/discover. It
// is built on the first modern request, which reads the design again when
// its answers are shaped apart (an error then is the reading's: not found
// or unavailable); later ones find it built.
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
	s.view.Store(m)
	c.charge(m.size)
	return m, nil
}

// charge counts n more bytes for the design in the cache (once it is
// cached: a design outside the cache counts nothing).
func (c *core) charge(n int) {
	if charge := c.modern.charge.Load(); charge != nil {
		(*charge)(n)
	}
}

// buildModern builds the modern view of the design whose legacy view is c.
// It shares c's core, and c's catalog too unless the answers are shaped
// apart: then its catalog is compiled from the design read again, for the
// modern revision. Its size is what it holds beyond c.
func (c *compiled) buildModern(ctx context.Context) (*compiled, error) {
	var m *compiled
	if !c.needsReload() {
		m = &compiled{core: c.core, catalog: c.catalog, version: protocol.Modern,
			toolsList: c.toolsList, resourcesList: c.resourcesList, templatesList: c.templatesList, promptsList: c.promptsList}
	} else {
		if c.modern.reload == nil {
			return nil, fmt.Errorf("modern view of server %s: no way to read the design", c.id)
		}
		d, err := c.modern.reload(ctx)
		if err != nil {
			return nil, err
		}
		d.Server.ProtocolVersion = protocol.Modern
		if m, err = compileView(c.core, d, mcptransport.Modern); err != nil {
			return nil, fmt.Errorf("modern view: %w", err)
		}
	}
	hints := c.cacheHints()
	m.toolsList = withHints(m.toolsList, hints)
	m.resourcesList = withHints(m.resourcesList, hints)
	m.templatesList = withHints(m.templatesList, hints)
	m.promptsList = withHints(m.promptsList, hints)
	var err error
	if m.discover, err = m.discoverResult(hints); err != nil {
		return nil, err
	}
	m.readHints = hints
	// The lists and answers encoded again (and, shaped apart, its own
	// catalog, counted as it was compiled).
	m.size += len(m.toolsList) + len(m.resourcesList) + len(m.templatesList) + len(m.promptsList) + len(m.discover)
	return m, nil
}

// cacheHints is `,"ttlMs":N,"cacheScope":"S"`, appended to every cacheable
// result.
func (c *core) cacheHints() []byte {
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
// served, the modern capabilities of the view's content, the description
// as instructions, and the caching hints.
func (c *compiled) discoverResult(hints []byte) ([]byte, error) {
	body, err := json.Marshal(struct {
		SupportedVersions []string       `json:"supportedVersions"`
		Capabilities      map[string]any `json:"capabilities"`
		Instructions      string         `json:"instructions,omitempty"`
	}{supportedModern, mcptransport.Modern.Capabilities(c.offer()), c.description})
	if err != nil {
		return nil, err
	}
	return withHints(body, hints), nil
}

// offer is what the view's content offers, for the capabilities either
// era declares. Any tool's scenario may be a task: the tasks extension is
// always offered to modern clients (legacy ones have no tasks). A design
// with skills offers the skills extension in both eras, and resources,
// since skill files are read with resources/read; one with an MCP Apps
// view offers that extension in both eras.
func (c *compiled) offer() mcptransport.Offer {
	ext := c.skillsOffer()
	if protocol.IsModern(c.version) {
		if ext == nil {
			ext = map[string]any{}
		}
		ext[mockspec.TasksExtension] = nil
	}
	if c.apps {
		// Hosts of either era read tools' _meta.ui and render the views.
		if ext == nil {
			ext = map[string]any{}
		}
		ext[design.AppExtension] = nil
	}
	return mcptransport.Offer{
		Tools: len(c.tools) > 0, Resources: len(c.resources)+len(c.templates) > 0 || c.skills != nil, Prompts: len(c.prompts) > 0,
		Completions: c.hasCompletions && protocol.HasCompletions(c.version),
		Extensions:  ext,
	}
}

func discover(_ context.Context, _ *Exchange, s *state, _ json.RawMessage) (json.RawMessage, error) {
	d := s.view
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
