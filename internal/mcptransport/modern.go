package mcptransport

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// ModernTarget is a Target that may answer modern requests. A Target that
// is not one answers every request as a legacy server does.
type ModernTarget interface {
	Target
	// Eras is what the target answers.
	Eras() Eras
	// ServerInfo is the target's Implementation object ({"name",
	// "version"}), encoded, for the _meta of every modern result.
	ServerInfo() []byte
	// SupportedVersions lists the revisions the target answers, newest
	// first, as UnsupportedProtocolVersion errors report them.
	SupportedVersions() []string
	// TargetParam is the member of params that names what a modern
	// request of method is for (its method table's Target: the tool, the
	// resource, the task), which the request repeats in Mcp-Name; "" for
	// a method without one, or that modern requests lack.
	TargetParam(method string) string
}

// The _meta keys of a modern request and result.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaSubscriptionID     = "io.modelcontextprotocol/subscriptionId"
)

// The request headers of a modern request.
const (
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	// HeaderParamPrefix begins the headers that mirror tool arguments
	// annotated x-mcp-header.
	HeaderParamPrefix = "Mcp-Param-"
)

// versionText is in every params._meta naming a protocol version whose
// name has no escapes: a message without it, or a backslash, names none.
var versionText = []byte("protocolVersion")

var paramsMember = []string{"params"}

// namesVersion reports whether params._meta has a member named
// MetaProtocolVersion (whatever its value), read exactly: names decoded
// and case-sensitive, so neither an argument's value holding that text
// nor a member named in another case makes a request modern. A repeated
// _meta, or a repeated version in it, is -32602 naming it.
func namesVersion(params []byte) (bool, error) {
	if !mayNameVersion(params) {
		return false, nil // the common legacy request: one scan, nothing read
	}
	return readVersion(params)
}

// mayNameVersion reports whether text may hold a member naming the
// protocol version: it holds versionText or an escape. Text without
// either names none, which one scan tells.
func mayNameVersion(text []byte) bool {
	return bytes.Contains(text, versionText) || bytes.IndexByte(text, '\\') >= 0
}

// repeatsMeta reports whether params may repeat its _meta: the text
// "_meta" appears twice. Every request's _meta is read once and refused
// when repeated, whether or not its method reads it.
func repeatsMeta(params []byte) bool {
	i := bytes.Index(params, metaText)
	return i >= 0 && bytes.Contains(params[i+len(metaText):], metaText)
}

var metaText = []byte(`"_meta"`)

// readVersion is namesVersion without the scan that tells text naming
// no version apart, for a caller that made it already.
func readVersion(params []byte) (bool, error) {
	var m requestMembers
	if err := m.read(params, ""); err != nil {
		return false, err
	}
	return m.version != nil, nil
}

// requestMembers is what the members of a request's params say about its
// era and its target, read once: params and its _meta each in one pass,
// whatever the classification and the header checks then ask of them.
type requestMembers struct {
	meta, target         []byte
	version, caps, level []byte
	// targetTwice: the target member appears more than once, which only
	// a modern request's header check refuses here (a legacy request's
	// method refuses it as it decodes params).
	targetTwice bool
}

// read reads params: its _meta and the member targetParam names ("" for
// none), then the members of _meta readMeta checks. A repeated _meta, or
// a repeated member of it, is -32602 naming it.
func (m *requestMembers) read(params []byte, targetParam string) error {
	*m = requestMembers{}
	dup := ""
	jsonrpc.Members(params, func(k, v []byte) bool {
		switch {
		case jsonrpc.KeyIs(k, "_meta"):
			if m.meta != nil {
				dup = "_meta"
				return false
			}
			m.meta = v
		case targetParam != "" && jsonrpc.KeyIs(k, targetParam):
			m.targetTwice = m.target != nil
			m.target = v
		}
		return true
	})
	if dup != "" {
		return Duplicate(dup)
	}
	var vals [len(requestMeta)][]byte
	if dup := jsonrpc.Fields(m.meta, requestMeta[:], vals[:]); dup != "" {
		return Duplicate("_meta." + dup)
	}
	m.version, m.caps, m.level = vals[0], vals[1], vals[2]
	return nil
}

// Duplicate is -32602 for a member of params given more than once, which
// JSON leaves undefined and this service refuses rather than guess.
func Duplicate(field string) error {
	return jsonrpc.WithData(InvalidParams("'%s' appears more than once", field),
		map[string]string{"field": field, "reason": "duplicate"})
}

// RequestMeta is what a modern request carries in params._meta.
type RequestMeta struct {
	ProtocolVersion string
	// ClientCapabilities is the object as sent.
	ClientCapabilities json.RawMessage
	// LogLevel is the level of log notifications the request asks for; ""
	// when it asks for none.
	LogLevel string
}

