// Package jsonrpc holds the JSON-RPC 2.0 wire types the MCP endpoints speak:
// requests as read off the wire, the standard error codes as sentinels, and
// the encoding of responses. Detail is added to a standard error by wrapping
// it (fmt.Errorf("%w: ...", jsonrpc.ErrInvalidParams)) and is converted to
// the wire form once, at the boundary, by Encode.
package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/errtext"
)

// Version is the only JSON-RPC version spoken.
const Version = "2.0"

// Error is a JSON-RPC error object. Two errors are the same error (for
// errors.Is) when their codes are equal.
type Error struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Is reports whether target is an *Error with the same code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// The standard errors, and the two MCP adds.
var (
	ErrParse            = &Error{Code: -32700, Message: "Parse error"}
	ErrInvalidRequest   = &Error{Code: -32600, Message: "Invalid request"}
	ErrMethodNotFound   = &Error{Code: -32601, Message: "Method not found"}
	ErrInvalidParams    = &Error{Code: -32602, Message: "Invalid params"}
	ErrInternal         = &Error{Code: -32603, Message: "Internal error"}
	ErrUnauthorized     = &Error{Code: -32001, Message: "Unauthorized"}
	ErrResourceNotFound = &Error{Code: -32002, Message: "Resource not found"}
	// ErrRateLimited goes with HTTP 429.
	ErrRateLimited = &Error{Code: -32000, Message: "Rate limit exceeded"}
)

// The errors the modern MCP revisions define, each answered with HTTP 400.
var (
	// ErrHeaderMismatch: a request header (MCP-Protocol-Version,
	// Mcp-Method, Mcp-Name, Mcp-Param-*) is missing, malformed or differs
	// from the body.
	ErrHeaderMismatch = &Error{Code: -32020, Message: "Header mismatch"}
	// ErrMissingClientCapability: the request needs a client capability
	// its _meta does not declare; data.requiredCapabilities names it.
	ErrMissingClientCapability = &Error{Code: -32021, Message: "Missing required client capability"}
	// ErrUnsupportedVersion: the request names a protocol version the
	// server does not serve; data.supported lists those it does.
	ErrUnsupportedVersion = &Error{Code: -32022, Message: "Unsupported protocol version"}
)

// WithData returns an error with err's code and message and data attached.
func WithData(err error, data any) error {
	return &dataError{err: err, data: data}
}

type dataError struct {
	err  error
	data any
}

func (d *dataError) Error() string { return d.err.Error() }
func (d *dataError) Unwrap() error { return d.err }

// Wire converts any error into the error object sent to the caller. An
// error that wraps none of the sentinels is a fault of the service: the
// caller sees only a generic -32603, never its text.
func Wire(err error) *Error {
	var e *Error
	if !errors.As(err, &e) || e.Code == ErrInternal.Code {
		return &Error{Code: ErrInternal.Code, Message: ErrInternal.Message}
	}
	// errtext.Text: detail wrapped around a sentinel may quote a decoder's
	// or the network's error; the caller sees it in JSON's words.
	out := &Error{Code: e.Code, Message: errtext.Text(err.Error()), Data: e.Data}
	var d *dataError
	if errors.As(err, &d) {
		out.Data = d.data
	}
	return out
}

// Request is one JSON-RPC request or notification as read off the wire.
// ID is the raw JSON of the id, nil when absent (a notification).
type Request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

// IsNotification reports whether r has no id, and so gets no response.
func (r *Request) IsNotification() bool { return r.ID == nil }

// Parse reads one request. A body that is not JSON, or not UTF-8, is
// ErrParse; JSON that is not a well-formed request is ErrInvalidRequest.
// Member names are read exactly, as the official SDK servers read them:
// "ID" is not "id", and a member given twice refuses the message. The id
// is returned even when the request is otherwise invalid, so the error
// can echo it.
func Parse(msg []byte) (Request, error) {
	if !utf8.Valid(msg) {
		return Request{}, ErrParse
	}
	if r, ok := parseCommon(msg); ok {
		return r, nil
	}
	return parseDecoded(msg)
}

// envelope is the members of a request, in the order Fields reads them.
var envelope = [...]string{"jsonrpc", "id", "method", "params"}

