package mcpserve_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/protocol"
)

// The oracle of FuzzDifferential: what the endpoint should answer a body,
// worked out from encoding/json's token stream alone, without the
// endpoint's own readers.

// The _meta members of a modern request.
const (
	metaVersion  = "io.modelcontextprotocol/protocolVersion"
	metaCaps     = "io.modelcontextprotocol/clientCapabilities"
	metaLogLevel = "io.modelcontextprotocol/logLevel"
)

type nodeKind uint8

const (
	kindNull nodeKind = iota
	kindBool
	kindNumber
	kindString
	kindArray
	kindObject
)

// node is a JSON value as the token stream gives it: an object keeps its
// members in order, repeated ones included, with their names decoded.
type node struct {
	kind nodeKind
	// str is a string's value, a number's text.
	str     string
	b       bool
	members []member
	elems   []*node
}

type member struct {
	name  string
	value *node
}

// member is the value of the member named exactly name (the last one when
// it is repeated); nil when n is not an object or has no such member.
func (n *node) member(name string) *node {
	if n == nil || n.kind != kindObject {
		return nil
	}
	var v *node
	for _, m := range n.members {
		if m.name == name {
			v = m.value
		}
	}
	return v
}

// count is how many members of n are named exactly name.
func (n *node) count(name string) int {
	if n == nil || n.kind != kindObject {
		return 0
	}
	c := 0
	for _, m := range n.members {
		if m.name == name {
			c++
		}
	}
	return c
}

// is reports whether n is present and of kind k.
func (n *node) is(k nodeKind) bool { return n != nil && n.kind == k }

// absentOrNull reports whether n is absent or null.
func (n *node) absentOrNull() bool { return n == nil || n.kind == kindNull }

// hasDuplicates reports whether n, or a value it holds, has a member
// repeated.
func (n *node) hasDuplicates() bool {
	if n == nil {
		return false
	}
	seen := map[string]bool{}
	for _, m := range n.members {
		if seen[m.name] || m.value.hasDuplicates() {
			return true
		}
		seen[m.name] = true
	}
	return slices.ContainsFunc(n.elems, (*node).hasDuplicates)
}

// outOfRange reports whether n holds a number a float64 cannot hold.
func (n *node) outOfRange() bool {
	if n == nil {
		return false
	}
	if n.kind == kindNumber {
		_, err := strconv.ParseFloat(n.str, 64)
		return err != nil
	}
	for _, m := range n.members {
		if m.value.outOfRange() {
			return true
		}
	}
	return slices.ContainsFunc(n.elems, (*node).outOfRange)
}

// depth is how many arrays and objects nest in n, n included.
func (n *node) depth() int {
	d := 0
	for _, m := range n.members {
		d = max(d, m.value.depth())
	}
	for _, e := range n.elems {
		d = max(d, e.depth())
	}
	if n.kind == kindObject || n.kind == kindArray {
		d++
	}
	return d
}

// marked reports whether n's member mark is the string "M": what the
// fuzzed tools' first scenario matches.
func (n *node) marked() bool {
	m := n.member("mark")
	return m.is(kindString) && m.str == "M"
}

// instance is n for the reference validator, its numbers read by the
// endpoint's documented rule: a number is a float64, except an integer
// beyond ±2^53, kept exactly (so 1.00000000000000001 is the integer 1, as
// the endpoint validates it).
func (n *node) instance() any {
	switch n.kind {
	case kindBool:
		return n.b
	case kindString:
		return n.str
	case kindNumber:
		if largeInteger(n.str) {
			return json.Number(n.str)
		}
		f, _ := strconv.ParseFloat(n.str, 64)
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64))
	case kindArray:
		out := make([]any, len(n.elems))
		for i, e := range n.elems {
			out[i] = e.instance()
		}
		return out
	case kindObject:
		out := make(map[string]any, len(n.members))
		for _, m := range n.members {
			out[m.name] = m.value.instance()
		}
		return out
	}
	return nil
}

// largeInteger reports whether text is an integer (no fraction, no
// exponent) of magnitude beyond 2^53.
func largeInteger(text string) bool {
	digits := strings.TrimPrefix(text, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return false
	}
	i, ok := new(big.Int).SetString(digits, 10)
	return ok && i.Cmp(new(big.Int).Lsh(big.NewInt(1), 53)) > 0
}

// message is a body as the oracle reads it.
type message struct {
	// parseError: the body is not one JSON value of valid UTF-8.
	parseError bool
	// batch: the body is a JSON array (of valid UTF-8 or not).
	batch bool
	root  *node
	// rawID is the id's text when the body is an object with one id.
	rawID json.RawMessage
}

// readMessage reads body with encoding/json's token stream.
func readMessage(body []byte) message {
	batch := json.Valid(body) && bytes.TrimLeft(body, " \t\r\n")[0] == '['
	if !utf8.Valid(body) || !json.Valid(body) {
		return message{parseError: true, batch: batch}
	}
	d := json.NewDecoder(bytes.NewReader(body))
	d.UseNumber()
	root, err := readNode(d)
	if err != nil {
		return message{parseError: true}
	}
	msg := message{root: root, batch: batch}
	var raw map[string]json.RawMessage // keys exact, as a map's are
	if root.count("id") == 1 && json.Unmarshal(body, &raw) == nil {
		msg.rawID = raw["id"]
	}
	return msg
}

