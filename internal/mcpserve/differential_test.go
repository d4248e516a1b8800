package mcpserve_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"
	oracle "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// FuzzDifferential posts a request body to a design's endpoint, in the
// legacy era (with or without an MCP-Protocol-Version header) or the
// modern one (version, method and name repeated in Mcp-* headers), and
// compares the answer with an oracle written apart from the code under
// test: an exact reading of the JSON (encoding/json's token stream: member
// names decoded and case-sensitive, a repeated member refused, invalid
// UTF-8 a parse error) that decides between -32700, -32600, -32602, a
// header mismatch, or a call of the tool named exactly by params.name with
// exactly the arguments object; and, for a call, the verdict of an
// independent JSON Schema validator on the tool's input schema. Whatever
// the body, every answer is valid UTF-8 JSON.
//
// The oracle follows the endpoint's documented reading where it differs
// from a plain JSON reading; each such place says so.
func FuzzDifferential(f *testing.F) {
	for _, s := range differentialSeeds {
		f.Add(s.era, s.nameHeader, []byte(s.body))
	}
	h, endpoint := differentialEndpoint(f)
	schemas := compileReferenceSchemas(f)
	f.Fuzz(func(t *testing.T, era, nameHeader uint8, body []byte) {
		c := newCallMode(era, nameHeader)
		msg := readMessage(body)
		req := httptest.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		c.setHeaders(req.Header, msg)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		out := w.Body.Bytes()
		if !utf8.Valid(out) || (len(out) > 0 && !json.Valid(out)) {
			t.Fatalf("the answer to %q is not UTF-8 JSON: %q", body, out)
		}
		want := judge(msg, c)
		if want.kind == judgeCall {
			want = schemas.judgeCall(want)
		}
		checkAnswer(t, body, c, want, w.Code, out)
	})
}

// differentialSeed is one corpus seed: the era and Mcp-Name choices (see
// callMode) and the body.
type differentialSeed struct {
	era, nameHeader uint8
	body            string
}

const (
	seedLegacy         = 0 // legacy, with an MCP-Protocol-Version header of a legacy revision
	seedLegacyNoHeader = 1 // legacy, without the header
	seedModern         = 2 // modern: headers of 2026-07-28

	nameAsBody = 0 // Mcp-Name repeats params.name
	nameNoSuch = 1 // Mcp-Name is "nosuch"
	nameAbsent = 2 // no Mcp-Name
)

