package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// Content blocks the tests use.
const (
	rmPNG = "iVBORw0KGgo="
	rmWAV = "UklGRg=="
)

// rmJSON decodes a JSON text written in a test.
func rmJSON(t *testing.T, raw string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(raw), &v), raw)
	return v
}

// toolBody is the body creating a tool named "t" with the scenarios sc, a
// comma-separated list of JSON objects.
func toolBody(t *testing.T, sc string) map[string]any {
	t.Helper()
	return map[string]any{"name": "t", "mock_scenarios": rmJSON(t, "["+sc+"]")}
}

// TestRichMockChecks: what the OpenAPI document cannot say about scenarios,
// faults, resources and prompts is refused with 422, every problem named
// by its path in the body, and nothing is stored.
func TestRichMockChecks(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Acme Labs")
	server := mkServer(t, ada, "Weather")
	output := map[string]any{"type": "object", "properties": map[string]any{"temp": map[string]any{"type": "number"}}, "required": []any{"temp"}}

	t.Run("tools", func(t *testing.T) {
		ada := ada.For(t)
		tools := "/api/servers/" + server + "/tools"
		withOutput := func(sc string) map[string]any {
			body := toolBody(t, sc)
			body["output_schema"] = output
			return body
		}
		requireInvalid(t, ada, "POST", tools, []invalidBody{
			{"bad base64", toolBody(t, `{"name":"s","result":{"content":[{"type":"image","data":"not base64","mimeType":"image/png"}]}}`),
				[]string{"mock_scenarios[0].result.content[0].data"}},
			{"image with an audio media type", toolBody(t, `{"name":"s","result":{"content":[{"type":"image","data":"`+rmPNG+`","mimeType":"audio/wav"}]}}`),
				[]string{"mock_scenarios[0].result.content[0].mimeType"}},
			{"unknown block member", toolBody(t, `{"name":"s","result":{"content":[{"type":"text","text":"x","data":"`+rmPNG+`"}]}}`),
				[]string{"mock_scenarios[0].result.content[0].data"}},
			{"resource with text and blob", toolBody(t, `{"name":"s","result":{"content":[{"type":"resource","resource":{"uri":"file:///a","text":"a","blob":"`+rmPNG+`"}}]}}`),
				[]string{"mock_scenarios[0].result.content[0].resource.blob"}},
			{"two answers", toolBody(t, `{"name":"s","response":{},"error":{"code":-32603,"message":"m"}}`),
				[]string{"mock_scenarios[0].error"}},
			{"no answer", toolBody(t, `{"name":"s","delay_ms":5}`),
				[]string{"mock_scenarios[0].response"}},
			{"error code 0", toolBody(t, `{"name":"s","error":{"code":0,"message":"m"}}`),
				[]string{"mock_scenarios[0].error.code"}},
			{"whole wait over 30 s", toolBody(t, `{"name":"s","response":{},"delay_ms":20001,"notifications":[{"type":"progress","progress":1,"delay_ms":10000}]}`),
				[]string{"mock_scenarios[0].delay_ms"}},
			{"delay over 30 s", toolBody(t, `{"name":"s","response":{},"delay_ms":30001}`),
				[]string{"mock_scenarios[0].delay_ms"}},
			{"log without data", toolBody(t, `{"name":"s","response":{},"notifications":[{"type":"log","level":"info"}]}`),
				[]string{"mock_scenarios[0].notifications[0].data"}},
			{"progress with a log level", toolBody(t, `{"name":"s","response":{},"notifications":[{"type":"progress","progress":1,"level":"info"}]}`),
				[]string{"mock_scenarios[0].notifications[0].level"}},
			{"structuredContent missing for an output schema", withOutput(`{"name":"s","result":{"content":[{"type":"text","text":"21"}]}}`),
				[]string{"mock_scenarios[0].result.structuredContent"}},
			{"structuredContent against the output schema", withOutput(`{"name":"s","result":{"content":[],"structuredContent":{"temp":"warm"}}}`),
				[]string{"mock_scenarios[0].result.structuredContent.temp"}},
			{"a sequence step", withOutput(`{"name":"s","sequence":{"steps":[{"response":{"temp":1}},{"result":{"content":[{"type":"audio","data":"@","mimeType":"audio/wav"}]}}]}}`),
				[]string{"mock_scenarios[0].sequence.steps[1].result.content[0].data", "mock_scenarios[0].sequence.steps[1].result.structuredContent"}},
			{"several scenarios at once", toolBody(t, `{"name":"a","response":{}},{"name":"b","result":{"content":[{"type":"image"}]}},{"name":"c","error":{"code":1,"message":" "}}`),
				[]string{"mock_scenarios[1].result.content[0].data", "mock_scenarios[1].result.content[0].mimeType", "mock_scenarios[2].error.message"}},
		})
		require.Equal(t, 0, rowCount(t, env, "mcp_tools", "server_id", server))

		// An output schema added later holds the stored results to it.
		id := mkChild(t, ada, server, "tools", map[string]any{"name": "later", "mock_scenarios": []any{
			rmJSON(t, `{"name":"r","result":{"content":[{"type":"text","text":"x"}]}}`)}})
		ada.Do("PATCH", tools+"/"+id, map[string]any{"output_schema": output}).
			Problem(http.StatusUnprocessableEntity, "mock_scenarios[0].result.structuredContent")
		require.Nil(t, ada.Do("GET", tools+"/"+id, nil).Status(http.StatusOK).Get("output_schema"))
	})

	t.Run("server faults", func(t *testing.T) {
		ada := ada.For(t)
		ada.Do("POST", "/api/servers", map[string]any{"name": "f", "fault": map[string]any{"rate": 0.5, "error": map[string]any{"code": 0, "message": "m"}}}).
			Problem(http.StatusUnprocessableEntity, "fault.error.code")
		ada.Do("POST", "/api/servers", map[string]any{"name": "f", "fault": map[string]any{"rate": 1.5}}).
			Problem(http.StatusUnprocessableEntity, "fault.rate")
		ada.Do("PATCH", "/api/servers/"+server, map[string]any{"fault": map[string]any{"rate": 0.5, "error": map[string]any{"code": -32603, "message": "  "}}}).
			Problem(http.StatusUnprocessableEntity, "fault.error.message")
		require.Nil(t, ada.Do("GET", "/api/servers/"+server, nil).Status(http.StatusOK).Get("fault"))
	})

	t.Run("resources", func(t *testing.T) {
		ada := ada.For(t)
		resources := "/api/servers/" + server + "/resources"
		requireInvalid(t, ada, "POST", resources, []invalidBody{
			{"blob not base64", map[string]any{"name": "r", "uri": "img://logo", "blob": "not base64!"}, []string{"blob"}},
			{"blob URL-safe", map[string]any{"name": "r", "uri": "img://logo", "blob": "-_-_"}, []string{"blob"}},
			{"content and blob", map[string]any{"name": "r", "uri": "img://logo", "blob": rmPNG, "content": "x"}, []string{"blob"}},
			{"completions of no parameter", map[string]any{"name": "r", "uri": "weather://{city}/now", "content": "x",
				"completions": map[string]any{"city": []any{"Paris"}, "country": []any{"FR"}}}, []string{"completions.country"}},
			{"completions on a plain URI", map[string]any{"name": "r", "uri": "docs://guide", "content": "x",
				"completions": map[string]any{"city": []any{"Paris"}}}, []string{"completions"}},
		})
		require.Equal(t, 0, rowCount(t, env, "mcp_resources", "server_id", server))
	})

	t.Run("prompts", func(t *testing.T) {
		ada := ada.For(t)
		prompts := "/api/servers/" + server + "/prompts"
		args := []any{map[string]any{"name": "topic"}}
		message := func(m string) map[string]any {
			return map[string]any{"name": "p", "arguments": args, "messages": []any{rmJSON(t, m)}}
		}
		requireInvalid(t, ada, "POST", prompts, []invalidBody{
			{"text and content", message(`{"role":"user","text":"x","content":{"type":"text","text":"x"}}`),
				[]string{"messages[0]"}},
			{"image with a bad media type", message(`{"role":"user","content":{"type":"image","data":"` + rmPNG + `","mimeType":"png"}}`),
				[]string{"messages[0].content.mimeType"}},
			{"bad base64", message(`{"role":"user","content":{"type":"audio","data":"%%","mimeType":"audio/wav"}}`),
				[]string{"messages[0].content.data"}},
			{"undeclared placeholder in a URI", message(`{"role":"user","content":{"type":"resource","resource":{"uri":"docs://{{topic}}/{{page}}","text":"{{topic}}"}}}`),
				[]string{"messages[0].content.resource.uri"}},
			{"resource link without a name", message(`{"role":"user","content":{"type":"resource_link","uri":"docs://{{topic}}"}}`),
				[]string{"messages[0].content.name"}},
		})
		require.Equal(t, 0, rowCount(t, env, "mcp_prompts", "server_id", server))
	})
}

