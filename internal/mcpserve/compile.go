package mcpserve

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/protocol"
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
	// description is the server's, given to modern clients as
	// instructions; hasCompletions: completion/complete has something to
	// complete (prompts or URI templates).
	description    string
	hasCompletions bool

	// modern is what modern requests get; discover and readHints are set
	// in the form served to them only: the answer to server/discover and
	// the caching hints of resources/read.
	modern    modernSide
	discover  []byte
	readHints []byte
	// usesSequences: some scenario answers a sequence.
	usesSequences bool
	// fault is the server's default fault, nil when it has none.
	fault *fault
	// upstream is the server's upstream, nil when it has none; record:
	// every tools/call goes to it.
	upstream *design.Upstream
	record   bool
	// oauth guards the endpoint of a design whose auth_mode is oauth; nil
	// for any other.
	oauth *oauthGuard

	size int // approximate bytes held, for the cache's budget
}

// fault is a server's default fault compiled: the share of calls it takes,
// its wait and its error (nil for a fault that only slows calls).
type fault struct {
	rate  float64
	delay time.Duration
	err   *jsonrpc.Scripted
}

// compile turns a stored design into its served form. A design that cannot
// be compiled (a schema saved before a rule tightened) is refused whole: it
// is better to answer 500 for that server than to serve it half-checked.
func compile(d design.Design) (*compiled, error) {
	out := &compiled{
		id: d.Server.ID, orgID: d.Server.OrgID, authMode: d.Server.AuthMode,
		orgKey: d.Server.OrgID.String(), publicLimit: d.PublicLimit,
		version: d.Server.ProtocolVersion, description: d.Server.Description,
		upstream: d.Server.Upstream, oauth: compileOAuth(d),
	}
	out.record = out.upstream != nil && out.upstream.Mode == design.UpstreamRecord
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
	out.hasCompletions = len(d.Prompts) > 0 || len(out.templates) > 0
	out.size += len(out.toolsList) + len(out.resourcesList) + len(out.promptsList) + 1024
	if err = out.compileModern(d); err != nil {
		return nil, err
	}
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