// modernMetaJSON is the _meta of a modern request, its version named as
// versionName is written.
func modernMetaJSON(versionName string) string {
	return `"_meta":{"` + versionName + `":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
}

// callBody is a tools/call body with id 1 and the members of params given.
func callBody(params string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + params + `}}`
}

// differentialSeeds hold each case the oracle and the endpoint once
// disagreed on, or that the endpoint's documentation names, in both eras
// where the case exists in both.
var differentialSeeds = func() []differentialSeed {
	meta := modernMetaJSON("io.modelcontextprotocol/protocolVersion")
	var seeds []differentialSeed
	both := func(nameHeader uint8, params string) {
		seeds = append(seeds,
			differentialSeed{seedLegacy, nameHeader, callBody(params)},
			differentialSeed{seedModern, nameHeader, callBody(params + "," + meta)})
	}
	// Plain calls of each tool, valid and not.
	both(nameAsBody, `"name":"echo","arguments":{"mark":"M"}`)
	both(nameAsBody, `"name":"echo"`)
	both(nameAsBody, `"name":"echo","arguments":null`)
	both(nameAsBody, `"name":"echo","arguments":[1]`)
	both(nameAsBody, `"name":"strict2020","arguments":{"t":"ok","n":99.5,"tags":["a","b"]}`)
	both(nameAsBody, `"name":"strict2020","arguments":{"t":"","tags":["a","a"]}`)
	both(nameAsBody, `"name":"strict2020","arguments":{"t":"x","extra":1}`)
	both(nameAsBody, `"name":"strict2020","arguments":{"n":100}`)
	both(nameAsBody, `"name":"draft7","arguments":{"a":-1}`)
	both(nameAsBody, `"name":"draft7","arguments":{"s":"\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"}`)
	both(nameAsBody, `"name":"draft7","arguments":{"s":"ééééééééé"}`)
	both(nameAsBody, `"name":"enum7","arguments":{"k":1.0,"rest":"s"}`)
	both(nameAsBody, `"name":"enum7","arguments":{"k":{"a":[1]},"rest":2}`)
	both(nameAsBody, `"name":"nosuch","arguments":{}`)
	both(nameAsBody, `"name":7`)
	both(nameAsBody, `"arguments":{}`)
	both(nameAsBody, `"name":"echo","arguments":`+strings.Repeat(`{"a":`, 100)+`1`+strings.Repeat(`}`, 100))
	both(nameAsBody, `"name":"echo","arguments":`+strings.Repeat(`{"a":`, 99)+`1`+strings.Repeat(`}`, 99))
	// (1) A repeated arguments member, with a 16-digit progress token.
	seeds = append(seeds, differentialSeed{seedLegacy, nameAsBody,
		callBody(`"name":"echo","arguments":{"mark":"M"},"arguments":{"x":1},"_meta":{"progressToken":1234567890123456}`)})
	seeds = append(seeds, differentialSeed{seedModern, nameAsBody, callBody(`"name":"echo","arguments":{"x":1},"arguments":{"mark":"M"},` +
		`"_meta":{"progressToken":1234567890123456,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`)})
	// (2) An argument whose value, or name, is the version's member name:
	// the call stays legacy.
	seeds = append(seeds,
		differentialSeed{seedLegacy, nameAsBody, callBody(`"name":"echo","arguments":{"note":"io.modelcontextprotocol/protocolVersion","mark":"M"}`)},
		differentialSeed{seedLegacyNoHeader, nameAsBody, callBody(`"name":"echo","arguments":{"note":"io.modelcontextprotocol/protocolVersion"}`)},
		differentialSeed{seedLegacy, nameAsBody, callBody(`"name":"echo","arguments":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`)},
	)
	// (3) The version's name escaped in _meta: modern, in either header
	// set (a legacy header then differs from it).
	escaped := modernMetaJSON(`io.modelcontextprotocol\/protocolVersion`)
	seeds = append(seeds,
		differentialSeed{seedModern, nameAsBody, callBody(`"name":"echo",` + escaped)},
		differentialSeed{seedLegacy, nameAsBody, callBody(`"name":"echo",` + escaped)},
		differentialSeed{seedLegacyNoHeader, nameAsBody, callBody(`"name":"echo",` + escaped)},
		differentialSeed{seedModern, nameAsBody, callBody(`"name":"echo",` + modernMetaJSON(`io.modelcontextprotocol\u002fprotocolVersion`))},
		differentialSeed{seedModern, nameAsBody, callBody(`"name":"echo",` + modernMetaJSON(`io.modelcontextprotocol/ProtocolVersion`))},
		differentialSeed{seedModern, nameAsBody, callBody(`"name":"echo",` + meta + `,` + meta)},
	)
	// (4) A name in another case is not the name; the member named
	// exactly is the one called, whatever Mcp-Name says.
	both(nameAsBody, `"Name":"echo"`)
	both(nameAsBody, `"Name":"nosuch","name":"echo"`)
	both(nameNoSuch, `"name":"nosuch","Name":"echo"`)
	both(nameNoSuch, `"name":"echo"`)
	both(nameAbsent, `"name":"echo"`)
	both(nameAsBody, `"n\u0061me":"echo"`)
	both(nameAsBody, `"name":"echo","name":"draft7"`)
	both(nameAsBody, `"name":"ech\u006f","Arguments":{"mark":"M"},"arguments":{}`)
	// (5) Member names in capitals are not the envelope's; invalid UTF-8
	// is a parse error answered in valid JSON.
	for _, era := range []uint8{seedLegacy, seedLegacyNoHeader, seedModern} {
		seeds = append(seeds,
			differentialSeed{era, nameAsBody, `{"JSONRPC":"2.0","ID":18,"METHOD":"ping"}`},
			differentialSeed{era, nameAsBody, "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}"},
			differentialSeed{era, nameAsBody, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"s\":\"\xc3\x28\"}}}"},
			differentialSeed{era, nameAsBody, `{"jsonrpc":"2.0","id":19,"id":20,"method":"ping"}`},
			differentialSeed{era, nameAsBody, `{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"echo"}}`},
			differentialSeed{era, nameAsBody, `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}`},
			differentialSeed{era, nameAsBody, `{"jsonrpc":"2.0","id":"x","method":"tools/call","params":[]}`},
			differentialSeed{era, nameAsBody, `{"jsonrpc":"2.0","id":[1],"method":"tools/call"}`},
			differentialSeed{era, nameAsBody, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`},
			// Not JSON, though it opens like a batch: a parse error, in
			// every protocol version.
			differentialSeed{era, nameAsBody, `[`},
			differentialSeed{era, nameAsBody, ` [{"jsonrpc":"2.0","id":1,"method":"ping"},]`},
			differentialSeed{era, nameAsBody, "[\"\xff\"]"},
			differentialSeed{era, nameAsBody, `"tools/call"`},
			differentialSeed{era, nameAsBody, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}} {}`},
			differentialSeed{era, nameAsBody, ``},
		)
	}
	// (6) Dialects: Draft 7 ignores dependentRequired, 2019-09 ignores
	// dependencies; 2020-12 enforces dependentRequired.
	both(nameAsBody, `"name":"draft7","arguments":{"a":1}`)
	both(nameAsBody, `"name":"dep2019","arguments":{"a":1}`)
	both(nameAsBody, `"name":"strict2020","arguments":{"n":1}`)
	// Numbers and strings as the schema sees them: 1.0 and 1e0 are the
	// integer 1, an integer past 2^53 stays exact, an escape is its
	// character, a lone surrogate one character (U+FFFD).
	both(nameAsBody, `"name":"draft7","arguments":{"a":1.0,"s":"\u0061\ud800\udc00\ud800"}`)
	both(nameAsBody, `"name":"draft7","arguments":{"a":1e2,"s":"\ud800\ud800\ud800\ud800\ud800\ud800\ud800\ud800\ud800"}`)
	both(nameAsBody, `"name":"draft7","arguments":{"a":9007199254740993,"s":"\ud800\ud800\ud800\ud800\ud800\ud800\ud800\ud800"}`)
	both(nameAsBody, `"name":"draft7","arguments":{"a":-0,"b":1.5}`)
	both(nameAsBody, `"name":"enum7","arguments":{"k":1e0,"x":9007199254740993,"y":1.5}`)
	both(nameAsBody, `"name":"strict2020","arguments":{"t":"\u0061","tags":["\u0061","a"]}`)
	both(nameAsBody, `"name":"strict2020","arguments":{"t":"a","n":99.99999999999999999}`)
	// (8) Large limits hold; a number past a float64's range is -32602.
	both(nameAsBody, `"name":"strict2020","arguments":{"t":"`+strings.Repeat("x", 4096)+`"}`)
	both(nameAsBody, `"name":"echo","arguments":{"q":{"z":1e400}}`)
	both(nameAsBody, `"name":"nosuch","arguments":{"q":1e400}`)
	both(nameAsBody, `"name":"echo","arguments":{"q":1e-400,"big":123456789012345678901234567890}`)
	// Members repeated inside the arguments or the progress token: -32602.
	both(nameAsBody, `"name":"echo","arguments":{"mark":"M","mark":"x"}`)
	both(nameAsBody, `"name":"echo","arguments":{"q":[{"a":1,"a":2}]}`)
	for _, token := range []string{`"progressToken":1,"progressToken":1234567890123456`, `"progressToken":{"a":1,"a":2}`} {
		seeds = append(seeds,
			differentialSeed{seedLegacy, nameAsBody, callBody(`"name":"echo","_meta":{` + token + `}`)},
			differentialSeed{seedModern, nameAsBody, callBody(`"name":"echo","_meta":{` + token +
				`,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`)})
	}
	// The modern envelope's own checks.
	seeds = append(seeds,
		differentialSeed{seedModern, nameAsBody, callBody(`"name":"echo"`)},
		differentialSeed{seedModern, nameAsBody, callBody(`"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}`)},
		differentialSeed{seedModern, nameAsBody, callBody(`"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":null,"io.modelcontextprotocol/clientCapabilities":{}}`)},
		differentialSeed{seedModern, nameAsBody, callBody(`"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]}`)},
		differentialSeed{seedModern, nameAsBody, callBody(`"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"loud"}`)},
		differentialSeed{seedModern, nameAsBody, callBody(`"name":"é t",` + meta)},
		differentialSeed{seedModern, nameAsBody, callBody(`"name":" echo",` + meta)},
		differentialSeed{seedLegacy, nameAsBody, callBody(`"name":"echo","_meta":"x"`)},
		differentialSeed{seedLegacy, nameAsBody, callBody(`"name":"echo","_meta":{"progressToken":"t"},"x":1,"x":2`)},
	)
	return seeds
}()

