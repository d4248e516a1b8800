package mockspec

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"github.com/mockmcp/mockmcp/internal/answertmpl"
	"math"
	"mime"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// Limits the checks apply beyond those of one scenario.
const (
	// MaxContentBlocks bounds the content of one result.
	MaxContentBlocks = 100
	// MaxErrorMessage bounds a scripted error's message, in characters.
	MaxErrorMessage = 2000
)

// ContentTypes are the types of MCP content blocks.
var ContentTypes = []string{"text", "image", "audio", "resource", "resource_link"}

// Placeholder matches an {{argument}} placeholder of a prompt template; its
// first group is the argument's name.
var Placeholder = regexp.MustCompile(`\{\{\s*([^{}\s]*)\s*\}\}`)

// The members each object may have. A content block may also have the
// members of every block.
var (
	scenarioForms  = []string{"response", "result", "error", "sequence"}
	stepForms      = []string{"response", "result", "error"}
	resultMembers  = []string{"content", "isError", "structuredContent", "_meta"}
	everyBlock     = []string{"type", "annotations", "_meta"}
	resourceFields = []string{"uri", "mimeType", "text", "blob", "_meta"}
	annotationKeys = []string{"audience", "priority", "lastModified"}
	blockMembers   = map[string][]string{
		"text":          {"text"},
		"image":         {"data", "mimeType"},
		"audio":         {"data", "mimeType"},
		"resource":      {"resource"},
		"resource_link": {"uri", "name", "title", "description", "mimeType", "size"},
	}
)

// CheckScenario checks the answer of a scenario: exactly one of response,
// result, error and sequence, each well formed, the delays, the
// notifications, the whole wait of one call and the list changes it
// broadcasts. output is the tool's
// compiled output schema, nil when it has none: a result's
// structuredContent must then satisfy it, and is required unless isError
// is true. A plain response is not checked against it (the policy rules
// report that), so that designs saved before results existed, and imports
// that keep examples their schema refuses, stay valid.
//
// The name and the condition are not checked here. Every problem is
// reported, with Field a JSON path relative to the scenario
// ("result.content[0].data", "sequence.steps[2].error.code", "delay_ms").
func CheckScenario(sc Scenario, output *schema.Schema) []failure.FieldError {
	c := checker{}
	switch {
	case sc.Task != nil:
		c.checkTask(sc, output)
	case sc.Ask != nil || sc.Then != nil:
		c.checkAsk(sc, output)
	default:
		c.answer("", sc.forms(), scenarioForms, output)
	}
	delaysOK := c.delay("delay_ms", sc.DelayMS)
	if sc.Sequence != nil {
		for i, st := range sc.Sequence.Steps {
			if st.DelayMS != nil && !c.delay(fmt.Sprintf("sequence.steps[%d].delay_ms", i), *st.DelayMS) {
				delaysOK = false
			}
		}
	}
	if !c.notifications(sc.Notifications) {
		delaysOK = false
	}
	if delaysOK {
		c.wholeWait(sc)
	}
	c.broadcast(sc.Broadcast)
	for _, e := range CheckFault(sc.Fault) {
		c.add("fault."+e.Field, "%s", e.Message)
	}
	return c.f
}

// broadcast checks the list changes a scenario broadcasts: known kinds,
// each once.
func (c *checker) broadcast(kinds []string) {
	if len(kinds) > len(BroadcastKinds) {
		c.add("broadcast", "at most %d kinds, each once, got %d", len(BroadcastKinds), len(kinds))
	}
	for i, k := range kinds {
		at := fmt.Sprintf("broadcast[%d]", i)
		switch {
		case !slices.Contains(BroadcastKinds, k):
			c.add(at, "unknown kind %q: want %s", k, orList(BroadcastKinds))
		case slices.Contains(kinds[:i], k):
			c.add(at, "%q is listed twice", k)
		}
	}
}

