package mcpserve_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/service"
	"github.com/mockmcp/mockmcp/internal/testclock"
)

// taskDesign has a tool of each kind of task.
func taskDesign() serverDesign {
	tool := func(name, task string) json.RawMessage {
		return json.RawMessage(`{"name":"` + name + `","description":"A task.","input_schema":{"type":"object"},` +
			`"mock_scenarios":[{"name":"` + name + ` task","task":` + task + `}]}`)
	}
	return serverDesign{
		Server:  json.RawMessage(`{"name":"Jobs","version":"1.0.0"}`),
		Enabled: true,
		Tools: []json.RawMessage{
			tool("build", `{"steps":[{"message":"Queued","duration_ms":1000},{"message":"Compiling","duration_ms":2000}],`+
				`"result":{"content":[{"type":"text","text":"build passed"}]},"ttl_ms":60000,"poll_interval_ms":500}`),
			tool("broken", `{"steps":[{"duration_ms":1000}],"error":{"code":-32050,"message":"the runner crashed"}}`),
			tool("approve", `{"steps":[{"message":"Preparing","duration_ms":1000}],"ask":{`+
				`"who":{"elicitation":{"message":"Who approves?","requested_schema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}},`+
				`"ok":{"elicitation":{"message":"Approve?","requested_schema":{"type":"object","properties":{}}}}},`+
				`"then":[{"when":{"ok.action":"accept"},"result":{"content":[{"type":"text","text":"approved by {{who.content.name}}"}]}},`+
				`{"result":{"content":[{"type":"text","text":"rejected"}],"isError":true}}]}`),
			tool("strict", `{"response":{"ran":"as a task"},"required":true}`),
		},
	}
}

// tasksClient calls the endpoint as a modern client that declares the
// tasks extension (or not).
type tasksClient struct {
	t         *testing.T
	endpoint  string
	extension bool
}

// call sends method with params (name: the Mcp-Name header) and returns the
// HTTP status and the decoded reply.
func (c tasksClient) call(method, name string, params map[string]any) (int, map[string]any) {
	c.t.Helper()
	caps := map[string]any{}
	if c.extension {
		caps["extensions"] = map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}
	}
	params["_meta"] = map[string]any{"io.modelcontextprotocol/protocolVersion": modernVersion,
		"io.modelcontextprotocol/clientCapabilities": caps}
	body := raw(c.t, map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req := apitest.JSONRequest(c.t, http.MethodPost, c.endpoint, strings.NewReader(string(body)))
	req.Header.Set("Mcp-Protocol-Version", modernVersion)
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	req.Header.Set("Accept", "application/json")
	resp, b := apitest.Send(c.t, req)
	var out map[string]any
	require.NoError(c.t, json.Unmarshal(b, &out), "%s", b)
	return resp.StatusCode, out
}

// result requires a result and returns it.
func (c tasksClient) result(method, name string, params map[string]any) map[string]any {
	c.t.Helper()
	_, out := c.call(method, name, params)
	require.Nil(c.t, out["error"], "%v", out)
	return out["result"].(map[string]any)
}

// rpcError requires an error and returns its code and message.
func (c tasksClient) rpcError(method, name string, params map[string]any) (float64, string) {
	c.t.Helper()
	_, out := c.call(method, name, params)
	e, ok := out["error"].(map[string]any)
	require.True(c.t, ok, "want an error, got %v", out)
	return e["code"].(float64), e["message"].(string)
}

func (c tasksClient) get(id string) map[string]any {
	c.t.Helper()
	return c.result("tasks/get", id, map[string]any{"taskId": id})
}

