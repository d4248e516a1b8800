package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/store"
)

// Every input error is a 4xx in the API's own words: bodies whose fields
// hold values of the wrong JSON type, out-of-range numbers and text
// PostgreSQL refuses, and such path and query parameters, are sent to every
// operation of the document (and, for the platform tools, through the
// service MCP endpoint); no answer may be a 5xx, and no message may name a
// Go type or an internal address.

// goisms are what a message shown to a tenant must never contain.
var goisms = regexp.MustCompile(`(?i)float64|float32|\bu?int(8|16|32|64)\b|map\[|\[\]\w|interface ?\{|(?:^|\s)json: |cannot unmarshal|` +
	`go value|unmarshal type|expected=|\bint\b|struct ?\{|\*\w+\.[A-Z]|\bon [0-9.]+:53\b|dial tcp|sqlstate|pgx|runtime error|goroutine|\bnil\b`)

// probeValues replace one field of a valid body each.
var probeValues = []string{
	`"probe"`, `1e30`, `99999999999999999999`, `3000000000`, `-3000000000`, `1.5`, `1e400`, `true`,
	`[]`, `[1]`, `{}`, `{"a":1}`, `null`, `"a\u0000b"`, `"\ud800"`,
}

// inputWorld holds the ids valid bodies and paths refer to.
type inputWorld map[string]string

