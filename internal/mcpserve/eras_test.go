package mcpserve_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// era is a protocol era the requests of a test are sent in: legacy (a
// client of protocol.Latest that initializes first, as the SDKs of those
// revisions do) or modern (every request carries its version and client
// capabilities in _meta, and its method and target in Mcp-* headers).
type era struct {
	name   string
	modern bool
}

// The eras, and those a test of behaviour common to both runs in.
var (
	legacyEra = era{name: "legacy"}
	modernEra = era{name: "modern", modern: true}
	bothEras  = []era{legacyEra, modernEra}
)

// pick is legacy or modern, as the era is.
func (e era) pick(legacy, modern int) int {
	if e.modern {
		return modern
	}
	return legacy
}

// session is a client of one era talking to one endpoint.
type session struct {
	t        *testing.T
	era      era
	endpoint string
	// hdr are headers every request carries (Mcp-Session-Id, when the
	// endpoint gives one).
	hdr http.Header
}

// open begins a session of era e with endpoint: a legacy client
// initializes (and says so) first; a modern one needs nothing before its
// requests.
func (e era) open(t *testing.T, endpoint string) *session {
	t.Helper()
	s := &session{t: t, era: e, endpoint: endpoint, hdr: http.Header{}}
	if e.modern {
		return s
	}
	resp, body := post(t, endpoint, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+
		protocol.Latest+`","capabilities":{},"clientInfo":{"name":"eras","version":"1"}}}`)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	require.Contains(t, body, `"protocolVersion"`)
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		s.hdr.Set("Mcp-Session-Id", id)
	}
	s.hdr.Set(mcptransport.HeaderProtocolVersion, protocol.Latest)
	resp, body = post(t, endpoint, s.hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	require.Equal(t, http.StatusAccepted, resp.StatusCode, body)
	return s
}

// reply is a JSON-RPC response as a test reads it.
type reply struct {
	status int
	raw    string
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// targets are the params members a modern request repeats in Mcp-Name,
// by method.
var targets = map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}

// call sends one request of the session's era and reads its reply.
func (s *session) call(method string, params map[string]any) reply {
	t := s.t
	t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	hdr := s.hdr.Clone()
	if s.era.modern {
		params["_meta"] = map[string]any{mcptransport.MetaProtocolVersion: protocol.Modern,
			mcptransport.MetaClientCapabilities: map[string]any{}}
		hdr.Set(mcptransport.HeaderProtocolVersion, protocol.Modern)
		hdr.Set(mcptransport.HeaderMethod, method)
		if name, ok := params[targets[method]].(string); ok {
			hdr.Set(mcptransport.HeaderName, name)
		}
	}
	resp, body := post(t, s.endpoint, hdr, string(raw(t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})))
	r := reply{status: resp.StatusCode, raw: body}
	require.NoError(t, json.Unmarshal([]byte(body), &r), body)
	if s.era.modern && r.status == http.StatusOK && r.Error == nil {
		require.Contains(t, body, `"resultType":"complete"`, "a modern result says what it is")
		require.Contains(t, body, mcptransport.MetaServerInfo, "a modern result names the server")
	}
	return r
}

// ok requires a result and returns it.
func (r reply) ok(t *testing.T) string {
	t.Helper()
	require.Nil(t, r.Error, r.raw)
	require.Equal(t, http.StatusOK, r.status, r.raw)
	return string(r.Result)
}

// failed requires an error of code whose message holds message.
func (r reply) failed(t *testing.T, code int, message string) {
	t.Helper()
	require.NotNil(t, r.Error, r.raw)
	require.Equal(t, code, r.Error.Code, r.raw)
	require.Contains(t, r.Error.Message, message, r.raw)
}