// TestTasks: a task's status follows its script's clock; answers move it
// on; cancel ends it; every error the extension defines; another instance
// serves the same task.
func TestTasks(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.Clock = clock.Now }})
	owner := env.Signup(t, "Tasks")
	id := createDesign(t, owner, taskDesign())
	endpoint := env.URL + "/api/platform/" + id + "/mcp"
	c := tasksClient{t: t, endpoint: endpoint, extension: true}

	created := c.result("tools/call", "build", map[string]any{"name": "build"})
	taskID, _ := created["taskId"].(string)
	require.Regexp(t, `^[0-9a-f]{32}$`, taskID)
	delete(created, "taskId")
	delete(created, "_meta")
	require.Equal(t, map[string]any{"resultType": "task", "status": "working", "statusMessage": "Queued",
		"createdAt": "2026-11-27T09:00:00Z", "lastUpdatedAt": "2026-11-27T09:00:00Z", "ttlMs": 60000.0, "pollIntervalMs": 500.0}, created)

	t.Run("the script's clock", func(t *testing.T) {
		got := c.get(taskID)
		require.Equal(t, "complete", got["resultType"])
		require.Equal(t, "working", got["status"])
		clock.Advance(1500 * time.Millisecond)
		got = c.get(taskID)
		require.Equal(t, "Compiling", got["statusMessage"])
		require.Equal(t, "2026-11-27T09:00:01Z", got["lastUpdatedAt"])
		clock.Advance(1500 * time.Millisecond)
		got = c.get(taskID)
		require.Equal(t, "completed", got["status"])
		require.Equal(t, map[string]any{"content": []any{map[string]any{"type": "text", "text": "build passed"}}}, got["result"])
		require.Equal(t, "2026-11-27T09:00:03Z", got["lastUpdatedAt"])
		require.NotContains(t, got, "pollIntervalMs", "a task that is over is not polled")
	})
	t.Run("the REST API", func(t *testing.T) {
		r := owner.Do("GET", "/api/servers/"+id+"/tasks", nil).Status(http.StatusOK)
		require.Equal(t, taskID, r.String("items.0.id"))
		require.Equal(t, "completed", r.String("items.0.status"), "the status its script has reached")
		owner.Do("POST", "/api/servers/"+id+"/tasks/"+taskID+"/end", map[string]any{"status": "failed",
			"error": map[string]any{"code": -32603, "message": "late"}}).Status(http.StatusConflict)

		open := c.result("tools/call", "build", map[string]any{"name": "build"})["taskId"].(string)
		owner.Do("POST", "/api/servers/"+id+"/tasks/"+open+"/end", map[string]any{"status": "completed",
			"result": map[string]any{"content": []any{map[string]any{"type": "text", "text": "done by hand"}}}}).Status(http.StatusOK)
		got := c.get(open)
		require.Equal(t, "completed", got["status"])
		require.Equal(t, "done by hand", got["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
	})
	t.Run("on another instance", func(t *testing.T) {
		second, err := service.New(context.Background(), env.Config, slog.New(slog.NewTextHandler(io.Discard, nil)))
		require.NoError(t, err)
		srv := httptest.NewServer(second.Handler())
		t.Cleanup(func() { srv.Close(); _ = second.Close() })
		other := tasksClient{t: t, endpoint: srv.URL + "/api/platform/" + id + "/mcp", extension: true}
		require.Equal(t, "completed", other.get(taskID)["status"])

		// Created here, answered and cancelled there.
		asking := c.result("tools/call", "approve", map[string]any{"name": "approve"})["taskId"].(string)
		running := c.result("tools/call", "build", map[string]any{"name": "build"})["taskId"].(string)
		clock.Advance(time.Second)
		require.Equal(t, "input_required", other.get(asking)["status"])
		other.result("tasks/update", asking, map[string]any{"taskId": asking, "inputResponses": map[string]any{
			"who": map[string]any{"action": "accept", "content": map[string]any{"name": "Grace"}},
			"ok":  map[string]any{"action": "decline"}}})
		other.result("tasks/cancel", running, map[string]any{"taskId": running})
		got := c.get(asking)
		require.Equal(t, "completed", got["status"])
		require.Equal(t, true, got["result"].(map[string]any)["isError"], "the decline branch")
		require.Equal(t, "cancelled", c.get(running)["status"])
	})
	t.Run("failed", func(t *testing.T) {
		broken := c.result("tools/call", "broken", map[string]any{"name": "broken"})["taskId"].(string)
		clock.Advance(time.Second)
		got := c.get(broken)
		require.Equal(t, "failed", got["status"])
		require.Equal(t, map[string]any{"code": -32050.0, "message": "the runner crashed"}, got["error"])
	})
	t.Run("questions", func(t *testing.T) {
		task := c.result("tools/call", "approve", map[string]any{"name": "approve"})["taskId"].(string)
		require.Equal(t, "working", c.get(task)["status"])
		clock.Advance(time.Second)
		got := c.get(task)
		require.Equal(t, "input_required", got["status"])
		require.Len(t, got["inputRequests"], 2)
		update := func(responses map[string]any) {
			t.Helper()
			ack := c.result("tasks/update", task, map[string]any{"taskId": task, "inputResponses": responses})
			delete(ack, "_meta")
			require.Equal(t, map[string]any{"resultType": "complete"}, ack)
		}
		update(map[string]any{"who": map[string]any{"action": "accept", "content": map[string]any{"name": "Ada"}},
			"unknown-key": map[string]any{"ignored": true}})
		got = c.get(task)
		require.Equal(t, "input_required", got["status"], "one question is still open")
		require.Equal(t, []string{"ok"}, keys(got["inputRequests"]))
		code, msg := c.rpcError("tasks/update", task, map[string]any{"taskId": task, "inputResponses": map[string]any{"ok": map[string]any{"action": "maybe"}}})
		require.Equal(t, -32602.0, code)
		require.Contains(t, msg, "inputResponses.ok.action")
		update(map[string]any{"ok": map[string]any{"action": "accept", "content": map[string]any{}}})
		got = c.get(task)
		require.Equal(t, "completed", got["status"])
		require.Equal(t, "approved by Ada", got["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"])
	})
	t.Run("cancel", func(t *testing.T) {
		task := c.result("tools/call", "build", map[string]any{"name": "build"})["taskId"].(string)
		for range 2 { // idempotent
			ack := c.result("tasks/cancel", task, map[string]any{"taskId": task})
			require.Equal(t, "complete", ack["resultType"])
		}
		require.Equal(t, "cancelled", c.get(task)["status"])
		clock.Advance(5 * time.Second)
		require.Equal(t, "cancelled", c.get(task)["status"], "the script does not go on")
		// A task that is over stays as it is.
		c.result("tasks/cancel", taskID, map[string]any{"taskId": taskID})
		require.Equal(t, "completed", c.get(taskID)["status"])
	})
	t.Run("errors", func(t *testing.T) {
		code, msg := c.rpcError("tasks/get", "nope", map[string]any{"taskId": "nope"})
		require.Equal(t, -32602.0, code)
		require.Contains(t, msg, "Task not found")
		otherServer := createDesign(t, owner, taskDesign())
		foreign := tasksClient{t: t, endpoint: env.URL + "/api/platform/" + otherServer + "/mcp", extension: true}
		code, _ = foreign.rpcError("tasks/get", taskID, map[string]any{"taskId": taskID})
		require.Equal(t, -32602.0, code, "a task of another server is not found")

		plain := tasksClient{t: t, endpoint: endpoint}
		code, _ = plain.rpcError("tasks/get", taskID, map[string]any{"taskId": taskID})
		require.Equal(t, -32021.0, code, "tasks/get needs the extension")
		res := plain.result("tools/call", "build", map[string]any{"name": "build"})
		require.NotContains(t, res, "taskId", "a client without the extension gets the outcome at once")
		require.Equal(t, "build passed", res["content"].([]any)[0].(map[string]any)["text"])
		code, _ = plain.rpcError("tools/call", "strict", map[string]any{"name": "strict"})
		require.Equal(t, -32021.0, code, "a task that requires the extension")

		status, out := c.call("tasks/get", "someone-else", map[string]any{"taskId": taskID})
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, -32020.0, out["error"].(map[string]any)["code"], "Mcp-Name must name the task")
	})
	t.Run("notifications on a listen stream", func(t *testing.T) {
		task := c.result("tools/call", "build", map[string]any{"name": "build"})["taskId"].(string)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		params := map[string]any{"notifications": map[string]any{"taskIds": []string{task, "unknown"}}, "_meta": map[string]any{
			"io.modelcontextprotocol/protocolVersion":    modernVersion,
			"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}}}}
		body := raw(t, map[string]any{"jsonrpc": "2.0", "id": 5, "method": "subscriptions/listen", "params": params})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(string(body)))
		require.NoError(t, err)
		for k, v := range map[string]string{"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
			"Mcp-Protocol-Version": modernVersion, "Mcp-Method": "subscriptions/listen"} {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		l := &listener{t: t, resp: resp, cancel: cancel, messages: make(chan string, 64)}
		t.Cleanup(l.close)
		go l.read()
		require.Contains(t, l.next(), `"taskIds":["`+task+`"]`, "the acknowledgement names the tasks it reports on")
		require.Contains(t, l.next(), `"status":"working"`)
		clock.Advance(3 * time.Second)
		done := l.next()
		require.Contains(t, done, `"method":"notifications/tasks"`)
		require.Contains(t, done, `"status":"completed"`)
		require.Contains(t, done, `build passed`)
	})
	t.Run("in the journal", func(t *testing.T) {
		require.NoError(t, env.Service.Journal().Flush(t.Context()))
		r := owner.Do("GET", "/api/servers/"+id+"/journal?method=tasks/get&outcome=result&limit=1", nil).Status(http.StatusOK)
		require.Equal(t, "tasks/get", r.String("items.0.method"))
		require.Contains(t, r.String("items.0.response"), `"taskId"`)
		r = owner.Do("GET", "/api/servers/"+id+"/journal?tool=build&limit=100", nil).Status(http.StatusOK)
		require.Contains(t, string(r.Raw), `\"resultType\":\"task\"`, "the call that began a task")
	})
	t.Run("expiry", func(t *testing.T) {
		clock.Advance(time.Minute)
		code, msg := c.rpcError("tasks/get", taskID, map[string]any{"taskId": taskID})
		require.Equal(t, -32602.0, code)
		require.Contains(t, msg, "expired")
	})
}

// TestOpenTasksCostNoGoroutine: 2,000 open tasks hold no goroutine. The
// bound allows one goroutine per worker, so a goroutine per task would
// exceed it 125 times over.
func TestOpenTasksCostNoGoroutine(t *testing.T) {
	if testing.Short() {
		t.Skip("creates 2,000 tasks")
	}
	env := apitest.New(t, nil)
	id := createDesign(t, env.Signup(t, "Many tasks"), taskDesign())
	c := tasksClient{t: t, endpoint: env.URL + "/api/platform/" + id + "/mcp", extension: true}
	c.result("tools/call", "build", map[string]any{"name": "build"}) // warm: the design cached, connections open
	runtime.GC()
	before := runtime.NumGoroutine()
	const n, workers = 2_000, 16
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				c.result("tools/call", "build", map[string]any{"name": "build"})
			}
		})
	}
	wg.Wait()
	http.DefaultClient.CloseIdleConnections()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss := "unknown"
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if strings.HasPrefix(line, "VmRSS:") {
				rss = strings.TrimSpace(strings.TrimPrefix(line, "VmRSS:"))
			}
		}
	}
	t.Logf("%d open tasks: goroutines %d before, %d after; heap in use %.1f MiB; RSS of the test process (service and client) %s",
		n, before, runtime.NumGoroutine(), float64(ms.HeapInuse)/(1<<20), rss)
	require.LessOrEqual(t, runtime.NumGoroutine(), before+workers, "open tasks hold no goroutine")
}

