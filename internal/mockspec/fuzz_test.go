package mockspec_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// FuzzCheckScenario decodes an arbitrary scenario as the REST API does and
// checks its answer against an arbitrary output schema (none when it does
// not compile): the check never panics, answers the same twice, and every
// problem names a field of the scenario and says what is wrong.
func FuzzCheckScenario(f *testing.F) {
	const output = `{"type":"object","properties":{"n":{"type":"integer","minimum":0}},"required":["n"]}`
	for _, s := range []struct{ scenario, output string }{
		{`{"name":"a","response":{"t":1}}`, ``},
		{`{"name":"a","response":[1]}`, ``},
		{`{"name":"a"}`, ``},
		{`{"name":"a","response":{},"result":{},"error":{"code":1,"message":"x"},"sequence":{"steps":[]}}`, ``},
		{`{"name":"a","result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"n":1}}}`, output},
		{`{"name":"a","result":{"content":[],"structuredContent":{"n":-1.5}}}`, output},
		{`{"name":"a","result":{"content":[{"type":"text","text":"x"}]}}`, output},
		{`{"name":"a","result":{"content":[{"type":"text","text":"x"}],"isError":"yes","_meta":1,"extra":2}}`, output},
		{`{"name":"a","result":{"content":[{"type":"image","data":"not base64","mimeType":"png"},{"type":"audio"},{"type":"resource","resource":{"uri":"a://b","text":1,"blob":"AA=="}},{"type":"resource_link","uri":"a://{x}","name":" ","size":-1},{"type":"video"},7,{"type":"text","text":"x","annotations":{"audience":["robot"],"priority":2}}]}}`, ``},
		{`{"name":"a","error":{"code":0,"message":" ","data":{"k":"\u0000"}}}`, ``},
		{`{"name":"a","error":{"code":-32000,"message":"` + strings.Repeat("é", 2001) + `"}}`, ``},
		{`{"name":"a","sequence":{"steps":[{"response":{}},{"result":{"content":[]},"error":{"code":1,"message":"m"}},{"delay_ms":-1}],"then":"loop"}}`, output},
		{`{"name":"a","response":{},"delay_ms":30001,"notifications":[{"type":"log","level":"loud","data":"x"},{"type":"progress","progress":-1,"total":0.5,"delay_ms":30000},{"type":"beep"}]}`, ``},
		{`{"name":"a","sequence":{"steps":[{"response":{},"delay_ms":20000},{"response":{},"delay_ms":20000}]},"delay_ms":20000,"notifications":[{"type":"log","level":"info","delay_ms":20000}]}`, ``},
		{`{"name":"a","result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"n":1}}}`, `{"type":"object","properties":{"n":{"type":"integer","multipleOf":1e-300}}}`},
		{`{"name":"a","result":{"content":[],"structuredContent":{"s":"abababab"}}}`, `{"type":"object","properties":{"s":{"pattern":"^(?:a|b)(?:a|b)(?:a|b)(?:a|b)$"}}}`},
		{`{"name":"a","result":{"content":[],"structuredContent":` + strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 300) + `}}`, `{"type":"object"}`},
		{"{\"name\":\"a\",\"response\":{\"k\":\"\xff\"}}", ``},
	} {
		f.Add([]byte(s.scenario), []byte(s.output))
	}
	f.Fuzz(func(t *testing.T, raw, outputSchema []byte) {
		var sc mockspec.Scenario
		if json.Unmarshal(raw, &sc) != nil {
			return
		}
		var output *schema.Schema
		if len(outputSchema) > 0 {
			if s, err := schema.Compile(outputSchema, schema.RequireObject); err == nil {
				output = s
			}
		}
		errs := mockspec.CheckScenario(sc, output)
		require.Equal(t, errs, mockspec.CheckScenario(sc, output), "the check answers differently the second time")
		requireFields(t, errs, false, "response", "result", "error", "sequence", "delay_ms", "notifications")
	})
}

// FuzzCheckContent checks arbitrary content blocks of prompt messages.
func FuzzCheckContent(f *testing.F) {
	for _, s := range []string{
		`{"type":"text","text":"Hello {{who}}"}`,
		`{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png","annotations":{"audience":["user"],"priority":0.5,"lastModified":"2025-01-01T00:00:00Z"}}`,
		`{"type":"resource","resource":{"uri":"docs://{{page}}","mimeType":"text/plain","text":"x"}}`,
		`{"type":"resource_link","uri":"file:///a","name":"a","size":1.5}`,
		`{"type":"resource_link","uri":"a b","name":"","size":1e999}`,
		`{"type":"audio","data":"====","mimeType":"audio"}`,
		`{"type":["text"]}`,
		`{"type":"text"}`,
		`{"type":"text","text":"x","_meta":[],"annotations":{"priority":"high","audience":"user"},"extra":1}`,
		`[]`,
		`null`,
		`"text"`,
		"{\"type\":\"text\",\"text\":\"\xff\"}",
		`{"type":"text","text":"\u0000\ud800"}`,
		`{"type":"resource","resource":` + strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200) + `}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // the API decodes the message first
		}
		errs := mockspec.CheckContent(raw)
		require.Equal(t, errs, mockspec.CheckContent(raw), "the check answers differently the second time")
		// "" is the block itself; an unknown member is named as given.
		tops := []string{"", "type", "text", "data", "mimeType", "resource", "uri", "name", "title",
			"description", "size", "annotations", "_meta"}
		var block map[string]json.RawMessage
		if json.Unmarshal(raw, &block) == nil {
			for k := range block {
				tops = append(tops, k)
			}
		}
		requireFields(t, errs, true, tops...)
	})
}

// FuzzCheckFault checks arbitrary default faults of a server.
func FuzzCheckFault(f *testing.F) {
	for _, s := range []string{
		`{"rate":0.1}`,
		`{"rate":1,"delay_ms":30000,"error":{"code":-32000,"message":"down","data":{"a":[1]}}}`,
		`{"rate":-0,"delay_ms":-1,"error":{"code":0,"message":""}}`,
		`{"rate":1.0000000000000002,"delay_ms":2147483648}`,
		`{"rate":5e-324,"error":{"code":9007199254740993,"message":"\u0000"}}`,
		`null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var fault *mockspec.Fault
		if json.Unmarshal(raw, &fault) != nil {
			return
		}
		errs := mockspec.CheckFault(fault)
		require.Equal(t, errs, mockspec.CheckFault(fault), "the check answers differently the second time")
		requireFields(t, errs, false, "rate", "error", "delay_ms")
		if fault != nil && len(errs) == 0 {
			require.True(t, fault.Rate >= 0 && fault.Rate <= 1, "accepted the rate %v", fault.Rate)
			require.True(t, fault.DelayMS >= 0 && fault.DelayMS <= mockspec.MaxDelayMS, "accepted the delay %d", fault.DelayMS)
		}
	})
}

// requireFields requires every problem to say what is wrong and to name a
// field whose first step is one of tops ("" allowed only when blank is).
func requireFields(t *testing.T, errs []failure.FieldError, blank bool, tops ...string) {
	t.Helper()
	for _, e := range errs {
		require.NotEmpty(t, e.Message, "field %q has no message", e.Field)
		if !blank {
			require.NotEmpty(t, e.Field, "a problem names no field: %s", e.Message)
		}
		if slices.Contains(tops, e.Field) {
			continue // a member named as given, dots and all
		}
		top := e.Field
		if i := strings.IndexAny(top, ".["); i >= 0 {
			top = top[:i]
		}
		require.Contains(t, tops, top, "the problem names %q, not a field: %s", e.Field, e.Message)
	}
}