// callMode is how a body is sent: its era's headers, and in the modern era
// what Mcp-Name says.
type callMode struct {
	// modern: the request carries the modern revision's headers; else a
	// legacy one's, sendVersion saying whether MCP-Protocol-Version is sent.
	modern, sendVersion bool
	nameHeader          uint8
}

// batches reports whether the request's protocol version has JSON-RPC
// batches: only a legacy request without MCP-Protocol-Version here.
func (c callMode) batches() bool { return !c.sendVersion }

func newCallMode(era, nameHeader uint8) callMode {
	switch era % 3 {
	case seedModern:
		return callMode{modern: true, sendVersion: true, nameHeader: nameHeader % 3}
	case seedLegacyNoHeader:
		return callMode{}
	}
	return callMode{sendVersion: true}
}

// setHeaders sets the headers of mode c for msg, as the oracle reads it: a
// modern request repeats its method in Mcp-Method and, as c.nameHeader
// says, its name in Mcp-Name (in the base64 form when the name is not
// plain visible ASCII).
func (c callMode) setHeaders(h http.Header, msg message) {
	if !c.modern {
		if c.sendVersion {
			h.Set("Mcp-Protocol-Version", protocol.Latest)
		}
		return
	}
	h.Set("Mcp-Protocol-Version", protocol.Modern)
	method := "tools/call"
	if v := msg.member("method"); v != nil && v.kind == kindString && plainHeaderValue(v.str) {
		method = v.str
	}
	h.Set("Mcp-Method", method)
	switch c.nameHeader {
	case nameNoSuch:
		h.Set("Mcp-Name", "nosuch")
	case nameAsBody:
		name := msg.params().member("name")
		switch {
		case name == nil || name.kind != kindString:
			h.Set("Mcp-Name", "echo")
		case plainHeaderValue(name.str):
			h.Set("Mcp-Name", name.str)
		default:
			h.Set("Mcp-Name", "=?base64?"+base64.StdEncoding.EncodeToString([]byte(name.str))+"?=")
		}
	}
}

