package resttest

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/credential"
)

const fixture = `{
	"age": 18,
	"name": "Ada",
	"profile": {"a": 1, "b": {"c": [1, 2]}},
	"tags": ["x", "y", 3],
	"nothing": null,
	"count": "5",
	"empty": "",
	"id": "user-123",
	"items": [{"id": 1}, {"id": 2}],
	"text": "{\"temp\": 21, \"unit\": \"C\"}",
	"big": 9007199254740993
}`

// nameCase is the case named caseName that reads GET /json of base,
// expecting the name want, then the endpoint other.
func nameCase(caseName, base, want string, other Scope) Case {
	return Case{Name: caseName, BaseURL: base, Scopes: []Scope{{"GET", "/json"}, other},
		Input: Input{Expectations: map[string]Expectation{
			"GET /json": {Conditions: []Condition{{Path: "name", Operation: "eq", Value: json.RawMessage(strconv.Quote(want))}}},
		}}}
}

// testRunner is testServer with a Runner whose client reaches it.
func testRunner(t *testing.T) (*httptest.Server, *Runner) {
	t.Helper()
	srv := testServer(t)
	return srv, &Runner{Client: srv.Client()}
}

// testServer answers the paths the runner tests use.
func testServer(t *testing.T) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, fixture)
	})
	mux.HandleFunc("/ordered", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Add("Set-Cookie", "sid=abc; HttpOnly")
		w.Header().Add("Set-Cookie", "other=def")
		w.Header().Set("X-Trace", "t-1")
		io.WriteString(w, "{\"b\": 1,\n \"a\": [2, 3]}\n")
	})
	mux.HandleFunc("/array", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `[{"id": 1}, {"id": 2}]`)
	})
	mux.HandleFunc("/echo/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		headers := map[string]string{}
		for k, v := range r.Header {
			headers[k] = v[0]
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"method":  r.Method,
			"path":    r.URL.EscapedPath(),
			"query":   r.URL.RawQuery,
			"host":    r.Host,
			"headers": headers,
			"body":    string(body),
		})
	})
	mux.HandleFunc("/status/{code}", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.PathValue("code"))
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		io.WriteString(w, `{"status": `+r.PathValue("code")+`}`)
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		io.WriteString(w, "hello <world> & co")
	})
	mux.HandleFunc("/bytes/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		w.Header().Set("Content-Type", "application/json")
		// A JSON string of exactly n bytes.
		io.WriteString(w, `"`+strings.Repeat("a", n-2)+`"`)
	})
	mux.HandleFunc("/sse", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", r.URL.Query().Get("type"))
		io.WriteString(w, r.URL.Query().Get("body"))
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func status(n int) *int { return &n }

// runOne runs one scope and returns its result.
func runOne(t *testing.T, r *Runner, base string, s Scope, in Input) Result {
	t.Helper()
	run := r.Run(context.Background(), Case{Name: "t", BaseURL: base, Scopes: []Scope{s}, Input: in})
	require.Len(t, run.Results, 1)
	require.Equal(t, run.Passed, run.Results[0].Passed)
	return run.Results[0]
}

func TestRunOperations(t *testing.T) {
	srv, r := testRunner(t)

	tests := []struct {
		name   string
		cond   Condition
		passed bool
		actual string // JSON
		msg    string
	}{
		// eq
		{"eq number", Condition{"age", "eq", json.RawMessage(`18`)}, true, `18`, ""},
		{"eq number 18.0", Condition{"age", "eq", json.RawMessage(`18.0`)}, true, `18`, ""},
		{"eq number 1.8e1", Condition{"age", "eq", json.RawMessage(`1.8e1`)}, true, `18`, ""},
		{"eq number differs", Condition{"age", "eq", json.RawMessage(`19`)}, false, `18`, "not equal to the expected value"},
		{"eq number vs string", Condition{"age", "eq", json.RawMessage(`"18"`)}, false, `18`, "not equal to the expected value"},
		{"eq big number exact", Condition{"big", "eq", json.RawMessage(`9007199254740993`)}, true, `9007199254740993`, ""},
		{"eq big number off by one", Condition{"big", "eq", json.RawMessage(`9007199254740992`)}, false, `9007199254740993`, "not equal to the expected value"},
		{"eq string", Condition{"name", "eq", json.RawMessage(`"Ada"`)}, true, `"Ada"`, ""},
		{"eq string case", Condition{"name", "eq", json.RawMessage(`"ada"`)}, false, `"Ada"`, "not equal to the expected value"},
		{"eq object key order", Condition{"profile", "eq", json.RawMessage(`{"b": {"c": [1.0, 2]}, "a": 1}`)}, true, `{"a":1,"b":{"c":[1,2]}}`, ""},
		{"eq object missing key", Condition{"profile", "eq", json.RawMessage(`{"a": 1}`)}, false, `{"a":1,"b":{"c":[1,2]}}`, "not equal to the expected value"},
		{"eq array order matters", Condition{"profile.b.c", "eq", json.RawMessage(`[2, 1]`)}, false, `[1,2]`, "not equal to the expected value"},
		{"eq null", Condition{"nothing", "eq", json.RawMessage(`null`)}, true, `null`, ""},
		// neq
		{"neq passes", Condition{"name", "neq", json.RawMessage(`"Bob"`)}, true, `"Ada"`, ""},
		{"neq number by value", Condition{"age", "neq", json.RawMessage(`18.0`)}, false, `18`, "equal to the value"},
		{"neq on missing path", Condition{"missing", "neq", json.RawMessage(`1`)}, false, `null`, "path not found"},
		// exists
		{"exists", Condition{"name", "exists", nil}, true, `"Ada"`, ""},
		{"exists on empty string", Condition{"empty", "exists", nil}, true, `""`, ""},
		{"exists on null", Condition{"nothing", "exists", nil}, false, `null`, "is null"},
		{"exists on missing", Condition{"missing", "exists", nil}, false, `null`, "path not found"},
		// contains
		{"contains substring", Condition{"name", "contains", json.RawMessage(`"d"`)}, true, `"Ada"`, ""},
		{"contains substring missing", Condition{"name", "contains", json.RawMessage(`"z"`)}, false, `"Ada"`, "does not contain the substring"},
		{"contains string element", Condition{"tags", "contains", json.RawMessage(`"y"`)}, true, `["x","y",3]`, ""},
		{"contains number element", Condition{"tags", "contains", json.RawMessage(`3.0`)}, true, `["x","y",3]`, ""},
		{"contains object element", Condition{"items", "contains", json.RawMessage(`{"id": 2}`)}, true, `[{"id":1},{"id":2}]`, ""},
		{"contains element missing", Condition{"tags", "contains", json.RawMessage(`"z"`)}, false, `["x","y",3]`, "has no element equal to the value"},
		{"contains on number", Condition{"age", "contains", json.RawMessage(`"1"`)}, false, `18`, "is a number, not a string or an array"},
		{"contains number in string", Condition{"name", "contains", json.RawMessage(`1`)}, false, `"Ada"`, "is a string, and a string cannot contain a number"},
		// isNumeric
		{"isNumeric", Condition{"age", "isNumeric", nil}, true, `18`, ""},
		{"isNumeric on numeric string", Condition{"count", "isNumeric", nil}, false, `"5"`, "is a string, not a number"},
		// isText
		{"isText", Condition{"name", "isText", nil}, true, `"Ada"`, ""},
		{"isText on empty string", Condition{"empty", "isText", nil}, false, `""`, "is an empty string"},
		{"isText on number", Condition{"age", "isText", nil}, false, `18`, "is a number, not a string"},
		// isArray
		{"isArray", Condition{"tags", "isArray", nil}, true, `["x","y",3]`, ""},
		{"isArray on object", Condition{"profile", "isArray", nil}, false, `{"a":1,"b":{"c":[1,2]}}`, "is an object, not an array"},
		// isObject
		{"isObject", Condition{"profile", "isObject", nil}, true, `{"a":1,"b":{"c":[1,2]}}`, ""},
		{"isObject on array", Condition{"tags", "isObject", nil}, false, `["x","y",3]`, "is an array, not an object"},
		{"isObject on null", Condition{"nothing", "isObject", nil}, false, `null`, "is null, not an object"},
		// matchesRegex
		{"matchesRegex anchored", Condition{"id", "matchesRegex", json.RawMessage(`"^user-[0-9]+$"`)}, true, `"user-123"`, ""},
		{"matchesRegex anchored fails", Condition{"id", "matchesRegex", json.RawMessage(`"^[0-9]+$"`)}, false, `"user-123"`, "does not match the regular expression"},
		{"matchesRegex unanchored", Condition{"id", "matchesRegex", json.RawMessage(`"12"`)}, true, `"user-123"`, ""},
		{"matchesRegex start anchor", Condition{"id", "matchesRegex", json.RawMessage(`"^123"`)}, false, `"user-123"`, "does not match the regular expression"},
		{"matchesRegex on number", Condition{"age", "matchesRegex", json.RawMessage(`"18"`)}, false, `18`, "is a number, not a string"},
		// paths
		{"path [n]", Condition{"items[1].id", "eq", json.RawMessage(`2`)}, true, `2`, ""},
		{"path .n", Condition{"items.1.id", "eq", json.RawMessage(`2`)}, true, `2`, ""},
		{"path JSON in a string", Condition{"text.temp", "eq", json.RawMessage(`21`)}, true, `21`, ""},
		{"path whole body", Condition{"$", "isObject", nil}, true, "", ""},
		{"path missing", Condition{"items[5].id", "eq", json.RawMessage(`1`)}, false, `null`, "path not found"},
		{"path missing eq null", Condition{"missing", "eq", json.RawMessage(`null`)}, false, `null`, "path not found"},
		// conditions CheckCase would refuse still fail cleanly
		{"invalid path", Condition{"a..b", "exists", nil}, false, `null`, "invalid path: has an empty key at offset 2"},
		{"unknown operation", Condition{"age", "gt", json.RawMessage(`1`)}, false, `null`, `unknown operation "gt"`},
		{"missing value", Condition{"age", "eq", nil}, false, `null`, "eq needs a value"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runOne(t, r, srv.URL, Scope{"GET", "/json"}, Input{
				Expectations: map[string]Expectation{"GET /json": {Conditions: []Condition{tt.cond}}},
			})
			require.Empty(t, res.Error)
			require.True(t, res.StatusPassed)
			require.Len(t, res.Conditions, 1)
			c := res.Conditions[0]
			require.Equal(t, tt.passed, c.Passed)
			require.Equal(t, tt.passed, res.Passed)
			require.Equal(t, tt.msg, c.Message)
			require.Equal(t, tt.cond.Path, c.Path)
			require.Equal(t, tt.cond.Operation, c.Operation)
			if tt.actual != "" {
				require.Equal(t, tt.actual, string(c.Actual))
			}
			if needsValue(tt.cond.Operation) && tt.cond.Value != nil {
				require.JSONEq(t, string(tt.cond.Value), string(c.Expected))
			} else {
				require.Equal(t, "null", string(c.Expected))
			}
		})
	}
}