func keys(v any) []string {
	var out []string
	for k := range v.(map[string]any) {
		out = append(out, k)
	}
	return out
}

// TestTaskOutcomeTemplates: a task's outcome renders its answer templates
// from the call's arguments, at the time the task ended, and every poll
// reads the same outcome (its random values are the task's own).
func TestTaskOutcomeTemplates(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.Clock = clock.Now }})
	owner := env.Signup(t, "Task templates")
	id := createDesign(t, owner, serverDesign{Server: json.RawMessage(`{"name":"Reports","version":"1.0.0"}`), Enabled: true,
		Tools: []json.RawMessage{json.RawMessage(`{"name":"report","input_schema":{"type":"object"},"mock_scenarios":[{"name":"r","task":` +
			`{"steps":[{"duration_ms":1000}],"result":{"content":[{"type":"text","text":"report on {{args.city}}, {{uuid}}, {{now}}"}]}}}]}`)}})
	c := tasksClient{t: t, endpoint: env.URL + "/api/platform/" + id + "/mcp", extension: true}
	taskID := c.result("tools/call", "report", map[string]any{"name": "report", "arguments": map[string]any{"city": "Oslo"}})["taskId"].(string)
	clock.Advance(2 * time.Second)
	text := func() string {
		got := c.get(taskID)
		require.Equal(t, "completed", got["status"], "%v", got)
		return got["result"].(map[string]any)["content"].([]any)[0].(map[string]any)["text"].(string)
	}
	first := text()
	require.Regexp(t, `^report on Oslo, [0-9a-f-]{36}, 2026-11-27T09:00:01Z$`, first)
	require.Equal(t, first, text(), "every poll reads the same outcome")
}