// TestRichMockRoundTrip: the new answer forms, faults, binary resources,
// completions and content messages are stored and read back as sent.
func TestRichMockRoundTrip(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Acme Labs")

	t.Run("tool scenarios", func(t *testing.T) {
		ada := ada.For(t)
		server := mkServer(t, ada, "Weather")
		tools := "/api/servers/" + server + "/tools"
		scenarios := `[
			{"name":"result","condition":{"city":"Paris"},"result":{"content":[
				{"type":"text","text":"Sunny, 21°C","annotations":{"audience":["user"],"priority":0.8}},
				{"type":"image","data":"` + rmPNG + `","mimeType":"image/png"},
				{"type":"audio","data":"` + rmWAV + `","mimeType":"audio/wav"},
				{"type":"resource","resource":{"uri":"file:///forecast.pdf","mimeType":"application/pdf","blob":"JVBERi0="}},
				{"type":"resource_link","uri":"https://example.com/radar.png","name":"radar","size":2048,"_meta":{"k":"v"}}],
				"structuredContent":{"temp":21},"_meta":{"source":"mock"}}},
			{"name":"failed","condition":{"city":"Oslo"},"result":{"content":[{"type":"text","text":"No data"}],"isError":true}},
			{"name":"error","condition":{"city":"Atlantis"},"error":{"code":-32602,"message":"Unknown city","data":{"city":"Atlantis"}}},
			{"name":"flaky","condition":{"city":"Rome"},"sequence":{"steps":[
				{"error":{"code":-32000,"message":"Busy"},"delay_ms":100},
				{"response":{"temp":25}},
				{"result":{"content":[],"structuredContent":{"temp":26}},"delay_ms":0}],"then":"cycle"}},
			{"name":"slow","response":{"temp":15},"delay_ms":500,"notifications":[
				{"type":"log","level":"warning","logger":"upstream","data":{"msg":"slow"},"delay_ms":100},
				{"type":"progress","progress":1,"total":2,"message":"half","delay_ms":200}]}
		]`
		r := ada.Do("POST", tools, map[string]any{
			"name":           "get_weather",
			"input_schema":   map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}},
			"output_schema":  map[string]any{"type": "object", "properties": map[string]any{"temp": map[string]any{"type": "number"}}, "required": []any{"temp"}},
			"mock_scenarios": rmJSON(t, scenarios),
		}).Status(http.StatusCreated)
		require.JSONEq(t, scenarios, jsonAt(t, r, "mock_scenarios"))
		requireReadBack(t, ada, tools+"/"+r.String("id"), r)

		// The policy rules read the stored answers without asking the
		// result, error and sequence scenarios for a plain response.
		_, raw := mkKey(t, ada, map[string]any{"name": "policy", "bound_server_id": server})
		v := withKey(t, env, "X-API-Key", raw).Do("POST", "/api/platform/"+server+"/mcp/validate", nil).Status(http.StatusOK)
		for i := range v.Len("findings") {
			require.NotEqual(t, "scenario-response-output-schema", v.Get("findings."+strconv.Itoa(i)+".rule"), "%s", v.Raw)
		}
	})

	t.Run("server fault", func(t *testing.T) {
		ada := ada.For(t)
		fault := `{"rate":0.25,"error":{"code":-32000,"message":"Injected","data":[1]},"delay_ms":30000}`
		r := ada.Do("POST", "/api/servers", map[string]any{"name": "Chaos", "fault": rmJSON(t, fault)}).Status(http.StatusCreated)
		require.JSONEq(t, fault, jsonAt(t, r, "fault"))
		path := "/api/servers/" + r.String("id")
		require.JSONEq(t, fault, jsonAt(t, ada.Do("GET", path, nil).Status(http.StatusOK), "fault"))
		r = ada.Do("PATCH", path, map[string]any{"fault": map[string]any{"rate": 1}}).Status(http.StatusOK)
		require.JSONEq(t, `{"rate":1}`, jsonAt(t, r, "fault"))
		r = ada.Do("PATCH", path, map[string]any{"fault": nil}).Status(http.StatusOK)
		require.Nil(t, r.Get("fault"))
		require.Contains(t, r.JSON, "fault")
	})

	t.Run("binary resource and completions", func(t *testing.T) {
		ada := ada.For(t)
		server := mkServer(t, ada, "Files")
		resources := "/api/servers/" + server + "/resources"
		r := ada.Do("POST", resources, map[string]any{"name": "logo", "uri": "img://{name}.png", "mime_type": "image/png", "blob": rmPNG,
			"completions": map[string]any{"name": []any{"logo", "banner"}}}).Status(http.StatusCreated)
		require.Equal(t, rmPNG, r.Get("blob"))
		require.Nil(t, r.Get("content"))
		require.Contains(t, r.JSON, "content")
		require.JSONEq(t, `{"name":["logo","banner"]}`, jsonAt(t, r, "completions"))
		path := resources + "/" + r.String("id")
		require.JSONEq(t, string(r.Raw), string(ada.Do("GET", path, nil).Status(http.StatusOK).Raw))

		// Text content makes it a text resource again, and back.
		r = ada.Do("PATCH", path, map[string]any{"content": "now text"}).Status(http.StatusOK)
		require.Equal(t, "now text", r.Get("content"))
		require.Nil(t, r.Get("blob"))
		r = ada.Do("PATCH", path, map[string]any{"blob": ""}).Status(http.StatusOK)
		require.Equal(t, "", r.Get("blob"))
		require.Nil(t, r.Get("content"))
		ada.Do("PATCH", path, map[string]any{"blob": "YQ"}).Problem(http.StatusUnprocessableEntity, "blob")
	})

	t.Run("prompt with content", func(t *testing.T) {
		ada := ada.For(t)
		server := mkServer(t, ada, "Prompts")
		prompts := "/api/servers/" + server + "/prompts"
		arguments := `[{"name":"topic","description":"What to describe","required":true,"completions":["weather","tides"]}]`
		messages := `[
			{"role":"user","text":"Describe {{topic}}."},
			{"role":"user","content":{"type":"image","data":"` + rmPNG + `","mimeType":"image/png"}},
			{"role":"assistant","content":{"type":"resource","resource":{"uri":"docs://{{topic}}","text":"About {{ topic }}"}}}
		]`
		r := ada.Do("POST", prompts, map[string]any{"name": "describe", "arguments": rmJSON(t, arguments), "messages": rmJSON(t, messages)}).
			Status(http.StatusCreated)
		require.JSONEq(t, arguments, jsonAt(t, r, "arguments"))
		require.JSONEq(t, messages, jsonAt(t, r, "messages"))
		require.JSONEq(t, string(r.Raw), string(ada.Do("GET", prompts+"/"+r.String("id"), nil).Status(http.StatusOK).Raw))
	})
}

