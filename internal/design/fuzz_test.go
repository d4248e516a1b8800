package design_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/pgtext"
)

// The design checks take what the REST API decoded from a request body.
// The fuzz targets below decode arbitrary JSON the same way (bodies that do
// not decode are the API's 400, not the checks' concern) and require that
// a check never panics, answers the same twice, refuses only with a 422
// whose every entry names a field of the object (and says what is wrong),
// and accepts only what PostgreSQL can store: no NUL character, no
// unpaired surrogate escape, no invalid UTF-8.

// FuzzCheckTool checks tools as POST /api/servers/{id}/tools sends them.
func FuzzCheckTool(f *testing.F) {
	for _, s := range []string{
		`{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},` +
			`"mock_scenarios":[{"name":"paris","condition":{"city":"Paris"},"response":{"t":14}},{"name":"any","response":{}}]}`,
		`{"name":"t","output_schema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]},` +
			`"mock_scenarios":[{"name":"ok","result":{"content":[],"structuredContent":{"n":1}}},{"name":"bad","result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"n":"x"}}}]}`,
		`{"name":"t","mock_scenarios":[{"name":"e","error":{"code":-32000,"message":"boom","data":{"x":"\u0000"}}}]}`,
		`{"name":"t","mock_scenarios":[{"name":"s","sequence":{"steps":[{"response":{}},{"error":{"code":1,"message":"m"}},{"result":{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}}],"then":"cycle"}}]}`,
		`{"name":"t","mock_scenarios":[{"name":"n","response":{},"delay_ms":29999,"notifications":[{"type":"progress","progress":1,"total":2,"delay_ms":5},{"type":"log","level":"info","data":"\ud800"}]}]}`,
		`{"name":"t","mock_scenarios":[{"name":"r","condition":{"field":"s","operator":"matches","value":"(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)(?:a|b)"},"response":{}}]}`,
		`{"name":"t","mock_scenarios":[{"name":"r","condition":{"field":"s","operator":"matches","value":"` + strings.Repeat("(?:a|b)", 300) + `"},"response":{}}]}`,
		`{"name":"t","input_schema":{"type":"object","properties":{"s":{"type":"string","pattern":"` + strings.Repeat("(?:a|b)", 300) + `"}}}}`,
		`{"name":"t","input_schema":{"type":"object","patternProperties":{"^(a+)+$":{}}}}`,
		`{"name":"t","input_schema":{"type":"object","properties":{"n":{"maximum":1e999}}}}`,
		`{"name":"t","input_schema":{"type":"object","$ref":"#"}}`,
		`{"name":"t","input_schema":{"type":"object","$ref":"http://169.254.169.254/latest"}}`,
		`{"name":"t","input_schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"a":{"$ref":"#/$defs/a"}}}}`,
		`{"name":"t","input_schema":` + strings.Repeat(`{"type":"object","properties":{"a":`, 60) + `{}` + strings.Repeat(`}}`, 60) + `}`,
		"{\"name\":\"t\",\"input_schema\":{\"type\":\"object\",\"description\":\"\xff\xfe\"}}",
		`{"name":"t\u0000","description":"\u0000","input_schema":{"type":"object","title":"\u0000"}}`,
		`{"name":"t","input_schema":"object","output_schema":[],"mock_scenarios":[{"name":""},{"name":" ","condition":"x","response":1,"result":2}]}`,
		`{"name":"t","mock_scenarios":[{"name":"d","response":{},"delay_ms":-1},{"name":"big","response":{},"delay_ms":9223372036854775807}]}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var b struct {
			Name          string              `json:"name"`
			Description   *string             `json:"description"`
			InputSchema   *json.RawMessage    `json:"input_schema"`
			OutputSchema  json.RawMessage     `json:"output_schema"`
			MockScenarios []mockspec.Scenario `json:"mock_scenarios"`
		}
		if json.Unmarshal(body, &b) != nil {
			return
		}
		tool := design.Tool{Name: b.Name, InputSchema: design.DefaultInputSchema, Scenarios: b.MockScenarios}
		if b.Description != nil {
			tool.Description = *b.Description
		}
		if b.InputSchema != nil {
			tool.InputSchema = *b.InputSchema
		}
		if string(b.OutputSchema) != "null" {
			tool.OutputSchema = b.OutputSchema
		}
		for i := range tool.Scenarios {
			if string(tool.Scenarios[i].Condition) == "null" {
				tool.Scenarios[i].Condition = nil
			}
		}
		err := design.CheckTool(tool)
		checkVerdict(t, err, design.CheckTool(tool), tool, "name", "description", "input_schema", "output_schema", "mock_scenarios")
	})
}

// FuzzCheckResource checks resources as POST /api/servers/{id}/resources
// sends them.
func FuzzCheckResource(f *testing.F) {
	for _, s := range []string{
		`{"name":"guide","uri":"docs://guide","mime_type":"text/markdown","content":"# Guide"}`,
		`{"name":"w","uri":"weather://{city}/now","content":{"t":1},"completions":{"city":["Paris","Oslo"]}}`,
		`{"name":"b","uri":"file:///x.png","mime_type":"image/png","blob":"iVBORw0KGgo="}`,
		`{"name":"b","uri":"file:///x.png","blob":"not base64\n"}`,
		`{"name":"t","uri":"a://{x}{x}","content":"x","completions":{"y":["\u0000"]}}`,
		`{"name":"t","uri":"a://{x","content":null}`,
		`{"name":"t","uri":"no scheme","mime_type":"markdown","content":"\ud800"}`,
		`{"name":"t","uri":"http://[::1","mime_type":";;;","content":{"\u0000":1}}`,
		"{\"name\":\"t\",\"uri\":\"a://b\",\"content\":{\"k\":\"\xff\"}}",
		`{"name":"t","uri":"a://b","content":` + strings.Repeat(`[`, 300) + strings.Repeat(`]`, 300) + `}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var b struct {
			Name        string              `json:"name"`
			URI         string              `json:"uri"`
			Description *string             `json:"description"`
			MimeType    *string             `json:"mime_type"`
			Content     json.RawMessage     `json:"content"`
			Blob        *string             `json:"blob"`
			Completions map[string][]string `json:"completions"`
		}
		if json.Unmarshal(body, &b) != nil {
			return
		}
		r := design.Resource{Name: b.Name, URI: b.URI, MimeType: b.MimeType, Content: b.Content, Completions: b.Completions}
		if b.Description != nil {
			r.Description = *b.Description
		}
		if b.Blob != nil {
			raw, err := json.Marshal(*b.Blob)
			require.NoError(t, err)
			r.Content, r.Binary = raw, true
		}
		err := design.CheckResource(r)
		checkVerdict(t, err, design.CheckResource(r), r, "name", "uri", "description", "mime_type", "content", "blob", "completions")
	})
}

