package mcptransport

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
)

// Era is the protocol era of a request, with the rules that differ between
// the two: legacy revisions (initialize negotiates the version, then
// requests carry no _meta) and modern ones (protocol.ModernFrom on: every
// request carries its version and client capabilities in params._meta,
// and its method and target in Mcp-* headers). Each rule that tells the
// eras apart is a method of Era, so that they are read in one place.
type Era uint8

// The eras. Each is a bit, so that a set of them (Eras) holds it.
const (
	Legacy Era = 1 << iota
	Modern
)

// String names the era, for messages and test names.
func (e Era) String() string {
	if e == Modern {
		return "modern"
	}
	return "legacy"
}

// Eras is a set of eras: those an endpoint answers, or a method exists in.
type Eras uint8

// The sets of eras.
const (
	LegacyOnly = Eras(Legacy)
	ModernOnly = Eras(Modern)
	BothEras   = LegacyOnly | ModernOnly
)

// Has reports whether the set holds era e.
func (s Eras) Has(e Era) bool { return s&Eras(e) != 0 }

// Offer is what an endpoint has to offer, from which each era shapes the
// server capabilities it declares.
type Offer struct {
	// Tools, Resources and Prompts: the endpoint holds some.
	Tools, Resources, Prompts bool
	// Completions: completion/complete has something to complete, in the
	// revision served.
	Completions bool
	// Extensions are the extensions the endpoint serves, by name;
	// LegacyExtensions, those of them it declares to legacy clients too.
	Extensions, LegacyExtensions []string
}

// Capabilities is the server capabilities object of o as era e declares
// it: the answer to initialize's (legacy) or server/discover's (modern).
// A legacy session is not told of changes: its capabilities name only what
// the endpoint holds, without listChanged. A modern client is, on
// subscriptions/listen streams: every list is named, with listChanged (an
// empty list may fill), resources may be subscribed to there, and the
// extensions are declared; a legacy client is told only of the
// LegacyExtensions. Logging is always offered; completions when o
// has them.
func (e Era) Capabilities(o Offer) map[string]any {
	caps := map[string]any{"logging": struct{}{}}
	if o.Completions {
		caps["completions"] = struct{}{}
	}
	if e == Modern {
		caps["tools"] = map[string]bool{"listChanged": true}
		caps["resources"] = map[string]bool{"listChanged": true, "subscribe": true}
		caps["prompts"] = map[string]bool{"listChanged": true}
		caps["extensions"] = extensions(o.Extensions)
		return caps
	}
	if len(o.LegacyExtensions) > 0 {
		caps["extensions"] = extensions(o.LegacyExtensions)
	}
	if o.Tools {
		caps["tools"] = struct{}{}
	}
	if o.Resources {
		caps["resources"] = map[string]bool{"subscribe": true}
	}
	if o.Prompts {
		caps["prompts"] = struct{}{}
	}
	return caps
}

// extensions is the capabilities' extensions object: each name's settings
// are {}.
func extensions(names []string) map[string]struct{} {
	ext := make(map[string]struct{}, len(names))
	for _, name := range names {
		ext[name] = struct{}{}
	}
	return ext
}

// Primitive is a kind of thing a request names: a tool, a prompt or a
// resource.
type Primitive uint8

// The primitives a request may name.
const (
	Tool Primitive = iota
	Prompt
	Resource
)

// NotFound is the error answering a request that names a primitive the
// endpoint lacks (name is the tool's or prompt's name, the resource's
// URI). Legacy revisions answer an unknown tool -32601, as their SDKs
// do, and an unknown resource -32002 (ResourceNotFound); the modern
// revision answers both -32602: the method exists, its params name
// nothing. An unknown prompt is -32602 in both. A resource's URI is
// repeated in data.uri.
func (e Era) NotFound(p Primitive, name string) error {
	switch p {
	case Tool:
		code := jsonrpc.ErrMethodNotFound.Code
		if e == Modern {
			code = jsonrpc.ErrInvalidParams.Code
		}
		return &jsonrpc.Error{Code: code, Message: "Tool not found: " + name}
	case Resource:
		data := map[string]string{"uri": name}
		if e == Modern {
			return jsonrpc.WithData(&jsonrpc.Error{Code: jsonrpc.ErrInvalidParams.Code, Message: "Resource not found: " + name}, data)
		}
		return jsonrpc.WithData(fmt.Errorf("%w: %s", jsonrpc.ErrResourceNotFound, name), data)
	}
	// The message names the prompt alone, as "Tool not found" does.
	return &jsonrpc.Error{Code: jsonrpc.ErrInvalidParams.Code, Message: "Prompt not found: " + name}
}

// Status is the HTTP status the reply to a lone message answered with err
// goes with: the one err was marked with (WithStatus), else for a modern
// request the one its code calls for (the transport errors of the modern
// revision: 404 for an unknown method, 400 for a header mismatch, a
// missing client capability or an unsupported version), else 200.
func (e Era) Status(err error) int {
	var se *statusError
	if errors.As(err, &se) {
		return se.status
	}
	if e != Modern {
		return http.StatusOK
	}
	var je *jsonrpc.Error
	if !errors.As(err, &je) {
		return http.StatusOK
	}
	switch je.Code {
	case jsonrpc.ErrMethodNotFound.Code:
		return http.StatusNotFound
	case jsonrpc.ErrHeaderMismatch.Code, jsonrpc.ErrMissingClientCapability.Code, jsonrpc.ErrUnsupportedVersion.Code:
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// AppendResult appends the response carrying result to dst, shaped as the
// era's results are: a modern result carries its resultType and the
// server's identity (serverInfo, encoded) in _meta; a legacy one is as
// the method answered it.
func (e Era) AppendResult(dst []byte, id, result json.RawMessage, serverInfo []byte) []byte {
	if e != Modern {
		return jsonrpc.AppendResult(dst, id, result)
	}
	dst = jsonrpc.AppendResult(dst, id, nil)
	dst = dst[:len(dst)-1] // the closing brace, after the result
	dst = appendModernResult(dst, result, serverInfo)
	return append(dst, '}')
}