// HasCapability reports whether the request's client capabilities name
// capability (roots, sampling, elicitation, ...).
func (m *RequestMeta) HasCapability(capability string) bool {
	found := false
	jsonrpc.Members(m.ClientCapabilities, func(k, v []byte) bool {
		if jsonrpc.KeyIs(k, capability) {
			found = string(v) != "null" // the last of repeated keys counts, as encoding/json reads it
		}
		return true
	})
	return found
}

// HasExtension reports whether the client capabilities declare the
// extension named (a member of their "extensions", not null).
func (m *RequestMeta) HasExtension(name string) bool {
	found := false
	jsonrpc.Members(m.ClientCapabilities, func(k, v []byte) bool {
		if jsonrpc.KeyIs(k, "extensions") {
			found = false // the last of repeated keys counts, as encoding/json reads it
			jsonrpc.Members(v, func(k, v []byte) bool {
				if jsonrpc.KeyIs(k, name) {
					found = string(v) != "null"
				}
				return true
			})
		}
		return true
	})
	return found
}

// Modern reports whether the message being answered is a modern request.
func (x *Exchange) Modern() bool { return x != nil && x.modern }

// Era is the era of the message being answered.
func (x *Exchange) Era() Era {
	if x.Modern() {
		return Modern
	}
	return Legacy
}

// Meta is the _meta of the modern request being answered; zero for a
// legacy one.
func (x *Exchange) Meta() *RequestMeta { return &x.meta }

// WithStatus marks err as answered with HTTP status (400, 404) when it is
// the only message of a request: the transport errors of the modern
// revisions.
func WithStatus(err error, status int) error { return &statusError{err: err, status: status} }

type statusError struct {
	err    error
	status int
}

func (e *statusError) Error() string { return e.err.Error() }
func (e *statusError) Unwrap() error { return e.err }

// classify decides the era of the request being answered and checks what
// a modern request carries. A request is modern when its params._meta
// names a protocol version, or its Mcp-Protocol-Version header names
// anything but a legacy revision; notifications are never checked. A
// version header naming no revision the endpoint serves is refused with
// HTTP 400 and UnsupportedProtocolVersion, which lists what it does
// serve, whatever its eras. An endpoint answering legacy requests only
// answers every other request as a legacy server does (a _meta naming a
// version is then just a member of params); one answering modern
// requests only refuses the legacy ones the same way.
func (x *Exchange) classify(req *jsonrpc.Request) {
	x.modern, x.meta = false, RequestMeta{}
	if req.IsNotification() || x.eras == 0 {
		return
	}
	header, sent := x.header(HeaderProtocolVersion)
	// Params that name the version nowhere are legacy unread; others are
	// read once, for the era and, when modern, for readMeta.
	var m requestMembers
	read := mayNameVersion(req.Params) || repeatsMeta(req.Params)
	if read {
		if err := m.read(req.Params, x.target.TargetParam(req.Method)); err != nil {
			x.invalid = err
			return
		}
	}
	if header != "" && !protocol.Supported(header) && !x.served(header) && (m.version == nil || !x.eras.Has(Modern)) {
		// A version header naming no revision the endpoint serves (a
		// modern one at a legacy-only design, one unknown or malformed)
		// is 400 in every era, as the legacy transports from protocol.V20250618 on
		// on require too; a legacy revision a modern-only design does
		// not serve is refused below. A modern request's own _meta is
		// checked with its headers, in their order, by readMeta. An
		// empty header is read as before, as no version named.
		x.invalid = WithStatus(x.unsupportedOf(header, x.servedVersions()), http.StatusBadRequest)
		return
	}
	if m.version == nil && (!sent || protocol.Supported(header)) {
		if !x.eras.Has(Legacy) {
			requested := header
			if req.Method == "initialize" {
				requested, _ = ParseInitialize(req.Params)
			}
			x.invalid = WithStatus(x.unsupported(requested), http.StatusBadRequest)
		}
		return
	}
	if !x.eras.Has(Modern) {
		return
	}
	x.modern = true
	if !read { // modern by its header alone
		if err := m.read(req.Params, x.target.TargetParam(req.Method)); err != nil {
			x.invalid = WithStatus(err, http.StatusBadRequest)
			return
		}
	}
	if err := x.readMeta(req, &m, header, sent); err != nil {
		x.invalid = WithStatus(err, http.StatusBadRequest)
	}
}

// MayBeModern reports whether the body may hold a modern request (a
// single message, with a modern version header or naming a protocol
// version in _meta), for an endpoint to prepare what modern requests need
// before dispatch. It errs on the side of yes.
func (p *Payload) MayBeModern(r *http.Request) bool {
	if p.isBatch || p.refusal != nil {
		return false
	}
	if v := r.Header[HeaderProtocolVersion]; len(v) > 0 && !protocol.Supported(strings.Trim(v[0], " \t")) {
		return true
	}
	if !mayNameVersion(p.body) {
		return false // no member anywhere names the version: legacy, unread
	}
	var params [1][]byte
	if jsonrpc.Fields(p.body, paramsMember, params[:]) != "" {
		return true
	}
	named, err := readVersion(params[0])
	return named || err != nil
}

