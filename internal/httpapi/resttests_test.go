package httpapi_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// Helpers of the REST API test, suite and session tests. Every name is
// prefixed rt so that nothing clashes with the package's other test files.

const (
	rtSecret        = "secret123"
	rtSlowDelay     = 300 * time.Millisecond
	rtMsgDataPlane  = "Policy-scoped keys cannot access the data plane"
	rtUsersEndpoint = "GET /users/{id}"
)

// rtPrivateEnv boots the service with ALLOW_PRIVATE_TARGETS, so that runs
// may reach a target on loopback.
func rtPrivateEnv(t *testing.T) *apitest.Env {
	t.Helper()
	return apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.AllowPrivateTargets = true }})
}

// rtSeen is one request a target received.
type rtSeen struct {
	Method, URI, Auth, Trace, ContentType, Body string
}

// rtTarget is a stand-in for an API under test, on loopback:
//
//	GET  /users/{id}   200 {id, name, age, tags, address{city,zip}, items, lang, authorized, trace}
//	POST /echo         201 {received: <body>, content_type}
//	GET  /events       an event stream of one JSON-RPC message
//	GET  /redirect     302 to /users/redirected
//	GET  /slow         200 {"slow": true} after rtSlowDelay
//	GET  /pass         200 {"ok": true}
//	GET  /fail         200 {"ok": false}
//	GET  /status/{n}   n {"code": n}
type rtTarget struct {
	*httptest.Server
	hits atomic.Int64
	mu   sync.Mutex
	seen []rtSeen
}

func rtNewTarget(t *testing.T) *rtTarget {
	t.Helper()
	tg := &rtTarget{}
	tg.Server = httptest.NewServer(http.HandlerFunc(tg.serve))
	t.Cleanup(tg.Close)
	return tg
}

func (tg *rtTarget) port() string {
	u, err := url.Parse(tg.URL)
	if err != nil {
		panic(err)
	}
	return u.Port()
}

// requests returns a copy of the requests received so far.
func (tg *rtTarget) requests() []rtSeen {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return append([]rtSeen(nil), tg.seen...)
}

func rtWriteJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

func (tg *rtTarget) serve(w http.ResponseWriter, r *http.Request) {
	tg.hits.Add(1)
	body, _ := io.ReadAll(r.Body)
	tg.mu.Lock()
	tg.seen = append(tg.seen, rtSeen{Method: r.Method, URI: r.RequestURI, Auth: r.Header.Get("Authorization"),
		Trace: r.Header.Get("X-Trace"), ContentType: r.Header.Get("Content-Type"), Body: string(body)})
	tg.mu.Unlock()
	p := r.URL.EscapedPath()
	switch {
	case strings.HasPrefix(p, "/users/") && r.Method == http.MethodGet:
		id, err := url.PathUnescape(strings.TrimPrefix(p, "/users/"))
		if err != nil {
			rtWriteJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error()})
			return
		}
		rtWriteJSON(w, http.StatusOK, map[string]any{
			"id": id, "name": "Ada Lovelace", "age": 36, "tags": []string{"admin", "ops"},
			"address":    map[string]any{"city": "Paris", "zip": "75001"},
			"items":      []any{map[string]any{"sku": "A1", "qty": 2}, map[string]any{"sku": "B2", "qty": 1}},
			"lang":       r.URL.Query().Get("lang"),
			"authorized": r.Header.Get("Authorization") == "Bearer "+rtSecret,
			"trace":      r.Header.Get("X-Trace"),
		})
	case p == "/echo" && r.Method == http.MethodPost:
		var received any
		if len(body) > 0 {
			_ = json.Unmarshal(body, &received)
		}
		rtWriteJSON(w, http.StatusCreated, map[string]any{"received": received, "content_type": r.Header.Get("Content-Type")})
	case p == "/events":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_, _ = io.WriteString(w, ": a comment\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"ok\":true,\"count\":3}}\n\n")
	case p == "/redirect":
		http.Redirect(w, r, "/users/redirected", http.StatusFound)
	case p == "/slow":
		select {
		case <-time.After(rtSlowDelay):
		case <-r.Context().Done():
			return
		}
		rtWriteJSON(w, http.StatusOK, map[string]any{"slow": true})
	case p == "/pass":
		rtWriteJSON(w, http.StatusOK, map[string]any{"ok": true})
	case p == "/fail":
		rtWriteJSON(w, http.StatusOK, map[string]any{"ok": false})
	case strings.HasPrefix(p, "/status/"):
		var code int
		if _, err := fmt.Sscanf(strings.TrimPrefix(p, "/status/"), "%d", &code); err != nil || code < 200 || code > 599 {
			code = http.StatusBadRequest
		}
		rtWriteJSON(w, code, map[string]any{"code": code})
	default:
		rtWriteJSON(w, http.StatusNotFound, map[string]any{"error": "no route " + p})
	}
}

// rtScope is one endpoint of a case.
func rtScope(method, path string) map[string]any {
	return map[string]any{"method": method, "path": path}
}

// rtCond is a condition; the value is set only when one is given.
func rtCond(path, operation string, value ...any) map[string]any {
	c := map[string]any{"path": path, "operation": operation}
	if len(value) > 0 {
		c["value"] = value[0]
	}
	return c
}

// rtGetCase is a case of one GET scope expecting status and conditions.
func rtGetCase(name, base, path string, status int, conds ...map[string]any) map[string]any {
	exp := map[string]any{"expected_status": status}
	if len(conds) > 0 {
		exp["conditions"] = conds
	}
	return map[string]any{
		"name": name, "base_url": base, "scopes": []any{rtScope("GET", path)},
		"input": map[string]any{"expectations": map[string]any{"GET " + path: exp}},
	}
}

// rtMkTest creates a test case and returns its id.
func rtMkTest(t *testing.T, c *apitest.Client, body map[string]any) string {
	t.Helper()
	return c.Do("POST", "/api/tests", body).Status(http.StatusCreated).String("id")
}

// rtRun runs a test; the call itself always answers 201.
func rtRun(t *testing.T, c *apitest.Client, id string) *apitest.Response {
	t.Helper()
	return c.Do("POST", "/api/tests/"+id+"/run", nil).Status(http.StatusCreated)
}

// rtMkSuite creates a suite and returns its id.
func rtMkSuite(t *testing.T, c *apitest.Client, body map[string]any) string {
	t.Helper()
	return c.Do("POST", "/api/suites", body).Status(http.StatusCreated).String("id")
}

// rtJSONAt re-encodes the value at path, for require.JSONEq.
func rtJSONAt(t *testing.T, r *apitest.Response, path string) string {
	t.Helper()
	b, err := json.Marshal(r.Get(path))
	require.NoError(t, err)
	return string(b)
}

// rtStrings lists the string at field of every element of the array at
// path (the elements themselves when field is empty).
func rtStrings(t *testing.T, r *apitest.Response, path, field string) []string {
	t.Helper()
	n := r.Len(path)
	out := make([]string, n)
	for i := range n {
		at := fmt.Sprintf("%s.%d", path, i)
		if field != "" {
			at += "." + field
		}
		out[i] = r.String(at)
	}
	return out
}

// rtMCPCall posts a JSON-RPC message to a server's MCP endpoint.
func rtMCPCall(t *testing.T, env *apitest.Env, server, body string) (int, string) {
	t.Helper()
	code, raw := apitest.PostJSONRPC(t, env.URL+"/api/platform/"+server+"/mcp", strings.NewReader(body))
	return code, string(raw)
}

// rtToolCall is a JSON-RPC tools/call request.
func rtToolCall(tool string, args map[string]any) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}}
}

// rtWeatherServer creates an enabled server with a get_weather tool whose
// one scenario answers {"temp":18,"sky":"clear"} for Paris.
func rtWeatherServer(t *testing.T, c *apitest.Client) (server, tool string) {
	t.Helper()
	server = c.Do("POST", "/api/servers", map[string]any{"name": "Weather"}).Status(http.StatusCreated).String("id")
	tool = c.Do("POST", "/api/servers/"+server+"/tools", map[string]any{
		"name": "get_weather",
		"input_schema": map[string]any{"type": "object", "required": []any{"city"},
			"properties": map[string]any{"city": map[string]any{"type": "string"}}},
		"mock_scenarios": []any{map[string]any{"name": "paris", "condition": map[string]any{"city": "Paris"},
			"response": map[string]any{"temp": 18, "sky": "clear"}}},
	}).Status(http.StatusCreated).String("id")
	c.Do("PATCH", "/api/servers/"+server, map[string]any{"enabled": true}).Status(http.StatusOK)
	return server, tool
}

