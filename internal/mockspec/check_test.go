package mockspec

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// fieldsOf lists the fields of errs in order, requiring a message for each.
func fieldsOf(t *testing.T, errs []failure.FieldError) []string {
	t.Helper()
	var out []string
	for _, e := range errs {
		require.NotEmpty(t, e.Message, "field %s has no message", e.Field)
		require.NotContains(t, e.Message, "%!", "field %s: %s", e.Field, e.Message)
		out = append(out, e.Field)
	}
	return out
}

// parse decodes a scenario written as JSON.
func parse(t *testing.T, raw string) Scenario {
	t.Helper()
	var sc Scenario
	require.NoError(t, json.Unmarshal([]byte(raw), &sc), raw)
	return sc
}

const weatherOutput = `{"type":"object","properties":{"temp":{"type":"number"},"sky":{"type":"string"}},"required":["temp"]}`

func compiled(t *testing.T, raw string) *schema.Schema {
	t.Helper()
	if raw == "" {
		return nil
	}
	s, err := schema.Compile([]byte(raw), schema.RequireObject)
	require.NoError(t, err)
	return s
}

// Content blocks of every type, valid.
const (
	png        = `iVBORw0KGgo=`
	textBlock  = `{"type":"text","text":"It is sunny"}`
	imageBlock = `{"type":"image","data":"` + png + `","mimeType":"image/png"}`
	audioBlock = `{"type":"audio","data":"UklGRg==","mimeType":"audio/wav"}`
	textRes    = `{"type":"resource","resource":{"uri":"file:///notes.txt","mimeType":"text/plain","text":"notes"}}`
	blobRes    = `{"type":"resource","resource":{"uri":"docs://report.pdf","mimeType":"application/pdf","blob":"JVBERi0="}}`
	linkBlock  = `{"type":"resource_link","uri":"https://example.com/a.png","name":"a.png","title":"A","description":"a picture","mimeType":"image/png","size":1024}`
	annotated  = `{"type":"text","text":"x","annotations":{"audience":["user","assistant"],"priority":0.5,"lastModified":"2025-01-12T15:00:58Z"},"_meta":{"k":1}}`
)

// result wraps content blocks in a result.
func result(blocks ...string) string {
	return `{"result":{"content":[` + strings.Join(blocks, ",") + `]}}`
}

// steps makes a sequence of n plain responses.
func steps(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf(`{"response":{"n":%d}}`, i)
	}
	return `{"sequence":{"steps":[` + strings.Join(s, ",") + `]}}`
}

// notes makes n log notifications.
func notes(n int) string {
	s := make([]string, n)
	for i := range s {
		s[i] = `{"type":"log","level":"info","data":"x"}`
	}
	return `{"response":{},"notifications":[` + strings.Join(s, ",") + `]}`
}

