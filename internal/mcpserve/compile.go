package mcpserve

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/mockspec"
)

// compiled is one view of an enabled server design compiled for serving:
// the design as an era's requests see it. Both views of a design share its
// core by pointer, and its catalog too unless the modern view's answers are
// shaped apart; a view holds only what differs between eras (the version
// served and the answers encoded for it). A warm request only matches and
// copies bytes.
type compiled struct {
	*core
	*catalog

	version string // the protocol version served

	initialize    []byte // initialize result (legacy view only)
	toolsList     []byte
	resourcesList []byte
	templatesList []byte
	promptsList   []byte
	// discover and readHints are the modern view's only: the answer to
	// server/discover and the caching hints of resources/read.
	discover  []byte
	readHints []byte

	// size is the approximate bytes the view holds, for the cache's
	// budget: the legacy view counts its core and catalog, the modern one
	// only what it holds beyond the legacy view.
	size int
}

// core is what a design is whatever the era of the request: whose it is,
// how it is guarded, where the calls it cannot answer go, its default
// fault, and the modern side (the lock and counters behind the modern
// view). It is never copied: a view that had its own could lose a part of
// it (an upstream once was).
type core struct {
	id       uuid.UUID
	orgID    uuid.UUID
	authMode string
	// orgKey is orgID as text, the rate-limit counter's prefix; publicLimit
	// the organization's override of the per-address limit.
	orgKey      string
	publicLimit *int32
	// description is the server's, given to modern clients as
	// instructions.
	description string
	// fault is the server's fault, nil when it has none.
	fault *fault
	// seed seeds the random values of answer templates; nil: unseeded.
	seed *int64
	// upstream is the server's upstream, nil when it has none; record:
	// every tools/call goes to it.
	upstream *design.Upstream
	record   bool
	// oauth guards the endpoint of a design whose auth_mode is oauth; nil
	// for any other.
	oauth *oauthGuard
	// skills are the design's skills, the same in every era; nil when it
	// has none.
	skills *skillSet

	modern modernSide
}

// catalog is a design's content compiled for one protocol version: its
// tools, resources, URI templates and prompts.
type catalog struct {
	tools     map[string]*tool
	resources map[string]*resource // by exact URI
	templates []*resource          // URI templates, in order
	prompts   map[string]*prompt
	// usesSequences: some scenario answers a sequence; hasCompletions:
	// completion/complete has something to complete (prompts or URI
	// templates).
	usesSequences  bool
	hasCompletions bool
	// apps: some resource is an MCP Apps view (ui://), so the endpoint
	// declares the io.modelcontextprotocol/ui extension.
	apps bool
}

// fault is a server's, a tool's or a scenario's fault compiled: the share
// of calls it takes, its wait and its error (nil for a fault that only
// slows calls). A fault of rate 0 takes no call, and so spares the calls
// of its tool or scenario the fault of a wider level.
type fault struct {
	rate  float64
	delay time.Duration
	err   *jsonrpc.Scripted
}

// compile turns a stored design into its legacy view, from which the
// modern one is built on the first modern request. A design that cannot
// be compiled (a schema saved before a rule tightened) is refused whole: it
// is better to answer 500 for that server than to serve it half-checked.
func compile(d design.Design) (*compiled, error) {
	c, err := compileCore(d)
	if err != nil {
		return nil, err
	}
	return compileView(c, d, mcptransport.Legacy)
}

// compileCore compiles what both views of d share.
func compileCore(d design.Design) (*core, error) {
	c := &core{
		id: d.Server.ID, orgID: d.Server.OrgID, authMode: d.Server.AuthMode,
		orgKey: d.Server.OrgID.String(), publicLimit: d.PublicLimit, description: d.Server.Description,
		seed:     d.Server.Seed,
		upstream: d.Server.Upstream, oauth: compileOAuth(d),
	}
	c.record = c.upstream != nil && c.upstream.Mode == design.UpstreamRecord
	var err error
	if c.fault, err = compileFault(d.Server.Fault); err != nil {
		return nil, fmt.Errorf("fault: %w", err)
	}
	if c.skills, err = compileSkills(d.Server.Skills); err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	if err = c.compileModern(d); err != nil {
		return nil, err
	}
	return c, nil
}

// compileView compiles d's content for the protocol version d names into a
// view of era sharing c, with its own catalog and the answers encoded for
// that version.
func compileView(c *core, d design.Design, era mcptransport.Era) (*compiled, error) {
	out := &compiled{core: c, catalog: &catalog{}, version: d.Server.ProtocolVersion}
	if err := out.compileTools(d.Tools); err != nil {
		return nil, err
	}
	if err := out.compileResources(d.Resources, c.skills); err != nil {
		return nil, err
	}
	if err := out.compilePrompts(d.Prompts); err != nil {
		return nil, err
	}
	out.hasCompletions = len(d.Prompts) > 0 || len(out.templates) > 0
	if era == mcptransport.Legacy {
		var err error
		if out.initialize, err = out.initializeResult(d); err != nil {
			return nil, err
		}
		out.size += c.skills.bytes()
	}
	out.size += len(out.toolsList) + len(out.resourcesList) + len(out.promptsList) + 1024
	return out, nil
}

// compileFault compiles a server's, a tool's or a scenario's fault; nil
// when it has none.
func compileFault(f *mockspec.Fault) (*fault, error) {
	if f == nil {
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
// the server's name and the legacy capabilities its content calls for. It
// runs after the tools, resources and prompts are compiled.
func (c *compiled) initializeResult(d design.Design) ([]byte, error) {
	return json.Marshal(map[string]any{
		"protocolVersion": d.Server.ProtocolVersion,
		"serverInfo":      map[string]string{"name": d.Server.Name, "version": d.Server.Version},
		"capabilities":    mcptransport.Legacy.Capabilities(c.offer()),
	})
}
