package mcpserve

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
)

// Forwarder relays calls to designs' upstreams (internal/upstream's in
// production).
type Forwarder interface {
	// Forward makes the call (method, params) on server's upstream u for a
	// request that came in at origin. When the upstream answered, it
	// returns its result, or the JSON-RPC error it answered as answered;
	// else err, a *jsonrpc.Error fit to show the client (the upstream
	// could not be reached, was refused, took too long or is busy), or
	// ctx's error.
	Forward(ctx context.Context, server uuid.UUID, u *design.Upstream, origin, method string,
		params json.RawMessage) (result json.RawMessage, answered *jsonrpc.Error, err error)
}

// errUpstreamCode is the JSON-RPC code of a forwarded call when forwarding
// is off.
const errUpstreamCode = -32000

// forward relays the call to the design's upstream and notes it for the
// journal: proxied when the upstream answered, a result or a JSON-RPC
// error, which is relayed unchanged (a tool result shaped to the design's
// revision for a client of the earlier revisions; the journal keeps it as
// the upstream sent it).
func forward(ctx context.Context, x *Exchange, s *state, d *compiled, method string, params json.RawMessage) (json.RawMessage, error) {
	if s.fwd == nil {
		return nil, &jsonrpc.Error{Code: errUpstreamCode, Message: "upstream: forwarding is not available on this instance"}
	}
	start := time.Now()
	res, answered, err := s.fwd.Forward(ctx, d.id, d.upstream, requestOrigin(x), method, params)
	latency := time.Since(start)
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return nil, errClientGone
		}
		return nil, err
	case answered != nil:
		s.call.outcome = journal.OutcomeProxied
		s.call.upstreamLatency = latency
		s.call.upstreamAnswer, _ = json.Marshal(answered)
		return nil, answered
	}
	s.call.outcome = journal.OutcomeProxied
	s.call.upstreamLatency, s.call.upstreamAnswer = latency, res
	if method == "tools/call" && !x.Modern() {
		// A client of an earlier revision reads the result as the design's
		// own answers are served to it: content blocks and
		// structuredContent its revision lacks are shaped away. An answer
		// that is not a tool result is relayed as it came.
		if shaped, err := shapeResult(res, d.version); err == nil {
			return shaped, nil
		}
	}
	return res, nil
}

// requestOrigin is the scheme://host the request came in at.
func requestOrigin(x *Exchange) string {
	r := x.Request()
	if r == nil {
		return ""
	}
	return clientip.Origin(r)
}