func TestRunRootArray(t *testing.T) {
	srv, r := testRunner(t)
	res := runOne(t, r, srv.URL, Scope{"GET", "/array"}, Input{
		Expectations: map[string]Expectation{"GET /array": {Conditions: []Condition{
			{Path: "[1].id", Operation: "eq", Value: json.RawMessage(`2`)},
			{Path: "0.id", Operation: "eq", Value: json.RawMessage(`1`)},
			{Path: "$", Operation: "isArray"},
		}}},
	})
	require.True(t, res.Passed, "%+v", res.Conditions)
}

func TestRunRecordsResponse(t *testing.T) {
	srv, r := testRunner(t)
	res := runOne(t, r, srv.URL+"/", Scope{"get", "/ordered"}, Input{})
	require.Equal(t, "GET /ordered", res.Endpoint)
	require.Equal(t, "GET", res.Request.Method)
	require.Equal(t, srv.URL+"/ordered", res.Request.URL)
	require.NotNil(t, res.Response)
	require.Equal(t, 200, res.Response.Status)
	// The JSON body is kept compacted, in its key order.
	require.Equal(t, `{"b":1,"a":[2,3]}`, string(res.Response.Body))
	require.False(t, res.Response.BodyTruncated)
	require.Equal(t, "****", res.Response.Headers["Set-Cookie"])
	require.Equal(t, "t-1", res.Response.Headers["X-Trace"])
	require.Equal(t, "application/json", res.Response.Headers["Content-Type"])
	require.GreaterOrEqual(t, res.Response.DurationMS, 0.0)
	require.Nil(t, res.ExpectedStatus)
	require.True(t, res.StatusPassed)
	require.NotNil(t, res.Conditions)
	require.Empty(t, res.Conditions)
	require.True(t, res.Passed)
}