// rtJUnit is the part of a JUnit report the tests read.
type rtJUnit struct {
	XMLName xml.Name `xml:"testsuites"`
	Suites  []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Skipped  int    `xml:"skipped,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
			Skipped *struct{} `xml:"skipped"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func rtParseJUnit(t *testing.T, r *apitest.Response) rtJUnit {
	t.Helper()
	require.Equal(t, "application/xml", r.Hdr.Get("Content-Type"), "body: %s", r.Raw)
	var doc rtJUnit
	require.NoError(t, xml.Unmarshal(r.Raw, &doc), "body: %s", r.Raw)
	require.Len(t, doc.Suites, 1)
	return doc
}

// TestRestTestCRUD creates, lists, reads, changes and deletes test cases.
func TestRestTestCRUD(t *testing.T) {
	t.Parallel()
	env, ada, bob := apitest.Rivals(t, "Tests Org", "Other Org")

	full := map[string]any{
		"name": "get user", "description": "reads one user", "base_url": "https://api.example.com/v1/",
		"scopes": []any{rtScope("get", "/users/{id}"), rtScope("POST", "/users")},
		"input": map[string]any{
			"path_params":  map[string]any{"id": "42"},
			"query_params": map[string]any{"lang": "en"},
			"headers":      map[string]any{"Authorization": "Bearer " + rtSecret, "X-Trace": "t-1"},
			"body":         map[string]any{"name": "Ada", "tags": []any{"x"}},
			"expectations": map[string]any{
				"get /users/{id}": map[string]any{"expected_status": 200, "conditions": []any{
					rtCond("name", "eq", "Ada"), rtCond("tags[0]", "exists"), rtCond("address.city", "matchesRegex", "^P"),
				}},
				"POST /users": map[string]any{"expected_status": 201},
			},
		},
	}

	var id string
	t.Run("create", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", "/api/tests", full).Status(http.StatusCreated)
		id = r.String("id")
		require.Equal(t, "get user", r.Get("name"))
		require.Equal(t, "reads one user", r.Get("description"))
		require.Equal(t, "https://api.example.com/v1/", r.Get("base_url"))
		require.JSONEq(t, `[{"method":"GET","path":"/users/{id}"},{"method":"POST","path":"/users"}]`, rtJSONAt(t, r, "scopes"),
			"methods are upper-cased")
		require.JSONEq(t, `{"id":"42"}`, rtJSONAt(t, r, "input.path_params"))
		require.JSONEq(t, `{"lang":"en"}`, rtJSONAt(t, r, "input.query_params"))
		require.JSONEq(t, `{"Authorization":"Bearer secret123","X-Trace":"t-1"}`, rtJSONAt(t, r, "input.headers"))
		require.JSONEq(t, `{"name":"Ada","tags":["x"]}`, rtJSONAt(t, r, "input.body"))
		require.JSONEq(t, `{
			"GET /users/{id}": {"expected_status": 200, "conditions": [
				{"path":"name","operation":"eq","value":"Ada"},
				{"path":"tags[0]","operation":"exists"},
				{"path":"address.city","operation":"matchesRegex","value":"^P"}]},
			"POST /users": {"expected_status": 201}}`, rtJSONAt(t, r, "input.expectations"),
			"the expectation key's method is upper-cased like its scope's")
		require.Nil(t, r.Get("generated_from"))
		require.Contains(t, r.JSON, "generated_from")
		require.Equal(t, ada.UserID, r.Get("created_by"))
		require.NotEmpty(t, r.String("created_at"))
		require.Equal(t, r.Get("created_at"), r.Get("updated_at"))

		requireReadBack(t, ada, "/api/tests/"+id, r)
	})

	t.Run("minimal", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", "/api/tests", map[string]any{"name": "bare", "base_url": "http://example.com",
			"scopes": []any{rtScope("GET", "/")}}).Status(http.StatusCreated)
		require.Equal(t, "", r.Get("description"))
		require.JSONEq(t, `{}`, rtJSONAt(t, r, "input"))
	})

	t.Run("list with pagination", func(t *testing.T) {
		pat := env.Signup(t, "Paging Org")
		var ids []string
		for i := range 5 {
			ids = append(ids, rtMkTest(t, pat, rtGetCase(fmt.Sprintf("t%d", i), "http://example.com", "/x", 200)))
		}
		var seen []string
		cursor := ""
		for pages := 0; ; pages++ {
			require.Less(t, pages, 4)
			path := "/api/tests?limit=2"
			if cursor != "" {
				path += "&cursor=" + url.QueryEscape(cursor)
			}
			r := pat.Do("GET", path, nil).Status(http.StatusOK)
			require.LessOrEqual(t, r.Len("items"), 2)
			seen = append(seen, rtStrings(t, r, "items", "id")...)
			next, _ := r.Get("next_cursor").(string)
			if next == "" {
				require.Nil(t, r.Get("next_cursor"))
				break
			}
			cursor = next
		}
		require.Equal(t, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, seen, "newest first, each once")
		all := pat.Do("GET", "/api/tests", nil).Status(http.StatusOK)
		require.Equal(t, 5, all.Len("items"))
		require.Nil(t, all.Get("next_cursor"))
		pat.Do("GET", "/api/tests?cursor=garbage", nil).Problem(http.StatusBadRequest)
		pat.Do("GET", "/api/tests?limit=0", nil).Problem(http.StatusBadRequest)
	})

	t.Run("other organizations see nothing", func(t *testing.T) {
		bob := bob.For(t)
		require.NotEmpty(t, id)
		bob.Do("GET", "/api/tests/"+id, nil).Problem(http.StatusNotFound)
		bob.Do("PATCH", "/api/tests/"+id, map[string]any{"name": "mine"}).Problem(http.StatusNotFound)
		bob.Do("POST", "/api/tests/"+id+"/run", nil).Problem(http.StatusNotFound)
		bob.Do("GET", "/api/tests/"+id+"/runs", nil).Problem(http.StatusNotFound)
		bob.Do("DELETE", "/api/tests/"+id, nil).Problem(http.StatusNotFound)
		list := bob.Do("GET", "/api/tests", nil).Status(http.StatusOK)
		require.Equal(t, 0, list.Len("items"))
		env.Anonymous(t).Do("GET", "/api/tests", nil).Problem(http.StatusUnauthorized)
	})

	t.Run("patch", func(t *testing.T) {
		ada := ada.For(t)
		require.NotEmpty(t, id)
		before := ada.Do("GET", "/api/tests/"+id, nil).Status(http.StatusOK)
		time.Sleep(5 * time.Millisecond)
		r := ada.Do("PATCH", "/api/tests/"+id, map[string]any{"name": "renamed", "base_url": "https://api.example.org"}).
			Status(http.StatusOK)
		require.Equal(t, "renamed", r.Get("name"))
		require.Equal(t, "https://api.example.org", r.Get("base_url"))
		require.Equal(t, "reads one user", r.Get("description"), "fields not given are kept")
		require.JSONEq(t, rtJSONAt(t, before, "scopes"), rtJSONAt(t, r, "scopes"))
		require.JSONEq(t, rtJSONAt(t, before, "input"), rtJSONAt(t, r, "input"))
		require.Equal(t, before.Get("created_at"), r.Get("created_at"))
		require.NotEqual(t, before.Get("updated_at"), r.Get("updated_at"))

		r = ada.Do("PATCH", "/api/tests/"+id, map[string]any{
			"scopes": []any{rtScope("delete", "/users/{uid}")},
			"input":  map[string]any{"path_params": map[string]any{"uid": "7"}, "expectations": map[string]any{"DELETE /users/{uid}": map[string]any{"expected_status": 204}}},
		}).Status(http.StatusOK)
		require.JSONEq(t, `[{"method":"DELETE","path":"/users/{uid}"}]`, rtJSONAt(t, r, "scopes"))
		require.JSONEq(t, `{"path_params":{"uid":"7"},"expectations":{"DELETE /users/{uid}":{"expected_status":204}}}`,
			rtJSONAt(t, r, "input"), "input is replaced whole")
		require.JSONEq(t, string(r.Raw), string(ada.Do("GET", "/api/tests/"+id, nil).Status(http.StatusOK).Raw))

		// A change that would make the case invalid is refused whole.
		ada.Do("PATCH", "/api/tests/"+id, map[string]any{"name": "x", "scopes": []any{rtScope("GET", "/users/{id}")}}).
			Problem(http.StatusUnprocessableEntity, "scopes[0].path", `input.expectations["DELETE /users/{uid}"]`)
		ada.Do("PATCH", "/api/tests/"+id, map[string]any{"base_url": "ftp://x"}).Problem(http.StatusUnprocessableEntity, "base_url")
		require.Equal(t, "renamed", ada.Do("GET", "/api/tests/"+id, nil).Status(http.StatusOK).Get("name"))
		ada.Do("PATCH", "/api/tests/"+missingRTID, map[string]any{"name": "x"}).Problem(http.StatusNotFound)
	})

	t.Run("delete", func(t *testing.T) {
		ada := ada.For(t)
		victim := rtMkTest(t, ada, rtGetCase("victim", "http://example.com", "/x", 200))
		ada.Do("DELETE", "/api/tests/"+victim, nil).Status(http.StatusNoContent)
		ada.Do("GET", "/api/tests/"+victim, nil).Problem(http.StatusNotFound)
		ada.Do("GET", "/api/tests/"+victim+"/runs", nil).Problem(http.StatusNotFound)
		ada.Do("POST", "/api/tests/"+victim+"/run", nil).Problem(http.StatusNotFound)
		ada.Do("DELETE", "/api/tests/"+victim, nil).Problem(http.StatusNotFound)
		ada.Do("GET", "/api/tests/not-a-uuid", nil).Problem(http.StatusBadRequest)
	})
}

const missingRTID = "5b0e6a3c-2f1d-4c9e-9a7b-0c1d2e3f4a5b"

