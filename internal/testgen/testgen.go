// Package testgen generates REST API test cases from a mock tool's
// scenarios: for each scenario, a case that calls tools/call on the
// server's per-server MCP endpoint with arguments that make that scenario
// the first match, and expects status 200 and the scenario's answer: the
// text of its plain response, its explicit result, or its JSON-RPC error.
// A sequence scenario's case checks the first step (see buildCase).
//
// Arguments are built from the tool's input schema (a sample value of each
// required property) with the scenario's condition laid over them (the
// plain condition's values, or a value that makes the operator true), then
// steered away from earlier scenarios that would win first. They are
// checked with the same schema validator and scenario matcher tools/call
// uses, so a case made without a warning passes against the enabled
// server as long as the design is unchanged.
package testgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/outbound"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/resttest"
)

// Generated is one test case made from one scenario, or the reason it could
// not be made faithfully.
type Generated struct {
	Scenario string
	Case     resttest.Case
	// Warning is non-empty when the case would fail against the server:
	// the arguments found do not reach this scenario (an earlier scenario
	// wins, or the schema cannot be satisfied), or the scenario waits
	// longer than a test run does. The case is still returned.
	Warning string
}

const (
	// endpointPath is the per-server MCP endpoint the cases call.
	endpointPath = "/api/platform/{server_id}/mcp"
	// maxNameRunes bounds a case name.
	maxNameRunes = 200
	// maxFieldConditions is how many response fields are checked one by
	// one; a response with more is compared whole.
	maxFieldConditions = 50
	// textPath addresses the text of a tools/call result; the runner reads
	// into the JSON it holds when the path goes on.
	textPath = "result.content[0].text"
)

// FromTool makes one case per scenario of t, in scenario order, calling
// the per-server endpoint at base (scheme://host[:port], no trailing
// slash) of server t.ServerID.
func FromTool(base string, t design.Tool) []Generated {
	p := prepare(t)
	out := make([]Generated, 0, len(t.Scenarios))
	for i, sc := range t.Scenarios {
		res := p.search(i)
		g := Generated{Scenario: sc.Name}
		if !res.ok {
			g.Warning = res.reason
		}
		var err error
		g.Case, err = buildCase(base, t, sc, res.args, g.Warning)
		if err != nil && g.Warning == "" {
			g.Warning = err.Error()
		}
		out = append(out, g)
	}
	return out
}

// buildCase assembles the case; the error says what it could not express
// (the case is still usable).
func buildCase(base string, t design.Tool, sc design.Scenario, args map[string]any, warning string) (resttest.Case, error) {
	scope := resttest.Scope{Method: http.MethodPost, Path: endpointPath}
	body, bodyErr := requestBody(t.Name, args)
	exp := expect(sc)

	name := truncateRunes(t.Name+": "+sc.Name, maxNameRunes)
	headers := map[string]string{"Accept": "application/json"}
	what := "with arguments that make this scenario the first match"
	if sc.Sequence != nil {
		// A sequence answers differently call after call, and a case calls
		// once: it checks the first step, under a sequence key of its own
		// so that other clients do not advance its count (nor it theirs).
		// Run again, it meets the second step, unless the key's sequences
		// are reset first; the description says how.
		key := sequenceKey(t)
		headers[mockspec.SequenceKeyHeader] = key
		name = truncateRunes(t.Name+": "+sc.Name, maxNameRunes-utf8.RuneCountInString(firstStep)) + firstStep
		what += fmt.Sprintf(" and the sequence key %q (header %s)", key, mockspec.SequenceKeyHeader)
		exp.checks += fmt.Sprintf(". The scenario is a sequence of %d steps and this case checks the first: it passes on the first call "+
			"after the key's sequences are reset (POST /api/servers/%s/sequences/reset with {\"key\": %q})", len(sc.Sequence.Steps), t.ServerID, key)
	}
	if len(sc.Notifications) > 0 {
		exp.checks += ". The scenario's notifications are not checked: the case asks for a plain JSON reply, which carries the result alone"
	}
	desc := fmt.Sprintf("Generated from scenario %q of tool %q: calls tools/call on the server's MCP endpoint %s, and checks %s.",
		sc.Name, t.Name, what, exp.checks)
	var slow error
	if wait := callWait(sc); time.Duration(wait)*time.Millisecond >= outbound.DefaultTimeout {
		slow = fmt.Errorf("the scenario waits %d ms before it answers, and a test run gives up after %s, so the case would time out",
			wait, outbound.DefaultTimeout)
		if warning == "" {
			warning = slow.Error()
		}
	}
	if warning != "" {
		desc += " Warning: " + warning + "."
	}

	status := http.StatusOK
	c := resttest.Case{
		Name:        name,
		Description: desc,
		BaseURL:     base,
		Scopes:      []resttest.Scope{scope},
		Input: resttest.Input{
			PathParams: map[string]string{"server_id": t.ServerID.String()},
			Headers:    headers,
			Body:       body,
			Expectations: map[string]resttest.Expectation{
				scope.Label(): {ExpectedStatus: &status, Conditions: exp.conds},
			},
		},
	}
	if bodyErr != nil {
		return c, bodyErr
	}
	if exp.err != nil {
		return c, exp.err
	}
	return c, slow
}