// validBodies are an accepted body of each operation with one, by
// operation id; the probes change one field at a time.
func validBodies(w inputWorld) map[string]string {
	return map[string]string{
		"Signup":                 `{"email":"probe-signup@example.com","password":"a good password","organization_name":"Probe"}`,
		"Login":                  `{"email":"` + w["email"] + `","password":"` + isolationPassword + `"}`,
		"SwitchOrganization":     `{"organization_id":"` + w["org_id"] + `"}`,
		"CreateOrganization":     `{"name":"Other","slug":"other-probe"}`,
		"UpdateOrganization":     `{"name":"Probe Org","max_public_rate_limit":10}`,
		"AddMember":              `{"email":"` + w["member_email"] + `","role":"member"}`,
		"CreateKey":              `{"name":"k","bound_server_id":"` + w["server_id"] + `","expires_at":"2099-01-01T00:00:00Z"}`,
		"CreateServer":           `{"name":"s","description":"d","fault":{"rate":0.5,"delay_ms":1,"error":{"code":-32000,"message":"m"}}}`,
		"UpdateServer":           `{"name":"s2","description":"d","version":"1.0.0"}`,
		"DuplicateServer":        `{"name":"copy"}`,
		"ApplyDesign":            `{"apiVersion":"mockmcp/v1","kind":"MCPServer","name":"probed document"}`,
		"ApplyAgentCard":         `{"apiVersion":"mockmcp/v1","kind":"A2AAgent","name":"probed-agent"}`,
		"CreateTool":             `{"name":"t_probe","description":"d","input_schema":{"type":"object","properties":{"a":{"type":"string"}}},"mock_scenarios":[{"name":"s","condition":{"a":"x"},"delay_ms":1,"response":{"ok":true}}]}`,
		"UpdateTool":             `{"description":"d2","mock_scenarios":[{"name":"s","error":{"code":-32001,"message":"m"},"notifications":[{"type":"progress","progress":1,"total":2}]}]}`,
		"CreateResource":         `{"name":"r","uri":"probe://{a}","content":"c","mime_type":"text/plain","completions":{"a":["x"]}}`,
		"UpdateResource":         `{"description":"d","content":"c2"}`,
		"CreatePrompt":           `{"name":"p_probe","arguments":[{"name":"a","description":"d","required":true}],"messages":[{"role":"user","text":"hi {{a}}"}]}`,
		"UpdatePrompt":           `{"description":"d","messages":[{"role":"user","text":"x"}]}`,
		"ResetSequences":         `{"key":"k"}`,
		"CreateServerSkill":      `{"name":"probe-skill","description":"d","license":"MIT","metadata":{"a":"b"},"body":"# b","files":[{"path":"a/b.md","text":"t","mime_type":"text/markdown"}]}`,
		"ReplaceServerSkill":     `{"name":"` + w["server_skill_name"] + `","description":"d2","body":"# b","files":[{"path":"c.bin","base64":"eA=="}]}`,
		"SetServerState":         `{"item":{"id":"1","tags":["a"]},"count":2}`,
		"VerifyJournal":          `{"tool":"` + w["tool_name"] + `","arguments":{"a":"x"},"times":0}`,
		"VerifyAgent":            `{"reply":"default","message":{"text":"x"},"at_least":0,"at_most":3}`,
		"EndTask":                `{"status":"completed","result":{"content":[{"type":"text","text":"done"}]}}`,
		"GenerateTests":          `{"base_url":"http://127.0.0.1:9"}`,
		"ValidatePolicy":         `{"tools":[{"name":"t","description":"d","inputSchema":{"type":"object"}}],"resources":[{"name":"r","uri":"a://b"}],"prompts":[{"name":"p","arguments":[{"name":"a","required":true}]}]}`,
		"ImportOpenAPI":          `{"name":"imported","document":{"openapi":"3.0.3","info":{"title":"t","version":"1"},"paths":{"/a":{"get":{"operationId":"getA","responses":{"200":{"description":"ok"}}}}}}}`,
		"ImportMCP":              `{"url":"` + w["mcp_url"] + `","name":"m","headers":{"X-Trace":"k"},"record_calls":[{"tool":"` + w["tool_name"] + `","arguments":{"a":"x"}}]}`,
		"CheckDrift":             `{"url":"` + w["mcp_url"] + `","headers":{"X-Trace":"k"}}`,
		"PromoteRecordings":      `{"dry_run":true,"tool":"get_weather","since":"2024-01-01T00:00:00Z","until":"2030-01-01T00:00:00Z","journal_ids":["` + uuid.NewString() + `"]}`,
		"CreateAgentCard":        `{"name":"probe-card","version":"1.0.0","description":"d","capabilities":{"streaming":true,"languages":["en"]},"metadata":{"tags":["a"]},"skills":[{"name":"sk","mcp_server":"` + w["server_id"] + `","mcp_tool":"` + w["tool_name"] + `"}]}`,
		"UpdateAgentCard":        `{"description":"d2","metadata":{"tags":["b"]},"invocation":{"protocol":"mcp"}}`,
		"DuplicateAgentCard":     `{"name":"probe-card-copy"}`,
		"CreateAgentCardSkill":   `{"name":"sk2","description":"d","examples":["e"],"parameters":{"type":"object"}}`,
		"UpdateAgentCardSkill":   `{"description":"d2"}`,
		"InvokeAgentCardSkill":   `{"input":{"a":"x"}}`,
		"CreateTest":             `{"name":"t","base_url":"http://127.0.0.1:9","scopes":[{"method":"GET","path":"/x"}],"input":{"headers":{"A":"b"},"query_params":{"q":"1"},"expectations":{"GET /x":{"expected_status":200,"conditions":[{"path":"a","operation":"eq","value":1}]}}}}`,
		"UpdateTest":             `{"description":"d2"}`,
		"CreateSuite":            `{"name":"s","test_ids":["` + w["test_id"] + `"],"parallelism":1,"stop_on_failure":true}`,
		"UpdateSuite":            `{"description":"d2","parallelism":2}`,
		"CreateSession":          `{"name":"s","base_url":"http://127.0.0.1:9"}`,
		"SendSessionRequest":     `{"method":"POST","path":"/x","query_params":{"a":"b"},"headers":{"A":"b"},"body":{"a":1}}`,
		"SaveSessionEntryAsTest": `{"name":"saved","expected_status":200,"conditions":[{"path":"a","operation":"eq","value":1}]}`,
	}
}

// segment is an object key or, when index is set, an array index.
type segment struct {
	key   string
	index bool
}