// TestRestTestValidation: every problem of a case is a 422 naming exactly
// the fields at fault.
func TestRestTestValidation(t *testing.T) {
	t.Parallel()
	_, ada := apitest.SignedUp(t, "Validation Org")

	const users = `input.expectations["GET /users/{id}"]`
	// valid returns a valid case with one condition, changed by edit.
	valid := func(edit func(c map[string]any, in map[string]any, cond map[string]any)) map[string]any {
		cond := rtCond("name", "eq", "Ada")
		in := map[string]any{
			"path_params":  map[string]any{"id": "1"},
			"expectations": map[string]any{rtUsersEndpoint: map[string]any{"conditions": []any{cond}}},
		}
		c := map[string]any{"name": "n", "base_url": "https://api.example.com", "scopes": []any{rtScope("GET", "/users/{id}")}, "input": in}
		if edit != nil {
			edit(c, in, cond)
		}
		return c
	}
	ada.Do("POST", "/api/tests", valid(nil)).Status(http.StatusCreated)

	requireInvalid(t, ada, "POST", "/api/tests", []invalidBody{
		{"unknown operation", valid(func(_, _, cond map[string]any) { cond["operation"] = "approx" }),
			[]string{users + ".conditions[0].operation"}},
		{"missing value for eq", valid(func(_, _, cond map[string]any) { delete(cond, "value") }),
			[]string{users + ".conditions[0].value"}},
		{"bad regex for matchesRegex", valid(func(_, _, cond map[string]any) {
			cond["operation"], cond["value"] = "matchesRegex", "("
		}), []string{users + ".conditions[0].value"}},
		{"matchesRegex with a number", valid(func(_, _, cond map[string]any) {
			cond["operation"], cond["value"] = "matchesRegex", 5
		}), []string{users + ".conditions[0].value"}},
		{"exists with a value", valid(func(_, _, cond map[string]any) {
			cond["operation"], cond["value"] = "exists", false
		}), []string{users + ".conditions[0].value"}},
		{"bad condition path syntax", valid(func(_, _, cond map[string]any) { cond["path"] = "a..b" }),
			[]string{users + ".conditions[0].path"}},
		{"bad array index", valid(func(_, _, cond map[string]any) { cond["path"] = "items[x]" }),
			[]string{users + ".conditions[0].path"}},
		{"bad scope path syntax", valid(func(c, in, _ map[string]any) {
			c["scopes"] = []any{rtScope("GET", "/users/{id")}
			delete(in, "expectations")
		}), []string{"scopes[0].path"}},
		{"unknown scope method", valid(func(c, in, _ map[string]any) {
			c["scopes"] = []any{rtScope("FETCH", "/users/{id}")}
			delete(in, "expectations")
		}), []string{"scopes[0].method"}},
		{"path without leading slash", valid(func(c, in, _ map[string]any) {
			c["scopes"] = []any{rtScope("GET", "users")}
			delete(in, "expectations")
		}), []string{"scopes[0].path"}},
		{"{id} without a path_params value", valid(func(_, in, _ map[string]any) { delete(in, "path_params") }),
			[]string{"scopes[0].path"}},
		{"{id} with an empty value", valid(func(_, in, _ map[string]any) { in["path_params"] = map[string]any{"id": ""} }),
			[]string{`input.path_params["id"]`}},
		{"expectation key naming no scope", valid(func(_, in, _ map[string]any) {
			in["expectations"].(map[string]any)["GET /nope"] = map[string]any{"expected_status": 200}
		}), []string{`input.expectations["GET /nope"]`}},
		{"expected status out of range", valid(func(_, in, _ map[string]any) {
			in["expectations"].(map[string]any)[rtUsersEndpoint].(map[string]any)["expected_status"] = 99
		}), []string{users + ".expected_status"}},
		{"empty scopes", valid(func(c, in, _ map[string]any) {
			c["scopes"] = []any{}
			delete(in, "expectations")
		}), []string{"scopes"}},
		{"duplicate scopes", valid(func(c, _, _ map[string]any) {
			c["scopes"] = []any{rtScope("GET", "/users/{id}"), rtScope("get", "/users/{id}")}
		}), []string{"scopes[1]"}},
		{"ftp base_url", valid(func(c, _, _ map[string]any) { c["base_url"] = "ftp://x" }), []string{"base_url"}},
		{"base_url not a URL", valid(func(c, _, _ map[string]any) { c["base_url"] = "not a url" }), []string{"base_url"}},
		{"relative base_url", valid(func(c, _, _ map[string]any) { c["base_url"] = "/api" }), []string{"base_url"}},
		{"base_url with a query", valid(func(c, _, _ map[string]any) { c["base_url"] = "https://x.example?k=1" }), []string{"base_url"}},
		{"blank name", valid(func(c, _, _ map[string]any) { c["name"] = "  " }), []string{"name"}},
		{"Content-Length header", valid(func(_, in, _ map[string]any) { in["headers"] = map[string]any{"Content-Length": "3"} }),
			[]string{`input.headers["Content-Length"]`}},
		{"unknown field", valid(func(c, _, _ map[string]any) { c["baseUrl"] = "x" }), []string{"baseUrl"}},
		{"several problems at once", valid(func(c, in, cond map[string]any) {
			c["base_url"] = "ftp://x"
			cond["operation"] = "approx"
			in["expectations"].(map[string]any)["GET /nope"] = map[string]any{}
		}), []string{"base_url", users + ".conditions[0].operation", `input.expectations["GET /nope"]`}},
	})
	require.Equal(t, 1, ada.Do("GET", "/api/tests", nil).Status(http.StatusOK).Len("items"), "nothing invalid was stored")
}

// TestRestTestRun runs cases against a local target (private targets
// allowed) and checks what each run records.
func TestRestTestRun(t *testing.T) {
	t.Parallel()
	target := rtNewTarget(t)
	env := rtPrivateEnv(t)
	ada := env.Signup(t, "Runner Org")

	t.Run("every operation passes", func(t *testing.T) {
		ada := ada.For(t)
		id := rtMkTest(t, ada, map[string]any{
			"name": "all operations", "base_url": target.URL,
			"scopes": []any{rtScope("GET", "/users/{id}")},
			"input": map[string]any{
				"path_params": map[string]any{"id": "42"},
				"expectations": map[string]any{rtUsersEndpoint: map[string]any{"expected_status": 200, "conditions": []any{
					rtCond("id", "eq", "42"),
					rtCond("$.name", "eq", "Ada Lovelace"),
					rtCond("age", "eq", 36.0),
					rtCond("name", "neq", "Bob"),
					rtCond("address.city", "exists"),
					rtCond("name", "contains", "Love"),
					rtCond("tags", "contains", "ops"),
					rtCond("age", "isNumeric"),
					rtCond("address.zip", "isText"),
					rtCond("tags", "isArray"),
					rtCond("address", "isObject"),
					rtCond("address.city", "matchesRegex", "^Par"),
					rtCond("tags[0]", "eq", "admin"),
					rtCond("tags.1", "eq", "ops"),
					rtCond("items[1].sku", "eq", "B2"),
					rtCond("items.0.qty", "eq", 2),
					rtCond("items[0]", "eq", map[string]any{"qty": 2, "sku": "A1"}),
					rtCond("$", "isObject"),
				}}},
			},
		})
		r := rtRun(t, ada, id)
		require.Equal(t, true, r.Get("passed"), "run: %s", r.Raw)
		require.Equal(t, id, r.Get("test_id"))
		require.Equal(t, 1, r.Len("results"))
		require.Equal(t, rtUsersEndpoint, r.Get("results.0.endpoint"))
		require.Equal(t, float64(200), r.Get("results.0.expected_status"))
		require.Equal(t, true, r.Get("results.0.status_passed"))
		require.Equal(t, float64(200), r.Get("results.0.response.status"))
		require.Equal(t, "Ada Lovelace", r.Get("results.0.response.body.name"))
		require.Equal(t, 18, r.Len("results.0.conditions"))
		for i := range 18 {
			require.Equal(t, true, r.Get(fmt.Sprintf("results.0.conditions.%d.passed", i)), "condition %d: %s", i, r.Raw)
		}
		require.Equal(t, "36", rtJSONAt(t, r, "results.0.conditions.2.actual"))
		require.Nil(t, r.Get("results.0.conditions.4.expected"), "exists takes no value")
		require.Equal(t, `"Paris"`, rtJSONAt(t, r, "results.0.conditions.4.actual"))
	})

	t.Run("failing conditions record expected and actual", func(t *testing.T) {
		ada := ada.For(t)
		id := rtMkTest(t, ada, rtGetCase("failing", target.URL, "/users/7", 200,
			rtCond("name", "eq", "Bob"),
			rtCond("missing.path", "exists"),
			rtCond("nothing[3]", "eq", 1),
			rtCond("tags", "isObject"),
			rtCond("name", "isText"),
		))
		r := rtRun(t, ada, id)
		require.Equal(t, false, r.Get("passed"))
		require.Equal(t, false, r.Get("results.0.passed"))
		require.Equal(t, true, r.Get("results.0.status_passed"))
		require.Nil(t, r.Get("results.0.error"))

		require.Equal(t, false, r.Get("results.0.conditions.0.passed"))
		require.Equal(t, "Bob", r.Get("results.0.conditions.0.expected"))
		require.Equal(t, "Ada Lovelace", r.Get("results.0.conditions.0.actual"))

		for _, i := range []int{1, 2} {
			c := r.Get(fmt.Sprintf("results.0.conditions.%d", i)).(map[string]any)
			require.Equal(t, false, c["passed"])
			require.Contains(t, c, "actual")
			require.Nil(t, c["actual"], "a missing path has actual null")
		}
		require.Equal(t, float64(1), r.Get("results.0.conditions.2.expected"))
		require.Equal(t, false, r.Get("results.0.conditions.3.passed"))
		require.JSONEq(t, `["admin","ops"]`, rtJSONAt(t, r, "results.0.conditions.3.actual"))
		require.Equal(t, true, r.Get("results.0.conditions.4.passed"))

		stored := ada.Do("GET", "/api/tests/"+id+"/runs", nil).Status(http.StatusOK)
		require.Equal(t, 1, stored.Len("items"))
		require.JSONEq(t, string(r.Raw), rtJSONAt(t, stored, "items.0"))
	})

	t.Run("unexpected status fails", func(t *testing.T) {
		ada := ada.For(t)
		r := rtRun(t, ada, rtMkTest(t, ada, rtGetCase("teapot", target.URL, "/status/418", 200)))
		require.Equal(t, false, r.Get("passed"))
		require.Equal(t, false, r.Get("results.0.status_passed"))
		require.Equal(t, float64(418), r.Get("results.0.response.status"))

		body := rtGetCase("no expected status", target.URL, "/status/204", 0)
		delete(body, "input")
		r = rtRun(t, ada, rtMkTest(t, ada, body))
		require.Equal(t, true, r.Get("passed"), "any 2xx passes without an expected status: %s", r.Raw)
		require.Nil(t, r.Get("results.0.expected_status"))

		r = rtRun(t, ada, rtMkTest(t, ada, rtGetCase("expected 404", target.URL, "/status/404", 404, rtCond("code", "eq", 404))))
		require.Equal(t, true, r.Get("passed"), "run: %s", r.Raw)
	})

	t.Run("the request is recorded with secrets masked", func(t *testing.T) {
		ada := ada.For(t)
		id := rtMkTest(t, ada, map[string]any{
			"name": "recorded", "base_url": target.URL + "/",
			"scopes": []any{rtScope("GET", "/users/{id}"), rtScope("POST", "/echo")},
			"input": map[string]any{
				"path_params":  map[string]any{"id": "a b/c"},
				"query_params": map[string]any{"q": "x y", "lang": "en"},
				"headers":      map[string]any{"authorization": "Bearer " + rtSecret, "X-Trace": "t-1", "X-Api-Key": rtSecret + "-key"},
				"body":         map[string]any{"hello": "world", "n": 1},
				"expectations": map[string]any{
					rtUsersEndpoint: map[string]any{"expected_status": 200, "conditions": []any{
						rtCond("id", "eq", "a b/c"), rtCond("lang", "eq", "en"),
						rtCond("authorized", "eq", true), rtCond("trace", "eq", "t-1"),
					}},
					"POST /echo": map[string]any{"expected_status": 201, "conditions": []any{
						rtCond("received.hello", "eq", "world"), rtCond("content_type", "eq", "application/json"),
					}},
				},
			},
		})
		before := len(target.requests())
		r := rtRun(t, ada, id)
		require.Equal(t, true, r.Get("passed"), "run: %s", r.Raw)

		get := "results.0.request."
		require.Equal(t, "GET", r.Get(get+"method"))
		require.Equal(t, target.URL+"/users/a%20b%2Fc?lang=en&q=x+y", r.Get(get+"url"))
		require.Equal(t, "Bearer ****", r.Get(get+"headers.Authorization"))
		require.Equal(t, "****", r.Get(get+"headers.X-Api-Key"))
		require.Equal(t, "t-1", r.Get(get+"headers.X-Trace"))
		require.Equal(t, "application/json, text/event-stream", r.Get(get+"headers.Accept"))
		require.Nil(t, r.Get(get+"body"), "a GET sends no body")

		post := "results.1.request."
		require.Equal(t, "POST", r.Get(post+"method"))
		require.Equal(t, target.URL+"/echo?lang=en&q=x+y", r.Get(post+"url"))
		require.JSONEq(t, `{"hello":"world","n":1}`, rtJSONAt(t, r, post+"body"))
		require.Equal(t, "application/json", r.Get(post+"headers.Content-Type"))
		require.Equal(t, "Bearer ****", r.Get(post+"headers.Authorization"))
		require.Equal(t, float64(201), r.Get("results.1.response.status"))

		seen := target.requests()[before:]
		require.Len(t, seen, 2)
		require.Equal(t, "/users/a%20b%2Fc?lang=en&q=x+y", seen[0].URI)
		require.Equal(t, "Bearer "+rtSecret, seen[0].Auth, "the target gets the real secret")
		require.Empty(t, seen[0].Body)
		require.JSONEq(t, `{"hello":"world","n":1}`, seen[1].Body)

		require.NotContains(t, string(r.Raw), rtSecret)
		runs := ada.Do("GET", "/api/tests/"+id+"/runs", nil).Status(http.StatusOK)
		require.NotContains(t, string(runs.Raw), rtSecret)
		require.Equal(t, "Bearer ****", runs.Get("items.0.results.0.request.headers.Authorization"))
	})

	t.Run("event stream", func(t *testing.T) {
		ada := ada.For(t)
		r := rtRun(t, ada, rtMkTest(t, ada, rtGetCase("sse", target.URL, "/events", 200,
			rtCond("result.count", "eq", 3), rtCond("result.ok", "eq", true), rtCond("jsonrpc", "eq", "2.0"))))
		require.Equal(t, true, r.Get("passed"), "run: %s", r.Raw)
		require.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":{"ok":true,"count":3}}`, rtJSONAt(t, r, "results.0.response.body"))
		require.Equal(t, "text/event-stream", r.Get("results.0.response.headers.Content-Type"))
	})

	t.Run("redirects are followed", func(t *testing.T) {
		ada := ada.For(t)
		r := rtRun(t, ada, rtMkTest(t, ada, rtGetCase("redirect", target.URL, "/redirect", 200, rtCond("id", "eq", "redirected"))))
		require.Equal(t, true, r.Get("passed"), "run: %s", r.Raw)
		require.Equal(t, float64(200), r.Get("results.0.response.status"))
		require.Equal(t, target.URL+"/redirect", r.Get("results.0.request.url"))

		r = rtRun(t, ada, rtMkTest(t, ada, rtGetCase("expects the 302", target.URL, "/redirect", 302)))
		require.Equal(t, false, r.Get("passed"), "the 302 is followed, so the final status is 200")
		require.Equal(t, float64(200), r.Get("results.0.response.status"))
	})

	t.Run("unreachable target", func(t *testing.T) {
		ada := ada.For(t)
		dead := httptest.NewServer(http.NotFoundHandler())
		base := dead.URL
		dead.Close()
		r := rtRun(t, ada, rtMkTest(t, ada, rtGetCase("dead", base, "/x", 200, rtCond("a", "eq", 1))))
		require.Equal(t, false, r.Get("passed"))
		require.Nil(t, r.Get("results.0.response"))
		require.NotEmpty(t, r.String("results.0.error"))
		require.Equal(t, "no response", r.Get("results.0.conditions.0.message"))
		require.Equal(t, float64(1), r.Get("results.0.conditions.0.expected"))
	})

	t.Run("runs are listed newest first", func(t *testing.T) {
		ada := ada.For(t)
		id := rtMkTest(t, ada, rtGetCase("repeat", target.URL, "/pass", 200))
		var runs []string
		for range 3 {
			runs = append(runs, rtRun(t, ada, id).String("id"))
		}
		list := ada.Do("GET", "/api/tests/"+id+"/runs", nil).Status(http.StatusOK)
		require.Equal(t, []string{runs[2], runs[1], runs[0]}, rtStrings(t, list, "items", "id"))
		require.Nil(t, list.Get("next_cursor"))
		page := ada.Do("GET", "/api/tests/"+id+"/runs?limit=2", nil).Status(http.StatusOK)
		require.Equal(t, []string{runs[2], runs[1]}, rtStrings(t, page, "items", "id"))
		rest := ada.Do("GET", "/api/tests/"+id+"/runs?limit=2&cursor="+url.QueryEscape(page.String("next_cursor")), nil).
			Status(http.StatusOK)
		require.Equal(t, []string{runs[0]}, rtStrings(t, rest, "items", "id"))
	})
}