func TestRunNonJSONBody(t *testing.T) {
	srv, r := testRunner(t)
	res := runOne(t, r, srv.URL, Scope{"GET", "/text"}, Input{
		Expectations: map[string]Expectation{"GET /text": {Conditions: []Condition{
			{Path: "$", Operation: "isText"},
			{Path: "$", Operation: "contains", Value: json.RawMessage(`"<world>"`)},
			{Path: "$", Operation: "eq", Value: json.RawMessage(`"hello <world> & co"`)},
		}}},
	})
	require.Equal(t, `"hello <world> & co"`, string(res.Response.Body))
	require.True(t, res.Passed, "%+v", res.Conditions)
}

func TestRunSSE(t *testing.T) {
	srv, r := testRunner(t)

	tests := []struct {
		name, contentType, body, want string
	}{
		{"one event", "text/event-stream", "data: {\"a\": 1}\n\n", `{"a":1}`},
		{"one event without a final blank line", "text/event-stream", "data: {\"a\": 1}", `{"a":1}`},
		{"two events", "text/event-stream", "data: {\"a\": 1}\n\ndata: {\"a\": 2}\n\n", `[{"a":1},{"a":2}]`},
		{"multi-line data", "text/event-stream", "data: {\"a\":\ndata: [1,\ndata: 2]}\n\n", `{"a":[1,2]}`},
		{"comments, names and ids ignored", "text/event-stream; charset=utf-8",
			": ping\nevent: message\nid: 7\nretry: 100\ndata: {\"a\": 1}\n\n: keep-alive\n\n", `{"a":1}`},
		{"CRLF lines", "text/event-stream", "event: message\r\ndata: {\"a\": 1}\r\n\r\ndata: 2\r\n\r\n", `[{"a":1},2]`},
		{"non-JSON data kept as a string", "text/event-stream", "data: hello\n\ndata:world\n\n", `["hello","world"]`},
		{"no data at all", "text/event-stream", ": only a comment\n\n", `[]`},
		{"SSE-shaped body without the media type", "text/plain", "event: message\ndata: {\"a\": 1}\n\n", `{"a":1}`},
		{"data line with no space", "text/event-stream", "data:{\"a\":1}\n\n", `{"a":1}`},
		{"MCP tool result", "text/event-stream",
			"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"temp\\\":20}\"}]}}\n\n",
			`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"temp\":20}"}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := runOne(t, r, srv.URL, Scope{"GET", "/sse"}, Input{
				QueryParams: map[string]string{"type": tt.contentType, "body": tt.body},
			})
			require.Empty(t, res.Error)
			require.JSONEq(t, tt.want, string(res.Response.Body))
		})
	}

	res := runOne(t, r, srv.URL, Scope{"GET", "/sse"}, Input{
		QueryParams: map[string]string{"type": "text/event-stream", "body": tests[len(tests)-1].body},
		Expectations: map[string]Expectation{"GET /sse": {Conditions: []Condition{
			{Path: "result.content[0].text.temp", Operation: "eq", Value: json.RawMessage(`20.0`)},
		}}},
	})
	require.True(t, res.Passed, "%+v", res.Conditions)

	res = runOne(t, r, srv.URL, Scope{"GET", "/sse"}, Input{
		QueryParams: map[string]string{"type": "text/event-stream", "body": "data: 1\n\ndata: {\"b\": \"x\"}\n\n"},
		Expectations: map[string]Expectation{"GET /sse": {Conditions: []Condition{
			{Path: "[1].b", Operation: "eq", Value: json.RawMessage(`"x"`)},
			{Path: "$", Operation: "isArray"},
		}}},
	})
	require.True(t, res.Passed, "%+v", res.Conditions)
}

func TestRunRequest(t *testing.T) {
	srv, r := testRunner(t)

	type echo struct {
		Method  string            `json:"method"`
		Path    string            `json:"path"`
		Query   string            `json:"query"`
		Host    string            `json:"host"`
		Headers map[string]string `json:"headers"`
		Body    string            `json:"body"`
	}
	decode := func(t *testing.T, res Result) echo {
		t.Helper()
		require.Empty(t, res.Error)
		var e echo
		require.NoError(t, json.Unmarshal(res.Response.Body, &e))
		return e
	}

	t.Run("path parameters are escaped, query parameters sorted", func(t *testing.T) {
		res := runOne(t, r, srv.URL, Scope{"GET", "/echo/{id}/files/{name}.json"}, Input{
			PathParams:  map[string]string{"id": "a b/c", "name": "ü?#"},
			QueryParams: map[string]string{"b": "2", "a": "x y&z"},
		})
		want := "/echo/a%20b%2Fc/files/%C3%BC%3F%23.json"
		require.Equal(t, srv.URL+want+"?a=x+y%26z&b=2", res.Request.URL)
		e := decode(t, res)
		require.Equal(t, want, e.Path)
		require.Equal(t, "a=x+y%26z&b=2", e.Query)
		require.Equal(t, "GET /echo/{id}/files/{name}.json", res.Endpoint)
	})

	t.Run("headers are sent and masked in the record", func(t *testing.T) {
		res := runOne(t, r, srv.URL, Scope{"GET", "/echo/h"}, Input{
			Headers: map[string]string{
				"Authorization": "Bearer secret-token",
				"x-api-key":     "k-123",
				"Cookie":        "sid=s3cret",
				"X-Custom":      "visible",
			},
		})
		e := decode(t, res)
		require.Equal(t, "Bearer secret-token", e.Headers["Authorization"])
		require.Equal(t, "k-123", e.Headers["X-Api-Key"])
		require.Equal(t, "sid=s3cret", e.Headers["Cookie"])
		require.Equal(t, "visible", e.Headers["X-Custom"])
		require.Equal(t, "application/json, text/event-stream", e.Headers["Accept"])
		require.Empty(t, e.Headers["Content-Type"])

		require.Equal(t, map[string]string{
			"Authorization": "Bearer ****",
			"X-Api-Key":     "****",
			"Cookie":        "****",
			"X-Custom":      "visible",
			"Accept":        "application/json, text/event-stream",
		}, res.Request.Headers)
		rec, err := json.Marshal(res.Request)
		require.NoError(t, err)
		require.NotContains(t, string(rec), "secret-token")
		require.NotContains(t, string(rec), "k-123")
		require.NotContains(t, string(rec), "s3cret")
	})

	t.Run("a given Accept is kept, a Host header sets the host", func(t *testing.T) {
		res := runOne(t, r, srv.URL, Scope{"GET", "/echo/h"}, Input{
			Headers: map[string]string{"accept": "text/plain", "Host": "api.example.test"},
		})
		e := decode(t, res)
		require.Equal(t, "text/plain", e.Headers["Accept"])
		require.Equal(t, "api.example.test", e.Host)
		require.Equal(t, "text/plain", res.Request.Headers["Accept"])
		require.Equal(t, "api.example.test", res.Request.Headers["Host"])
	})

	t.Run("a JSON body is sent with its Content-Type", func(t *testing.T) {
		body := json.RawMessage(`{"name": "Ada", "n": 1}`)
		res := runOne(t, r, srv.URL, Scope{"POST", "/echo/b"}, Input{Body: body})
		e := decode(t, res)
		require.Equal(t, "POST", e.Method)
		require.Equal(t, string(body), e.Body)
		require.Equal(t, "application/json", e.Headers["Content-Type"])
		require.Equal(t, "application/json", res.Request.Headers["Content-Type"])
		require.Equal(t, string(body), string(res.Request.Body))
	})

	t.Run("a given Content-Type is kept", func(t *testing.T) {
		res := runOne(t, r, srv.URL, Scope{"PATCH", "/echo/b"}, Input{
			Body:    json.RawMessage(`{"a": null}`),
			Headers: map[string]string{"Content-Type": "application/merge-patch+json"},
		})
		e := decode(t, res)
		require.Equal(t, "application/merge-patch+json", e.Headers["Content-Type"])
		require.Equal(t, `{"a": null}`, e.Body)
	})

	t.Run("DELETE sends the body, GET and HEAD do not", func(t *testing.T) {
		in := Input{Body: json.RawMessage(`{"why": "test"}`)}
		res := runOne(t, r, srv.URL, Scope{"DELETE", "/echo/d"}, in)
		require.Equal(t, `{"why": "test"}`, decode(t, res).Body)

		res = runOne(t, r, srv.URL, Scope{"GET", "/echo/d"}, in)
		e := decode(t, res)
		require.Empty(t, e.Body)
		require.Empty(t, e.Headers["Content-Type"])
		require.Nil(t, res.Request.Body)
		require.NotContains(t, res.Request.Headers, "Content-Type")

		res = runOne(t, r, srv.URL, Scope{"HEAD", "/echo/d"}, in)
		require.Empty(t, res.Error)
		require.Equal(t, 200, res.Response.Status)
		require.Equal(t, `""`, string(res.Response.Body))
		require.Nil(t, res.Request.Body)
	})

	t.Run("a null body is no body", func(t *testing.T) {
		res := runOne(t, r, srv.URL, Scope{"POST", "/echo/n"}, Input{Body: json.RawMessage(`null`)})
		e := decode(t, res)
		require.Empty(t, e.Body)
		require.Nil(t, res.Request.Body)
	})
}

func TestRunExpectedStatus(t *testing.T) {
	srv, r := testRunner(t)
	tests := []struct {
		name     string
		code     int
		expected *int
		passed   bool
	}{
		{"expected 404 got 404", 404, status(404), true},
		{"expected 200 got 404", 404, status(200), false},
		{"expected 201 got 200", 200, status(201), false},
		{"default 2xx: 200", 200, nil, true},
		{"default 2xx: 201", 201, nil, true},
		{"default 2xx: 299", 299, nil, true},
		{"default 2xx: 302", 302, nil, false},
		{"default 2xx: 404", 404, nil, false},
		{"default 2xx: 500", 500, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "/status/" + strconv.Itoa(tt.code)
			in := Input{}
			if tt.expected != nil {
				in.Expectations = map[string]Expectation{"GET " + path: {ExpectedStatus: tt.expected}}
			}
			res := runOne(t, r, srv.URL, Scope{"GET", path}, in)
			require.Empty(t, res.Error)
			require.Equal(t, tt.code, res.Response.Status)
			require.Equal(t, tt.expected, res.ExpectedStatus)
			require.Equal(t, tt.passed, res.StatusPassed)
			require.Equal(t, tt.passed, res.Passed)
		})
	}

	t.Run("conditions pass but the status fails", func(t *testing.T) {
		res := runOne(t, r, srv.URL, Scope{"GET", "/status/500"}, Input{
			Expectations: map[string]Expectation{"GET /status/500": {Conditions: []Condition{
				{Path: "status", Operation: "eq", Value: json.RawMessage(`500`)},
			}}},
		})
		require.True(t, res.Conditions[0].Passed)
		require.False(t, res.StatusPassed)
		require.False(t, res.Passed)
	})

	t.Run("an expectation key with a lower-case method applies", func(t *testing.T) {
		res := runOne(t, r, srv.URL, Scope{"get", "/status/404"}, Input{
			Expectations: map[string]Expectation{"get /status/404": {ExpectedStatus: status(404)}},
		})
		require.True(t, res.Passed)
	})
}

func TestRunBodyCap(t *testing.T) {
	srv := testServer(t)
	r := &Runner{Client: srv.Client(), MaxBody: 100}

	res := runOne(t, r, srv.URL, Scope{"GET", "/bytes/100"}, Input{})
	require.False(t, res.Response.BodyTruncated)
	require.Equal(t, `"`+strings.Repeat("a", 98)+`"`, string(res.Response.Body))

	res = runOne(t, r, srv.URL, Scope{"GET", "/bytes/101"}, Input{
		Expectations: map[string]Expectation{"GET /bytes/101": {Conditions: []Condition{
			{Path: "$", Operation: "isText"},
		}}},
	})
	require.True(t, res.Response.BodyTruncated)
	// Cut JSON no longer parses, so the text is kept as a string.
	var s string
	require.NoError(t, json.Unmarshal(res.Response.Body, &s))
	require.Equal(t, `"`+strings.Repeat("a", 99), s)
	require.True(t, res.Passed)

	// The default cap is 1 MiB.
	r = &Runner{Client: srv.Client()}
	res = runOne(t, r, srv.URL, Scope{"GET", "/bytes/2000000"}, Input{})
	require.True(t, res.Response.BodyTruncated)
	require.NoError(t, json.Unmarshal(res.Response.Body, &s))
	require.Len(t, s, int(DefaultMaxBody))
}

func TestRunTransportErrors(t *testing.T) {
	// A port nothing listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())

	r := &Runner{Client: &http.Client{}}
	c := Case{
		Name:    "refused",
		BaseURL: closed,
		Scopes:  []Scope{{"GET", "/x"}},
		Input: Input{
			Headers: map[string]string{"Authorization": "Bearer secret"},
			Expectations: map[string]Expectation{"GET /x": {
				ExpectedStatus: status(200),
				Conditions: []Condition{
					{Path: "a", Operation: "eq", Value: json.RawMessage(`1`)},
					{Path: "b", Operation: "exists"},
				},
			}},
		},
	}
	run := r.Run(context.Background(), c)
	require.False(t, run.Passed)
	require.Len(t, run.Results, 1)
	res := run.Results[0]
	require.Nil(t, res.Response)
	require.Equal(t, "the target could not be reached (connection refused)", res.Error)
	require.NotContains(t, res.Error, ln.Addr().String(), "the error names no address dialed")
	require.NotContains(t, res.Error, "dial tcp")
	require.False(t, res.StatusPassed)
	require.False(t, res.Passed)
	require.Equal(t, closed+"/x", res.Request.URL)
	require.Equal(t, "Bearer ****", res.Request.Headers["Authorization"])
	require.Equal(t, []ConditionResult{
		{Path: "a", Operation: "eq", Expected: json.RawMessage(`1`), Actual: json.RawMessage(`null`), Message: "no response"},
		{Path: "b", Operation: "exists", Expected: json.RawMessage(`null`), Actual: json.RawMessage(`null`), Message: "no response"},
	}, res.Conditions)

	t.Run("client timeout", func(t *testing.T) {
		srv := testServer(t)
		r := &Runner{Client: &http.Client{Timeout: 200 * time.Millisecond}}
		start := time.Now()
		res := runOne(t, r, srv.URL, Scope{"GET", "/slow"}, Input{})
		require.Less(t, time.Since(start), 1500*time.Millisecond)
		require.Nil(t, res.Response)
		require.Contains(t, res.Error, "did not answer in time")
		require.False(t, res.Passed)
	})

	t.Run("cancelled context", func(t *testing.T) {
		srv := testServer(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		run := (&Runner{Client: srv.Client()}).Run(ctx, Case{BaseURL: srv.URL, Scopes: []Scope{{"GET", "/json"}, {"GET", "/array"}}})
		require.Len(t, run.Results, 2)
		for _, res := range run.Results {
			require.Contains(t, res.Error, "was cancelled")
			require.False(t, res.Passed)
		}
		require.False(t, run.Passed)
	})

	t.Run("a path parameter without a value sends nothing", func(t *testing.T) {
		srv := testServer(t)
		res := runOne(t, &Runner{Client: srv.Client()}, srv.URL, Scope{"GET", "/echo/{id}"}, Input{})
		require.Nil(t, res.Response)
		require.Equal(t, "path parameter 'id' has no value in input.path_params", res.Error)
		require.Equal(t, srv.URL+"/echo/{id}", res.Request.URL)
	})
}

func TestRunSeveralScopes(t *testing.T) {
	srv := testServer(t)
	base := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tick := 0
	clock := func() time.Time {
		tick++
		return base.Add(time.Duration(tick-1) * 10 * time.Millisecond)
	}
	r := &Runner{Client: srv.Client(), Now: clock}
	c := nameCase("users", srv.URL, "Ada", Scope{"GET", "/status/404"})
	run := r.Run(context.Background(), c)
	require.Equal(t, base, run.StartedAt)
	require.Equal(t, 50.0, run.DurationMS)
	require.Len(t, run.Results, 2)
	require.Equal(t, "GET /json", run.Results[0].Endpoint)
	require.True(t, run.Results[0].Passed)
	require.Equal(t, 10.0, run.Results[0].Response.DurationMS)
	require.Equal(t, "GET /status/404", run.Results[1].Endpoint)
	require.False(t, run.Results[1].Passed)
	require.False(t, run.Passed)

	c.Scopes = c.Scopes[:1]
	require.True(t, r.Run(context.Background(), c).Passed)

	// The run's JSON form has the wire field names.
	b, err := json.Marshal(r.Run(context.Background(), c))
	require.NoError(t, err)
	require.Contains(t, string(b), `"conditions":[{"path":"name","operation":"eq","expected":"Ada","actual":"Ada","passed":true}]`)
}

func TestMaskHeader(t *testing.T) {
	tests := []struct{ name, value, want string }{
		{"Authorization", "Bearer abc.def", "Bearer ****"},
		{"authorization", "Basic dXNlcjpwYXNz", "Basic ****"},
		{"Authorization", "rawtoken", "****"},
		{"Authorization", "Bearer ", "****"},
		{"Proxy-Authorization", "Digest x=y", "Digest ****"},
		{"X-API-Key", "k", "****"},
		{"x-api-key", "k", "****"},
		{"Cookie", "a=1; b=2", "****"},
		{"Set-Cookie", "sid=1; HttpOnly", "****"},
		{"X-Auth-Token", "t", "****"},
		{"Content-Type", "application/json", "application/json"},
		{"Authorization", "", ""},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, MaskHeader(tt.name, tt.value), "%s: %s", tt.name, tt.value)
	}
}

// TestRunMasksSecretQueryParameters: credentials passed in the query
// string reach the target but never the stored record.
func TestRunMasksSecretQueryParameters(t *testing.T) {
	t.Parallel()
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.URL.RawQuery
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	r := (&Runner{Client: srv.Client()}).Run(context.Background(), Case{Name: "q", BaseURL: srv.URL,
		Scopes: []Scope{{Method: "GET", Path: "/"}},
		Input:  Input{QueryParams: map[string]string{"api_key": "s3cret", "access_token": "t0ken", "page": "2"}}})
	require.True(t, r.Passed)
	require.Equal(t, "access_token=t0ken&api_key=s3cret&page=2", got)
	require.Equal(t, srv.URL+"/?access_token=%2A%2A%2A%2A&api_key=%2A%2A%2A%2A&page=2", r.Results[0].Request.URL)
}

// TestRunMasksCredentialHeaders: every well-known credential header is sent
// as given and stored masked, in the request and in the response; headers
// that carry no credential are stored as they are.
func TestRunMasksCredentialHeaders(t *testing.T) {
	t.Parallel()
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		for _, name := range credential.Headers {
			w.Header().Set(name, "answer-"+name)
		}
		w.Header().Set("X-Request-Id", "resp-1")
		w.WriteHeader(http.StatusNoContent)
	}))
	defer srv.Close()
	headers := map[string]string{"Accept": "application/json", "Content-Type": "application/json", "X-Request-Id": "req-1"}
	for _, name := range credential.Headers {
		headers[name] = "secret-" + name
	}
	r := (&Runner{Client: srv.Client()}).Run(context.Background(), Case{Name: "h", BaseURL: srv.URL,
		Scopes: []Scope{{Method: "POST", Path: "/"}}, Input: Input{Headers: headers, Body: json.RawMessage(`{}`)}})
	require.True(t, r.Passed, "%+v", r.Results[0])
	rec := r.Results[0]
	for _, name := range credential.Headers {
		require.Equal(t, "secret-"+name, got.Get(name), "the target gets %s", name)
		require.Equal(t, "****", rec.Request.Headers[http.CanonicalHeaderKey(name)], "request %s", name)
		require.Equal(t, "****", rec.Response.Headers[http.CanonicalHeaderKey(name)], "response %s", name)
	}
	for _, name := range []string{"Accept", "Content-Type", "X-Request-Id"} {
		require.Equal(t, headers[name], rec.Request.Headers[name], name)
	}
	require.Equal(t, "resp-1", rec.Response.Headers["X-Request-Id"])
	raw, err := json.Marshal(r)
	require.NoError(t, err)
	require.NotContains(t, string(raw), "secret-")
	require.NotContains(t, string(raw), "answer-")
}

// TestMaskUsesTheCredentialList: a stored run masks the values of exactly
// the names promote redacts (one list, credential's): pass, pin, otp and
// the other short names are masked, keyboard and its kin are kept.
func TestMaskUsesTheCredentialList(t *testing.T) {
	for _, name := range append(append([]string{}, credential.Names...), credential.Headers...) {
		require.Equal(t, "****", MaskQuery(name, "v"), "query parameter %s", name)
		require.NotEqual(t, "v", MaskHeader(name, "v"), "header %s", name)
	}
	for _, name := range credential.NearMisses {
		require.Equal(t, "v", MaskQuery(name, "v"), "query parameter %s", name)
		require.Equal(t, "v", MaskHeader(name, "v"), "header %s", name)
	}
}