// TestAnswersInBothEras: tools/call scenarios (results, tool errors,
// scripted errors, sequences), resources, templates, prompts, completions
// and the lists answer a request alike in either era, from a design whose
// answers are shaped alike for both and from one whose modern answers are
// shaped apart. What tells the eras apart is the error for something the
// design lacks.
func TestAnswersInBothEras(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Both eras")
	for _, version := range []string{protocol.Latest, "2025-03-26"} {
		for _, e := range bothEras {
			t.Run(version+"/"+e.name, func(t *testing.T) {
				// A design each: sequences count per design and client.
				id := createDesign(t, owner, richDesign(t, version))
				s := e.open(t, env.URL+"/api/platform/"+id+"/mcp")

				require.Contains(t, s.call("tools/list", nil).ok(t), `"name":"all_content"`)
				require.Contains(t, s.call("resources/list", nil).ok(t), `"uri":"test://static-binary"`)
				require.Contains(t, s.call("resources/templates/list", nil).ok(t), `"uriTemplate":"weather://{city}/now"`)
				require.Contains(t, s.call("prompts/list", nil).ok(t), `"name":"describe"`)

				all := s.call("tools/call", map[string]any{"name": "all_content"}).ok(t)
				require.Contains(t, all, "Here is everything.")
				require.Contains(t, all, `"type":"image"`)
				failing := s.call("tools/call", map[string]any{"name": "failing"}).ok(t)
				require.Contains(t, failing, `"isError":true`)
				require.Contains(t, failing, "The upstream refused the request.")
				scripted := s.call("tools/call", map[string]any{"name": "rpc_error"})
				scripted.failed(t, -32050, "Upstream timeout")
				require.JSONEq(t, `{"retry_after":3}`, string(scripted.Error.Data))

				require.Contains(t, s.call("tools/call", map[string]any{"name": "counter"}).ok(t), `\"n\":1`)
				require.Contains(t, s.call("tools/call", map[string]any{"name": "counter"}).ok(t), `\"n\":2`)
				s.call("tools/call", map[string]any{"name": "counter"}).failed(t, -32001, "third call refused")

				require.Contains(t, s.call("resources/read", map[string]any{"uri": "test://static-binary"}).ok(t), `"blob":`)
				require.Contains(t, s.call("resources/read", map[string]any{"uri": "weather://paris/now"}).ok(t), "Weather in paris")

				got := s.call("prompts/get", map[string]any{"name": "describe", "arguments": map[string]any{"uri": "test://a"}}).ok(t)
				require.Contains(t, got, "Describe test://a.")
				s.call("prompts/get", map[string]any{"name": "describe"}).failed(t, -32602, "missing required argument 'uri'")

				c := s.call("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "weather://{city}/now"},
					"argument": map[string]any{"name": "city", "value": "Par"}}).ok(t)
				require.Contains(t, c, `"values":["Paris","Parma"]`)

				// What the design lacks: a legacy client's SDK answers an
				// unknown tool -32601 and a resource -32002; the modern
				// revision -32602 for both. A prompt is -32602 in both.
				s.call("tools/call", map[string]any{"name": "nope"}).failed(t, e.pick(-32601, -32602), "Tool not found: nope")
				missing := s.call("resources/read", map[string]any{"uri": "nope://x"})
				missing.failed(t, e.pick(-32002, -32602), "Resource not found")
				require.JSONEq(t, `{"uri":"nope://x"}`, string(missing.Error.Data))
				s.call("prompts/get", map[string]any{"name": "nope"}).failed(t, -32602, "Prompt not found: nope")
			})
		}
	}
}

// TestUpstreamInBothEras: a design with an upstream forwards the calls it
// cannot answer in either era (a tool it lacks, a call no scenario
// matched) and answers the others itself, whether its modern answers are
// shaped alike or apart; in record mode every call is the upstream's.
func TestUpstreamInBothEras(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Upstream eras")
	obj := map[string]any{"type": "object"}
	real := createDesign(t, owner, serverDesign{Server: raw(t, map[string]any{"name": "real"}), Enabled: true,
		Tools: []json.RawMessage{
			raw(t, map[string]any{"name": "get_weather", "input_schema": obj,
				"mock_scenarios": []any{map[string]any{"name": "any", "response": map[string]any{"forecast": "upstream rain"}}}}),
			raw(t, map[string]any{"name": "get_tide", "input_schema": obj,
				"mock_scenarios": []any{map[string]any{"name": "any", "response": map[string]any{"tide": "high"}}}}),
		}})
	upstream := env.URL + "/api/platform/" + real + "/mcp"
	proxied := func(version, mode string) string {
		return createDesign(t, owner, serverDesign{Enabled: true,
			Server: raw(t, map[string]any{"name": "proxied", "protocol_version": version,
				"upstream": map[string]any{"url": upstream, "mode": mode}}),
			Tools: []json.RawMessage{raw(t, map[string]any{"name": "get_weather", "input_schema": obj,
				"mock_scenarios": []any{map[string]any{"name": "paris",
					"condition": map[string]any{"field": "city", "operator": "equals", "value": "Paris"},
					"response":  map[string]any{"forecast": "local sun"}}}})}})
	}
	for _, version := range []string{protocol.Latest, "2025-03-26"} {
		fallback, record := proxied(version, "fallback"), proxied(version, "record")
		for _, e := range bothEras {
			t.Run(version+"/"+e.name, func(t *testing.T) {
				s := e.open(t, env.URL+"/api/platform/"+fallback+"/mcp")
				call := func(s *session, tool, city string) string {
					return s.call("tools/call", map[string]any{"name": tool, "arguments": map[string]any{"city": city}}).ok(t)
				}
				require.Contains(t, call(s, "get_tide", ""), "high", "a tool the design lacks is the upstream's")
				require.Contains(t, call(s, "get_weather", "Rome"), "upstream rain", "an unmatched call is the upstream's")
				require.Contains(t, call(s, "get_weather", "Paris"), "local sun", "a matching scenario answers locally")
				r := e.open(t, env.URL+"/api/platform/"+record+"/mcp")
				require.Contains(t, call(r, "get_weather", "Paris"), "upstream rain", "recording: every call is the upstream's")
			})
		}
	}
}