// TestRestTestSSRF: with the default configuration a run never reaches a
// loopback, private or metadata address; the run is stored as failed.
func TestRestTestSSRF(t *testing.T) {
	t.Parallel()
	target := rtNewTarget(t)
	port := target.port()
	env := apitest.New(t, nil)
	require.False(t, env.Config.AllowPrivateTargets)
	ada := env.Signup(t, "Guarded Org")

	for _, tc := range []struct{ name, base string }{
		{"loopback IPv4", "http://127.0.0.1:" + port},
		{"loopback IPv6", "http://[::1]:" + port},
		{"localhost", "http://localhost:" + port},
		{"private network", "http://10.0.0.1"},
		{"cloud metadata", "http://169.254.169.254"},
		{"unspecified address", "http://0.0.0.0:" + port},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ada := ada.For(t)
			id := rtMkTest(t, ada, rtGetCase("ssrf "+tc.name, tc.base, "/pass", 200, rtCond("ok", "eq", true)))
			r := rtRun(t, ada, id)
			require.Equal(t, false, r.Get("passed"))
			require.Equal(t, 1, r.Len("results"))
			res := r.Get("results.0").(map[string]any)
			require.Contains(t, res, "response")
			require.Nil(t, res["response"], "no response: %s", r.Raw)
			msg := r.String("results.0.error")
			require.Contains(t, msg, "refused")
			require.Contains(t, msg, "not allowed")
			require.Equal(t, tc.base+"/pass", r.Get("results.0.request.url"))
			require.Equal(t, false, r.Get("results.0.conditions.0.passed"))

			stored := ada.Do("GET", "/api/tests/"+id+"/runs", nil).Status(http.StatusOK)
			require.Equal(t, 1, stored.Len("items"))
			require.Equal(t, r.Get("id"), stored.Get("items.0.id"))
			require.Equal(t, false, stored.Get("items.0.passed"))
		})
	}
	require.Zero(t, target.hits.Load(), "the target on loopback was never reached")

	t.Run("a session to loopback is refused too", func(t *testing.T) {
		ada := ada.For(t)
		s := ada.Do("POST", "/api/sessions", map[string]any{"name": "probe", "base_url": "http://127.0.0.1:" + port}).
			Status(http.StatusCreated).String("id")
		e := ada.Do("POST", "/api/sessions/"+s+"/requests", map[string]any{"method": "GET", "path": "/pass"}).Status(http.StatusCreated)
		require.Nil(t, e.Get("response"))
		require.Contains(t, e.String("error"), "not allowed")
		require.Zero(t, target.hits.Load())
	})

	t.Run("allowed with ALLOW_PRIVATE_TARGETS", func(t *testing.T) {
		open := rtPrivateEnv(t)
		c := open.Signup(t, "Open Org")
		r := rtRun(t, c, rtMkTest(t, c, rtGetCase("loopback", "http://127.0.0.1:"+port, "/pass", 200, rtCond("ok", "eq", true))))
		require.Equal(t, true, r.Get("passed"), "run: %s", r.Raw)
		require.Positive(t, target.hits.Load())
	})
}

// TestRestTestOwnEndpoints: a test of the service's own mock endpoint runs
// in process, so it passes without private targets.
func TestRestTestOwnEndpoints(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	require.False(t, env.Config.AllowPrivateTargets)
	ada := env.Signup(t, "Self Org")
	server, _ := rtWeatherServer(t, ada)

	body := func(name, city string, temp int) map[string]any {
		return map[string]any{
			"name": name, "base_url": env.URL,
			"scopes": []any{rtScope("POST", "/api/platform/{server_id}/mcp")},
			"input": map[string]any{
				"path_params": map[string]any{"server_id": server},
				"headers":     map[string]any{"Accept": "application/json"},
				"body":        rtToolCall("get_weather", map[string]any{"city": city}),
				"expectations": map[string]any{"POST /api/platform/{server_id}/mcp": map[string]any{
					"expected_status": 200,
					"conditions": []any{
						rtCond("jsonrpc", "eq", "2.0"),
						rtCond("result.content[0].type", "eq", "text"),
						rtCond("result.content[0].text.temp", "eq", temp),
						rtCond("result.content[0].text.sky", "eq", "clear"),
					},
				}},
			},
		}
	}
	t.Run("passes", func(t *testing.T) {
		ada := ada.For(t)
		r := rtRun(t, ada, rtMkTest(t, ada, body("own endpoint", "Paris", 18)))
		require.Equal(t, true, r.Get("passed"), "run: %s", r.Raw)
		require.Equal(t, env.URL+"/api/platform/"+server+"/mcp", r.Get("results.0.request.url"))
		require.Equal(t, float64(200), r.Get("results.0.response.status"))
	})
	t.Run("fails on a wrong value", func(t *testing.T) {
		ada := ada.For(t)
		r := rtRun(t, ada, rtMkTest(t, ada, body("own endpoint, wrong temp", "Paris", 25)))
		require.Equal(t, false, r.Get("passed"))
		require.NotNil(t, r.Get("results.0.response"))
		require.Equal(t, float64(25), r.Get("results.0.conditions.2.expected"))
		require.Equal(t, float64(18), r.Get("results.0.conditions.2.actual"))
	})
	t.Run("other API routes are served too", func(t *testing.T) {
		ada := ada.For(t)
		r := rtRun(t, ada, rtMkTest(t, ada, rtGetCase("health", env.URL, "/api/health", 200)))
		require.Equal(t, true, r.Get("passed"), "run: %s", r.Raw)
	})
}

