package mcpserve_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// modernMeta is the _meta member of a modern request, as JSON text;
// versionName is how its protocol version's name is written.
func modernMeta(versionName string) string {
	return `"_meta":{"` + versionName + `":"` + protocol.Modern + `","` + mcptransport.MetaClientCapabilities + `":{}}`
}

// sendRaw sends a tools/call of the session's era whose params are the
// JSON text params (a modern one gains its _meta, unless params has one,
// and its headers, Mcp-Name being name), and reads the reply.
func (s *session) sendRaw(name, params string) reply {
	t := s.t
	t.Helper()
	hdr := s.hdr.Clone()
	if s.era.modern {
		if !strings.Contains(params, `"_meta"`) {
			params = "{" + modernMeta(mcptransport.MetaProtocolVersion) + "," + strings.TrimPrefix(params, "{")
		}
		hdr.Set(mcptransport.HeaderProtocolVersion, protocol.Modern)
		hdr.Set(mcptransport.HeaderMethod, "tools/call")
		hdr.Set(mcptransport.HeaderName, name)
	}
	return s.sendBody(hdr, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":`+params+`}`)
}

// sendBody posts body with hdr and reads the reply.
func (s *session) sendBody(hdr http.Header, body string) reply {
	t := s.t
	t.Helper()
	resp, out := post(t, s.endpoint, hdr, body)
	r := reply{status: resp.StatusCode, raw: out}
	require.True(t, json.Valid([]byte(out)), "the reply is not JSON: %q", out)
	require.NoError(t, json.Unmarshal([]byte(out), &r), out)
	return r
}

// TestEraReadFromMeta: a request's era is decided by the members of its
// params._meta (and the version header), never by text elsewhere in
// params, and a member's name is read with its escapes decoded.
func TestEraReadFromMeta(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Era from _meta")
	id := createDesign(t, owner, richDesign(t, protocol.Latest))
	endpoint := env.URL + "/api/platform/" + id + "/mcp"

	legacy := legacyEra.open(t, endpoint)
	note := legacy.sendRaw("all_content", `{"name":"all_content","arguments":{"note":"`+mcptransport.MetaProtocolVersion+`"}}`)
	require.Contains(t, note.ok(t), "Here is everything.", "an argument's value does not make a request modern")
	key := legacy.sendRaw("all_content", `{"name":"all_content","arguments":{"`+mcptransport.MetaProtocolVersion+`":1}}`)
	require.Contains(t, key.ok(t), "Here is everything.", "nor does an argument's name")
	// A repeated _meta is refused whatever the method, read or not.
	for _, method := range []string{"ping", "tools/list", "resources/list"} {
		twice := legacy.sendBody(legacy.hdr, `{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":{"_meta":{},"_meta":{"progressToken":1}}}`)
		twice.failed(t, -32602, "'_meta' appears more than once")
	}

	// A legacy session's request naming a modern version in _meta is
	// modern, however the name is written: its header then differs.
	plain := legacy.sendRaw("all_content", `{"name":"all_content",`+modernMeta(mcptransport.MetaProtocolVersion)+`}`)
	plain.failed(t, -32020, "does not match")
	escaped := legacy.sendRaw("all_content", `{"name":"all_content",`+modernMeta(`io.modelcontextprotocol\/protocolVersion`)+`}`)
	escaped.failed(t, -32020, "does not match")
	require.Equal(t, plain.status, escaped.status)

	modern := modernEra.open(t, endpoint)
	got := modern.sendRaw("all_content", `{"name":"all_content",`+modernMeta(`io.modelcontextprotocol\u002fprotocolVersion`)+`}`)
	require.Contains(t, got.ok(t), "Here is everything.")
	dup := modern.sendRaw("all_content", `{"name":"all_content",`+modernMeta(mcptransport.MetaProtocolVersion)+`,`+
		modernMeta(mcptransport.MetaProtocolVersion)+`}`)
	dup.failed(t, -32602, "'_meta' appears more than once")
}

// TestParamsReadExactly: in either era, the members dispatch reads (name,
// arguments, _meta) are matched exactly and in their case, a repeated one
// is refused naming it, Mcp-Name is checked against the member dispatch
// reads, and the envelope is read the same way: an SDK server's refusal
// is this mock's.
func TestParamsReadExactly(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Exact params")
	id := createDesign(t, owner, richDesign(t, protocol.Latest))
	endpoint := env.URL + "/api/platform/" + id + "/mcp"
	for _, e := range bothEras {
		t.Run(e.name, func(t *testing.T) {
			s := e.open(t, endpoint)
			s.sendRaw("all_content", `{"Name":"all_content"}`).failed(t, -32602, "missing required field 'name'")
			s.sendRaw("all_content", `{"Name":"failing","name":"all_content"}`).ok(t)
			require.Contains(t, s.sendRaw("failing", `{"name":"failing","Name":"all_content"}`).ok(t),
				"The upstream refused the request.", "the member named exactly is the one called")
			s.sendRaw("all_content", `{"name":"all_content","name":"failing"}`).failed(t, -32602, "'name' appears more than once")
			s.sendRaw("all_content", `{"name":"all_content","arguments":{"x":1},"arguments":{"y":2}}`).
				failed(t, -32602, "'arguments' appears more than once")
			s.sendRaw("all_content", `{"name":"all_content","arguments":{"q":{"x":1,"x":2}}}`).
				failed(t, -32602, "'arguments.q.x' appears more than once")
			twoTokens := `"_meta":{"progressToken":"a","progressToken":"b"}`
			if s.era.modern {
				twoTokens = strings.Replace(modernMeta(mcptransport.MetaProtocolVersion), "{", `{"progressToken":"a","progressToken":"b",`, 1)
			}
			s.sendRaw("all_content", `{"name":"all_content",`+twoTokens+`}`).
				failed(t, -32602, "'_meta.progressToken' appears more than once")
			require.Contains(t, s.sendRaw("all_content", `{"n\u0061me":"all_content"}`).ok(t), "Here is everything.")

			capitals := s.sendBody(s.hdr, `{"JSONRPC":"2.0","ID":18,"METHOD":"ping"}`)
			capitals.failed(t, -32600, "")
			twice := s.sendBody(s.hdr, `{"jsonrpc":"2.0","id":19,"id":20,"method":"ping"}`)
			twice.failed(t, -32600, `"id" appears more than once`)
			notUTF8 := s.sendBody(s.hdr, "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}")
			notUTF8.failed(t, -32700, "")
			require.Contains(t, notUTF8.raw, `"id":null`)
		})
	}
}