// fieldPaths lists the member paths of a body schema, through arrays
// (element 0) and nested objects, to a bounded depth.
func fieldPaths(sc *openapi3.Schema, prefix []segment, depth int) [][]segment {
	if sc == nil || depth > 3 {
		return nil
	}
	var out [][]segment
	names := make([]string, 0, len(sc.Properties))
	for n := range sc.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := append(append([]segment{}, prefix...), segment{key: n})
		out = append(out, p)
		prop := sc.Properties[n].Value
		if prop.Type.Is("array") && prop.Items != nil {
			item := append(append([]segment{}, p...), segment{index: true})
			out = append(out, item)
			out = append(out, fieldPaths(prop.Items.Value, item, depth+1)...)
			continue
		}
		out = append(out, fieldPaths(prop, p, depth+1)...)
	}
	return out
}

// withValue returns body (a JSON object) with the value at path replaced by
// raw, creating what is missing on the way.
func withValue(t *testing.T, body string, path []segment, raw string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var doc any
	require.NoError(t, dec.Decode(&doc))
	var set func(cur any, i int) any
	set = func(cur any, i int) any {
		if i == len(path) {
			return json.RawMessage(raw)
		}
		if path[i].index {
			arr, _ := cur.([]any)
			if len(arr) == 0 {
				arr = []any{map[string]any{}}
			}
			arr[0] = set(arr[0], i+1)
			return arr
		}
		obj, ok := cur.(map[string]any)
		if !ok {
			obj = map[string]any{}
		}
		obj[path[i].key] = set(obj[path[i].key], i+1)
		return obj
	}
	out, err := json.Marshal(set(doc, 0))
	require.NoError(t, err)
	return string(out)
}