// TestGenerateTests makes tests from a tool's scenarios, runs them as a
// suite, and sees one fail once the design changes.
func TestGenerateTests(t *testing.T) {
	t.Parallel()
	env, ada, bob := apitest.Rivals(t, "Generator Org", "Stranger Org")

	server := ada.Do("POST", "/api/servers", map[string]any{"name": "Forecasts"}).Status(http.StatusCreated).String("id")
	scenarios := func(parisTemp int) []any {
		return []any{
			map[string]any{"name": "paris", "condition": map[string]any{"city": "Paris"},
				"response": map[string]any{"temp": parisTemp, "sky": "clear", "details": map[string]any{"wind": 5}}},
			map[string]any{"name": "long stay", "condition": map[string]any{"field": "days", "operator": "gt", "value": 7},
				"response": map[string]any{"advice": "pack more"}},
			map[string]any{"name": "london", "condition": map[string]any{"field": "city", "operator": "matches", "value": "^Lon"},
				"response": map[string]any{"temp": 12, "sky": "rain"}},
			map[string]any{"name": "storm", "condition": map[string]any{"field": "tags", "operator": "contains", "value": "storm"},
				"response": map[string]any{"alert": true, "level": []any{1, 2}}},
			map[string]any{"name": "fallback", "response": map[string]any{}},
		}
	}
	tool := ada.Do("POST", "/api/servers/"+server+"/tools", map[string]any{
		"name": "forecast",
		"input_schema": map[string]any{"type": "object", "required": []any{"city", "days"}, "properties": map[string]any{
			"city": map[string]any{"type": "string"}, "days": map[string]any{"type": "integer"},
		}},
		"mock_scenarios": scenarios(18),
	}).Status(http.StatusCreated).String("id")
	ada.Do("PATCH", "/api/servers/"+server, map[string]any{"enabled": true}).Status(http.StatusOK)
	generate := "/api/servers/" + server + "/tools/" + tool + "/generate-tests"

	r := ada.Do("POST", generate, nil).Status(http.StatusCreated)
	require.Equal(t, 5, r.Len("items"))
	require.Equal(t, 0, r.Len("warnings"), "warnings: %s", rtJSONAt(t, r, "warnings"))
	want := []string{"paris", "long stay", "london", "storm", "fallback"}
	var ids []string
	for i, name := range want {
		at := fmt.Sprintf("items.%d.", i)
		require.Equal(t, name, r.Get(at+"generated_from.scenario"))
		require.Equal(t, tool, r.Get(at+"generated_from.tool_id"))
		require.Equal(t, server, r.Get(at+"generated_from.server_id"))
		require.Equal(t, "forecast", r.Get(at+"generated_from.tool"))
		require.Equal(t, env.URL, r.Get(at+"base_url"))
		require.JSONEq(t, `[{"method":"POST","path":"/api/platform/{server_id}/mcp"}]`, rtJSONAt(t, r, at+"scopes"))
		ids = append(ids, r.String(at+"id"))
		got := ada.Do("GET", "/api/tests/"+r.String(at+"id"), nil).Status(http.StatusOK)
		require.JSONEq(t, rtJSONAt(t, r, at[:len(at)-1]), string(got.Raw))
	}

	suite := rtMkSuite(t, ada, map[string]any{"name": "forecast scenarios", "test_ids": ids})
	run := ada.Do("POST", "/api/suites/"+suite+"/run", nil).Status(http.StatusCreated)
	require.Equal(t, true, run.Get("passed"), "suite run: %s", run.Raw)
	require.Equal(t, float64(5), run.Get("total"))
	require.Equal(t, float64(5), run.Get("passed_count"))
	require.Equal(t, float64(0), run.Get("failed_count"))

	// Change Paris from 18 to 19; wait until the endpoint serves it.
	ada.Do("PATCH", "/api/servers/"+server+"/tools/"+tool, map[string]any{"mock_scenarios": scenarios(19)}).Status(http.StatusOK)
	call, err := json.Marshal(rtToolCall("forecast", map[string]any{"city": "Paris", "days": 1}))
	require.NoError(t, err)
	apitest.Eventually(t, "the changed scenario is served", func() bool {
		code, body := rtMCPCall(t, env, server, string(call))
		return code == http.StatusOK && strings.Contains(body, `\"temp\":19`)
	})

	run = ada.Do("POST", "/api/suites/"+suite+"/run", nil).Status(http.StatusCreated)
	require.Equal(t, false, run.Get("passed"))
	require.Equal(t, float64(4), run.Get("passed_count"), "suite run: %s", run.Raw)
	require.Equal(t, float64(1), run.Get("failed_count"))
	require.Equal(t, []string{"failed", "passed", "passed", "passed", "passed"}, rtStrings(t, run, "test_runs", "status"))
	var found bool
	for i := range run.Len("test_runs.0.run.results.0.conditions") {
		at := fmt.Sprintf("test_runs.0.run.results.0.conditions.%d.", i)
		if run.Get(at+"path") != "result.content[0].text.temp" {
			continue
		}
		found = true
		require.Equal(t, false, run.Get(at+"passed"))
		require.Equal(t, float64(18), run.Get(at+"expected"))
		require.Equal(t, float64(19), run.Get(at+"actual"))
	}
	require.True(t, found, "no condition on the temperature: %s", run.Raw)

	t.Run("a tool without scenarios", func(t *testing.T) {
		ada := ada.For(t)
		bare := ada.Do("POST", "/api/servers/"+server+"/tools", map[string]any{"name": "bare"}).Status(http.StatusCreated).String("id")
		ada.Do("POST", "/api/servers/"+server+"/tools/"+bare+"/generate-tests", nil).
			Problem(http.StatusUnprocessableEntity, "mock_scenarios")
	})
	t.Run("another organization's tool", func(t *testing.T) {
		bob := bob.For(t)
		before := bob.Do("GET", "/api/tests", nil).Status(http.StatusOK).Len("items")
		bob.Do("POST", generate, nil).Problem(http.StatusNotFound)
		require.Equal(t, before, bob.Do("GET", "/api/tests", nil).Status(http.StatusOK).Len("items"))
	})
	t.Run("an unknown tool", func(t *testing.T) {
		ada.For(t).Do("POST", "/api/servers/"+server+"/tools/"+missingRTID+"/generate-tests", nil).Problem(http.StatusNotFound)
	})
	t.Run("an explicit base_url", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", generate, map[string]any{"base_url": "https://mock.example.com/"}).Status(http.StatusCreated)
		require.Equal(t, 5, r.Len("items"))
		require.Equal(t, "https://mock.example.com", r.Get("items.0.base_url"))
		ada.Do("POST", generate, map[string]any{"base_url": "ftp://x"}).Problem(http.StatusUnprocessableEntity, "base_url")
	})
}

// TestSuiteCRUD creates, lists, reads, changes and deletes suites.
func TestSuiteCRUD(t *testing.T) {
	t.Parallel()
	_, ada, bob := apitest.Rivals(t, "Suite Org", "Other Suite Org")
	a := rtMkTest(t, ada, rtGetCase("a", "http://example.com", "/a", 200))
	b := rtMkTest(t, ada, rtGetCase("b", "http://example.com", "/b", 200))
	foreign := rtMkTest(t, bob, rtGetCase("foreign", "http://example.com", "/f", 200))

	r := ada.Do("POST", "/api/suites", map[string]any{"name": "  smoke  ", "test_ids": []any{a, b}}).Status(http.StatusCreated)
	id := r.String("id")
	require.Equal(t, "smoke", r.Get("name"))
	require.Equal(t, "", r.Get("description"))
	require.Equal(t, []any{a, b}, r.Get("test_ids"))
	require.Equal(t, false, r.Get("stop_on_failure"))
	require.Equal(t, float64(1), r.Get("parallelism"))
	require.Equal(t, ada.UserID, r.Get("created_by"))
	require.JSONEq(t, string(r.Raw), string(ada.Do("GET", "/api/suites/"+id, nil).Status(http.StatusOK).Raw))
	other := rtMkSuite(t, ada, map[string]any{"name": "regression", "description": "all of it", "test_ids": []any{b},
		"stop_on_failure": true, "parallelism": 4})

	t.Run("invalid", func(t *testing.T) {
		ada := ada.For(t)
		ada.Do("POST", "/api/suites", map[string]any{"name": "x", "test_ids": []any{missingRTID}}).
			Problem(http.StatusUnprocessableEntity, "test_ids[0]")
		ada.Do("POST", "/api/suites", map[string]any{"name": "x", "test_ids": []any{a, foreign}}).
			Problem(http.StatusUnprocessableEntity, "test_ids[1]")
		ada.Do("POST", "/api/suites", map[string]any{"name": "x", "test_ids": []any{a, b, a}}).
			Problem(http.StatusUnprocessableEntity, "test_ids[2]")
		ada.Do("POST", "/api/suites", map[string]any{"name": "   ", "test_ids": []any{}}).
			Problem(http.StatusUnprocessableEntity, "name")
		ada.Do("POST", "/api/suites", map[string]any{"name": "x", "test_ids": []any{}, "parallelism": 0}).
			Problem(http.StatusUnprocessableEntity, "parallelism")
		ada.Do("POST", "/api/suites", map[string]any{"name": "x", "test_ids": []any{}, "parallelism": 17}).
			Problem(http.StatusUnprocessableEntity, "parallelism")
		ada.Do("POST", "/api/suites", map[string]any{"name": "smoke", "test_ids": []any{}}).Problem(http.StatusConflict)
		bob.For(t).Do("POST", "/api/suites", map[string]any{"name": "smoke", "test_ids": []any{foreign}}).
			Status(http.StatusCreated) // names are unique per organization
	})

	t.Run("list", func(t *testing.T) {
		ada := ada.For(t)
		all := ada.Do("GET", "/api/suites", nil).Status(http.StatusOK)
		require.Equal(t, []string{other, id}, rtStrings(t, all, "items", "id"))
		byName := ada.Do("GET", "/api/suites?name=smoke", nil).Status(http.StatusOK)
		require.Equal(t, []string{id}, rtStrings(t, byName, "items", "id"))
		require.Equal(t, 0, ada.Do("GET", "/api/suites?name=nope", nil).Status(http.StatusOK).Len("items"))
		page := ada.Do("GET", "/api/suites?limit=1", nil).Status(http.StatusOK)
		require.Equal(t, []string{other}, rtStrings(t, page, "items", "id"))
		rest := ada.Do("GET", "/api/suites?limit=1&cursor="+url.QueryEscape(page.String("next_cursor")), nil).Status(http.StatusOK)
		require.Equal(t, []string{id}, rtStrings(t, rest, "items", "id"))
	})

	t.Run("patch", func(t *testing.T) {
		ada := ada.For(t)
		p := ada.Do("PATCH", "/api/suites/"+id, map[string]any{"description": "quick", "test_ids": []any{b, a},
			"stop_on_failure": true, "parallelism": 2}).Status(http.StatusOK)
		require.Equal(t, "smoke", p.Get("name"))
		require.Equal(t, "quick", p.Get("description"))
		require.Equal(t, []any{b, a}, p.Get("test_ids"))
		require.Equal(t, true, p.Get("stop_on_failure"))
		require.Equal(t, float64(2), p.Get("parallelism"))
		require.JSONEq(t, string(p.Raw), string(ada.Do("GET", "/api/suites/"+id, nil).Status(http.StatusOK).Raw))

		ada.Do("PATCH", "/api/suites/"+id, map[string]any{"name": "regression"}).Problem(http.StatusConflict)
		ada.Do("PATCH", "/api/suites/"+id, map[string]any{"test_ids": []any{missingRTID}}).
			Problem(http.StatusUnprocessableEntity, "test_ids[0]")
		ada.Do("PATCH", "/api/suites/"+id, map[string]any{"test_ids": []any{a, a}}).
			Problem(http.StatusUnprocessableEntity, "test_ids[1]")
		p = ada.Do("PATCH", "/api/suites/"+id, map[string]any{"name": "smoke 2"}).Status(http.StatusOK)
		require.Equal(t, "smoke 2", p.Get("name"))
		require.Equal(t, []any{b, a}, p.Get("test_ids"), "a failed change left nothing behind")
		ada.Do("PATCH", "/api/suites/"+missingRTID, map[string]any{"name": "x"}).Problem(http.StatusNotFound)
	})

	t.Run("other organizations see nothing", func(t *testing.T) {
		bob := bob.For(t)
		bob.Do("GET", "/api/suites/"+id, nil).Problem(http.StatusNotFound)
		bob.Do("POST", "/api/suites/"+id+"/run", nil).Problem(http.StatusNotFound)
		bob.Do("GET", "/api/suites/"+id+"/runs", nil).Problem(http.StatusNotFound)
		bob.Do("DELETE", "/api/suites/"+id, nil).Problem(http.StatusNotFound)
	})

	t.Run("delete", func(t *testing.T) {
		ada := ada.For(t)
		ada.Do("DELETE", "/api/suites/"+other, nil).Status(http.StatusNoContent)
		ada.Do("GET", "/api/suites/"+other, nil).Problem(http.StatusNotFound)
		ada.Do("DELETE", "/api/suites/"+other, nil).Problem(http.StatusNotFound)
		ada.Do("GET", "/api/tests/"+b, nil).Status(http.StatusOK) // its tests stay
	})
}