func TestCheckScenarioValid(t *testing.T) {
	for _, tc := range []struct {
		name, scenario, output string
	}{
		{"plain response", `{"response":{"temp":21}}`, ""},
		{"empty response", `{"response":{}}`, ""},
		// A plain response is not held to the output schema (see CheckScenario).
		{"plain response against an output schema", `{"response":{"temp":"hot"}}`, weatherOutput},
		{"text", result(textBlock), ""},
		{"image", result(imageBlock), ""},
		{"audio", result(audioBlock), ""},
		{"text resource", result(textRes), ""},
		{"blob resource", result(blobRes), ""},
		{"empty blob", result(`{"type":"resource","resource":{"uri":"file:///empty","blob":""}}`), ""},
		{"resource with _meta", result(`{"type":"resource","resource":{"uri":"file:///a","text":"","_meta":{}}}`), ""},
		{"resource link", result(linkBlock), ""},
		{"minimal resource link", result(`{"type":"resource_link","uri":"urn:isbn:0451450523","name":"book"}`), ""},
		{"resource link of size 0", result(`{"type":"resource_link","uri":"file:///a","name":"a","size":0}`), ""},
		{"annotations and _meta", result(annotated), ""},
		{"empty annotations", result(`{"type":"text","text":"x","annotations":{}}`), ""},
		{"every type at once", result(textBlock, imageBlock, audioBlock, textRes, blobRes, linkBlock, annotated), ""},
		{"media type with parameters", result(`{"type":"audio","data":"UklGRg==","mimeType":"audio/ogg; codecs=opus"}`), ""},
		{"media type in capitals", result(`{"type":"image","data":"` + png + `","mimeType":"Image/PNG"}`), ""},
		{"isError and _meta", `{"result":{"content":[` + textBlock + `],"isError":true,"_meta":{"trace":"t"}}}`, ""},
		{"structuredContent without an output schema", `{"result":{"content":[],"structuredContent":{"any":1}}}`, ""},
		{"structuredContent satisfying the output schema", `{"result":{"content":[` + textBlock + `],"structuredContent":{"temp":21.5,"sky":"clear"}}}`, weatherOutput},
		{"error result without structuredContent", `{"result":{"content":[` + textBlock + `],"isError":true}}`, weatherOutput},
		{"exactly 100 blocks", result(strings.TrimSuffix(strings.Repeat(textBlock+",", MaxContentBlocks), ",")), ""},
		{"error", `{"error":{"code":-32603,"message":"Internal error","data":{"retry":true}}}`, ""},
		{"error with a positive code", `{"error":{"code":42,"message":"The answer"}}`, ""},
		{"error with invalid params code", `{"error":{"code":-32602,"message":"Invalid params"}}`, ""},
		{"error message of 2000 characters", `{"error":{"code":1,"message":"` + strings.Repeat("é", MaxErrorMessage) + `"}}`, ""},
		{"sequence of one", steps(1), ""},
		{"sequence of 100", steps(MaxSteps), ""},
		{"sequence of every form", `{"sequence":{"steps":[{"response":{"a":1}},{"result":` + `{"content":[` + imageBlock + `],"structuredContent":{"temp":1}}` +
			`,"delay_ms":30000},{"error":{"code":-32000,"message":"busy"},"delay_ms":0}],"then":"cycle"}}`, weatherOutput},
		{"then repeat_last", `{"sequence":{"steps":[{"response":{}}],"then":"repeat_last"}}`, ""},
		{"delay of 30000", `{"response":{},"delay_ms":30000}`, ""},
		{"delay of 0", `{"response":{},"delay_ms":0}`, ""},
		{"log notification", `{"response":{},"notifications":[{"type":"log","level":"emergency","logger":"db","data":{"msg":"down"},"delay_ms":100}]}`, ""},
		{"log with null data", `{"response":{},"notifications":[{"type":"log","level":"debug","data":null}]}`, ""},
		{"every log level", `{"response":{},"notifications":[` + strings.TrimSuffix(strings.Repeat(`{"type":"log","level":"LEVEL","data":1},`, 8), ",") + `]}`, ""},
		{"progress notification", `{"response":{},"notifications":[{"type":"progress","progress":0},{"type":"progress","progress":50,"total":50,"message":"done"}]}`, ""},
		{"100 notifications", notes(MaxNotifications), ""},
		{"broadcast every kind", `{"response":{},"broadcast":["tools_list_changed","prompts_list_changed","resources_list_changed"]}`, ""},
		{"broadcast none", `{"response":{},"broadcast":[]}`, ""},
		{"whole wait of exactly 30000", `{"response":{},"delay_ms":10000,"notifications":[{"type":"progress","progress":1,"delay_ms":20000}]}`, ""},
		// Every step replaces the scenario's delay, so it is never waited.
		{"step delays replace the scenario's", `{"sequence":{"steps":[{"response":{},"delay_ms":0},{"response":{},"delay_ms":20000}]},"delay_ms":30000,` +
			`"notifications":[{"type":"log","level":"info","data":1,"delay_ms":10000}]}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := tc.scenario
			if tc.name == "every log level" {
				for _, l := range LogLevels {
					raw = strings.Replace(raw, "LEVEL", l, 1)
				}
			}
			require.Empty(t, fieldsOf(t, CheckScenario(parse(t, raw), compiled(t, tc.output))))
		})
	}
}

func TestCheckScenarioInvalid(t *testing.T) {
	for _, tc := range []struct {
		name, scenario, output string
		fields                 []string
		message                string // a fragment of the first message, when set
	}{
		// The answer forms.
		{"no answer", `{"name":"s"}`, "", []string{"response"}, "response (a JSON object, answered as text), result (an MCP tool result), error (a JSON-RPC error) or sequence"},
		{"response and result", `{"response":{},"result":{"content":[` + textBlock + `]}}`, "", []string{"result"}, "only one of response, result, error and sequence"},
		{"three forms", `{"response":{},"error":{"code":1,"message":"m"},"sequence":{"steps":[{"response":{}}]}}`, "", []string{"error", "sequence"}, "also has response"},
		{"response an array", `{"response":[1]}`, "", []string{"response"}, "JSON object"},
		{"response null", `{"response":null}`, "", []string{"response"}, "JSON object"},

		// Results.
		{"result an array", `{"result":[]}`, "", []string{"result"}, "MCP tool result"},
		{"result without content", `{"result":{"isError":true}}`, "", []string{"result.content"}, "is required"},
		{"content not a list", `{"result":{"content":{"type":"text","text":"x"}}}`, "", []string{"result.content"}, "an object"},
		{"content empty", `{"result":{"content":[]}}`, "", []string{"result.content"}, "structuredContent"},
		{"101 blocks", result(strings.TrimSuffix(strings.Repeat(textBlock+",", MaxContentBlocks+1), ",")), "", []string{"result.content"}, "at most 100"},
		{"isError a string", `{"result":{"content":[` + textBlock + `],"isError":"yes"}}`, "", []string{"result.isError"}, "true or false"},
		{"structuredContent an array", `{"result":{"content":[],"structuredContent":[1]}}`, "", []string{"result.structuredContent"}, "JSON object"},
		{"structuredContent of the wrong type", `{"result":{"content":[],"structuredContent":{"temp":"hot"}}}`, weatherOutput,
			[]string{"result.structuredContent.temp"}, "output schema"},
		{"structuredContent missing a property", `{"result":{"content":[],"structuredContent":{"sky":"clear"}}}`, weatherOutput,
			[]string{"result.structuredContent.temp"}, "output schema"},
		{"structuredContent required by the output schema", result(textBlock), weatherOutput, []string{"result.structuredContent"}, "2025-06-18"},
		{"structuredContent required unless isError", `{"result":{"content":[` + textBlock + `],"isError":false}}`, weatherOutput,
			[]string{"result.structuredContent"}, "isError"},
		{"_meta a string", `{"result":{"content":[` + textBlock + `],"_meta":"m"}}`, "", []string{"result._meta"}, "JSON object"},
		{"unknown result members", `{"result":{"content":[` + textBlock + `],"structured":{},"error":1}}`, "",
			[]string{"result.error", "result.structured"}, `unknown member "error"`},

		// Content blocks.
		{"block a string", result(`"hello"`), "", []string{"result.content[0]"}, "text, image, audio, resource or resource_link"},
		{"block without type", result(`{"text":"x"}`), "", []string{"result.content[0].type"}, "is required"},
		{"unknown block type", result(`{"type":"video","data":"x"}`), "", []string{"result.content[0].type"},
			`unknown content type "video": want text, image, audio, resource or resource_link`},
		{"text without text", result(`{"type":"text"}`), "", []string{"result.content[0].text"}, "is required"},
		{"text a number", result(`{"type":"text","text":5}`), "", []string{"result.content[0].text"}, "a number"},
		{"unknown block key", result(`{"type":"text","text":"x","mimeType":"text/plain"}`), "", []string{"result.content[0].mimeType"},
			`unknown member "mimeType": a text block has type, annotations, _meta and text`},
		{"bad base64", result(`{"type":"image","data":"not base64!","mimeType":"image/png"}`), "", []string{"result.content[0].data"}, "base64"},
		{"URL-safe base64", result(`{"type":"image","data":"ab-_","mimeType":"image/png"}`), "", []string{"result.content[0].data"}, "standard alphabet"},
		{"unpadded base64", result(`{"type":"image","data":"YQ","mimeType":"image/png"}`), "", []string{"result.content[0].data"}, "padded"},
		{"base64 with a line break", result(`{"type":"image","data":"YWJj\nZGVm","mimeType":"image/png"}`), "", []string{"result.content[0].data"}, "line breaks"},
		{"empty image data", result(`{"type":"image","data":"","mimeType":"image/png"}`), "", []string{"result.content[0].data"}, "empty"},
		{"image without data or type", result(`{"type":"image"}`), "", []string{"result.content[0].data", "result.content[0].mimeType"}, "is required"},
		{"image with audio/wav", result(`{"type":"image","data":"` + png + `","mimeType":"audio/wav"}`), "", []string{"result.content[0].mimeType"},
			`must be an image media type, such as image/png, got "audio/wav"`},
		{"audio with image/png", result(`{"type":"audio","data":"` + png + `","mimeType":"image/png"}`), "", []string{"result.content[0].mimeType"}, "audio media type"},
		{"media type without subtype", result(`{"type":"image","data":"` + png + `","mimeType":"png"}`), "", []string{"result.content[0].mimeType"}, "type/subtype"},
		{"resource without resource", result(`{"type":"resource"}`), "", []string{"result.content[0].resource"}, "is required"},
		{"resource a string", result(`{"type":"resource","resource":"file:///a"}`), "", []string{"result.content[0].resource"}, "a string"},
		{"resource without uri", result(`{"type":"resource","resource":{"text":"x"}}`), "", []string{"result.content[0].resource.uri"}, "is required"},
		{"resource with a relative uri", result(`{"type":"resource","resource":{"uri":"notes.txt","text":"x"}}`), "", []string{"result.content[0].resource.uri"}, "absolute URI"},
		{"resource uri with a space", result(`{"type":"resource","resource":{"uri":"file:///my notes","text":"x"}}`), "", []string{"result.content[0].resource.uri"}, "white space"},
		{"resource with text and blob", result(`{"type":"resource","resource":{"uri":"file:///a","text":"x","blob":"` + png + `"}}`), "",
			[]string{"result.content[0].resource.blob"}, "not both"},
		{"resource without text or blob", result(`{"type":"resource","resource":{"uri":"file:///a"}}`), "", []string{"result.content[0].resource.text"}, "blob"},
		{"resource with a bad blob", result(`{"type":"resource","resource":{"uri":"file:///a","blob":"%%%"}}`), "", []string{"result.content[0].resource.blob"}, "base64"},
		{"resource with a bad media type", result(`{"type":"resource","resource":{"uri":"file:///a","text":"x","mimeType":"text"}}`), "",
			[]string{"result.content[0].resource.mimeType"}, "type/subtype"},
		{"resource with an unknown key", result(`{"type":"resource","resource":{"uri":"file:///a","text":"x","name":"a"}}`), "",
			[]string{"result.content[0].resource.name"}, `unknown member "name"`},
		{"resource link without uri and name", result(`{"type":"resource_link"}`), "", []string{"result.content[0].uri", "result.content[0].name"}, "is required"},
		{"resource link with a blank name", result(`{"type":"resource_link","uri":"file:///a","name":" "}`), "", []string{"result.content[0].name"}, "blank"},
		{"resource link with a template uri", result(`{"type":"resource_link","uri":"docs://{{topic}}","name":"a"}`), "", []string{"result.content[0].uri"}, "not a valid URI"},
		{"negative size", result(`{"type":"resource_link","uri":"file:///a","name":"a","size":-1}`), "", []string{"result.content[0].size"}, "0 or more"},
		{"fractional size", result(`{"type":"resource_link","uri":"file:///a","name":"a","size":1.5}`), "", []string{"result.content[0].size"}, "whole number"},
		{"size a string", result(`{"type":"resource_link","uri":"file:///a","name":"a","size":"1"}`), "", []string{"result.content[0].size"}, "whole number"},
		{"title a number", result(`{"type":"resource_link","uri":"file:///a","name":"a","title":1}`), "", []string{"result.content[0].title"}, "a string"},
		{"annotations a list", result(`{"type":"text","text":"x","annotations":[]}`), "", []string{"result.content[0].annotations"}, "an array"},
		{"audience of a bot", result(`{"type":"text","text":"x","annotations":{"audience":["user","bot"]}}`), "",
			[]string{"result.content[0].annotations.audience[1]"}, `"user" or "assistant"`},
		{"audience a string", result(`{"type":"text","text":"x","annotations":{"audience":"user"}}`), "", []string{"result.content[0].annotations.audience"}, "a list"},
		{"priority above 1", result(`{"type":"text","text":"x","annotations":{"priority":1.1}}`), "", []string{"result.content[0].annotations.priority"}, "0"},
		{"priority below 0", result(`{"type":"text","text":"x","annotations":{"priority":-0.1}}`), "", []string{"result.content[0].annotations.priority"}, "0"},
		{"lastModified a number", result(`{"type":"text","text":"x","annotations":{"lastModified":1}}`), "", []string{"result.content[0].annotations.lastModified"}, "a string"},
		{"unknown annotation", result(`{"type":"text","text":"x","annotations":{"color":"red"}}`), "", []string{"result.content[0].annotations.color"}, `unknown member "color"`},
		{"block _meta a list", result(`{"type":"text","text":"x","_meta":[]}`), "", []string{"result.content[0]._meta"}, "JSON object"},
		{"problems in several blocks", result(textBlock, `{"type":"image","data":"x","mimeType":"image/png"}`, `{"type":"text"}`), "",
			[]string{"result.content[1].data", "result.content[2].text"}, "base64"},

		// Errors.
		{"error code 0", `{"error":{"code":0,"message":"m"}}`, "", []string{"error.code"}, "non-zero"},
		{"error without code", `{"error":{"message":"m"}}`, "", []string{"error.code"}, "non-zero"},
		{"blank error message", `{"error":{"code":-32603,"message":" "}}`, "", []string{"error.message"}, "blank"},
		{"error message of 2001 characters", `{"error":{"code":-32603,"message":"` + strings.Repeat("é", MaxErrorMessage+1) + `"}}`, "",
			[]string{"error.message"}, "at most 2000 characters, got 2001"},

		// Sequences.
		{"sequence without steps", `{"sequence":{"steps":[]}}`, "", []string{"sequence.steps"}, "at least one"},
		{"sequence of 101", steps(MaxSteps + 1), "", []string{"sequence.steps"}, "at most 100 steps, got 101"},
		{"step without answer", `{"sequence":{"steps":[{"response":{}},{"delay_ms":5}]}}`, "", []string{"sequence.steps[1].response"},
			"response (a JSON object, answered as text), result (an MCP tool result) or error (a JSON-RPC error)"},
		{"step with two answers", `{"sequence":{"steps":[{"response":{},"error":{"code":1,"message":"m"}}]}}`, "", []string{"sequence.steps[0].error"},
			"only one of response, result and error may be given, and this step also has response"},
		{"step with a bad result", `{"sequence":{"steps":[{"response":{}},{"response":{}},{"result":{"content":[{"type":"image","data":"@@","mimeType":"image/png"}]}}]}}`, "",
			[]string{"sequence.steps[2].result.content[0].data"}, "base64"},
		{"step with a bad error", `{"sequence":{"steps":[{"error":{"code":0,"message":""}}]}}`, "",
			[]string{"sequence.steps[0].error.code", "sequence.steps[0].error.message"}, "non-zero"},
		{"step result without structuredContent", `{"sequence":{"steps":[{"result":{"content":[` + textBlock + `]}}]}}`, weatherOutput,
			[]string{"sequence.steps[0].result.structuredContent"}, "output schema"},
		{"step response not an object", `{"sequence":{"steps":[{"response":"x"}]}}`, "", []string{"sequence.steps[0].response"}, "JSON object"},
		{"step delay of 30001", `{"sequence":{"steps":[{"response":{},"delay_ms":30001}]}}`, "", []string{"sequence.steps[0].delay_ms"}, "0 to 30000"},
		{"negative step delay", `{"sequence":{"steps":[{"response":{},"delay_ms":-1}]}}`, "", []string{"sequence.steps[0].delay_ms"}, "got -1"},
		{"unknown then", `{"sequence":{"steps":[{"response":{}}],"then":"loop"}}`, "", []string{"sequence.then"}, "repeat_last"},

		// Delays.
		{"delay of 30001", `{"response":{},"delay_ms":30001}`, "", []string{"delay_ms"}, "from 0 to 30000 (milliseconds), got 30001"},
		{"negative delay", `{"response":{},"delay_ms":-1}`, "", []string{"delay_ms"}, "got -1"},
		{"whole wait of 30001", `{"response":{},"delay_ms":10001,"notifications":[{"type":"log","level":"info","data":1,"delay_ms":15000},` +
			`{"type":"progress","progress":1,"delay_ms":5000}]}`, "", []string{"delay_ms"}, "30001 ms in all (20000 ms of notification delays and 10001 ms of delay_ms)"},
		{"whole wait with the slowest step", `{"sequence":{"steps":[{"response":{}},{"response":{},"delay_ms":25000}]},"delay_ms":1000,` +
			`"notifications":[{"type":"log","level":"info","data":1,"delay_ms":5001}]}`, "", []string{"delay_ms"}, "sequence.steps[1].delay_ms"},
		{"whole wait with the scenario's delay for a step", `{"sequence":{"steps":[{"response":{},"delay_ms":0},{"response":{}}]},"delay_ms":25000,` +
			`"notifications":[{"type":"log","level":"info","data":1,"delay_ms":5001}]}`, "", []string{"delay_ms"}, "25000 ms of delay_ms"},
		// A delay out of bounds is reported once, not again as a whole wait.
		{"a wait out of bounds is not added up", `{"response":{},"delay_ms":30001,"notifications":[{"type":"log","level":"info","data":1,"delay_ms":30001}]}`, "",
			[]string{"delay_ms", "notifications[0].delay_ms"}, "got 30001"},

		// Notifications.
		{"101 notifications", notes(MaxNotifications + 1), "", []string{"notifications"}, "at most 100 notifications, got 101"},
		{"notification without type", `{"response":{},"notifications":[{"level":"info","data":1}]}`, "", []string{"notifications[0].type"}, "log or progress"},
		{"unknown notification type", `{"response":{},"notifications":[{"type":"alert"}]}`, "", []string{"notifications[0].type"}, `"alert"`},
		{"log without level", `{"response":{},"notifications":[{"type":"log","data":1}]}`, "", []string{"notifications[0].level"},
			"debug, info, notice, warning, error, critical, alert or emergency"},
		{"unknown level", `{"response":{},"notifications":[{"type":"log","level":"verbose","data":1}]}`, "", []string{"notifications[0].level"}, `"verbose"`},
		{"log without data", `{"response":{},"notifications":[{"type":"log","level":"info"}]}`, "", []string{"notifications[0].data"}, "is required"},
		{"progress fields on a log", `{"response":{},"notifications":[{"type":"log","level":"info","data":1,"progress":1,"total":2,"message":"m"}]}`, "",
			[]string{"notifications[0].progress", "notifications[0].total", "notifications[0].message"}, "belongs to progress notifications"},
		{"progress without progress", `{"response":{},"notifications":[{"type":"progress","total":5}]}`, "", []string{"notifications[0].progress"}, "is required"},
		{"negative progress", `{"response":{},"notifications":[{"type":"progress","progress":-1}]}`, "", []string{"notifications[0].progress"}, "0 or more"},
		{"total below progress", `{"response":{},"notifications":[{"type":"progress","progress":5,"total":4}]}`, "", []string{"notifications[0].total"}, "at least progress"},
		{"negative total", `{"response":{},"notifications":[{"type":"progress","progress":0,"total":-1}]}`, "", []string{"notifications[0].total"}, "0 or more"},
		{"log fields on a progress", `{"response":{},"notifications":[{"type":"progress","progress":1,"level":"info","logger":"l","data":1}]}`, "",
			[]string{"notifications[0].level", "notifications[0].logger", "notifications[0].data"}, "belongs to log notifications"},
		{"notification delay of 30001", `{"response":{},"notifications":[{"type":"progress","progress":1,"delay_ms":30001}]}`, "",
			[]string{"notifications[0].delay_ms"}, "got 30001"},

		{"broadcast of an unknown kind", `{"response":{},"broadcast":["tools_changed"]}`, "", []string{"broadcast[0]"},
			`unknown kind "tools_changed": want tools_list_changed, prompts_list_changed or resources_list_changed`},
		{"broadcast of a kind twice", `{"response":{},"broadcast":["prompts_list_changed","tools_list_changed","prompts_list_changed"]}`, "",
			[]string{"broadcast[2]"}, "listed twice"},
		{"broadcast of four kinds", `{"response":{},"broadcast":["tools_list_changed","prompts_list_changed","resources_list_changed","tools_list_changed"]}`, "",
			[]string{"broadcast", "broadcast[3]"}, "at most 3 kinds"},

		{"everything at once, in order", `{"response":[],"result":{"content":[{"type":"text"}]},"delay_ms":-5,` +
			`"notifications":[{"type":"log"}]}`, weatherOutput,
			[]string{"result", "response", "result.content[0].text", "result.structuredContent", "delay_ms",
				"notifications[0].level", "notifications[0].data"}, "only one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := CheckScenario(parse(t, tc.scenario), compiled(t, tc.output))
			require.Equal(t, tc.fields, fieldsOf(t, errs))
			if tc.message != "" {
				require.Contains(t, errs[0].Message, tc.message)
			}
		})
	}
}

func TestCheckFault(t *testing.T) {
	require.Nil(t, CheckFault(nil))
	for _, tc := range []struct {
		name   string
		fault  Fault
		fields []string
	}{
		{"rate 0", Fault{}, nil},
		{"rate 1 with everything", Fault{Rate: 1, Error: &RPCError{Code: -32000, Message: "Overloaded", Data: json.RawMessage(`{"a":1}`)}, DelayMS: MaxDelayMS}, nil},
		{"only a delay", Fault{Rate: 0.1, DelayMS: 500}, nil},
		{"rate above 1", Fault{Rate: 1.01}, []string{"rate"}},
		{"negative rate", Fault{Rate: -0.1}, []string{"rate"}},
		{"error code 0", Fault{Rate: 0.5, Error: &RPCError{Message: "m"}}, []string{"error.code"}},
		{"blank error message", Fault{Rate: 0.5, Error: &RPCError{Code: -32603}}, []string{"error.message"}},
		{"error message too long", Fault{Rate: 0.5, Error: &RPCError{Code: -32603, Message: strings.Repeat("x", MaxErrorMessage+1)}}, []string{"error.message"}},
		{"delay of 30001", Fault{Rate: 0.5, DelayMS: MaxDelayMS + 1}, []string{"delay_ms"}},
		{"negative delay", Fault{Rate: 0.5, DelayMS: -1}, []string{"delay_ms"}},
		{"everything at once", Fault{Rate: 2, Error: &RPCError{}, DelayMS: -1}, []string{"rate", "error.code", "error.message", "delay_ms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.fault
			require.Equal(t, tc.fields, fieldsOf(t, CheckFault(&f)))
		})
	}
}

func TestCheckContent(t *testing.T) {
	for _, tc := range []struct {
		name, block string
		fields      []string
	}{
		{"text", textBlock, nil},
		{"image", imageBlock, nil},
		{"audio", audioBlock, nil},
		{"text resource", textRes, nil},
		{"blob resource", blobRes, nil},
		{"resource link", linkBlock, nil},
		{"annotated", annotated, nil},
		// prompts/get fills placeholders in before the URI is read.
		{"placeholders in uris", `{"type":"resource","resource":{"uri":"docs://{{topic}}/{{ page }}","text":"About {{topic}}"}}`, nil},
		{"placeholder in a link", `{"type":"resource_link","uri":"https://{{host}}/a","name":"{{name}}"}`, nil},
		{"not an object", `[]`, []string{""}},
		{"null", `null`, []string{""}},
		{"paths are relative", `{"type":"image","data":"!","mimeType":"audio/wav","alt":"x"}`, []string{"data", "mimeType", "alt"}},
		{"resource paths", `{"type":"resource","resource":{"uri":"no scheme","blob":"x"}}`, []string{"resource.uri", "resource.blob"}},
		{"unknown type", `{"type":"html"}`, []string{"type"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.fields, fieldsOf(t, CheckContent(json.RawMessage(tc.block))))
		})
	}
}

func TestBase64Problem(t *testing.T) {
	for s, ok := range map[string]bool{
		"":           true,
		"YQ==":       true,
		"YWI=":       true,
		"YWJj":       true,
		"+/+/":       true,
		"YQ":         false, // unpadded
		"YR==":       false, // non-zero padding bits
		"-_-_":       false, // URL-safe alphabet
		"YW Jj":      false,
		"YWJj\nYWJj": false,
		"YWJj\r\n":   false,
		"====":       false,
	} {
		require.Equal(t, ok, Base64Problem(s) == "", "%q: %s", s, Base64Problem(s))
	}
}

func TestPlaceholder(t *testing.T) {
	var names []string
	for _, m := range Placeholder.FindAllStringSubmatch("{{a}} {{ b }} {c} {{}} {{ d e }}", -1) {
		names = append(names, m[1])
	}
	require.Equal(t, []string{"a", "b", ""}, names)
}

// TestCheckFaultNamesTheRange: the messages say the range and the value.
func TestCheckFaultNamesTheRange(t *testing.T) {
	errs := CheckFault(&Fault{Rate: 2, DelayMS: -1})
	require.Len(t, errs, 2)
	require.Equal(t, "must be between 0 and 1 (the share of tools/call requests faulted), got 2", errs[0].Message)
	require.Equal(t, "must be from 0 to 30000 (milliseconds), got -1", errs[1].Message)
}

// TestCheckScenarioFault: a scenario's fault is checked as a server's,
// under fault.
func TestCheckScenarioFault(t *testing.T) {
	sc := Scenario{Name: "s", Response: json.RawMessage(`{}`), Fault: &Fault{Rate: 1.5, Error: &RPCError{Message: "m"}}}
	require.Equal(t, []string{"fault.rate", "fault.error.code"}, fieldsOf(t, CheckScenario(sc, nil)))
	sc.Fault = &Fault{Rate: 0}
	require.Empty(t, CheckScenario(sc, nil))
}