// FuzzCheckPrompt checks prompts as POST /api/servers/{id}/prompts sends
// them.
func FuzzCheckPrompt(f *testing.F) {
	for _, s := range []string{
		`{"name":"greet","arguments":[{"name":"who","required":true,"completions":["Ann"]}],"messages":[{"role":"user","text":"Hello {{who}}"}]}`,
		`{"name":"p","arguments":[{"name":"u"}],"messages":[{"role":"assistant","content":{"type":"resource_link","uri":"docs://{{u}}","name":"n"}}]}`,
		`{"name":"p","messages":[{"role":"system","content":{"type":"image","data":"AA==","mimeType":"image/png"}},{"role":"user","content":{"type":"resource","resource":{"uri":"a://b","text":"{{x}}"}}}]}`,
		`{"name":"p","arguments":[{"name":"a"},{"name":" a "},{"name":""}],"messages":[{"role":"robot","text":"{{ b }}","content":{"type":"text","text":"x"}},{"role":"user"}]}`,
		`{"name":"p","messages":[{"role":"user","content":[]},{"role":"user","content":"x"},{"role":"user","content":{"type":"video"}}]}`,
		`{"name":"p\u0000","arguments":[{"name":"\u0000","description":"\u0000"}],"messages":[{"role":"user","text":"{{\u0000}}"}]}`,
		"{\"name\":\"p\",\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"\xff\"}}]}",
		`{"name":"p","messages":[{"role":"user","content":{"type":"text","text":"\ud800"}}]}`,
		`{"name":"p","messages":[{"role":"user","text":"` + strings.Repeat("{{", 500) + `"}]}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var b struct {
			Name        string                  `json:"name"`
			Description *string                 `json:"description"`
			Arguments   []design.PromptArgument `json:"arguments"`
			Messages    []design.PromptMessage  `json:"messages"`
		}
		if json.Unmarshal(body, &b) != nil {
			return
		}
		p := design.Prompt{Name: b.Name, Arguments: b.Arguments, Messages: b.Messages}
		if b.Description != nil {
			p.Description = *b.Description
		}
		err := design.CheckPrompt(p)
		checkVerdict(t, err, design.CheckPrompt(p), p, "name", "description", "arguments", "messages")
	})
}

// FuzzCheckServer checks servers as POST /api/servers sends them.
func FuzzCheckServer(f *testing.F) {
	for _, s := range []string{
		`{"name":"Weather","version":"1.0.0","provider_url":"https://acme.example"}`,
		`{"name":"W","fault":{"rate":0.5,"delay_ms":100,"error":{"code":-32000,"message":"down","data":[1]}}}`,
		`{"name":"W","fault":{"rate":2,"delay_ms":-5,"error":{"code":0,"message":""}}}`,
		`{"name":" ","provider_url":"ftp://x","provider_name":"\u0000","fault":{"rate":1,"error":{"code":1,"message":"\u0000","data":"\ud800"}}}`,
		"{\"name\":\"W\",\"fault\":{\"rate\":1,\"error\":{\"code\":1,\"message\":\"m\",\"data\":\"\xff\"}}}",
		`{"name":"W","provider_url":"http://good@127.0.0.1/"}`,
		`{}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var b struct {
			Name         string          `json:"name"`
			Description  *string         `json:"description"`
			Version      *string         `json:"version"`
			ProviderName *string         `json:"provider_name"`
			ProviderURL  *string         `json:"provider_url"`
			Fault        *mockspec.Fault `json:"fault"`
		}
		if json.Unmarshal(body, &b) != nil {
			return
		}
		s := design.Server{Name: strings.TrimSpace(b.Name), Version: "1.0.0", ProviderName: b.ProviderName,
			ProviderURL: b.ProviderURL, Fault: b.Fault}
		if b.Description != nil {
			s.Description = *b.Description
		}
		if b.Version != nil {
			s.Version = *b.Version
		}
		err := design.CheckServer(s)
		checkVerdict(t, err, design.CheckServer(s), s, "name", "description", "version", "provider_name", "provider_url", "fault")
	})
}