// TestSuiteRuns runs suites against a local target.
func TestSuiteRuns(t *testing.T) {
	t.Parallel()
	target := rtNewTarget(t)
	env := rtPrivateEnv(t)
	ada := env.Signup(t, "Suite Runner Org")

	pass1 := rtMkTest(t, ada, rtGetCase("pass one", target.URL, "/pass", 200, rtCond("ok", "eq", true)))
	fail := rtMkTest(t, ada, rtGetCase("fails", target.URL, "/fail", 200, rtCond("ok", "eq", true)))
	pass2 := rtMkTest(t, ada, rtGetCase("pass two", target.URL, "/pass", 200))
	tests := []any{pass1, fail, pass2}

	t.Run("sequential, stop on failure", func(t *testing.T) {
		ada := ada.For(t)
		suite := rtMkSuite(t, ada, map[string]any{"name": "stops", "test_ids": tests, "stop_on_failure": true})
		run := ada.Do("POST", "/api/suites/"+suite+"/run", nil).Status(http.StatusCreated)
		require.Equal(t, suite, run.Get("suite_id"))
		require.Equal(t, []string{"passed", "failed", "skipped"}, rtStrings(t, run, "test_runs", "status"))
		require.Equal(t, []string{pass1, fail, pass2}, rtStrings(t, run, "test_runs", "test_id"))
		require.Equal(t, []string{"pass one", "fails", "pass two"}, rtStrings(t, run, "test_runs", "test_name"))
		require.Equal(t, float64(3), run.Get("total"))
		require.Equal(t, float64(1), run.Get("passed_count"))
		require.Equal(t, float64(1), run.Get("failed_count"))
		require.Equal(t, float64(1), run.Get("skipped_count"))
		require.Equal(t, false, run.Get("passed"))
		require.Nil(t, run.Get("test_runs.2.run"))
		require.Nil(t, run.Get("test_runs.2.run_id"))
		require.Equal(t, false, run.Get("test_runs.1.run.passed"))
		require.Equal(t, false, run.Get("test_runs.1.run.results.0.conditions.0.actual"))

		// Each test run is also a run of its test, linked by run_id.
		for i, id := range []string{pass1, fail} {
			runID := run.String(fmt.Sprintf("test_runs.%d.run_id", i))
			runs := ada.Do("GET", "/api/tests/"+id+"/runs", nil).Status(http.StatusOK)
			require.Equal(t, runID, runs.Get("items.0.id"))
			require.Equal(t, id, runs.Get("items.0.test_id"))
			require.JSONEq(t, rtJSONAt(t, run, fmt.Sprintf("test_runs.%d.run.results", i)), rtJSONAt(t, runs, "items.0.results"))
			require.Equal(t, run.Get(fmt.Sprintf("test_runs.%d.run.passed", i)), runs.Get("items.0.passed"))
		}

		runs := ada.Do("GET", "/api/suites/"+suite+"/runs", nil).Status(http.StatusOK)
		require.Equal(t, []string{run.String("id")}, rtStrings(t, runs, "items", "id"))
		got := ada.Do("GET", "/api/suites/"+suite+"/runs/"+run.String("id"), nil).Status(http.StatusOK)
		require.JSONEq(t, string(run.Raw), string(got.Raw))

		t.Run("junit", func(t *testing.T) {
			ada := ada.For(t)
			path := "/api/suites/" + suite + "/runs/" + run.String("id")
			x := ada.Do("GET", path+"?format=junit", nil).Status(http.StatusOK)
			doc := rtParseJUnit(t, x)
			s := doc.Suites[0]
			require.Equal(t, "stops", s.Name)
			require.Equal(t, 3, s.Tests)
			require.Equal(t, 1, s.Failures)
			require.Equal(t, 1, s.Skipped)
			require.Equal(t, 0, s.Errors)
			require.Len(t, s.Cases, 3)
			require.Nil(t, s.Cases[0].Failure)
			require.NotNil(t, s.Cases[1].Failure)
			require.Contains(t, s.Cases[1].Failure.Message, "ok eq")
			require.Contains(t, s.Cases[1].Failure.Message, "expected true, actual false")
			require.Contains(t, s.Cases[1].Name, "fails")
			require.NotNil(t, s.Cases[2].Skipped)

			xmlClient := ada.For(t)
			xmlClient.Header.Set("Accept", "application/xml")
			byAccept := xmlClient.Do("GET", path, nil).Status(http.StatusOK)
			require.Equal(t, string(x.Raw), string(byAccept.Raw))
			rtParseJUnit(t, byAccept)

			asJSON := xmlClient.Do("GET", path+"?format=json", nil).Status(http.StatusOK)
			require.Equal(t, "application/json", asJSON.Hdr.Get("Content-Type"))
			require.JSONEq(t, string(run.Raw), string(asJSON.Raw))

			plain := ada.Do("GET", path, nil).Status(http.StatusOK)
			require.JSONEq(t, string(run.Raw), string(plain.Raw))
			ada.Do("GET", path+"?format=yaml", nil).Problem(http.StatusBadRequest)
			ada.Do("GET", "/api/suites/"+suite+"/runs/"+missingRTID, nil).Problem(http.StatusNotFound)
		})
	})

	t.Run("sequential, go on after a failure", func(t *testing.T) {
		ada := ada.For(t)
		suite := rtMkSuite(t, ada, map[string]any{"name": "goes on", "test_ids": tests})
		run := ada.Do("POST", "/api/suites/"+suite+"/run", nil).Status(http.StatusCreated)
		require.Equal(t, []string{"passed", "failed", "passed"}, rtStrings(t, run, "test_runs", "status"))
		require.Equal(t, float64(2), run.Get("passed_count"))
		require.Equal(t, float64(1), run.Get("failed_count"))
		require.Equal(t, float64(0), run.Get("skipped_count"))
		require.Equal(t, false, run.Get("passed"))
		for i := range 3 {
			require.NotEmpty(t, run.String(fmt.Sprintf("test_runs.%d.run_id", i)))
		}
	})

	t.Run("all pass", func(t *testing.T) {
		ada := ada.For(t)
		suite := rtMkSuite(t, ada, map[string]any{"name": "green", "test_ids": []any{pass1, pass2}, "stop_on_failure": true})
		first := ada.Do("POST", "/api/suites/"+suite+"/run", nil).Status(http.StatusCreated)
		require.Equal(t, true, first.Get("passed"))
		require.Equal(t, float64(2), first.Get("passed_count"))
		second := ada.Do("POST", "/api/suites/"+suite+"/run", nil).Status(http.StatusCreated)
		runs := ada.Do("GET", "/api/suites/"+suite+"/runs", nil).Status(http.StatusOK)
		require.Equal(t, []string{second.String("id"), first.String("id")}, rtStrings(t, runs, "items", "id"), "newest first")

		empty := rtMkSuite(t, ada, map[string]any{"name": "empty", "test_ids": []any{}})
		r := ada.Do("POST", "/api/suites/"+empty+"/run", nil).Status(http.StatusCreated)
		require.Equal(t, float64(0), r.Get("total"))
		require.Equal(t, 0, r.Len("test_runs"))
	})

	t.Run("parallel", func(t *testing.T) {
		ada := ada.For(t)
		var slow []any
		for i := range 3 {
			slow = append(slow, rtMkTest(t, ada, rtGetCase(fmt.Sprintf("slow %d", i), target.URL, "/slow", 200, rtCond("slow", "eq", true))))
		}
		suite := rtMkSuite(t, ada, map[string]any{"name": "parallel", "test_ids": slow, "parallelism": 3})
		start := time.Now()
		run := ada.Do("POST", "/api/suites/"+suite+"/run", nil).Status(http.StatusCreated)
		elapsed := time.Since(start)
		require.Equal(t, true, run.Get("passed"), "run: %s", run.Raw)
		require.Equal(t, float64(3), run.Get("passed_count"))
		ms, ok := run.Get("duration_ms").(float64)
		require.True(t, ok)
		require.GreaterOrEqual(t, ms, float64(rtSlowDelay.Milliseconds()))
		require.Less(t, ms, 800.0, "three 300ms tests at once take about 300ms")
		require.Less(t, elapsed, 2*time.Second)
		require.Equal(t, []string{slow[0].(string), slow[1].(string), slow[2].(string)}, rtStrings(t, run, "test_runs", "test_id"),
			"results keep the suite's order")

		seq := rtMkSuite(t, ada, map[string]any{"name": "sequential", "test_ids": slow})
		run = ada.Do("POST", "/api/suites/"+seq+"/run", nil).Status(http.StatusCreated)
		require.GreaterOrEqual(t, run.Get("duration_ms").(float64), float64(3*rtSlowDelay.Milliseconds()),
			"one at a time they take at least 900ms")
	})

	t.Run("a deleted test is an error", func(t *testing.T) {
		ada := ada.For(t)
		gone := rtMkTest(t, ada, rtGetCase("gone", target.URL, "/pass", 200))
		suite := rtMkSuite(t, ada, map[string]any{"name": "with a deleted test", "test_ids": []any{pass1, gone, pass2}})
		ada.Do("DELETE", "/api/tests/"+gone, nil).Status(http.StatusNoContent)
		run := ada.Do("POST", "/api/suites/"+suite+"/run", nil).Status(http.StatusCreated)
		require.Equal(t, []string{"passed", "error", "passed"}, rtStrings(t, run, "test_runs", "status"))
		require.Equal(t, gone, run.Get("test_runs.1.test_id"))
		require.NotEmpty(t, run.String("test_runs.1.error"))
		require.Nil(t, run.Get("test_runs.1.run"))
		require.Nil(t, run.Get("test_runs.1.run_id"))
		require.Equal(t, float64(2), run.Get("passed_count"))
		require.Equal(t, float64(1), run.Get("failed_count"))
		require.Equal(t, false, run.Get("passed"))

		doc := rtParseJUnit(t, ada.Do("GET", "/api/suites/"+suite+"/runs/"+run.String("id")+"?format=junit", nil).Status(http.StatusOK))
		require.Equal(t, 3, doc.Suites[0].Tests)
		require.Equal(t, 1, doc.Suites[0].Errors)
		require.NotNil(t, doc.Suites[0].Cases[1].Error)

		// A suite holding a deleted test can still be changed; new test_ids
		// are checked.
		p := ada.Do("PATCH", "/api/suites/"+suite, map[string]any{"parallelism": 2}).Status(http.StatusOK)
		require.Equal(t, []any{pass1, gone, pass2}, p.Get("test_ids"))
		ada.Do("PATCH", "/api/suites/"+suite, map[string]any{"test_ids": []any{gone, pass2}}).
			Problem(http.StatusUnprocessableEntity, "test_ids[0]")
		ada.Do("PATCH", "/api/suites/"+suite, map[string]any{"test_ids": []any{pass1, pass2}}).Status(http.StatusOK)
	})
}