// firstStep ends the name of a case made from a sequence scenario.
const firstStep = " (first step)"

// sequenceKey is the sequence key the cases of a tool call with.
func sequenceKey(t design.Tool) string { return "generated-tests-" + t.ID.String() }

// callWait is the wait, in milliseconds, of the call a case makes: every
// notification's delay, then the scenario's, or the first step's for a
// sequence.
func callWait(sc design.Scenario) int {
	wait := sc.DelayMS
	if sc.Sequence != nil && len(sc.Sequence.Steps) > 0 && sc.Sequence.Steps[0].DelayMS != nil {
		wait = *sc.Sequence.Steps[0].DelayMS
	}
	for _, n := range sc.Notifications {
		wait += n.DelayMS
	}
	return wait
}

// expectation is what a case checks of the answer: its conditions, a
// phrase saying what they check, and what could not be expressed.
type expectation struct {
	conds  []resttest.Condition
	checks string
	err    error
}

// expect builds the expectation of a scenario's answer: the response, the
// explicit result or the JSON-RPC error, or for a sequence its first step.
func expect(sc design.Scenario) expectation {
	response, result, rpcErr := sc.Response, sc.Result, sc.Error
	if sc.Sequence != nil {
		if len(sc.Sequence.Steps) == 0 {
			return expectation{conds: []resttest.Condition{{Path: "result", Operation: resttest.OpExists}},
				checks: "status 200 only", err: errors.New("the sequence has no steps")}
		}
		st := sc.Sequence.Steps[0]
		response, result, rpcErr = st.Response, st.Result, st.Error
	}
	switch {
	case rpcErr != nil:
		return errorExpectation(rpcErr)
	case len(result) > 0:
		return resultExpectation(result)
	}
	return responseExpectation(response)
}

// responseExpectation checks the single text item a plain response is
// served as.
func responseExpectation(response json.RawMessage) expectation {
	conds := []resttest.Condition{
		{Path: "result", Operation: resttest.OpIsObject},
		{Path: "result.content[0].type", Operation: resttest.OpEq, Value: json.RawMessage(`"text"`)},
	}
	respConds, whole, err := responseConditions(response)
	checks := "status 200 and a text result whose JSON "
	switch {
	case err != nil:
		checks = "status 200 and a text result (the scenario's response is not valid JSON, so its content is not checked)"
	case whole:
		checks += "is exactly the scenario's response"
	default:
		checks += "has the scenario's response fields (" + strconv.Itoa(len(respConds)) + " field conditions)"
	}
	return expectation{conds: append(conds, respConds...), checks: checks, err: err}
}

// errorExpectation checks the JSON-RPC error a scenario answers, which
// travels with status 200 like a result.
func errorExpectation(e *mockspec.RPCError) expectation {
	conds := []resttest.Condition{
		{Path: "error", Operation: resttest.OpIsObject},
		{Path: "error.code", Operation: resttest.OpEq, Value: json.RawMessage(strconv.Itoa(e.Code))},
		{Path: "error.message", Operation: resttest.OpEq, Value: jsonString(e.Message)},
	}
	checks := fmt.Sprintf("status 200 and the scenario's JSON-RPC error: code %d and its message", e.Code)
	if len(bytes.TrimSpace(e.Data)) > 0 {
		conds = append(conds, resttest.Condition{Path: "error.data", Operation: resttest.OpEq, Value: e.Data})
		checks += " and data"
	}
	return expectation{conds: conds, checks: checks}
}

// maxResultConditions bounds the conditions made from an explicit result,
// well under resttest.MaxConditions.
const maxResultConditions = 60