// CheckFault checks a server's, a tool's or a scenario's fault; nil is no
// fault. Fields are relative to the fault ("rate", "error.code",
// "delay_ms").
func CheckFault(f *Fault) []failure.FieldError {
	if f == nil {
		return nil
	}
	c := checker{}
	if f.Rate < 0 || f.Rate > 1 || math.IsNaN(f.Rate) {
		c.add("rate", "must be between 0 and 1 (the share of tools/call requests faulted), got %v", f.Rate)
	}
	if f.Error != nil {
		c.rpcError("error", f.Error)
	}
	c.delay("delay_ms", f.DelayMS)
	return c.f
}

// CheckContent checks one content block of a prompt message. Fields are
// relative to the block ("data", "resource.uri"; "" for the block itself).
// {{argument}} placeholders may stand in its URIs, which prompts/get fills
// in before they are read; whether they name declared arguments is the
// caller's to check.
func CheckContent(raw json.RawMessage) []failure.FieldError {
	c := checker{templates: true}
	c.block("", raw)
	return c.f
}

// Base64Problem explains why s is not base64 in the standard alphabet with
// padding, on one line, as MCP carries binary data; "" when it is.
func Base64Problem(s string) string {
	if strings.ContainsAny(s, "\r\n") {
		return "must be base64 on one line (standard alphabet, padded with =), without line breaks"
	}
	if _, err := base64.StdEncoding.Strict().DecodeString(s); err != nil {
		return fmt.Sprintf("must be base64 (standard alphabet A-Z a-z 0-9 + /, padded with =): %v", err)
	}
	return ""
}

// checker collects problems with their paths.
type checker struct {
	f failure.Fields
	// templates allows {{argument}} placeholders in URIs.
	templates bool
	// asked are the ids of the questions asked before the answer being
	// checked, whose {{id.path}} placeholders answer templates keep.
	asked []string
}

func (c *checker) add(field, format string, args ...any) { c.f.Add(field, format, args...) }

// answerForms are the answer members of a scenario or a step as given.
type answerForms struct {
	response json.RawMessage
	result   json.RawMessage
	err      *RPCError
	sequence *Sequence // scenarios only
}

// member is one answer member of a scenario, branch, task or step, and
// whether it is given.
type member struct {
	name  string
	given bool
}

// members lists the answer members in the order problems name them.
func (a answerForms) members() []member {
	return []member{{"response", present(a.response)}, {"result", present(a.result)},
		{"error", a.err != nil}, {"sequence", a.sequence != nil}}
}

// forms are the scenario's answer members.
func (sc Scenario) forms() answerForms {
	return answerForms{sc.Response, sc.Result, sc.Error, sc.Sequence}
}

// forms are the branch's answer members, but for a round it asks.
func (b Branch) forms() answerForms {
	return answerForms{b.Response, b.Result, b.Error, b.Sequence}
}

// answer checks that exactly one of the forms named in forms is given, at
// the object at (a scenario or a step), and checks each one given.
func (c *checker) answer(at string, a answerForms, forms []string, output *schema.Schema) {
	var given []string
	for _, m := range a.members() {
		if m.given {
			given = append(given, m.name)
		}
	}
	what := "this scenario"
	if len(forms) == len(stepForms) {
		what = "this step"
	}
	switch len(given) {
	case 0:
		c.add(join(at, "response"), "is required: give one of %s", describeForms(forms))
	default:
		for _, g := range given[1:] {
			c.add(join(at, g), "only one of %s may be given, and %s also has %s", andList(forms), what, given[0])
		}
	}
	if present(a.response) && !isObject(a.response) {
		c.add(join(at, "response"), "must be a JSON object")
	}
	if c.answerTemplates(at, a) {
		// A templated answer is checked against the output schema as it
		// is rendered, call by call.
		output = nil
	}
	if present(a.result) {
		c.result(join(at, "result"), a.result, output)
	}
	if a.err != nil {
		c.rpcError(join(at, "error"), a.err)
	}
	if a.sequence != nil {
		c.sequence(join(at, "sequence"), a.sequence, output)
	}
}