// TestSessions: exploratory sessions against a base URL or one of the
// organization's servers, and saving a request as a test.
func TestSessions(t *testing.T) {
	t.Parallel()
	target := rtNewTarget(t)
	env := rtPrivateEnv(t)
	ada := env.Signup(t, "Explorer Org")
	bob := env.Signup(t, "Other Explorer Org")
	server, _ := rtWeatherServer(t, ada)
	bobServer := bob.Do("POST", "/api/servers", map[string]any{"name": "Bob's"}).Status(http.StatusCreated).String("id")

	t.Run("create", func(t *testing.T) {
		ada := ada.For(t)
		r := ada.Do("POST", "/api/sessions", map[string]any{"name": "by url", "base_url": target.URL + "/"}).Status(http.StatusCreated)
		require.Equal(t, target.URL, r.Get("base_url"))
		require.Nil(t, r.Get("server_id"))
		require.Contains(t, r.JSON, "server_id")
		require.Equal(t, ada.UserID, r.Get("created_by"))

		r = ada.Do("POST", "/api/sessions", map[string]any{"name": "by server", "server_id": server}).Status(http.StatusCreated)
		require.Equal(t, server, r.Get("server_id"))
		require.Equal(t, env.URL+"/api/platform/"+server+"/mcp", r.Get("base_url"))

		ada.Do("POST", "/api/sessions", map[string]any{"name": "x", "server_id": missingRTID}).
			Problem(http.StatusUnprocessableEntity, "server_id")
		ada.Do("POST", "/api/sessions", map[string]any{"name": "x", "server_id": bobServer}).
			Problem(http.StatusUnprocessableEntity, "server_id")
		ada.Do("POST", "/api/sessions", map[string]any{"name": "x", "server_id": server, "base_url": target.URL}).
			Problem(http.StatusUnprocessableEntity, "server_id")
		ada.Do("POST", "/api/sessions", map[string]any{"name": "x"}).Problem(http.StatusUnprocessableEntity, "base_url")
		ada.Do("POST", "/api/sessions", map[string]any{"name": "x", "base_url": "ftp://x"}).
			Problem(http.StatusUnprocessableEntity, "base_url")
		ada.Do("POST", "/api/sessions", map[string]any{"name": "  ", "base_url": target.URL}).
			Problem(http.StatusUnprocessableEntity, "name")

		list := ada.Do("GET", "/api/sessions", nil).Status(http.StatusOK)
		require.GreaterOrEqual(t, list.Len("items"), 2)
		require.Equal(t, "by server", list.Get("items.0.name"), "newest first")
	})

	t.Run("requests, log and save as test", func(t *testing.T) {
		ada := ada.For(t)
		s := ada.Do("POST", "/api/sessions", map[string]any{"name": "explore users", "base_url": target.URL}).
			Status(http.StatusCreated).String("id")
		reqs := "/api/sessions/" + s + "/requests"

		e1 := ada.Do("POST", reqs, map[string]any{"method": "get", "path": "/users/42",
			"query_params": map[string]any{"lang": "fr"},
			"headers":      map[string]any{"Authorization": "Bearer " + rtSecret, "X-Trace": "t-9"}}).Status(http.StatusCreated)
		require.Equal(t, "GET", e1.Get("request.method"))
		require.Equal(t, target.URL+"/users/42?lang=fr", e1.Get("request.url"))
		require.Equal(t, "Bearer ****", e1.Get("request.headers.Authorization"))
		require.Equal(t, "t-9", e1.Get("request.headers.X-Trace"))
		require.Equal(t, float64(200), e1.Get("response.status"))
		require.Equal(t, "42", e1.Get("response.body.id"))
		require.Equal(t, true, e1.Get("response.body.authorized"), "the target got the real secret")
		require.Nil(t, e1.Get("error"))
		require.NotContains(t, string(e1.Raw), rtSecret)

		e2 := ada.Do("POST", reqs, map[string]any{"method": "POST", "path": "/echo", "body": map[string]any{"a": 1}}).
			Status(http.StatusCreated)
		require.Equal(t, float64(201), e2.Get("response.status"))
		require.JSONEq(t, `{"a":1}`, rtJSONAt(t, e2, "request.body"))
		require.Equal(t, float64(1), e2.Get("response.body.received.a"))

		e3 := ada.Do("POST", reqs, map[string]any{"method": "GET", "path": "/status/404"}).Status(http.StatusCreated)
		require.Equal(t, float64(404), e3.Get("response.status"))

		ada.Do("POST", reqs, map[string]any{"method": "FETCH", "path": "users"}).
			Problem(http.StatusUnprocessableEntity, "method", "path")
		ada.Do("POST", reqs, map[string]any{"method": "GET", "path": "/users/{id}"}).
			Problem(http.StatusUnprocessableEntity, "path")

		got := ada.Do("GET", "/api/sessions/"+s, nil).Status(http.StatusOK)
		require.Equal(t, "explore users", got.Get("name"))
		require.Equal(t, []string{e1.String("id"), e2.String("id"), e3.String("id")}, rtStrings(t, got, "entries", "id"))
		require.JSONEq(t, string(e1.Raw), rtJSONAt(t, got, "entries.0"))
		require.NotContains(t, string(got.Raw), rtSecret)

		// Save the first request as a test.
		tr := ada.Do("POST", reqs+"/"+e1.String("id")+"/save-as-test", map[string]any{"name": "user 42"}).Status(http.StatusCreated)
		require.Equal(t, "user 42", tr.Get("name"))
		require.Equal(t, target.URL, tr.Get("base_url"))
		require.JSONEq(t, `[{"method":"GET","path":"/users/42"}]`, rtJSONAt(t, tr, "scopes"))
		require.JSONEq(t, `{"lang":"fr"}`, rtJSONAt(t, tr, "input.query_params"))
		require.JSONEq(t, `{"expected_status":200}`, rtJSONAt(t, tr, "input.expectations.GET /users/42"))
		headers, _ := tr.Get("input.headers").(map[string]any)
		require.Equal(t, "t-9", headers["X-Trace"])
		for k := range headers {
			require.NotEqual(t, "authorization", strings.ToLower(k), "a masked header is not copied")
		}
		require.NotContains(t, string(tr.Raw), "****")

		// A credential in the query string is masked in the log and not
		// copied into a saved test.
		eq := ada.Do("POST", reqs, map[string]any{"method": "GET", "path": "/users/42",
			"query_params": map[string]any{"api_key": rtSecret, "lang": "fr"}}).Status(http.StatusCreated)
		require.NotContains(t, string(eq.Raw), rtSecret)
		require.Contains(t, eq.String("request.url"), "api_key=%2A%2A%2A%2A")
		tq := ada.Do("POST", reqs+"/"+eq.String("id")+"/save-as-test", map[string]any{"name": "no key"}).Status(http.StatusCreated)
		require.JSONEq(t, `{"lang":"fr"}`, rtJSONAt(t, tq, "input.query_params"))

		run := rtRun(t, ada, tr.String("id"))
		require.Equal(t, true, run.Get("passed"), "run: %s", run.Raw)
		require.Equal(t, target.URL+"/users/42?lang=fr", run.Get("results.0.request.url"))

		// With a body, conditions and the status received.
		tr = ada.Do("POST", reqs+"/"+e2.String("id")+"/save-as-test", map[string]any{"name": "echo", "description": "echoes",
			"conditions": []any{rtCond("received.a", "eq", 1)}}).Status(http.StatusCreated)
		require.JSONEq(t, `{"a":1}`, rtJSONAt(t, tr, "input.body"))
		require.JSONEq(t, `{"expected_status":201,"conditions":[{"path":"received.a","operation":"eq","value":1}]}`,
			rtJSONAt(t, tr, "input.expectations.POST /echo"))
		run = rtRun(t, ada, tr.String("id"))
		require.Equal(t, true, run.Get("passed"), "run: %s", run.Raw)

		tr = ada.Do("POST", reqs+"/"+e3.String("id")+"/save-as-test", map[string]any{"name": "missing"}).Status(http.StatusCreated)
		require.Equal(t, float64(404), tr.Get("input.expectations.GET /status/404.expected_status"))
		require.Equal(t, true, rtRun(t, ada, tr.String("id")).Get("passed"))

		tr = ada.Do("POST", reqs+"/"+e3.String("id")+"/save-as-test", map[string]any{"name": "expects 200", "expected_status": 200}).
			Status(http.StatusCreated)
		require.Equal(t, false, rtRun(t, ada, tr.String("id")).Get("passed"))

		// Escaped paths are saved so that the test calls the same URL.
		for _, p := range []struct{ path, id string }{
			{"/users/a%20b", "a b"}, {"/users/x%2Fy", "x/y"}, {"/users/caf%C3%A9", "café"}, {"/users/q%3F", "q?"},
		} {
			e := ada.Do("POST", reqs, map[string]any{"method": "GET", "path": p.path}).Status(http.StatusCreated)
			require.Equal(t, target.URL+p.path, e.Get("request.url"))
			require.Equal(t, p.id, e.Get("response.body.id"))
			tr := ada.Do("POST", reqs+"/"+e.String("id")+"/save-as-test", map[string]any{"name": "escaped " + p.path,
				"conditions": []any{rtCond("id", "eq", p.id)}}).Status(http.StatusCreated)
			run := rtRun(t, ada, tr.String("id"))
			require.Equal(t, true, run.Get("passed"), "test: %s\nrun: %s", tr.Raw, run.Raw)
			sent, err := url.Parse(run.String("results.0.request.url"))
			require.NoError(t, err)
			require.Equal(t, p.path, sent.EscapedPath(), "the same URL is called")
		}

		ada.Do("POST", reqs+"/"+e1.String("id")+"/save-as-test", map[string]any{"name": "bad",
			"conditions": []any{rtCond("a", "approx")}}).
			Problem(http.StatusUnprocessableEntity, `input.expectations["GET /users/42"].conditions[0].operation`)
		ada.Do("POST", reqs+"/"+missingRTID+"/save-as-test", map[string]any{"name": "x"}).Problem(http.StatusNotFound)

		bob.For(t).Do("GET", "/api/sessions/"+s, nil).Problem(http.StatusNotFound)
		bob.For(t).Do("POST", reqs, map[string]any{"method": "GET", "path": "/pass"}).Problem(http.StatusNotFound)
		bob.For(t).Do("POST", reqs+"/"+e1.String("id")+"/save-as-test", map[string]any{"name": "x"}).Problem(http.StatusNotFound)

		ada.Do("DELETE", "/api/sessions/"+s, nil).Status(http.StatusNoContent)
		ada.Do("GET", "/api/sessions/"+s, nil).Problem(http.StatusNotFound)
		ada.Do("POST", reqs, map[string]any{"method": "GET", "path": "/pass"}).Problem(http.StatusNotFound)
		ada.Do("DELETE", "/api/sessions/"+s, nil).Problem(http.StatusNotFound)
	})

	t.Run("a server's session", func(t *testing.T) {
		ada := ada.For(t)
		s := ada.Do("POST", "/api/sessions", map[string]any{"name": "mcp", "server_id": server}).Status(http.StatusCreated).String("id")
		reqs := "/api/sessions/" + s + "/requests"
		e := ada.Do("POST", reqs, map[string]any{"method": "POST", "headers": map[string]any{"Accept": "application/json"},
			"body": rtToolCall("get_weather", map[string]any{"city": "Paris"})}).Status(http.StatusCreated)
		require.Equal(t, env.URL+"/api/platform/"+server+"/mcp", e.Get("request.url"))
		require.Equal(t, float64(200), e.Get("response.status"), "entry: %s", e.Raw)
		require.Equal(t, `{"sky":"clear","temp":18}`, e.Get("response.body.result.content.0.text"))

		tr := ada.Do("POST", reqs+"/"+e.String("id")+"/save-as-test", map[string]any{"name": "paris via session",
			"conditions": []any{rtCond("result.content[0].text.temp", "eq", 18)}}).Status(http.StatusCreated)
		require.Equal(t, env.URL+"/api/platform/"+server, tr.Get("base_url"))
		require.JSONEq(t, `[{"method":"POST","path":"/mcp"}]`, rtJSONAt(t, tr, "scopes"))
		run := rtRun(t, ada, tr.String("id"))
		require.Equal(t, true, run.Get("passed"), "test: %s\nrun: %s", tr.Raw, run.Raw)
		require.Equal(t, env.URL+"/api/platform/"+server+"/mcp", run.Get("results.0.request.url"))
	})

	t.Run("a request to the base URL itself", func(t *testing.T) {
		ada := ada.For(t)
		for _, tc := range []struct{ base, wantBase, wantPath, wantURL string }{
			{target.URL + "/users/77", target.URL + "/users", "/77", target.URL + "/users/77"},
			{target.URL + "/status/201/", target.URL + "/status", "/201", target.URL + "/status/201"},
			{target.URL, target.URL, "/", target.URL + "/"},
		} {
			s := ada.Do("POST", "/api/sessions", map[string]any{"name": "base " + tc.base, "base_url": tc.base}).
				Status(http.StatusCreated).String("id")
			e := ada.Do("POST", "/api/sessions/"+s+"/requests", map[string]any{"method": "GET"}).Status(http.StatusCreated)
			require.Equal(t, strings.TrimSuffix(tc.base, "/"), e.Get("request.url"))
			tr := ada.Do("POST", "/api/sessions/"+s+"/requests/"+e.String("id")+"/save-as-test", map[string]any{"name": "base"}).
				Status(http.StatusCreated)
			require.Equal(t, tc.wantBase, tr.Get("base_url"))
			require.Equal(t, tc.wantPath, tr.Get("scopes.0.path"))
			run := rtRun(t, ada, tr.String("id"))
			require.Equal(t, tc.wantURL, run.Get("results.0.request.url"))
			require.Equal(t, e.Get("response.status"), run.Get("results.0.response.status"))
			require.Equal(t, e.Get("response.status"), tr.Get("input.expectations.GET "+tc.wantPath+".expected_status"))
		}
	})

	t.Run("a base URL its requests could not use", func(t *testing.T) {
		ada := ada.For(t)
		for _, base := range []string{target.URL + "/?a=1", target.URL + "/#frag"} {
			ada.Do("POST", "/api/sessions", map[string]any{"name": "x", "base_url": base}).
				Problem(http.StatusUnprocessableEntity, "base_url")
		}
	})
}