// unsupported is UnsupportedProtocolVersion for requested, naming the
// modern revisions served.
func (x *Exchange) unsupported(requested string) error {
	return x.unsupportedOf(requested, x.target.SupportedVersions())
}

// unsupportedOf is UnsupportedProtocolVersion for requested, naming
// supported.
func (x *Exchange) unsupportedOf(requested string, supported []string) error {
	return jsonrpc.WithData(fmt.Errorf("%w: %q is not served here (supported: %s)", jsonrpc.ErrUnsupportedVersion,
		requested, strings.Join(supported, ", ")),
		map[string]any{"supported": supported, "requested": requested})
}

// readMeta reads and checks the _meta and the request headers of a
// modern request, in the order the revision's conformance suite expects:
// the version header's presence, the _meta fields, the version (as in the
// header, then served), Mcp-Method, then Mcp-Name, which repeats the
// member of params the method's table entry names as its Target. Header
// values are compared without surrounding spaces and tabs.
func (x *Exchange) readMeta(req *jsonrpc.Request, m *requestMembers, header string, sent bool) error {
	// The members were read in place, without decoding params (the
	// method does that): this runs on every modern request.
	targetParam := x.target.TargetParam(req.Method)
	if m.targetTwice {
		return Duplicate(targetParam)
	}
	meta, target := m.meta, m.target
	if len(meta) > 0 && meta[0] != '{' && string(meta) != "null" {
		return jsonrpc.WithData(InvalidParams("_meta must be an object"), map[string]string{"field": "_meta", "reason": "not an object"})
	}
	version, caps, level := m.version, m.caps, m.level
	if version != nil && string(version) == "null" {
		version = nil
	}
	if !sent && version != nil {
		return headerMismatch("the %s header is missing; it must repeat _meta.%s (%s)", HeaderProtocolVersion,
			MetaProtocolVersion, bytes.Trim(version, `"`))
	}
	switch {
	case len(meta) == 0 || string(meta) == "null":
		return Missing("_meta", "a request of MCP "+protocol.Modern+" carries its protocol version and client capabilities in params._meta")
	case version == nil:
		return Missing("_meta."+MetaProtocolVersion, "a request of MCP "+protocol.Modern+" names its protocol version")
	case len(caps) == 0 || string(caps) == "null":
		return Missing("_meta."+MetaClientCapabilities, "a request of MCP "+protocol.Modern+" declares the client's capabilities (an empty object for none)")
	case caps[0] != '{':
		return jsonrpc.WithData(InvalidParams("_meta.%s must be an object", MetaClientCapabilities),
			map[string]string{"field": "_meta." + MetaClientCapabilities, "reason": "not an object"})
	}
	v, ok := jsonrpc.StringValue(version)
	switch {
	case !ok:
		return jsonrpc.WithData(InvalidParams("_meta.%s must be a string", MetaProtocolVersion),
			map[string]string{"field": "_meta." + MetaProtocolVersion, "reason": "not a string"})
	case header != string(v):
		return headerMismatch("%s header value '%s' does not match body value '%s'", HeaderProtocolVersion, header, v)
	case !x.servesVersion(header):
		return x.unsupported(header)
	}
	// header equals the version: kept rather than a copy of it.
	x.meta = RequestMeta{ProtocolVersion: header, ClientCapabilities: caps}
	if level != nil {
		l, _ := jsonrpc.StringValue(level)
		rank, ok := protocol.LogLevelRank(string(l))
		if !ok {
			return jsonrpc.WithData(InvalidParams("_meta.%s must be one of %s", MetaLogLevel, strings.Join(protocol.LogLevels, ", ")),
				map[string]string{"field": "_meta." + MetaLogLevel, "reason": "not a syslog level"})
		}
		x.meta.LogLevel = protocol.LogLevels[rank]
	}
	switch m, ok := x.header(HeaderMethod); {
	case !ok:
		return headerMismatch("the %s header is missing; it must repeat the method (%s)", HeaderMethod, req.Method)
	case m != req.Method:
		return headerMismatch("%s header value '%s' does not match body value '%s'", HeaderMethod, m, req.Method)
	}
	if targetParam == "" {
		return nil
	}
	want, ok := jsonrpc.StringValue(target)
	if !ok { // absent or not a string: the method reports it
		return nil
	}
	h, ok := x.header(HeaderName)
	if !ok {
		return headerMismatch("the %s header is missing; it must repeat the name (%s)", HeaderName, want)
	}
	got, ok := DecodeHeaderValue(h)
	switch {
	case !ok:
		return headerMismatch("%s header value is neither visible ASCII nor a valid =?base64?...?= form", HeaderName)
	case got != string(want):
		return headerMismatch("%s header value '%s' does not match body value '%s'", HeaderName, got, want)
	}
	return nil
}