// resultExpectation checks an explicit result as every protocol version
// serves it: isError when true, and the blocks of its content in order,
// text, image and embedded resource blocks member by member. Audio and
// resource_link blocks are only required to be there, since versions
// before them serve each as a text block saying what it was; likewise
// structuredContent, served only from the revision that brought it, is
// not checked.
func resultExpectation(raw json.RawMessage) expectation {
	var r struct {
		Content []map[string]json.RawMessage `json:"content"`
		IsError bool                         `json:"isError"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return expectation{conds: []resttest.Condition{{Path: "result", Operation: resttest.OpIsObject}},
			checks: "status 200 and a result (the scenario's result cannot be read, so its content is not checked)",
			err:    fmt.Errorf("the scenario's result cannot be read: %w", err)}
	}
	conds := []resttest.Condition{{Path: "result", Operation: resttest.OpIsObject}}
	checks := "status 200 and the scenario's result"
	if r.IsError {
		conds = append(conds, resttest.Condition{Path: "result.isError", Operation: resttest.OpEq, Value: json.RawMessage(`true`)})
		checks += " (isError true)"
	}
	conds = append(conds, resttest.Condition{Path: "result.content", Operation: resttest.OpIsArray})
	checked, loose := 0, 0
	for i, block := range r.Content {
		at := fmt.Sprintf("result.content[%d]", i)
		var typ string
		_ = json.Unmarshal(block["type"], &typ) // a saved block has a string type
		var more []resttest.Condition
		switch typ {
		case "text":
			more = members(at, block, "type", "text")
		case "image":
			more = members(at, block, "type", "mimeType", "data")
		case "resource":
			more = members(at, block, "type", "resource")
		default:
			more = []resttest.Condition{{Path: at, Operation: resttest.OpIsObject}}
			loose++
		}
		if len(conds)+len(more) > maxResultConditions {
			break
		}
		conds = append(conds, more...)
		checked++
	}
	switch {
	case len(r.Content) == 0:
		checks += " with no content blocks"
	case checked == len(r.Content):
		checks += fmt.Sprintf(" with its %d content blocks", checked)
	default:
		checks += fmt.Sprintf(" with the first %d of its %d content blocks", checked, len(r.Content))
	}
	if loose > 0 {
		checks += " (audio and resource_link blocks only for their presence: protocol versions before them serve them as text)"
	}
	checks += "; structuredContent, served from protocol " + protocol.V20250618 + " on, is not checked"
	return expectation{conds: conds, checks: checks}
}

// members makes an eq condition for each member of block given, under at.
func members(at string, block map[string]json.RawMessage, names ...string) []resttest.Condition {
	var out []resttest.Condition
	for _, n := range names {
		if v, ok := block[n]; ok {
			out = append(out, resttest.Condition{Path: at + "." + n, Operation: resttest.OpEq, Value: v})
		}
	}
	return out
}

// jsonString encodes s as a JSON string, leaving <, > and & readable.
func jsonString(s string) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSpace(b.Bytes())
}

// requestBody is the JSON-RPC tools/call request.
func requestBody(tool string, args map[string]any) (json.RawMessage, error) {
	if args == nil {
		args = map[string]any{}
	}
	type params struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	req := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int    `json:"id"`
		Method  string `json:"method"`
		Params  params `json:"params"`
	}{"2.0", 1, "tools/call", params{tool, args}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(req); err != nil {
		// Arguments found here are always encodable; this is a guard.
		req.Params.Arguments = map[string]any{}
		b.Reset()
		_ = enc.Encode(req)
		return bytes.TrimSpace(b.Bytes()), fmt.Errorf("the arguments cannot be encoded as JSON: %w", err)
	}
	return bytes.TrimSpace(b.Bytes()), nil
}

// responseConditions checks the text of the result against the scenario's
// response, which the endpoint serves as its compact JSON: one eq
// condition per leaf of a non-empty object (objects descended into,
// arrays compared whole), or, for any other response, one with more than
// maxFieldConditions leaves, or one whose keys a path cannot spell, a
// single eq condition on the whole text. whole reports the latter.
func responseConditions(response json.RawMessage) (conds []resttest.Condition, whole bool, err error) {
	var compact bytes.Buffer
	if err := json.Compact(&compact, response); err != nil {
		return nil, false, fmt.Errorf("the scenario's response is not valid JSON: %w", err)
	}
	text := compact.Bytes()
	if len(text) > 0 && text[0] == '{' && string(text) != "{}" {
		if leaves, ok := objectLeaves(text, textPath, nil); ok && len(leaves) <= maxFieldConditions {
			return leaves, false, nil
		}
	}
	var value bytes.Buffer
	enc := json.NewEncoder(&value)
	enc.SetEscapeHTML(false) // readable in the stored case; the same string either way
	if err := enc.Encode(compact.String()); err != nil {
		return nil, false, err
	}
	return []resttest.Condition{{Path: textPath, Operation: "eq", Value: bytes.TrimSpace(value.Bytes())}}, true, nil
}

// objectLeaves appends an eq condition for every leaf of the JSON object
// raw, addressed under path. It gives up (false) on a key a dotted path
// cannot spell unambiguously, on a duplicate key, and past
// maxFieldConditions leaves.
func objectLeaves(raw []byte, path string, out []resttest.Condition) ([]resttest.Condition, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		key, _ := tok.(string)
		if !plainKey(key) || seen[key] {
			return nil, false
		}
		seen[key] = true
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		at := path + "." + key
		if len(v) > 0 && v[0] == '{' && string(v) != "{}" {
			var ok bool
			if out, ok = objectLeaves(v, at, out); !ok {
				return nil, false
			}
			continue
		}
		out = append(out, resttest.Condition{Path: at, Operation: "eq", Value: v})
		if len(out) > maxFieldConditions {
			return nil, false
		}
	}
	return out, true
}

// plainKey reports whether a response member name can be one segment of a
// condition path: not empty, without '.', '[' or ']', and not all digits
// (which a path may read as an array index).
func plainKey(k string) bool {
	if k == "" || strings.ContainsAny(k, ".[]") {
		return false
	}
	for _, r := range k {
		if r < '0' || r > '9' {
			return true
		}
	}
	return false
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}