// TestRestTestKeys: a full-scope key works the tests; a policy-scoped key
// is refused.
func TestRestTestKeys(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Key Org")
	server := ada.Do("POST", "/api/servers", map[string]any{"name": "bound"}).Status(http.StatusCreated).String("id")
	fullRaw := ada.Do("POST", "/api/keys", map[string]any{"name": "ci"}).Status(http.StatusCreated).String("raw_key")
	policyRaw := ada.Do("POST", "/api/keys", map[string]any{"name": "policy", "bound_server_id": server}).
		Status(http.StatusCreated).String("raw_key")
	existing := rtMkTest(t, ada, rtGetCase("by user", env.URL, "/api/health", 200))

	t.Run("full key", func(t *testing.T) {
		k := env.Anonymous(t)
		k.Header.Set("X-API-Key", fullRaw)
		r := k.Do("POST", "/api/tests", rtGetCase("by key", env.URL, "/api/health", 200)).Status(http.StatusCreated)
		require.True(t, strings.HasPrefix(r.String("created_by"), "key:"), "created_by %q", r.String("created_by"))
		run := rtRun(t, k, r.String("id"))
		require.Equal(t, true, run.Get("passed"), "run: %s", run.Raw)
		require.Equal(t, true, rtRun(t, k, existing).Get("passed"))
		suite := rtMkSuite(t, k, map[string]any{"name": "keyed", "test_ids": []any{existing, r.String("id")}})
		require.Equal(t, true, k.Do("POST", "/api/suites/"+suite+"/run", nil).Status(http.StatusCreated).Get("passed"))
	})

	t.Run("policy key", func(t *testing.T) {
		k := env.Anonymous(t)
		k.Header.Set("Authorization", "Bearer "+policyRaw)
		for _, rq := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/api/tests", nil},
			{"POST", "/api/tests", rtGetCase("nope", env.URL, "/api/health", 200)},
			{"GET", "/api/tests/" + existing, nil},
			{"POST", "/api/tests/" + existing + "/run", nil},
			{"GET", "/api/tests/" + existing + "/runs", nil},
			{"DELETE", "/api/tests/" + existing, nil},
			{"GET", "/api/suites", nil},
			{"POST", "/api/suites", map[string]any{"name": "x", "test_ids": []any{existing}}},
			{"GET", "/api/sessions", nil},
			{"POST", "/api/sessions", map[string]any{"name": "x", "base_url": env.URL}},
			{"POST", "/api/servers/" + server + "/tools/" + missingRTID + "/generate-tests", nil},
		} {
			r := k.Do(rq.method, rq.path, rq.body).Problem(http.StatusForbidden)
			require.Equal(t, rtMsgDataPlane, r.Get("detail"), "%s %s", rq.method, rq.path)
		}
		// Only the full key's two runs (alone and in the suite) were stored.
		require.Equal(t, 2, ada.Do("GET", "/api/tests/"+existing+"/runs", nil).Status(http.StatusOK).Len("items"))
	})
}