// requestMeta is the members of a modern request's _meta readMeta reads,
// in the order Fields reads them.
var requestMeta = [...]string{MetaProtocolVersion, MetaClientCapabilities, MetaLogLevel}

// served reports whether a Mcp-Protocol-Version header naming v names a
// revision the endpoint serves: a legacy one when it answers legacy
// requests, a modern one when it answers modern requests.
func (x *Exchange) served(v string) bool {
	if protocol.Supported(v) {
		return x.eras.Has(Legacy)
	}
	return x.eras.Has(Modern) && x.servesVersion(v)
}

// servedVersions lists every revision the endpoint serves, newest first:
// its modern ones, then the legacy ones when it answers legacy requests.
func (x *Exchange) servedVersions() []string {
	var out []string
	if x.eras.Has(Modern) {
		out = append(out, x.target.SupportedVersions()...)
	}
	if x.eras.Has(Legacy) {
		legacy := protocol.Versions()
		for i := len(legacy) - 1; i >= 0; i-- {
			out = append(out, legacy[i])
		}
	}
	return out
}

func (x *Exchange) servesVersion(v string) bool {
	for _, s := range x.target.SupportedVersions() {
		if s == v {
			return true
		}
	}
	return false
}

// header is the first value of the request header name (in canonical
// form), without surrounding spaces and tabs, and whether it was sent.
func (x *Exchange) header(name string) (string, bool) {
	if v := x.r.Header[name]; len(v) > 0 {
		return strings.Trim(v[0], " \t"), true
	}
	return "", false
}

// headerMismatch is HeaderMismatch (-32020) saying what differs.
func headerMismatch(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{jsonrpc.ErrHeaderMismatch}, args...)...)
}

// HeaderMismatch is HeaderMismatch (-32020) saying what differs, for the
// checks an endpoint makes itself (Mcp-Param-* headers).
func HeaderMismatch(format string, args ...any) error { return headerMismatch(format, args...) }

const (
	base64Prefix = "=?base64?"
	base64Suffix = "?="
)

// DecodeHeaderValue reads a Mcp-Name or Mcp-Param-* header value: plain
// visible ASCII (with inner spaces and tabs), or the base64 sentinel form
// =?base64?...?= holding UTF-8. ok is false for a value with other
// characters or a sentinel that does not decode.
func DecodeHeaderValue(v string) (string, bool) {
	if len(v) >= len(base64Prefix)+len(base64Suffix) && v[:len(base64Prefix)] == base64Prefix &&
		v[len(v)-len(base64Suffix):] == base64Suffix {
		b, err := base64.StdEncoding.DecodeString(v[len(base64Prefix) : len(v)-len(base64Suffix)])
		if err != nil || !utf8.Valid(b) {
			return "", false
		}
		return string(b), true
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < 0x20 || c > 0x7e) && c != '\t' {
			return "", false
		}
	}
	return v, true
}

var resultPrefix = []byte(`{"resultType":"complete","_meta":{"` + MetaServerInfo + `":`)

// appendModernResult appends result with what every modern result
// carries: resultType ("complete" unless the result names its own) and
// the server's identity in _meta (beside any _meta the result has).
func appendModernResult(dst []byte, result, serverInfo []byte) []byte {
	r := bytes.TrimSpace(result)
	if len(r) < 2 || r[0] != '{' {
		return append(dst, result...)
	}
	if !bytes.Contains(r, []byte(`"_meta"`)) && !bytes.Contains(r, []byte(`"resultType"`)) {
		dst = append(dst, resultPrefix...)
		dst = append(dst, serverInfo...)
		dst = append(dst, '}')
		rest := bytes.TrimLeft(r[1:], " \t\r\n")
		if len(rest) > 0 && rest[0] != '}' {
			dst = append(dst, ',')
		}
		return append(dst, rest...)
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(r, &fields) != nil {
		return append(dst, result...)
	}
	if _, ok := fields["resultType"]; !ok {
		fields["resultType"] = json.RawMessage(`"complete"`)
	}
	meta := map[string]json.RawMessage{}
	if m, ok := fields["_meta"]; ok && json.Unmarshal(m, &meta) != nil {
		return append(dst, result...) // a _meta that is not an object is sent as scripted
	}
	if _, ok := meta[MetaServerInfo]; !ok {
		meta[MetaServerInfo] = serverInfo
	}
	fields["_meta"], _ = json.Marshal(meta)
	out, err := json.Marshal(fields)
	if err != nil {
		return append(dst, result...)
	}
	return append(dst, out...)
}