// answerTemplates compiles the templates of a's response, result and
// error (see answertmpl): each problem is refused naming the string and
// the offset in it. It reports whether any of them is templated.
func (c *checker) answerTemplates(at string, a answerForms) (templated bool) {
	opts := answertmpl.Options{Legacy: true, Keep: func(name string) bool { return slices.Contains(c.asked, name) }}
	check := func(field string, t *answertmpl.Template, err error) {
		switch problems := answertmpl.Problems(err); {
		case problems != nil:
			for _, e := range problems {
				c.add(field+suffix(e.Path), "offset %d: %s", e.Offset, e.Message)
			}
		case err != nil:
			c.add(field, "%v", err)
		case t != nil && !t.Constant():
			templated = true
		}
	}
	// JSON that is not valid is refused as such, elsewhere.
	if present(a.response) && json.Valid(a.response) {
		t, err := opts.CompileJSON(a.response)
		check(join(at, "response"), t, err)
	}
	if present(a.result) && json.Valid(a.result) {
		t, err := opts.CompileJSON(a.result)
		check(join(at, "result"), t, err)
	}
	if a.err != nil {
		t, err := opts.Compile(a.err.Message)
		check(join(at, "error.message"), t, err)
		if present(a.err.Data) && json.Valid(a.err.Data) {
			t, err := opts.CompileJSON(a.err.Data)
			check(join(at, "error.data"), t, err)
		}
	}
	return templated
}

func describeForms(forms []string) string {
	parts := []string{
		"response (a JSON object, answered as text)",
		"result (an MCP tool result)",
		"error (a JSON-RPC error)",
		"sequence (answers that change call after call)",
	}
	return orList(parts[:len(forms)])
}

// result checks an explicit CallToolResult.
func (c *checker) result(at string, raw json.RawMessage, output *schema.Schema) {
	m, ok := object(raw)
	if !ok {
		c.add(at, `must be an MCP tool result: an object such as {"content": [{"type": "text", "text": "..."}]}, not %s`, kindOf(raw))
		return
	}
	structured, hasStructured := m["structuredContent"]
	if content, ok := m["content"]; !ok {
		c.add(join(at, "content"), `is required: a list of content blocks such as [{"type": "text", "text": "..."}]`)
	} else if blocks, ok := array(content); !ok {
		c.add(join(at, "content"), "must be a list of content blocks, not %s", kindOf(content))
	} else {
		switch {
		case len(blocks) == 0 && !hasStructured:
			c.add(join(at, "content"), "must not be empty unless structuredContent is given")
		case len(blocks) > MaxContentBlocks:
			c.add(join(at, "content"), "at most %d content blocks, got %d", MaxContentBlocks, len(blocks))
		}
		for i, b := range blocks {
			c.block(fmt.Sprintf("%s.content[%d]", at, i), b)
		}
	}
	isError := false
	if v, ok := m["isError"]; ok {
		if b, ok := boolean(v); ok {
			isError = b
		} else {
			c.add(join(at, "isError"), "must be true or false, not %s", kindOf(v))
		}
	}
	switch {
	case hasStructured && !isObject(structured):
		c.add(join(at, "structuredContent"), "must be a JSON object, not %s", kindOf(structured))
	case hasStructured && output != nil:
		c.againstSchema(join(at, "structuredContent"), structured, output)
	case !hasStructured && output != nil && !isError:
		c.add(join(at, "structuredContent"), "is required: the tool has an output schema, and clients reject a result without "+
			"structuredContent from protocol "+protocol.V20250618+" on (give an object that satisfies the schema, or set isError to true)")
	}
	c.meta(at, m)
	c.unknown(at, m, resultMembers, "a tool result")
}