// TestUnsupportedVersionHeader: a Mcp-Protocol-Version header naming no
// revision the design serves (a modern one at a legacy-only design, one
// unknown, one malformed) is HTTP 400 with UnsupportedProtocolVersion
// listing what the design serves, whatever its eras, as the legacy
// transports from 2025-06-18 on require; a legacy revision the design
// serves, or no header (2025-03-26), is answered; a modern design given
// the modern header is modern.
func TestUnsupportedVersionHeader(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Unsupported version")
	legacyVersions := []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}
	for _, tc := range []struct {
		eras      string
		supported []string
	}{
		{"legacy_only", legacyVersions},
		{"modern_and_legacy", append([]string{protocol.Modern}, legacyVersions...)},
		{"modern_only", []string{protocol.Modern}},
	} {
		t.Run(tc.eras, func(t *testing.T) {
			d := richDesign(t, protocol.Latest)
			var server map[string]any
			require.NoError(t, json.Unmarshal(d.Server, &server))
			server["eras"] = tc.eras
			d.Server = raw(t, server)
			endpoint := env.URL + "/api/platform/" + createDesign(t, owner, d) + "/mcp"
			s := &session{t: t, era: legacyEra, endpoint: endpoint, hdr: http.Header{}}
			call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"all_content"}}`
			withVersion := func(v string) http.Header {
				return http.Header{mcptransport.HeaderProtocolVersion: {v}}
			}

			refused := []string{"not-a-version", "1900-01-01", "2099-01-01"}
			if tc.eras == "legacy_only" {
				refused = append(refused, protocol.Modern)
			}
			for _, v := range refused {
				r := s.sendBody(withVersion(v), call)
				require.Equal(t, http.StatusBadRequest, r.status, "%s: %s", v, r.raw)
				r.failed(t, -32022, "not served here")
				require.JSONEq(t, string(raw(t, map[string]any{"supported": tc.supported, "requested": v})), string(r.Error.Data), r.raw)
				require.Contains(t, r.raw, `"id":7`)
			}
			if tc.eras == "legacy_only" {
				// A request naming the modern revision in _meta as well
				// is refused the same way: the design serves no request
				// of that revision.
				r := s.sendBody(withVersion(protocol.Modern),
					`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"all_content",`+modernMeta(mcptransport.MetaProtocolVersion)+`}}`)
				require.Equal(t, http.StatusBadRequest, r.status, r.raw)
				r.failed(t, -32022, "not served here")
			}

			if tc.eras != "modern_only" {
				for _, v := range legacyVersions {
					r := s.sendBody(withVersion(v), call)
					require.Contains(t, r.ok(t), "Here is everything.", v)
				}
				require.Contains(t, s.sendBody(nil, call).ok(t), "Here is everything.", "no header: 2025-03-26")
			}
			if tc.eras != "legacy_only" {
				m := modernEra.open(t, endpoint)
				require.Contains(t, m.call("tools/call", map[string]any{"name": "all_content"}).ok(t), "Here is everything.")
			}
		})
	}
}
