// Package testgen generates REST API test cases from a mock tool's
// scenarios: for each scenario, a case that calls tools/call on the
// server's per-server MCP endpoint with arguments that make that scenario
// the first match, and expects status 200 and the scenario's response.
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
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/resttest"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Generated is one test case made from one scenario, or the reason it could
// not be made faithfully.
type Generated struct {
	Scenario string
	Case     resttest.Case
	// Warning is non-empty when the arguments found do not reach this
	// scenario (an earlier scenario wins, or the schema cannot be
	// satisfied); the case is still returned, and would fail.
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
func FromTool(base string, t store.Tool) []Generated {
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
func buildCase(base string, t store.Tool, sc store.Scenario, args map[string]any, warning string) (resttest.Case, error) {
	scope := resttest.Scope{Method: http.MethodPost, Path: endpointPath}
	body, bodyErr := requestBody(t.Name, args)

	conds := []resttest.Condition{
		{Path: "result", Operation: "isObject"},
		{Path: "result.content[0].type", Operation: "eq", Value: json.RawMessage(`"text"`)},
	}
	respConds, whole, respErr := responseConditions(sc.Response)
	conds = append(conds, respConds...)

	status := http.StatusOK
	checks := "status 200 and a text result whose JSON "
	switch {
	case respErr != nil:
		checks = "status 200 and a text result (the scenario's response is not valid JSON, so its content is not checked)"
	case whole:
		checks += "is exactly the scenario's response"
	default:
		checks += "has the scenario's response fields (" + strconv.Itoa(len(respConds)) + " field conditions)"
	}
	desc := fmt.Sprintf("Generated from scenario %q of tool %q: calls tools/call on the server's MCP endpoint with arguments that make this scenario the first match, and checks %s.",
		sc.Name, t.Name, checks)
	if warning != "" {
		desc += " Warning: " + warning + "."
	}

	c := resttest.Case{
		Name:        truncateRunes(t.Name+": "+sc.Name, maxNameRunes),
		Description: desc,
		BaseURL:     base,
		Scopes:      []resttest.Scope{scope},
		Input: resttest.Input{
			PathParams: map[string]string{"server_id": t.ServerID.String()},
			Headers:    map[string]string{"Accept": "application/json"},
			Body:       body,
			Expectations: map[string]resttest.Expectation{
				scope.Label(): {ExpectedStatus: &status, Conditions: conds},
			},
		},
	}
	if bodyErr != nil {
		return c, bodyErr
	}
	if respErr != nil {
		return c, respErr
	}
	return c, nil
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