// againstSchema reports how the JSON object raw fails the output schema.
func (c *checker) againstSchema(at string, raw json.RawMessage, output *schema.Schema) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // numbers compare as written
	var v any
	if err := d.Decode(&v); err != nil {
		c.add(at, "must be JSON: %v", err)
		return
	}
	for _, vi := range output.Validate(v) {
		c.add(at+suffix(vi.Field), "does not satisfy the tool's output schema: %s", vi.Message)
	}
}

// suffix turns a schema violation's Field ("", "a.b", "items[0]", "[2]")
// into the end of a path.
func suffix(field string) string {
	if field == "" || strings.HasPrefix(field, "[") {
		return field
	}
	return "." + field
}

// block checks one content block at at ("" for a block on its own).
func (c *checker) block(at string, raw json.RawMessage) {
	m, ok := object(raw)
	if !ok {
		c.add(at, "must be a content block: an object with a type (%s), not %s", orList(ContentTypes), kindOf(raw))
		return
	}
	tv, ok := m["type"]
	if !ok {
		c.add(join(at, "type"), "is required: %s", orList(ContentTypes))
		return
	}
	typ, _ := str(tv)
	members, known := blockMembers[typ]
	if !known {
		c.add(join(at, "type"), "unknown content type %s: want %s", string(bytes.TrimSpace(tv)), orList(ContentTypes))
		return
	}
	switch typ {
	case "text":
		c.requiredString(at, m, "text", "the text")
	case "image", "audio":
		if s, ok := c.requiredString(at, m, "data", "the "+typ+", base64"); ok {
			if s == "" {
				c.add(join(at, "data"), "must not be empty: the %s, base64", typ)
			} else if msg := Base64Problem(s); msg != "" {
				c.add(join(at, "data"), "%s", msg)
			}
		}
		if s, ok := c.requiredString(at, m, "mimeType", "the media type, such as "+typ+"/"+example[typ]); ok {
			if msg := mediaTypeProblem(s, typ); msg != "" {
				c.add(join(at, "mimeType"), "%s", msg)
			}
		}
	case "resource":
		if v, ok := m["resource"]; !ok {
			c.add(join(at, "resource"), `is required: the resource's contents, {"uri": ..., "text": ...} or {"uri": ..., "blob": ...}`)
		} else {
			c.resourceContents(join(at, "resource"), v)
		}
	case "resource_link":
		c.uri(at, m)
		if s, ok := c.requiredString(at, m, "name", "the resource's name"); ok && strings.TrimSpace(s) == "" {
			c.add(join(at, "name"), "must not be blank")
		}
		c.optionalString(at, m, "title")
		c.optionalString(at, m, "description")
		c.optionalMediaType(at, m)
		if v, ok := m["size"]; ok {
			if n, ok := number(v); !ok || n < 0 || n != math.Trunc(n) {
				c.add(join(at, "size"), "must be a whole number of bytes, 0 or more, not %s", string(bytes.TrimSpace(v)))
			}
		}
	}
	if v, ok := m["annotations"]; ok {
		c.annotations(join(at, "annotations"), v)
	}
	c.meta(at, m)
	c.unknown(at, m, append(slices.Clone(everyBlock), members...), "a "+typ+" block")
}

// example is the subtype each media type example uses.
var example = map[string]string{"image": "png", "audio": "wav"}

// resourceContents checks the resource of an embedded resource block.
func (c *checker) resourceContents(at string, raw json.RawMessage) {
	m, ok := object(raw)
	if !ok {
		c.add(at, `must be an object: {"uri": ..., "text": ...} or {"uri": ..., "blob": ...}, not %s`, kindOf(raw))
		return
	}
	c.uri(at, m)
	c.optionalMediaType(at, m)
	text, hasText := m["text"]
	blob, hasBlob := m["blob"]
	switch {
	case !hasText && !hasBlob:
		c.add(join(at, "text"), "is required: give text, or blob (base64) for binary contents")
	case hasText && hasBlob:
		c.add(join(at, "blob"), "give text or blob, not both")
	}
	if hasText {
		if _, ok := str(text); !ok {
			c.add(join(at, "text"), "must be a string, not %s", kindOf(text))
		}
	}
	if hasBlob {
		if s, ok := str(blob); !ok {
			c.add(join(at, "blob"), "must be a string of base64, not %s", kindOf(blob))
		} else if msg := Base64Problem(s); msg != "" {
			c.add(join(at, "blob"), "%s", msg)
		}
	}
	c.meta(at, m)
	c.unknown(at, m, resourceFields, "a resource's contents")
}