func pathName(path []segment) string {
	var b strings.Builder
	for _, s := range path {
		if s.index {
			b.WriteString("[0]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(s.key)
	}
	return b.String()
}

func TestWrongInputsAnswer4xxInTheAPIsWords(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	spec, err := api.GetSpec()
	require.NoError(t, err)

	owner := signUp(t, env, "probe-owner@inputs.example", "Inputs Org")
	member := signUp(t, env, "probe-member@inputs.example", "Member Org")
	c := owner.client(t, env)
	w := inputWorld{"org_id": owner.orgID, "user_id": member.userID, "email": owner.email, "member_email": member.email}
	w["server_id"] = c.Do("POST", "/api/servers", map[string]any{"name": "probed"}).Status(http.StatusCreated).String("id")
	w["tool_name"] = "probed_tool"
	w["tool_id"] = c.Do("POST", "/api/servers/"+w["server_id"]+"/tools", map[string]any{"name": w["tool_name"],
		"input_schema":   map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "string"}}},
		"mock_scenarios": []any{map[string]any{"name": "default", "response": map[string]any{"ok": true}}}}).Status(http.StatusCreated).String("id")
	c.Do("PATCH", "/api/servers/"+w["server_id"], map[string]any{"enabled": true}).Status(http.StatusOK)
	w["mcp_url"] = env.URL + "/api/platform/" + w["server_id"] + "/mcp"
	w["resource_id"] = c.Do("POST", "/api/servers/"+w["server_id"]+"/resources", map[string]any{"name": "r", "uri": "probed://r", "content": "c"}).
		Status(http.StatusCreated).String("id")
	w["prompt_id"] = c.Do("POST", "/api/servers/"+w["server_id"]+"/prompts", map[string]any{"name": "probed_prompt",
		"messages": []any{map[string]any{"role": "user", "text": "x"}}}).Status(http.StatusCreated).String("id")
	w["server_skill_name"] = "probed-skill"
	c.Do("POST", "/api/servers/"+w["server_id"]+"/skills", map[string]any{"name": w["server_skill_name"], "description": "d", "body": "b"}).
		Status(http.StatusCreated)
	w["key_id"] = c.Do("POST", "/api/keys", map[string]any{"name": "probe key"}).Status(http.StatusCreated).String("key.id")
	w["skill_name"] = "probed_skill"
	w["card_id"] = c.Do("POST", "/api/agent-cards", map[string]any{"name": "probed-card", "skills": []any{map[string]any{
		"name": w["skill_name"], "mcp_server": w["server_id"], "mcp_tool": w["tool_name"]}}}).Status(http.StatusCreated).String("id")
	w["test_id"] = c.Do("POST", "/api/tests", map[string]any{"name": "probed", "base_url": "http://127.0.0.1:9",
		"scopes": []any{map[string]any{"method": "GET", "path": "/a"}}}).Status(http.StatusCreated).String("id")
	w["suite_id"] = c.Do("POST", "/api/suites", map[string]any{"name": "probed", "test_ids": []any{w["test_id"]}}).Status(http.StatusCreated).String("id")
	w["run_id"] = c.Do("POST", "/api/suites/"+w["suite_id"]+"/run", nil).Status(http.StatusCreated).String("id")
	w["session_id"] = c.Do("POST", "/api/sessions", map[string]any{"name": "probed", "server_id": w["server_id"]}).Status(http.StatusCreated).String("id")
	w["entry_id"] = c.Do("POST", "/api/sessions/"+w["session_id"]+"/requests", map[string]any{"method": "POST",
		"body": map[string]any{"jsonrpc": "2.0", "id": 1, "method": "ping"}}).Status(http.StatusCreated).String("id")
	w["task_id"] = strings.Repeat("5e", 16)
	require.NoError(t, env.Service.Store().CreateTask(context.Background(), store.Task{ID: w["task_id"],
		OrgID: uuid.MustParse(owner.orgID), ServerID: uuid.MustParse(w["server_id"]), Tool: w["tool_name"],
		Scenario: "default", Script: json.RawMessage(plantedScript), CreatedAt: time.Now()}))
	w["org_slug"] = c.Do("GET", "/api/organizations/"+owner.orgID, nil).Status(http.StatusOK).String("slug")
	w["name"] = "probed-card"
	rawKey := c.Do("POST", "/api/keys", map[string]any{"name": "probe caller"}).Status(http.StatusCreated).String("raw_key")

	type operation struct {
		id, method, path, tool string
		op                     *openapi3.Operation
	}
	var ops []operation
	for path, item := range spec.Paths.Map() {
		for method, op := range item.Operations() {
			tool, _ := op.Extensions["x-mcp-tool"].(string)
			ops = append(ops, operation{op.OperationID, method, path, tool, op})
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].id < ops[j].id })
	bodies := validBodies(w)

	// The probes run on a few workers, each a client of its own signed in
	// as the owner; every answer is checked.
	type probe struct {
		what, method, path, body string
		mcp                      bool
	}
	var probes []probe
	for _, o := range ops {
		if o.method == http.MethodDelete || o.id == "Logout" {
			continue // a probe that passes would delete what the others need
		}
		path := fill(o.path, w)
		// Text PostgreSQL refuses in each path parameter.
		for _, p := range o.op.Parameters {
			switch p.Value.In {
			case "path":
				for _, bad := range []string{"a%00b", "%FF", "99999999999999999999"} {
					probes = append(probes, probe{what: o.id + " path " + p.Value.Name + "=" + bad, method: o.method,
						path: strings.Replace(o.path, "{"+p.Value.Name+"}", bad, 1), body: bodies[o.id]})
				}
			case "query":
				for _, bad := range []string{"a%00b", "%FF", "1e30", "99999999999999999999", "-1", "%5B%5D"} {
					probes = append(probes, probe{what: o.id + " query " + p.Value.Name + "=" + bad, method: o.method,
						path: path + "?" + p.Value.Name + "=" + bad, body: bodies[o.id]})
				}
			}
		}
		if o.op.RequestBody == nil {
			continue
		}
		base, ok := bodies[o.id]
		require.Truef(t, ok, "operation %s takes a body but has none in validBodies", o.id)
		sc := o.op.RequestBody.Value.Content.Get("application/json").Schema.Value
		for _, fp := range fieldPaths(sc, nil, 0) {
			for _, v := range probeValues {
				probes = append(probes, probe{what: o.id + " " + pathName(fp) + "=" + v, method: o.method, path: path,
					body: withValue(t, base, fp, v)})
			}
		}
		// The same through the service endpoint, whose tools take path
		// parameters and body members as arguments.
		if o.tool != "" {
			args := map[string]json.RawMessage{}
			require.NoError(t, json.Unmarshal([]byte(base), &args))
			for _, p := range o.op.Parameters {
				if p.Value.In == "path" {
					args[p.Value.Name], _ = json.Marshal(w[p.Value.Name])
				}
			}
			names := make([]string, 0, len(args))
			for n := range args {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				for _, v := range probeValues {
					probed := map[string]json.RawMessage{}
					for k, a := range args {
						probed[k] = a
					}
					probed[n] = json.RawMessage(v)
					call, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call",
						"params": map[string]any{"name": o.tool, "arguments": probed}})
					require.NoError(t, err)
					probes = append(probes, probe{what: "MCP " + o.tool + " " + n + "=" + v, method: http.MethodPost,
						path: "/api/platform-mcp/mcp", body: string(call), mcp: true})
				}
			}
		}
	}
	t.Logf("%d probes", len(probes))

	// Each valid body is accepted, so that the probes, which differ from it
	// in one field, reach the decoder and the handler.
	for _, o := range ops {
		base, ok := bodies[o.id]
		if !ok {
			continue
		}
		r := sendProbe(t, env, owner, rawKey, o.method, fill(o.path, w), base)
		require.NoError(t, r.err)
		if r.code >= 300 {
			t.Errorf("the valid body of %s answered %d: %s", o.id, r.code, r.body)
		}
	}
	if t.Failed() {
		return
	}

	work := make(chan probe)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	fail := func(format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	for range 4 {
		wg.Go(func() {
			for p := range work {
				r := sendProbe(t, env, owner, rawKey, p.method, p.path, p.body)
				if r.err != nil {
					fail("%s: %v", p.what, r.err)
					continue
				}
				if r.code >= 500 {
					fail("%s: HTTP %d %s", p.what, r.code, r.body)
					continue
				}
				raws := [][]byte{r.body}
				if p.mcp {
					raws = mcpProblems(r.body)
					if bytes.Contains(r.body, []byte(`"code":-32603`)) {
						fail("%s: internal error %s", p.what, r.body)
					}
				}
				for _, raw := range raws {
					if goisms.Match(problemText(raw)) {
						fail("%s: Go-ism in %s", p.what, raw)
					}
				}
			}
		})
	}
	for _, p := range probes {
		work <- p
	}
	close(work)
	wg.Wait()
	sort.Strings(failures)
	for _, f := range failures {
		t.Log(f)
	}
	require.Empty(t, failures, "%d of %d probes answered badly", len(failures), len(probes))
}

