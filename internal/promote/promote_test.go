package promote

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/store"
)

// memStore is a server's design and journal in memory: the journal newest
// first, read in pages of the filter's limit.
type memStore struct {
	journal   []journal.Record
	filters   []store.JournalFilter // each journal read, in order
	tools     []design.Tool
	resources []design.Resource
	prompts   []design.Prompt
	writes    []string // "create tool x", "update tool x", ...
	fail      error    // answered by every write when set
}

func (m *memStore) Journal(_ context.Context, _ uuid.UUID, f store.JournalFilter) (store.JournalPage, error) {
	m.filters = append(m.filters, f)
	var page store.JournalPage
	started := f.After == nil
	for _, r := range m.journal {
		if !started {
			started = r.ID == f.After.ID
			continue
		}
		if (f.Outcome != "" && r.Outcome != f.Outcome) || (f.Method != "" && r.Method != f.Method) ||
			(f.Tool != "" && r.Tool != f.Tool) || (f.Since != nil && r.ReceivedAt.Before(*f.Since)) {
			continue
		}
		if len(page.Records) == f.Limit {
			last := page.Records[len(page.Records)-1]
			page.Next = &store.PageKey{CreatedAt: last.ReceivedAt, ID: last.ID}
			break
		}
		page.Records = append(page.Records, r)
	}
	return page, nil
}

func (m *memStore) Tools(context.Context, uuid.UUID) ([]design.Tool, error) {
	return append([]design.Tool{}, m.tools...), nil
}

func (m *memStore) Resources(context.Context, uuid.UUID) ([]design.Resource, error) {
	return m.resources, nil
}

func (m *memStore) Prompts(context.Context, uuid.UUID) ([]design.Prompt, error) {
	return m.prompts, nil
}

func (m *memStore) CreateTool(_ context.Context, t design.Tool) (design.Tool, error) {
	return t, m.write("create tool "+t.Name, func() { m.tools = append(m.tools, t) })
}

func (m *memStore) UpdateTool(_ context.Context, t design.Tool) (design.Tool, error) {
	return t, m.write("update tool "+t.Name, func() {
		for i := range m.tools {
			if m.tools[i].ID == t.ID {
				m.tools[i] = t
			}
		}
	})
}

func (m *memStore) CreateResource(_ context.Context, r design.Resource) (design.Resource, error) {
	return r, m.write("create resource "+r.URI, func() { m.resources = append(m.resources, r) })
}

func (m *memStore) CreatePrompt(_ context.Context, p design.Prompt) (design.Prompt, error) {
	return p, m.write("create prompt "+p.Name, func() { m.prompts = append(m.prompts, p) })
}

func (m *memStore) write(what string, apply func()) error {
	if m.fail != nil {
		return m.fail
	}
	m.writes = append(m.writes, what)
	apply()
	return nil
}