// checkVerdict requires err to be nil or a 422 whose every entry names one
// of fields (or a path below one) and says what is wrong, again to equal
// err, and an accepted v to be storable.
func checkVerdict(t *testing.T, err, again error, v any, fields ...string) {
	t.Helper()
	require.Equal(t, err, again, "the check answers differently the second time")
	if err != nil {
		f, ok := failure.As(err)
		require.True(t, ok, "not a failure: %v", err)
		require.Equal(t, failure.KindInvalid, f.Kind, "refused with %v", err)
		require.NotEmpty(t, f.Fields, "a refusal that names no field: %v", err)
		for _, fe := range f.Fields {
			require.NotEmpty(t, fe.Message, "field %q has no message", fe.Field)
			top := fe.Field
			if i := strings.IndexAny(top, ".["); i >= 0 {
				top = top[:i]
			}
			require.Contains(t, fields, top, "the refusal names %q, not a field of the object", fe.Field)
		}
		return
	}
	// Everything the store writes, text and JSON alike, in one document:
	// encoding/json escapes a NUL in a string as \u0000.
	doc, mErr := json.Marshal(v)
	require.NoError(t, mErr)
	require.Empty(t, pgtext.JSONBProblem(doc), "accepted what PostgreSQL refuses: %s", doc)
	require.True(t, utf8.Valid(doc), "accepted invalid UTF-8: %q", doc)
}