// parseDecoded is Parse for every message, its members read by Fields and
// each value decoded on its own.
func parseDecoded(msg []byte) (Request, error) {
	if !Valid(msg) {
		return Request{}, ErrParse
	}
	var r Request
	if m := bytes.TrimSpace(msg); m[0] != '{' && string(m) != "null" {
		return r, InvalidRequest("the message must be a JSON-RPC request object")
	}
	var vals [len(envelope)][]byte
	dup := Fields(msg, envelope[:], vals[:])
	version, id, method, params := vals[0], vals[1], vals[2], vals[3]
	if id != nil && dup != "id" {
		r.ID = append(json.RawMessage(nil), id...)
	}
	if dup != "" {
		return r.salvageID(), InvalidRequest(strconv.Quote(dup) + " appears more than once")
	}
	var ok bool
	if r.JSONRPC, ok = stringMember(version); !ok {
		return r.salvageID(), InvalidRequest(`"jsonrpc" has the wrong type`)
	}
	if r.Method, ok = stringMember(method); !ok {
		return r.salvageID(), InvalidRequest(`"method" has the wrong type`)
	}
	if params != nil {
		r.Params = append(json.RawMessage(nil), params...)
	}
	switch {
	case r.ID != nil && !validID(r.ID):
		r.ID = json.RawMessage("null")
		return r, InvalidRequest(`"id" must be a string or a number`)
	case r.JSONRPC != Version:
		return r, InvalidRequest(`"jsonrpc" must be "2.0"`)
	case r.Method == "":
		return r, InvalidRequest(`"method" is required`)
	case len(r.Params) > 0 && !isObject(r.Params) && !bytes.Equal(bytes.TrimSpace(r.Params), []byte("null")):
		return r, InvalidRequest(`"params" must be an object`)
	}
	return r, nil
}

// stringMember decodes the raw value of a string member: absent and null
// read as "", as encoding/json reads them; ok is false for another type.
func stringMember(raw []byte) (string, bool) {
	if raw == nil || string(raw) == "null" {
		return "", true
	}
	s, ok := StringValue(raw)
	return string(s), ok
}

// salvageID keeps the id of a message refused for its shape only when it
// is one a response may carry.
func (r Request) salvageID() Request {
	if !validID(r.ID) {
		r.ID = nil
	}
	return r
}

// InvalidRequest is -32600 saying what is wrong with the message.
func InvalidRequest(what string) error {
	return fmt.Errorf("%w: %s", ErrInvalidRequest, what)
}

// validID reports whether raw is a JSON string or number.
func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch c := raw[0]; {
	case c == '"':
		return true
	case c == '-' || (c >= '0' && c <= '9'):
		return true
	}
	return false
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// AppendResult appends the response carrying result (already JSON) to dst.
func AppendResult(dst []byte, id, result json.RawMessage) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	dst = append(dst, `,"result":`...)
	dst = append(dst, result...)
	return append(dst, '}')
}

// Scripted is an error object encoded ahead of time and sent exactly as
// written, whatever its code: a mock's scripted error.
type Scripted struct {
	Code int64
	Body []byte // the JSON of the error object
}

func (s *Scripted) Error() string { return "scripted error " + strconv.FormatInt(s.Code, 10) }

// NewScripted encodes e once for sending as written.
func NewScripted(e Error) (*Scripted, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return nil, err
	}
	return &Scripted{Code: e.Code, Body: body}, nil
}

// AppendError appends the error response for err to dst.
func AppendError(dst []byte, id json.RawMessage, err error) []byte {
	var sc *Scripted
	if errors.As(err, &sc) {
		dst = append(dst, `{"jsonrpc":"2.0","id":`...)
		dst = appendID(dst, id)
		dst = append(dst, `,"error":`...)
		dst = append(dst, sc.Body...)
		return append(dst, '}')
	}
	body, mErr := json.Marshal(Wire(err))
	if mErr != nil { // data that cannot be encoded: drop it
		body, _ = json.Marshal(&Error{Code: Wire(err).Code, Message: Wire(err).Message})
	}
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = appendID(dst, id)
	dst = append(dst, `,"error":`...)
	dst = append(dst, body...)
	return append(dst, '}')
}

func appendID(dst []byte, id json.RawMessage) []byte {
	if len(id) == 0 {
		return append(dst, "null"...)
	}
	return append(dst, bytes.TrimSpace(id)...)
}