type probeAnswer struct {
	code int
	body []byte
	err  error
}

// sendProbe sends one request as acc: with its session on the routes of
// signed-in users, with its full-scope key elsewhere.
func sendProbe(t *testing.T, env *apitest.Env, acc account, rawKey, method, path, body string) probeAnswer {
	req, err := http.NewRequest(method, env.URL+path, strings.NewReader(body))
	if err != nil {
		return probeAnswer{err: err}
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	if strings.HasPrefix(path, "/api/auth/") || strings.HasPrefix(path, "/api/me") ||
		strings.HasPrefix(path, "/api/keys") || strings.HasPrefix(path, "/api/organizations") {
		req.AddCookie(ownerCookie(t, env, acc))
	} else {
		req.Header.Set("X-API-Key", rawKey)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return probeAnswer{err: err}
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, err = buf.ReadFrom(resp.Body)
	return probeAnswer{code: resp.StatusCode, body: buf.Bytes(), err: err}
}

var (
	cookieMu sync.Mutex
	cookies  = map[string]*http.Cookie{}
)

// ownerCookie is a session cookie of acc, signed in once per test.
func ownerCookie(t *testing.T, env *apitest.Env, acc account) *http.Cookie {
	cookieMu.Lock()
	defer cookieMu.Unlock()
	if ck := cookies[env.URL]; ck != nil {
		return ck
	}
	resp, err := http.Post(env.URL+"/api/auth/login", "application/json",
		strings.NewReader(`{"email":"`+acc.email+`","password":"`+isolationPassword+`"}`))
	require.NoError(t, err)
	resp.Body.Close()
	for _, ck := range resp.Cookies() {
		if ck.Value != "" {
			cookies[env.URL] = ck
			return ck
		}
	}
	t.Fatalf("no session cookie from login: %d", resp.StatusCode)
	return nil
}

// problemText is the detail and field messages of a problem document.
func problemText(raw []byte) []byte {
	var p struct {
		Detail string `json:"detail"`
		Errors []struct {
			Field, Message string
		} `json:"errors"`
	}
	if json.Unmarshal(raw, &p) != nil {
		return nil
	}
	var b strings.Builder
	b.WriteString(p.Detail)
	for _, e := range p.Errors {
		b.WriteString("\n" + e.Field + ": " + e.Message)
	}
	return []byte(b.String())
}

// mcpProblems are the problem documents a tools/call answer carries: the
// text of an isError result, or the JSON-RPC error's message.
func mcpProblems(raw []byte) [][]byte {
	var out [][]byte
	for _, line := range bytes.Split(raw, []byte("\n")) {
		line = bytes.TrimPrefix(line, []byte("data: "))
		var msg struct {
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
			Error *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &msg) != nil {
			continue
		}
		if msg.Error != nil {
			b, _ := json.Marshal(map[string]string{"detail": msg.Error.Message})
			out = append(out, b)
		}
		if msg.Result.IsError {
			for _, c := range msg.Result.Content {
				out = append(out, []byte(c.Text))
			}
		}
	}
	return out
}

// TestRefusedTextNamesTheField: text PostgreSQL cannot store, in a body, a
// path or a query, is a 4xx naming the field, never a 500 nor "body".
func TestRefusedTextNamesTheField(t *testing.T) {
	t.Parallel()
	_, ada := apitest.SignedUp(t, "Refused Text")
	nul := `"a\u0000b"`
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		field                    string
	}{
		{"login e-mail", "POST", "/api/auth/login", `{"email":"a\u0000@x.com","password":"p"}`, 422, "email"},
		{"signup e-mail", "POST", "/api/auth/signup", `{"email":"a\u0000@x.com","password":"a good password","organization_name":"o"}`, 422, "email"},
		{"signup organization", "POST", "/api/auth/signup", `{"email":"nul-org@x.com","password":"a good password","organization_name":` + nul + `}`, 422, "organization_name"},
		{"member e-mail", "POST", "/api/organizations/" + ada.OrgID + "/members", `{"email":"a\u0000@x.com"}`, 422, "email"},
		{"organization name", "POST", "/api/organizations", `{"name":` + nul + `}`, 422, "name"},
		{"key name", "POST", "/api/keys", `{"name":` + nul + `}`, 422, "name"},
		{"test name", "POST", "/api/tests", `{"name":` + nul + `,"base_url":"http://127.0.0.1:9","scopes":[{"method":"GET","path":"/"}]}`, 422, "name"},
		{"session name", "POST", "/api/sessions", `{"name":` + nul + `,"base_url":"http://127.0.0.1:9"}`, 422, "name"},
		{"card tag", "POST", "/api/agent-cards", `{"name":"c","metadata":{"tags":["ok",` + nul + `]}}`, 422, "metadata.tags[1]"},
		{"surrogate in a schema", "POST", "/api/servers", `{"name":"s","description":"\ud800"}`, 422, "description"},
		{"search text", "GET", "/api/exchange/agent-cards?q=a%00b", "", 400, "q"},
		{"tag not UTF-8", "GET", "/api/exchange/agent-cards?tag=%FF", "", 400, "tag"},
		{"since", "GET", "/api/servers/" + ada.OrgID + "/journal?since=a%00b", "", 400, "since"},
		{"slug in the path", "GET", "/api/exchange/agent-cards/a%00b/c", "", 400, "org_slug"},
		{"name in the path", "GET", "/api/exchange/agent-cards/acme/%FF", "", 400, "name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ada.For(t)
			var body any
			if tc.body != "" {
				body = tc.body
			}
			r := c.Do(tc.method, tc.path, body).Problem(tc.code, tc.field)
			require.NotContains(t, string(r.Raw), "text must not", "the database's fallback did not answer")
		})
	}
}
