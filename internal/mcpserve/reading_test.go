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