// plainHeaderValue reports whether s can be sent as a header value as it
// is: visible ASCII with inner spaces, and not in the base64 form.
func plainHeaderValue(s string) bool {
	if s == "" || s != strings.Trim(s, " \t") || strings.HasPrefix(s, "=?") {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// The tools of the fuzzed design, each answering {"tool": its name,
// "marked": true} when the argument mark is "M", else marked false.
var differentialTools = []struct {
	name, schema string
	// reference is the schema the reference validator checks, when it
	// differs from the tool's.
	reference string
}{
	{name: "echo", schema: `{"type":"object"}`},
	{name: "draft7", schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object",` +
		`"properties":{"a":{"type":"integer","minimum":0},"s":{"type":"string","maxLength":8}},"dependentRequired":{"a":["b"]}}`},
	// The reference validator still applies "dependencies" under 2019-09,
	// which replaced it (dependentRequired, dependentSchemas); the endpoint
	// ignores it there, as documented: the reference checks the schema
	// without it.
	{name: "dep2019", schema: `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object",` +
		`"properties":{"a":{"type":["number","string"]}},"dependencies":{"a":["b"]}}`,
		reference: `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","properties":{"a":{"type":["number","string"]}}}`},
	{name: "strict2020", schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
		`"properties":{"t":{"type":"string","minLength":1,"maxLength":1000000000},"n":{"type":"number","exclusiveMaximum":100},` +
		`"tags":{"type":"array","items":{"type":"string"},"uniqueItems":true,"maxItems":4}},` +
		`"required":["t"],"dependentRequired":{"n":["t"]},"additionalProperties":false}`},
	{name: "enum7", schema: `{"type":"object","properties":{"k":{"enum":["x",1,null,{"a":[1]}]}},` +
		`"additionalProperties":{"type":["string","integer"]},"maxProperties":1000000000}`},
}

// differentialEndpoint is a handler serving the fuzzed design from memory,
// and the design's endpoint path.
func differentialEndpoint(tb testing.TB) (http.Handler, string) {
	tb.Helper()
	id := uuid.New()
	d := design.Design{Server: design.Server{ID: id, OrgID: uuid.New(), Name: "Differential", Version: "1",
		Enabled: true, ProtocolVersion: protocol.Latest}}
	for _, tl := range differentialTools {
		d.Tools = append(d.Tools, design.Tool{ID: uuid.New(), ServerID: id, Name: tl.name, InputSchema: json.RawMessage(tl.schema),
			Scenarios: []design.Scenario{
				{Name: "marked", Condition: json.RawMessage(`{"mark":"M"}`), Response: json.RawMessage(`{"tool":"` + tl.name + `","marked":true}`)},
				{Name: "any", Condition: json.RawMessage(`{}`), Response: json.RawMessage(`{"tool":"` + tl.name + `","marked":false}`)},
			}})
	}
	h := mcpserve.New(memoryDesigns{d}, slog.New(slog.NewTextHandler(io.Discard, nil)), mcpserve.Options{})
	return h, mcpserve.EndpointPath(id)
}

// memoryDesigns serves one design, without a database.
type memoryDesigns struct{ d design.Design }

func (m memoryDesigns) ServedDesign(_ context.Context, id uuid.UUID) (design.Design, error) {
	if id != m.d.Server.ID {
		return design.Design{}, failure.NotFound("server")
	}
	return m.d, nil
}

func (memoryDesigns) ListenDesigns(ctx context.Context, _ func(string), _, _ func(), _ func(error)) {
	<-ctx.Done()
}

// referenceSchemas are the tools' input schemas compiled by the reference
// validator, by tool name.
type referenceSchemas map[string]*oracle.Schema

func compileReferenceSchemas(tb testing.TB) referenceSchemas {
	tb.Helper()
	out := referenceSchemas{}
	for _, tl := range differentialTools {
		text := tl.schema
		if tl.reference != "" {
			text = tl.reference
		}
		doc, err := oracle.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			tb.Fatalf("tool %s: %v", tl.name, err)
		}
		c := oracle.NewCompiler()
		c.DefaultDraft(oracle.Draft7) // the endpoint's dialect when $schema names none
		if err := c.AddResource("mem:///"+tl.name+".json", doc); err != nil {
			tb.Fatalf("tool %s: %v", tl.name, err)
		}
		s, err := c.Compile("mem:///" + tl.name + ".json")
		if err != nil {
			tb.Fatalf("tool %s: %v", tl.name, err)
		}
		out[tl.name] = s
	}
	return out
}

// judgeCall turns the oracle's call of a tool into its answer: an unknown
// tool is not found (-32601 in the legacy era, as the legacy SDKs answer,
// -32602 in the modern one); arguments nested more than 100 levels deep
// are refused (the documented bound, whatever the schema); arguments the
// reference validator refuses are -32602 naming the tool; others are the
// tool's result.
func (rs referenceSchemas) judgeCall(v verdict) verdict {
	s, ok := rs[v.tool]
	if !ok {
		if v.modern {
			return v.fail(-32602, "Tool not found: "+v.tool)
		}
		return v.fail(-32601, "Tool not found: "+v.tool)
	}
	if v.args.depth() > 100 {
		return v.fail(-32602, "nested more than 100 levels deep")
	}
	if err := s.Validate(v.args.instance()); err != nil {
		v = v.fail(-32602, "'"+v.tool+"'")
		v.why = err.Error()
		return v
	}
	return v
}

// checkAnswer compares the endpoint's answer (status, body) with want.
func checkAnswer(t *testing.T, body []byte, c callMode, want verdict, status int, out []byte) {
	t.Helper()
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s\nbody %q (%+v)\noracle: %s\nanswer %d: %s", fmt.Sprintf(format, args...), body, c, want, status, out)
	}
	switch want.kind {
	case judgeSkip:
		return
	case judgeNotification:
		if status != http.StatusAccepted || len(out) != 0 {
			fail("a notification is answered 202 with nothing")
		}
		return
	}
	var r struct {
		ID     json.RawMessage `json:"id"`
		Result *struct {
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
			ResultType string `json:"resultType"`
		} `json:"result"`
		Error *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
			Data    any    `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		fail("the answer is not one JSON-RPC response: %v", err)
	}
	if want.id != nil && !bytes.Equal(r.ID, want.id) {
		fail("the response's id is %s, want %s", r.ID, want.id)
	}
	if want.kind == judgeAnswered {
		if r.Error != nil && (r.Error.Code == -32700 || r.Error.Code == -32600) {
			fail("a well-formed request is answered %d", r.Error.Code)
		}
		return
	}
	if want.kind == judgeError {
		if r.Error == nil || r.Error.Code != want.code {
			fail("want error %d", want.code)
		}
		if said := r.Error.Message + " " + fmt.Sprint(r.Error.Data); !strings.Contains(said, want.mention) {
			fail("the error does not say %q", want.mention)
		}
		return
	}
	// A call of want.tool.
	if r.Result == nil || len(r.Result.Content) != 1 {
		fail("want the result of tool %s", want.tool)
	}
	var got struct {
		Tool   string `json:"tool"`
		Marked bool   `json:"marked"`
	}
	if err := json.Unmarshal([]byte(r.Result.Content[0].Text), &got); err != nil || got.Tool != want.tool || got.Marked != want.args.marked() {
		fail("want tool %s to answer marked=%v", want.tool, want.args.marked())
	}
	if want.modern != (r.Result.ResultType == "complete") {
		fail("the result is not of the request's era (modern %v)", want.modern)
	}
}