// annotations checks a block's annotations.
func (c *checker) annotations(at string, raw json.RawMessage) {
	m, ok := object(raw)
	if !ok {
		c.add(at, "must be an object with audience, priority or lastModified, not %s", kindOf(raw))
		return
	}
	if v, ok := m["audience"]; ok {
		if items, ok := array(v); !ok {
			c.add(join(at, "audience"), `must be a list of "user" and "assistant", not %s`, kindOf(v))
		} else {
			for i, it := range items {
				if s, _ := str(it); s != "user" && s != "assistant" {
					c.add(fmt.Sprintf("%s.audience[%d]", at, i), `must be "user" or "assistant", not %s`, string(bytes.TrimSpace(it)))
				}
			}
		}
	}
	if v, ok := m["priority"]; ok {
		if n, ok := number(v); !ok || n < 0 || n > 1 {
			c.add(join(at, "priority"), "must be a number from 0 (least important) to 1 (most important), not %s", string(bytes.TrimSpace(v)))
		}
	}
	c.optionalString(at, m, "lastModified")
	c.unknown(at, m, annotationKeys, "annotations")
}

// rpcError checks a scripted JSON-RPC error. Any code but 0 is accepted:
// mocks legitimately answer the predefined codes (-32602, -32603) as well
// as their own.
func (c *checker) rpcError(at string, e *RPCError) {
	if e.Code == 0 {
		c.add(join(at, "code"), "must be a non-zero integer: a JSON-RPC error code such as -32603 (internal error) or -32602 (invalid params)")
	}
	switch n := utf8.RuneCountInString(e.Message); {
	case strings.TrimSpace(e.Message) == "":
		c.add(join(at, "message"), "must not be blank")
	case n > MaxErrorMessage:
		c.add(join(at, "message"), "at most %d characters, got %d", MaxErrorMessage, n)
	}
}

func (c *checker) sequence(at string, s *Sequence, output *schema.Schema) {
	switch n := len(s.Steps); {
	case n == 0:
		c.add(join(at, "steps"), "must have at least one step")
	case n > MaxSteps:
		c.add(join(at, "steps"), "at most %d steps, got %d", MaxSteps, n)
	}
	for i, st := range s.Steps {
		c.answer(fmt.Sprintf("%s.steps[%d]", at, i), answerForms{st.Response, st.Result, st.Error, nil}, stepForms, output)
	}
	switch s.Then {
	case "", ThenRepeatLast, ThenCycle:
	default:
		c.add(join(at, "then"), "unknown value %q: want %s (the default: the last step answers every later call) or %s (start over)",
			s.Then, ThenRepeatLast, ThenCycle)
	}
}

// delay checks one wait and reports whether it is in bounds.
func (c *checker) delay(at string, ms int) bool {
	if ms < 0 || ms > MaxDelayMS {
		c.add(at, "must be from 0 to %d (milliseconds), got %d", MaxDelayMS, ms)
		return false
	}
	return true
}

