package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/google/uuid"
	sdkrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcpimport"
	"github.com/mockmcp/mockmcp/internal/outbound"
)

// Defaults of ForwarderOptions.
const (
	DefaultTimeout       = 30 * time.Second
	DefaultMaxConcurrent = 8
)

// ErrBusy is the error of a call forwarded while its server already has
// MaxConcurrent calls at its upstream.
var ErrBusy = errors.New("too many calls to the upstream MCP server at once")

// ForwarderOptions configure a Forwarder.
type ForwarderOptions struct {
	// Key opens the upstreams' sealed headers; required.
	Key *Key
	// AllowPrivate lifts the address policy (ALLOW_PRIVATE_TARGETS).
	AllowPrivate bool
	// Local returns the service's own handler, which serves upstreams on
	// the service's own origins (BaseURL, and the origin the request came
	// in on) in process; nil sends them over the network.
	Local func() http.Handler
	// BaseURL is the service's public origin (BASE_URL), "" when unset.
	BaseURL string
	// Timeout bounds one forwarded call, connecting included
	// (DefaultTimeout when zero).
	Timeout time.Duration
	// MaxConcurrent bounds the calls of one server at its upstream at once
	// on this instance (DefaultMaxConcurrent when zero).
	MaxConcurrent int
	// MaxAnswerBytes bounds one answer of the upstream (1 MiB when zero).
	MaxAnswerBytes int64
}

// Forwarder relays calls of the per-server endpoint to designs' upstreams.
type Forwarder struct {
	opts ForwarderOptions
	mu   sync.Mutex
	busy map[uuid.UUID]int // calls in flight, by server
}

// NewForwarder returns a Forwarder.
func NewForwarder(opts ForwarderOptions) *Forwarder {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxConcurrent <= 0 {
		opts.MaxConcurrent = DefaultMaxConcurrent
	}
	if opts.MaxAnswerBytes <= 0 {
		opts.MaxAnswerBytes = 1 << 20
	}
	return &Forwarder{opts: opts, busy: make(map[uuid.UUID]int)}
}

// acquire takes one of server's MaxConcurrent places; false when none is
// free.
func (f *Forwarder) acquire(server uuid.UUID) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.busy[server] >= f.opts.MaxConcurrent {
		return false
	}
	f.busy[server]++
	return true
}

func (f *Forwarder) release(server uuid.UUID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.busy[server]--; f.busy[server] <= 0 {
		delete(f.busy, server)
	}
}

// ErrCode is the JSON-RPC code of a forwarded call that got no answer from
// the upstream.
const ErrCode = -32000

// Forward makes the call (method, params) on server's upstream u, for a
// request that came in at origin (scheme://host); see mcpserve.Forwarder.
func (f *Forwarder) Forward(ctx context.Context, server uuid.UUID, u *design.Upstream, origin, method string,
	params json.RawMessage) (json.RawMessage, *jsonrpc.Error, error) {
	if !f.acquire(server) {
		return nil, nil, &jsonrpc.Error{Code: ErrCode, Message: fmt.Sprintf(
			"upstream: %s (at most %d); try again later", ErrBusy, f.opts.MaxConcurrent)}
	}
	defer f.release(server)
	headers, err := f.opts.Key.Open(u.SealedHeaders)
	if err != nil {
		return nil, nil, &jsonrpc.Error{Code: ErrCode, Message: "upstream: " + err.Error()}
	}
	var local http.Handler
	if f.opts.Local != nil {
		local = f.opts.Local()
	}
	origins := []string{origin}
	if f.opts.BaseURL != "" {
		origins = append(origins, f.opts.BaseURL)
	}
	client := outbound.NewClient(outbound.Options{AllowPrivate: f.opts.AllowPrivate, Local: local, LocalOrigins: origins,
		MaxBody: f.opts.MaxAnswerBytes, Timeout: f.opts.Timeout, Kind: "upstream"})
	defer client.CloseIdleConnections()
	res, err := mcpimport.Forward(ctx, mcpimport.Options{URL: u.URL, Headers: headers, Client: client, Timeout: f.opts.Timeout},
		method, params)
	var we *sdkrpc.Error
	var fe *mcpimport.ForwardError
	switch {
	case err == nil:
		return res, nil, nil
	case errors.As(err, &we):
		out := &jsonrpc.Error{Code: we.Code, Message: we.Message}
		if len(we.Data) > 0 {
			out.Data = json.RawMessage(we.Data)
		}
		return nil, out, nil
	case errors.As(err, &fe):
		return nil, nil, &jsonrpc.Error{Code: ErrCode, Message: fe.Message}
	}
	return nil, nil, err
}
