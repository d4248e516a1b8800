package mcpimport

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mockmcp/mockmcp/internal/failure"
)

// ForwardError is a forwarded call that got no answer from the upstream
// (it could not be reached, was refused by the address policy, or ran out
// of time). Its message is fit to show the caller: URLs are shortened to
// their origin and header values hidden.
type ForwardError struct{ Message string }

func (e *ForwardError) Error() string { return e.Message }

// Forwarded methods: what Forward can relay.
var forwarded = map[string]func(context.Context, *mcp.ClientSession, json.RawMessage) (any, error){
	"tools/call": func(ctx context.Context, cs *mcp.ClientSession, params json.RawMessage) (any, error) {
		var p mcp.CallToolParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return cs.CallTool(ctx, &p)
	},
	"resources/read": func(ctx context.Context, cs *mcp.ClientSession, params json.RawMessage) (any, error) {
		var p mcp.ReadResourceParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return cs.ReadResource(ctx, &p)
	},
	"prompts/get": func(ctx context.Context, cs *mcp.ClientSession, params json.RawMessage) (any, error) {
		var p mcp.GetPromptParams
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		return cs.GetPrompt(ctx, &p)
	},
}

// ForwardedMethods are the methods Forward relays.
func ForwardedMethods() []string { return slices.Sorted(maps.Keys(forwarded)) }

// Forward makes one call (method with params) on the MCP server at
// opts.URL, connecting as Import does (Streamable HTTP, else HTTP+SSE;
// opts.Headers sent to the server's origin only; the same limits), within
// opts.Timeout, and returns the server's result as JSON.
//
// A JSON-RPC error the server answers is returned as a *jsonrpc.Error of
// the SDK (code, message and data as sent); a call that got no answer is a
// *ForwardError; ctx's own error when ctx ends first.
func Forward(ctx context.Context, opts Options, method string, params json.RawMessage) (json.RawMessage, error) {
	call, ok := forwarded[method]
	if !ok {
		return nil, fmt.Errorf("mcpimport: %s cannot be forwarded", method)
	}
	if opts.Client == nil {
		return nil, errors.New("mcpimport: Options.Client is required")
	}
	if err := checkOptions(&opts); err != nil {
		return nil, forwardFailure(err)
	}
	imp := newImporter(opts)
	callCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	imp.ctx = callCtx
	sess, err := imp.connect(callCtx)
	if err != nil {
		return nil, forwardFailure(imp.finalError(ctx, err))
	}
	imp.sess = sess
	defer imp.close()
	imp.stage = method
	var res any
	err = sess.call(callCtx, func(cs *mcp.ClientSession) error {
		var err error
		res, err = call(callCtx, cs, params)
		return err
	})
	if err != nil {
		var we *jsonrpc.Error
		if errors.As(err, &we) {
			return nil, we
		}
		if final := imp.finalError(ctx, err); final != err {
			return nil, forwardFailure(final)
		}
		return nil, &ForwardError{Message: "the upstream MCP server failed the call: " + imp.describe(err, nil)}
	}
	return json.Marshal(res)
}

// forwardFailure turns a failure naming url into a ForwardError; other
// errors (ctx's) pass.
func forwardFailure(err error) error {
	f, ok := failure.As(err)
	if !ok {
		return err
	}
	msg := f.Detail
	if len(f.Fields) > 0 {
		msg = f.Fields[0].Message
	}
	return &ForwardError{Message: "upstream: " + msg}
}