// TestGeneratedTestsOfRichMocks: the tests generated from result, error and
// sequence scenarios pass against the served design; a sequence's test
// checks the first step, so it passes again once its key is reset.
func TestGeneratedTestsOfRichMocks(t *testing.T) {
	t.Parallel()
	_, ada := apitest.SignedUp(t, "Acme Labs")
	server := mkServer(t, ada, "Weather")
	scenarios := `[
		{"name":"paris","condition":{"city":"Paris"},"result":{"content":[
			{"type":"text","text":"Sunny"},
			{"type":"image","data":"` + rmPNG + `","mimeType":"image/png"},
			{"type":"audio","data":"` + rmWAV + `","mimeType":"audio/wav"}]}},
		{"name":"atlantis","condition":{"city":"Atlantis"},"error":{"code":-32602,"message":"Unknown city","data":{"city":"Atlantis"}}},
		{"name":"rome","condition":{"city":"Rome"},"sequence":{"steps":[{"error":{"code":-32000,"message":"Busy"}},{"response":{"temp":25}}]}},
		{"name":"fallback","response":{"temp":15}}
	]`
	tool := mkChild(t, ada, server, "tools", map[string]any{"name": "get_weather",
		"input_schema":   map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []any{"city"}},
		"mock_scenarios": rmJSON(t, scenarios)})
	ada.Do("PATCH", "/api/servers/"+server, map[string]any{"enabled": true}).Status(http.StatusOK)

	r := ada.Do("POST", "/api/servers/"+server+"/tools/"+tool+"/generate-tests", nil).Status(http.StatusCreated)
	require.Equal(t, 4, r.Len("items"))
	require.Equal(t, 0, r.Len("warnings"), "%s", r.Raw)
	require.Equal(t, "get_weather: rome (first step)", r.Get("items.2.name"))
	run := func(i int) *apitest.Response {
		return ada.Do("POST", "/api/tests/"+r.String("items."+strconv.Itoa(i)+".id")+"/run", nil).Status(http.StatusCreated)
	}
	for i := range 4 {
		got := run(i)
		require.Equal(t, true, got.Get("passed"), "test %d: %s", i, got.Raw)
	}

	// The second call meets the second step; a reset of the key starts over.
	require.Equal(t, false, run(2).Get("passed"))
	key := r.String("items.2.input.headers.Mcp-Mock-Sequence-Key")
	require.Contains(t, r.String("items.2.description"), key)
	ada.Do("POST", "/api/servers/"+server+"/sequences/reset", map[string]any{"key": key}).Status(http.StatusNoContent)
	require.Equal(t, true, run(2).Get("passed"))
}