func readNode(d *json.Decoder) (*node, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch v := tok.(type) {
	case nil:
		return &node{kind: kindNull}, nil
	case bool:
		return &node{kind: kindBool, b: v}, nil
	case json.Number:
		return &node{kind: kindNumber, str: string(v)}, nil
	case string:
		return &node{kind: kindString, str: v}, nil
	case json.Delim:
		n := &node{kind: kindArray}
		if v == '{' {
			n.kind = kindObject
		}
		for d.More() {
			if n.kind == kindObject {
				name, err := d.Token()
				if err != nil {
					return nil, err
				}
				value, err := readNode(d)
				if err != nil {
					return nil, err
				}
				n.members = append(n.members, member{name: name.(string), value: value})
				continue
			}
			e, err := readNode(d)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, e)
		}
		_, err := d.Token() // the closing delimiter
		return n, err
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// member is the envelope's member named exactly name.
func (m message) member(name string) *node { return m.root.member(name) }

// params is the envelope's params when they are an object.
func (m message) params() *node {
	if p := m.member("params"); p.is(kindObject) && m.root.count("params") == 1 {
		return p
	}
	return nil
}

type judgeKind uint8

const (
	// judgeError: an error of code.
	judgeError judgeKind = iota
	// judgeSkip: the oracle does not judge the body (a batch, a
	// response to the server, a known gap).
	judgeSkip
	// judgeNotification: 202 and no body.
	judgeNotification
	// judgeAnswered: a method the oracle does not follow further answers
	// a well-formed request, with its id.
	judgeAnswered
	// judgeCall: tool runs with args.
	judgeCall
)

// verdict is what the oracle expects.
type verdict struct {
	kind judgeKind
	code int64
	// mention is text the error must hold; "" when any will do.
	mention string
	// id is the id the response carries; nil when not checked.
	id     json.RawMessage
	tool   string
	args   *node
	modern bool
	why    string
}

func (v verdict) fail(code int64, mention string) verdict {
	v.kind, v.code, v.mention = judgeError, code, mention
	return v
}

func (v verdict) skip(why string) verdict {
	v.kind, v.why = judgeSkip, why
	return v
}

func (v verdict) String() string {
	s := fmt.Sprintf("id %s, modern %v", v.id, v.modern)
	switch v.kind {
	case judgeError:
		s += fmt.Sprintf(", error %d %q", v.code, v.mention)
	case judgeSkip:
		s += ", not judged"
	case judgeNotification:
		s += ", a notification"
	case judgeAnswered:
		s += ", answered"
	case judgeCall:
		s += fmt.Sprintf(", a call of %q, marked %v", v.tool, v.args.marked())
	}
	if v.why != "" {
		s += " (" + v.why + ")"
	}
	return s
}

var nullID = json.RawMessage("null")

// judge is the oracle's verdict on msg sent as c says.
func judge(msg message, c callMode) verdict {
	v := verdict{id: nullID}
	switch {
	case msg.batch && c.batches():
		return v.skip("a batch")
	case msg.batch && !msg.parseError:
		return v.fail(-32600, "batching was removed")
	case msg.parseError:
		return v.fail(-32700, "")
	}
	root := msg.root
	if root.kind != kindObject {
		return v.fail(-32600, "")
	}
	for _, m := range root.members {
		if strings.EqualFold(m.name, "result") || strings.EqualFold(m.name, "error") {
			return v.skip("may be a response to a question of the server")
		}
	}
	v, done := judgeEnvelope(msg, v)
	if done {
		return v
	}
	if msg.member("method").str != "tools/call" {
		return v.answered()
	}
	p := msg.params()
	if v, done = judgeEra(p, c, v); done {
		return v
	}
	return judgeCallParams(p, v)
}

func (v verdict) answered() verdict {
	v.kind = judgeAnswered
	return v
}

// judgeEnvelope checks the JSON-RPC envelope: jsonrpc "2.0", a method,
// an id that is a string or a number (echoed, unless it is repeated),
// params an object or null, none of the four repeated (-32600). Other
// members are not read, and the endpoint does not check them for repeats
// either (its documentation's "a member given twice in the envelope" means
// these four). A request without an id is a notification.
func judgeEnvelope(msg message, v verdict) (verdict, bool) {
	root := msg.root
	id := root.member("id")
	if root.count("id") == 1 && (id.is(kindString) || id.is(kindNumber)) {
		v.id = msg.rawID
	}
	for _, name := range []string{"jsonrpc", "id", "method", "params"} {
		if root.count(name) > 1 {
			return v.fail(-32600, ""), true
		}
	}
	version, method, params := root.member("jsonrpc"), root.member("method"), root.member("params")
	switch {
	case !version.is(kindString) || version.str != "2.0":
		return v.fail(-32600, ""), true
	case !method.is(kindString) || method.str == "":
		return v.fail(-32600, ""), true
	case id != nil && !id.is(kindString) && !id.is(kindNumber):
		return v.fail(-32600, ""), true
	case params != nil && !params.is(kindObject) && !params.is(kindNull):
		return v.fail(-32600, ""), true
	case id == nil:
		v.kind = judgeNotification
		return v, true
	}
	return v, false
}

// judgeEra decides the request's era (modern when its params._meta names
// the protocol version, read exactly, or its header names the modern
// revision) and, for a modern request, checks its _meta and headers in
// the order the revision's conformance suite expects.
func judgeEra(p *node, c callMode, v verdict) (verdict, bool) {
	if p.count("_meta") > 1 {
		return v.fail(-32602, "'_meta' appears more than once"), true
	}
	meta := p.member("_meta")
	if meta.count(metaVersion) > 1 {
		return v.fail(-32602, "appears more than once"), true
	}
	v.modern = c.modern || meta.count(metaVersion) == 1
	if !v.modern {
		return v, false
	}
	if p.count("name") > 1 {
		return v.fail(-32602, "'name' appears more than once"), true
	}
	if meta != nil && !meta.is(kindObject) && !meta.is(kindNull) {
		return v.fail(-32602, "_meta must be an object"), true
	}
	for _, name := range []string{metaVersion, metaCaps, metaLogLevel} {
		if meta.count(name) > 1 {
			return v.fail(-32602, "appears more than once"), true
		}
	}
	version, caps, level := meta.member(metaVersion), meta.member(metaCaps), meta.member(metaLogLevel)
	if version.is(kindNull) {
		version = nil
	}
	header := protocol.Latest
	if c.modern {
		header = protocol.Modern
	}
	name := p.member("name")
	switch {
	case !c.sendVersion && version != nil:
		return v.fail(-32020, "header is missing"), true
	case meta.absentOrNull():
		return v.fail(-32602, "missing required field '_meta'"), true
	case version == nil:
		return v.fail(-32602, "missing required field '_meta."+metaVersion+"'"), true
	case caps.absentOrNull():
		return v.fail(-32602, "missing required field '_meta."+metaCaps+"'"), true
	case !caps.is(kindObject):
		return v.fail(-32602, "must be an object"), true
	case !version.is(kindString):
		return v.fail(-32602, "must be a string"), true
	case version.str != header:
		return v.fail(-32020, "does not match"), true
	case header != protocol.Modern:
		return v.fail(-32022, ""), true
	case level != nil && (!level.is(kindString) || !slices.Contains(protocol.LogLevels, level.str)):
		return v.fail(-32602, metaLogLevel), true
	case !c.modern:
		return v.fail(-32020, "Mcp-Method"), true // a legacy request sends no Mcp-Method
	case !name.is(kindString):
		return v, false
	case c.nameHeader == nameAbsent:
		return v.fail(-32020, "Mcp-Name"), true
	case c.nameHeader == nameNoSuch && name.str != "nosuch":
		return v.fail(-32020, "does not match"), true
	}
	return v, false
}

// judgeCallParams reads the params of tools/call: name, arguments and
// _meta named exactly, none repeated; a name that is a string; arguments
// an object (absent or null: {}); _meta an object or null. A number in
// the arguments past a float64's range is -32602 naming it, as
// documented. What passes is a call of the tool named, with exactly the
// arguments given. Other members of params (and of _meta, but for the
// progress token) are not read, and the endpoint does not refuse a repeat
// of one: its documentation's "a member given twice ... in params" is of
// the members it reads.
func judgeCallParams(p *node, v verdict) verdict {
	for _, name := range []string{"name", "arguments", "_meta"} {
		if p.count(name) > 1 {
			return v.fail(-32602, "'"+name+"' appears more than once")
		}
	}
	// Which of several of these the error names is not checked: the
	// endpoint decodes the params whole and names the first it meets.
	name, args, meta := p.member("name"), p.member("arguments"), p.member("_meta")
	switch {
	case name.absentOrNull(), !name.is(kindString),
		args != nil && !args.is(kindObject) && !args.is(kindNull),
		meta != nil && !meta.is(kindObject) && !meta.is(kindNull):
		return v.fail(-32602, "")
	}
	if !args.is(kindObject) {
		args = &node{kind: kindObject}
	}
	if nestedDuplicates(args, meta) {
		return v.fail(-32602, "appears more than once")
	}
	if args.outOfRange() {
		return v.fail(-32602, "out of the range a value can hold")
	}
	v.kind, v.tool, v.args = judgeCall, name.str, args
	return v
}

// nestedDuplicates reports whether a member is repeated inside the
// arguments (at any depth) or inside _meta.progressToken (the member
// itself, or inside its value), which the endpoint refuses with -32602.
func nestedDuplicates(args, meta *node) bool {
	return args.hasDuplicates() || meta.count("progressToken") > 1 || meta.member("progressToken").hasDuplicates()
}