func (m *memStore) tool(t *testing.T, name string) design.Tool {
	t.Helper()
	for _, tool := range m.tools {
		if tool.Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %q in %v", name, m.writes)
	return design.Tool{}
}

var server = uuid.New()

// recorder appends proxied records to a journal, each older than the last.
type recorder struct {
	m   *memStore
	now time.Time
}

func newRecorder(m *memStore) *recorder {
	return &recorder{m: m, now: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// record adds a proxied record of method with params and the upstream's
// answer, older than every record before it, and returns its id.
func (r *recorder) record(method, params, answer string) uuid.UUID {
	rec := journal.Record{ID: uuid.New(), ServerID: server, ReceivedAt: r.now, Method: method,
		Params: json.RawMessage(params), Outcome: journal.OutcomeProxied}
	if answer != "" {
		rec.Upstream = &journal.UpstreamRecord{Answer: answer}
	}
	if method == "tools/call" {
		var p struct{ Name string }
		_ = json.Unmarshal(rec.Params, &p)
		rec.Tool = p.Name
	}
	r.now = r.now.Add(-time.Minute)
	r.m.journal = append(r.m.journal, rec)
	return rec.ID
}

func (r *recorder) call(tool, args, answer string) uuid.UUID {
	return r.record("tools/call", `{"name":"`+tool+`","arguments":`+args+`}`, answer)
}

func byRecord(res Result) map[uuid.UUID]Item {
	out := map[uuid.UUID]Item{}
	for _, it := range res.Items {
		out[it.JournalID] = it
	}
	return out
}

const sun = `{"content":[{"type":"text","text":"sun"}],"structuredContent":{"forecast":"sun","session_token":"tok-1"}}`

func weatherTool() design.Tool {
	return design.Tool{ID: uuid.New(), ServerID: server, Name: "get_weather", InputSchema: json.RawMessage(`{"type":"object"}`),
		Scenarios: []design.Scenario{{Name: "fallback", Response: json.RawMessage(`{"forecast":"local"}`)}}}
}

func TestRunPromotesToolCalls(t *testing.T) {
	m := &memStore{tools: []design.Tool{weatherTool()}}
	rec := newRecorder(m)
	newest := rec.call("get_weather", `{"city":"Paris","api_key":"sk-secret"}`, sun)
	older := rec.call("get_weather", `{"api_key":"sk-other","city":"Paris"}`, sun)
	mars := rec.call("get_weather", `{"city":"Mars"}`, `{"code":-32602,"message":"Mars is out of range"}`)
	tide := rec.call("get_tide", `{"day":3}`, `{"content":[{"type":"text","text":"high"}]}`)
	bare := rec.call("get_weather", `{}`, sun)

	res, err := Run(context.Background(), m, server, store.Counts{Tools: 1}, Request{})
	require.NoError(t, err)
	items := byRecord(res)
	require.Len(t, items, 5)
	require.Equal(t, []string{"get_tide"}, res.ToolsCreated)

	require.Equal(t, Created, items[newest].Action)
	require.Equal(t, "recorded api_key=**** city=Paris", items[newest].Scenario)
	require.Equal(t, "redacted arguments.api_key, structuredContent.session_token", items[newest].Reason)
	require.Equal(t, Merged, items[older].Action, "the same call redacted is the same call")
	require.Equal(t, items[newest].Scenario, items[older].Scenario)
	require.Equal(t, Created, items[mars].Action)
	require.Equal(t, Created, items[tide].Action)
	require.Equal(t, Skipped, items[bare].Action, "a call without arguments never replaces the fallback")
	require.Equal(t, "the call has no arguments and the tool already has a fallback scenario, fallback", items[bare].Reason)

	require.Equal(t, []string{"create tool get_tide", "update tool get_weather"}, m.writes, "tools are written in name order")
	weather := m.tool(t, "get_weather")
	names := make([]string, len(weather.Scenarios))
	for i, sc := range weather.Scenarios {
		names[i] = sc.Name
	}
	require.Equal(t, []string{"recorded api_key=**** city=Paris", "recorded city=Mars", "fallback"}, names,
		"new scenarios go before the fallback")
	require.JSONEq(t, `{"city":"Paris","api_key":"****"}`, string(weather.Scenarios[0].Condition))
	require.NotContains(t, string(weather.Scenarios[0].Result), "tok-1")
	require.Equal(t, &mockspec.RPCError{Code: -32602, Message: "Mars is out of range"}, weather.Scenarios[1].Error)
	require.Equal(t, json.RawMessage(`{"type":"object"}`), m.tool(t, "get_tide").InputSchema)

	// Again: every call is answered already.
	m.writes = nil
	again, err := Run(context.Background(), m, server, store.Counts{Tools: 2}, Request{Tool: ptr("get_weather")})
	require.NoError(t, err)
	require.Empty(t, m.writes)
	require.Empty(t, again.ToolsCreated)
	require.Equal(t, "tools/call", m.filters[len(m.filters)-1].Method)
	require.Equal(t, "get_weather", m.filters[len(m.filters)-1].Tool)
	for _, it := range again.Items {
		require.NotEqual(t, Created, it.Action, "%+v", it)
	}
	require.Equal(t, "scenario recorded city=Mars already answers this call identically", byRecord(again)[mars].Reason)
}

func TestRunReplacesTheAnswerOfAScenario(t *testing.T) {
	tool := weatherTool()
	tool.Scenarios = append([]design.Scenario{{Name: "paris", Condition: json.RawMessage(`{"city":"Paris"}`),
		Result: json.RawMessage(`{"content":[{"type":"text","text":"rain"}]}`)}}, tool.Scenarios...)
	m := &memStore{tools: []design.Tool{tool}}
	id := newRecorder(m).call("get_weather", `{"city":"Paris"}`, `{"content":[{"type":"text","text":"sun"}]}`)

	res, err := Run(context.Background(), m, server, store.Counts{Tools: 1}, Request{})
	require.NoError(t, err)
	require.Equal(t, Item{JournalID: id, Kind: KindTool, Name: "get_weather", Scenario: "paris", Action: Merged,
		Reason: "replaced the answer of scenario paris"}, res.Items[0])
	got := m.tool(t, "get_weather").Scenarios
	require.Len(t, got, 2)
	require.JSONEq(t, `{"content":[{"type":"text","text":"sun"}]}`, string(got[0].Result))
}

func TestRunSkipsWhatItCannotPromote(t *testing.T) {
	m := &memStore{resources: []design.Resource{{URI: "docs://have"}}, prompts: []design.Prompt{{Name: "have"}}}
	rec := newRecorder(m)
	cases := map[uuid.UUID]string{
		rec.record("tools/call", `{"arguments":{}}`, sun):                                    "the recorded request names no tool",
		rec.call("t", `[1]`, sun):                                                            "the recorded arguments are not an object",
		rec.call("t", `{"field":"a","operator":"eq"}`, sun):                                  "arguments named field and operator (or a misspelling of one) cannot be a plain equality condition",
		rec.call("t", `{"a":1}`, ""):                                                         "no upstream answer recorded",
		rec.call("t", `{"a":1}`, `[1]`):                                                      "the recorded answer is not a JSON object",
		rec.record("resources/read", `{}`, `{"contents":[]}`):                                "the recorded request names no uri",
		rec.record("resources/read", `{"uri":"docs://have"}`, `{"contents":[{"text":"x"}]}`): "the design already has a resource of this uri",
		rec.record("resources/read", `{"uri":"docs://err"}`, `{"code":1,"message":"no"}`):    "the upstream answered an error",
		rec.record("resources/read", `{"uri":"docs://none"}`, `{"contents":[]}`):             "the recorded answer has no contents",
		rec.record("resources/read", `{"uri":"docs://odd"}`, `{"contents":[{"uri":"x"}]}`):   "the recorded contents hold neither text nor blob",
		rec.record("prompts/get", `{}`, `{"messages":[]}`):                                   "the recorded request names no prompt",
		rec.record("prompts/get", `{"name":"have"}`, `{"messages":[{"role":"user"}]}`):       "the design already has a prompt of this name",
		rec.record("prompts/get", `{"name":"empty"}`, `{"messages":[]}`):                     "the recorded answer has no messages",
	}
	truncated := rec.call("t", `{"a":2}`, sun)
	m.journal[len(m.journal)-1].Upstream.Truncated = true
	cases[truncated] = "the recorded answer was truncated (over 256 KiB)"

	res, err := Run(context.Background(), m, server, store.Counts{}, Request{})
	require.NoError(t, err)
	require.Empty(t, m.writes)
	require.Empty(t, res.ToolsCreated)
	items := byRecord(res)
	require.Len(t, items, len(cases))
	for id, reason := range cases {
		require.Equal(t, Skipped, items[id].Action, reason)
		require.Equal(t, reason, items[id].Reason)
	}
}

func TestRunPromotesResourcesAndPrompts(t *testing.T) {
	m := &memStore{}
	rec := newRecorder(m)
	text := rec.record("resources/read", `{"uri":"docs://readme"}`,
		`{"contents":[{"uri":"docs://readme","mimeType":"application/json","text":"{\"password\":\"p\",\"a\":1}"},{"text":"second"}]}`)
	blob := rec.record("resources/read", `{"uri":"docs://logo"}`, `{"contents":[{"blob":"aGVsbG8="}]}`)
	again := rec.record("resources/read", `{"uri":"docs://readme"}`, `{"contents":[{"text":"older"}]}`)
	greet := rec.record("prompts/get", `{"name":"greet"}`,
		`{"description":"hi","messages":[{"role":"user","content":{"type":"text","text":"hello"}},{"role":"assistant","content":{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}}]}`)

	res, err := Run(context.Background(), m, server, store.Counts{}, Request{})
	require.NoError(t, err)
	items := byRecord(res)
	require.Equal(t, Item{JournalID: text, Kind: KindResource, Name: "docs://readme", Action: Created,
		Reason: "created from the first of the recorded contents; redacted contents.text.password"}, items[text])
	require.Equal(t, Item{JournalID: blob, Kind: KindResource, Name: "docs://logo", Action: Created}, items[blob])
	require.Equal(t, "the design already has a resource of this uri", items[again].Reason, "the newest record wins")
	require.Equal(t, Item{JournalID: greet, Kind: KindPrompt, Name: "greet", Action: Created}, items[greet])

	require.Equal(t, []string{"create resource docs://readme", "create resource docs://logo", "create prompt greet"}, m.writes)
	var content string
	require.NoError(t, json.Unmarshal(m.resources[0].Content, &content))
	require.JSONEq(t, `{"password":"****","a":1}`, content)
	require.True(t, m.resources[1].Binary)
	require.Equal(t, []design.PromptMessage{{Role: "user", Text: "hello"},
		{Role: "assistant", Content: json.RawMessage(`{"type":"image","data":"aGVsbG8=","mimeType":"image/png"}`)}}, m.prompts[0].Messages)
}

func TestRunSelects(t *testing.T) {
	m := &memStore{}
	rec := newRecorder(m)
	var ids []uuid.UUID
	for i := range 1201 { // three pages
		ids = append(ids, rec.call("t", fmt.Sprintf(`{"n":%d}`, i), sun))
	}
	m.journal = append(m.journal, journal.Record{ID: uuid.New(), Method: "tools/call", Outcome: journal.OutcomeResult})
	until := m.journal[10].ReceivedAt

	cases := []struct {
		name string
		req  Request
		want int
	}{
		{"every proxied record", Request{}, 1201},
		{"before until", Request{Until: &until}, 1190},
		{"the journal ids given", Request{JournalIDs: []uuid.UUID{ids[0], ids[700], uuid.New()}}, 2},
		{"an empty list of ids", Request{JournalIDs: []uuid.UUID{}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m.filters = nil
			got, err := selected(context.Background(), m, server, c.req)
			require.NoError(t, err)
			require.Equal(t, c.want, len(got))
			require.Len(t, m.filters, 3, "every page is read")
			require.Equal(t, journal.OutcomeProxied, m.filters[0].Outcome)
		})
	}
}

func TestRunKeepsTheLimits(t *testing.T) {
	cases := []struct {
		name   string
		counts store.Counts
		record func(*recorder)
		field  string
		want   string
	}{
		{"tools", store.Counts{Tools: design.MaxTools}, func(r *recorder) { r.call("new", `{"a":1}`, sun) },
			"tools", "the server already has 1000 tools (the limit)"},
		{"resources", store.Counts{Resources: design.MaxResources},
			func(r *recorder) { r.record("resources/read", `{"uri":"docs://a"}`, `{"contents":[{"text":"a"}]}`) },
			"resources", "the server already has 1000 resources (the limit)"},
		{"prompts", store.Counts{Prompts: design.MaxPrompts},
			func(r *recorder) {
				r.record("prompts/get", `{"name":"p"}`, `{"messages":[{"role":"user","content":{}}]}`)
			},
			"prompts", "the server already has 1000 prompts (the limit)"},
		{"scenarios", store.Counts{}, func(r *recorder) {
			for i := range design.MaxScenarios + 1 {
				r.call("busy", fmt.Sprintf(`{"n":%d}`, i), sun)
			}
		}, "tool", `promoting would give tool "busy" 201 scenarios, over the limit of 200`},
		{"a check of the tool", store.Counts{}, func(r *recorder) {
			r.call("bad", `{"a":1}`, `{"content":[{"type":"text","text":"x"}],"structuredContent":[1]}`)
		}, "tool", `tool "bad": `},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &memStore{}
			c.record(newRecorder(m))
			_, err := Run(context.Background(), m, server, c.counts, Request{})
			f, ok := failure.As(err)
			require.True(t, ok, "%v", err)
			require.Equal(t, c.field, f.Fields[0].Field)
			require.True(t, strings.HasPrefix(f.Fields[0].Message, c.want), f.Fields[0].Message)
			require.Empty(t, m.writes)
		})
	}
}

func TestRunNamesAFailedWrite(t *testing.T) {
	m := &memStore{fail: errors.New("disk full")}
	newRecorder(m).call("t", `{"a":1}`, sun)
	_, err := Run(context.Background(), m, server, store.Counts{}, Request{})
	require.EqualError(t, err, `tool "t": disk full`)
}

func TestRequestCheck(t *testing.T) {
	at := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	later := at.Add(time.Second)
	cases := []struct {
		name  string
		req   Request
		field string
	}{
		{"nothing", Request{}, ""},
		{"a tool", Request{Tool: ptr("t")}, ""},
		{"an empty tool", Request{Tool: ptr("")}, "tool"},
		{"since before until", Request{Since: &at, Until: &later}, ""},
		{"since at until", Request{Since: &at, Until: &at}, "until"},
		{"since after until", Request{Since: &later, Until: &at}, "until"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := c.req.Check()
			if c.field == "" {
				require.NoError(t, err)
				return
			}
			f, ok := failure.As(err)
			require.True(t, ok, "%v", err)
			require.Equal(t, c.field, f.Fields[0].Field)
		})
	}
}

func ptr[T any](v T) *T { return &v }