// notifications checks the scripted notifications and reports whether
// their delays are in bounds.
func (c *checker) notifications(ns []Notification) bool {
	if len(ns) > MaxNotifications {
		c.add("notifications", "at most %d notifications, got %d", MaxNotifications, len(ns))
	}
	ok := true
	for i, n := range ns {
		at := fmt.Sprintf("notifications[%d]", i)
		switch n.Type {
		case NotifyLog:
			switch {
			case n.Level == "":
				c.add(at+".level", "is required for a log notification: %s", orList(LogLevels))
			case !slices.Contains(LogLevels, n.Level):
				c.add(at+".level", "unknown level %q: want %s", n.Level, orList(LogLevels))
			}
			if !present(n.Data) {
				c.add(at+".data", "is required for a log notification: any JSON value, such as a message or an object")
			}
			c.notFor(at, "progress", "log", n.Progress != nil)
			c.notFor(at, "total", "log", n.Total != nil)
			c.notFor(at, "message", "log", n.Message != "")
		case NotifyProgress:
			switch {
			case n.Progress == nil:
				c.add(at+".progress", "is required for a progress notification: a number, 0 or more")
			case *n.Progress < 0:
				c.add(at+".progress", "must be 0 or more, got %v", *n.Progress)
			}
			switch {
			case n.Total == nil:
			case *n.Total < 0:
				c.add(at+".total", "must be 0 or more, got %v", *n.Total)
			case n.Progress != nil && *n.Total < *n.Progress:
				c.add(at+".total", "must be at least progress (%v), got %v", *n.Progress, *n.Total)
			}
			c.notFor(at, "level", "progress", n.Level != "")
			c.notFor(at, "logger", "progress", n.Logger != "")
			c.notFor(at, "data", "progress", present(n.Data))
		case "":
			c.add(at+".type", "is required: %s or %s", NotifyLog, NotifyProgress)
		default:
			c.add(at+".type", "unknown notification type %q: want %s or %s", n.Type, NotifyLog, NotifyProgress)
		}
		if !c.delay(at+".delay_ms", n.DelayMS) {
			ok = false
		}
	}
	return ok
}

// notFor reports a member given to a notification of another type.
func (c *checker) notFor(at, member, typ string, given bool) {
	if given {
		other := NotifyProgress
		if typ == NotifyProgress {
			other = NotifyLog
		}
		c.add(at+"."+member, "belongs to %s notifications, not to %s notifications", other, typ)
	}
}

// wholeWait checks the longest wait of one call: every notification's
// delay, then the scenario's delay, or the slowest step's for a sequence
// (a step's own delay replaces the scenario's).
func (c *checker) wholeWait(sc Scenario) {
	notes := 0
	for _, n := range sc.Notifications {
		notes += n.DelayMS
	}
	wait, what := sc.DelayMS, "delay_ms"
	if sc.Sequence != nil && len(sc.Sequence.Steps) > 0 {
		wait = -1
		for i, st := range sc.Sequence.Steps {
			d, w := sc.DelayMS, "delay_ms"
			if st.DelayMS != nil {
				d, w = *st.DelayMS, fmt.Sprintf("sequence.steps[%d].delay_ms", i)
			}
			if d > wait {
				wait, what = d, w
			}
		}
	}
	for _, st := range branchSteps(sc.Then) {
		if st.DelayMS != nil && *st.DelayMS > wait {
			wait, what = *st.DelayMS, "the delay_ms of a sequence step under then"
		}
	}
	if notes+wait > MaxDelayMS {
		c.add("delay_ms", "one call would wait %d ms in all (%d ms of notification delays and %d ms of %s), more than the limit of %d ms",
			notes+wait, notes, wait, what, MaxDelayMS)
	}
}

// uri checks the required member uri of m, an absolute URI.
func (c *checker) uri(at string, m map[string]json.RawMessage) {
	s, ok := c.requiredString(at, m, "uri", "an absolute URI such as file:///notes.txt")
	if !ok {
		return
	}
	if c.templates {
		// A URI beginning with a placeholder takes its scheme from the
		// argument ("{{resourceUri}}").
		if loc := Placeholder.FindStringIndex(s); loc != nil && loc[0] == 0 {
			s = "x:" + s
		}
		s = Placeholder.ReplaceAllString(s, "x")
	}
	var msg string
	switch {
	case s == "":
		msg = "is required: an absolute URI such as file:///notes.txt"
	case strings.ContainsAny(s, " \t\r\n"):
		msg = "must not contain white space"
	case !uriScheme.MatchString(s):
		msg = "must be an absolute URI with a scheme, such as file:///notes.txt or docs://guide"
	default:
		if _, err := url.Parse(s); err != nil {
			msg = "is not a valid URI: " + strings.TrimPrefix(err.Error(), "parse ")
		}
	}
	if msg != "" {
		c.add(join(at, "uri"), "%s", msg)
	}
}

var uriScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// mediaTypeProblem explains why s is not a media type, or not one of the
// top-level type want when want is not ""; "" when it is fine.
func mediaTypeProblem(s, want string) string {
	mt, _, err := mime.ParseMediaType(s)
	if err != nil || !strings.Contains(mt, "/") || strings.HasSuffix(mt, "/") {
		return fmt.Sprintf("must be a media type (type/subtype), such as image/png, got %q", s)
	}
	if want != "" && !strings.HasPrefix(mt, want+"/") {
		return fmt.Sprintf("must be an %s media type, such as %s/%s, got %q", want, want, example[want], s)
	}
	return ""
}

func (c *checker) optionalMediaType(at string, m map[string]json.RawMessage) {
	if s, ok := c.optionalString(at, m, "mimeType"); ok {
		if msg := mediaTypeProblem(s, ""); msg != "" {
			c.add(join(at, "mimeType"), "%s", msg)
		}
	}
}

// requiredString returns the string member name of m, reporting it absent
// (want says what it holds) or of another kind.
func (c *checker) requiredString(at string, m map[string]json.RawMessage, name, want string) (string, bool) {
	v, ok := m[name]
	if !ok {
		c.add(join(at, name), "is required: %s", want)
		return "", false
	}
	s, ok := str(v)
	if !ok {
		c.add(join(at, name), "must be a string, not %s", kindOf(v))
	}
	return s, ok
}

// optionalString returns the string member name of m; ok is false when it
// is absent or, reported, of another kind.
func (c *checker) optionalString(at string, m map[string]json.RawMessage, name string) (string, bool) {
	v, ok := m[name]
	if !ok {
		return "", false
	}
	s, ok := str(v)
	if !ok {
		c.add(join(at, name), "must be a string, not %s", kindOf(v))
	}
	return s, ok
}

// meta checks the optional _meta member of m.
func (c *checker) meta(at string, m map[string]json.RawMessage) {
	if v, ok := m["_meta"]; ok && !isObject(v) {
		c.add(join(at, "_meta"), "must be a JSON object, not %s", kindOf(v))
	}
}

// unknown reports, in name order, the members of m not in allowed; what
// names the object in the message.
func (c *checker) unknown(at string, m map[string]json.RawMessage, allowed []string, what string) {
	var extra []string
	for k := range m {
		if !slices.Contains(allowed, k) {
			extra = append(extra, k)
		}
	}
	slices.Sort(extra)
	for _, k := range extra {
		c.add(join(at, k), "unknown member %q: %s has %s", k, what, andList(allowed))
	}
}

// join appends a member name to a path, "" being the root.
func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

// present reports whether an optional JSON member was given at all (null
// included).
func present(raw json.RawMessage) bool { return len(bytes.TrimSpace(raw)) > 0 }

func isObject(raw json.RawMessage) bool {
	_, ok := object(raw)
	return ok
}

// object decodes a JSON object, keeping its members' values as written.
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, false
	}
	return m, true
}

func array(raw json.RawMessage) ([]json.RawMessage, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var a []json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, false
	}
	return a, true
}

func str(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

func boolean(raw json.RawMessage) (v, ok bool) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

func number(raw json.RawMessage) (float64, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return 0, false
	}
	var n float64
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, false
	}
	return n, true
}

// kindOf names the kind of a JSON value for messages.
func kindOf(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// andList and orList join words in English: "a, b and c", "a, b or c".
func andList(words []string) string { return list(words, "and") }
func orList(words []string) string  { return list(words, "or") }

func list(words []string, conj string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}
