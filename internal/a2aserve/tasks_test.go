package a2aserve_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testclock"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// taskEnv serves testCard with replies as "travel-planner" of two
// organizations, acme and other, over a real database, on a clock that
// stands still until a test (or a stream's wait) advances it.
type taskEnv struct {
	acme, other string // the two agents' endpoint URLs
	acmeREST    string // acme's agent in the HTTP+JSON binding
	clock       *testclock.Clock
	st          *store.Store
	agents      map[string]a2aserve.Agent // by organization slug
}

var epoch = time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)

func newTaskEnv(t *testing.T, replies []agentcard.Reply) *taskEnv {
	t.Helper()
	st := testdb.Store(t)
	card := testCard()
	card.Replies = replies
	agents := map[string]a2aserve.Agent{}
	for _, slug := range []string{"acme", "other"} {
		a := a2aserve.Agent{Card: card, ID: uuid.New(), OrgID: testdb.Org(t, st)}
		require.NoError(t, st.WithTx(context.Background(), store.Scope{OrgID: a.OrgID}, func(tx *store.Tx) error {
			_, err := tx.CreateAgentCard(context.Background(), a.ID, card, "test")
			return err
		}))
		agents[slug] = a
	}
	lookup := func(_ context.Context, slug, name string) (a2aserve.Agent, error) {
		if a, ok := agents[slug]; ok && name == card.Name {
			return a, nil
		}
		return a2aserve.Agent{}, failure.NotFound("agent card")
	}
	clock := testclock.New(epoch)
	var n atomic.Int64 // the agent makes ids from concurrent requests
	newID := func() string { return "id-" + strconv.FormatInt(n.Add(1), 10) }
	h := a2aserve.New(lookup, st, slog.New(slog.NewTextHandler(io.Discard, nil)), newID).
		WithClock(clock.Now, func(_ context.Context, d time.Duration) error { clock.Advance(d); return nil })
	mux := http.NewServeMux()
	mux.Handle(a2aserve.Route, h)
	mux.Handle(a2aserve.RESTRoute, h.REST())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &taskEnv{acme: srv.URL + a2aserve.EndpointPath("acme", card.Name), acmeREST: srv.URL + a2aserve.RESTPath("acme", card.Name),
		other: srv.URL + a2aserve.EndpointPath("other", card.Name), clock: clock, st: st, agents: agents}
}

// rpc sends method with params to url as A2A version and returns the
// result, or fails the test on an error.
func rpc(t *testing.T, url, version, method string, params any) map[string]any {
	t.Helper()
	v := rpcAnswer(t, url, version, method, params)
	require.Contains(t, v, "result", "%v", v)
	return v["result"].(map[string]any)
}

// rpcError sends method and returns the error answered.
func rpcError(t *testing.T, url, version, method string, params any) map[string]any {
	t.Helper()
	v := rpcAnswer(t, url, version, method, params)
	require.Contains(t, v, "error", "%v", v)
	return v["error"].(map[string]any)
}

func rpcAnswer(t *testing.T, url, version, method string, params any) map[string]any {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	require.NoError(t, err)
	status, v := post(t, url, version, string(body))
	require.Equal(t, http.StatusOK, status)
	return v
}

// msg10 is SendMessage's params with a message of text (extra adds
// fields to it), answered at once (configuration.returnImmediately).
func msg10(text string, extra map[string]any) map[string]any {
	p := blocking10(text, extra)
	p["configuration"] = map[string]any{"returnImmediately": true}
	return p
}

// blocking10 is msg10 without configuration: a task reply is answered once
// it has ended or waits for input.
func blocking10(text string, extra map[string]any) map[string]any {
	m := map[string]any{"messageId": uuid.NewString(), "role": "ROLE_USER", "parts": []any{map[string]any{"text": text}}}
	for k, v := range extra {
		m[k] = v
	}
	return map[string]any{"message": m}
}

// msg03 is message/send's params, answered at once (blocking false).
func msg03(text string, extra map[string]any) map[string]any {
	m := map[string]any{"kind": "message", "messageId": uuid.NewString(), "role": "user",
		"parts": []any{map[string]any{"kind": "text", "text": text}}}
	for k, v := range extra {
		m[k] = v
	}
	return map[string]any{"message": m, "configuration": map[string]any{"blocking": false}}
}

func state(task map[string]any) string {
	return task["status"].(map[string]any)["state"].(string)
}

func statusText(task map[string]any) string {
	m, ok := task["status"].(map[string]any)["message"].(map[string]any)
	if !ok {
		return ""
	}
	return m["parts"].([]any)[0].(map[string]any)["text"].(string)
}

var searchReply = agentcard.Reply{
	Name: "search", Condition: json.RawMessage(`{"field":"text","operator":"contains","value":"flights"}`),
	Task: &agentcard.ReplyTask{
		Steps: []agentcard.TaskStep{
			{Message: "Searching: {{args.text}}", DurationMS: 1000},
			{Message: "Comparing fares", DurationMS: 2000},
		},
		Outcome: agentcard.TaskOutcome{State: agentcard.TaskCompleted, Message: "Found 3 flights",
			Artifacts: []agentcard.Artifact{
				{Name: "flights", Text: "Flights for {{args.text}}"},
				{Name: "cheapest", Data: json.RawMessage(`{"price":120}`)},
			}},
	},
}

var bookReply = agentcard.Reply{
	Name: "book", Condition: json.RawMessage(`{"field":"text","operator":"contains","value":"book"}`),
	Task: &agentcard.ReplyTask{
		Steps: []agentcard.TaskStep{
			{Message: "Checking rooms", DurationMS: 100},
			{State: agentcard.TaskInputRequired, Message: "Which night?"},
			{Message: "Booking", DurationMS: 500},
		},
		Outcome: agentcard.TaskOutcome{State: agentcard.TaskCompleted, Message: "Booked: {{args.text}}"},
	},
}

func TestTaskTimeline(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, []agentcard.Reply{searchReply})
	res := rpc(t, env.acme, "1.0", "SendMessage", msg10("flights to Rome", map[string]any{"contextId": "trip"}))
	task := res["task"].(map[string]any)
	id := task["id"].(string)
	require.Equal(t, "trip", task["contextId"])
	require.Equal(t, "TASK_STATE_WORKING", state(task))
	require.Equal(t, "Searching: flights to Rome", statusText(task))
	require.Equal(t, map[string]any{"reply": "search", "skill": "search_flights"}, task["metadata"])
	require.NotContains(t, task, "artifacts")
	require.Len(t, task["history"], 1)

	for _, tc := range []struct {
		after       time.Duration
		state, text string
	}{
		{999 * time.Millisecond, "TASK_STATE_WORKING", "Searching: flights to Rome"},
		{time.Millisecond, "TASK_STATE_WORKING", "Comparing fares"},
		{1999 * time.Millisecond, "TASK_STATE_WORKING", "Comparing fares"},
		{time.Millisecond, "TASK_STATE_COMPLETED", "Found 3 flights"},
	} {
		env.clock.Advance(tc.after)
		got := rpc(t, env.acme, "1.0", "GetTask", map[string]any{"id": id})
		require.Equal(t, tc.state, state(got), "at %v", env.clock.Now().Sub(epoch))
		require.Equal(t, tc.text, statusText(got))
	}
	done := rpc(t, env.acme, "1.0", "GetTask", map[string]any{"id": id, "historyLength": 0})
	require.NotContains(t, done, "history")
	require.Equal(t, epoch.Add(3*time.Second).Format(time.RFC3339Nano), done["status"].(map[string]any)["timestamp"])
	require.Equal(t, []any{
		map[string]any{"artifactId": "artifact-1", "name": "flights", "parts": []any{map[string]any{"text": "Flights for flights to Rome"}}},
		map[string]any{"artifactId": "artifact-2", "name": "cheapest", "parts": []any{map[string]any{"data": map[string]any{"price": float64(120)}}}},
	}, done["artifacts"])

	// The same task in 0.3's shapes.
	old := rpc(t, env.acme, "", "tasks/get", map[string]any{"id": id})
	require.Equal(t, "task", old["kind"])
	require.Equal(t, "completed", state(old))
	require.Equal(t, []any{map[string]any{"kind": "text", "text": "Flights for flights to Rome"}},
		old["artifacts"].([]any)[0].(map[string]any)["parts"])
	require.Equal(t, "user", old["history"].([]any)[0].(map[string]any)["role"])

	t.Run("a message reply still answers a message", func(t *testing.T) {
		res := rpc(t, env.acme, "1.0", "SendMessage", msg10("hello", nil))
		require.Contains(t, res, "message")
		require.NotContains(t, res, "task")
	})
}

func TestInputRequiredTaskContinues(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, []agentcard.Reply{bookReply})
	task := rpc(t, env.acme, "1.0", "SendMessage", msg10("book a room", nil))["task"].(map[string]any)
	id, ctxID := task["id"].(string), task["contextId"].(string)
	require.NotEmpty(t, ctxID, "a message without a context gets one")
	require.Equal(t, "TASK_STATE_WORKING", state(task))

	env.clock.Advance(time.Hour) // waits for input however long it takes
	got := rpc(t, env.acme, "1.0", "GetTask", map[string]any{"id": id})
	require.Equal(t, "TASK_STATE_INPUT_REQUIRED", state(got))
	require.Equal(t, "Which night?", statusText(got))

	t.Run("a message of another context is refused", func(t *testing.T) {
		e := rpcError(t, env.acme, "1.0", "SendMessage", msg10("Friday", map[string]any{"taskId": id, "contextId": "elsewhere"}))
		require.Equal(t, float64(-32602), e["code"])
	})

	cont := rpc(t, env.acme, "1.0", "SendMessage", msg10("Friday", map[string]any{"taskId": id, "contextId": ctxID}))["task"].(map[string]any)
	require.Equal(t, id, cont["id"])
	require.Equal(t, "TASK_STATE_WORKING", state(cont))
	require.Equal(t, "Booking", statusText(cont))
	require.Len(t, cont["history"], 2)

	env.clock.Advance(500 * time.Millisecond)
	got = rpc(t, env.acme, "1.0", "GetTask", map[string]any{"id": id, "historyLength": 1})
	require.Equal(t, "TASK_STATE_COMPLETED", state(got))
	require.Equal(t, "Booked: book a room", statusText(got), "the outcome renders from the message that began the task")
	history := got["history"].([]any)
	require.Len(t, history, 1)
	require.Equal(t, []any{map[string]any{"text": "Friday"}}, history[0].(map[string]any)["parts"])

	e := rpcError(t, env.acme, "1.0", "SendMessage", msg10("Saturday?", map[string]any{"taskId": id}))
	require.Equal(t, float64(-32004), e["code"], "an ended task takes no more messages")
}

// TestSendMessageWaitsForTheTask: without returnImmediately (1.0), or
// with blocking (0.3, its default too), SendMessage answers once the task
// has ended or waits for input.
func TestSendMessageWaitsForTheTask(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, []agentcard.Reply{searchReply, bookReply})
	task := rpc(t, env.acme, "1.0", "SendMessage", blocking10("flights", nil))["task"].(map[string]any)
	require.Equal(t, "TASK_STATE_COMPLETED", state(task))
	require.Len(t, task["artifacts"], 2)
	require.Equal(t, 3*time.Second, env.clock.Now().Sub(epoch), "it waited the timeline out")

	params := msg03("book a room", nil)
	delete(params, "configuration")
	old := rpc(t, env.acme, "", "message/send", params)
	require.Equal(t, "input-required", state(old), "an interrupted state ends the wait")
	params = msg03("Friday", map[string]any{"taskId": old["id"]})
	params["configuration"] = map[string]any{"blocking": true, "historyLength": 1}
	old = rpc(t, env.acme, "", "message/send", params)
	require.Equal(t, "completed", state(old), "a continuation waits too")
	require.Len(t, old["history"], 1)

	e := rpcError(t, env.acme, "1.0", "SendMessage", map[string]any{"message": blocking10("x", nil)["message"],
		"configuration": map[string]any{"historyLength": -1}})
	require.Equal(t, float64(-32602), e["code"])
}

func TestCancelTask(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, []agentcard.Reply{searchReply})
	id := rpc(t, env.acme, "1.0", "SendMessage", msg10("flights", nil))["task"].(map[string]any)["id"].(string)
	env.clock.Advance(time.Second)

	canceled := rpc(t, env.acme, "1.0", "CancelTask", map[string]any{"id": id})
	require.Equal(t, "TASK_STATE_CANCELED", state(canceled))
	env.clock.Advance(time.Hour)
	got := rpc(t, env.acme, "", "tasks/get", map[string]any{"id": id})
	require.Equal(t, "canceled", state(got), "a canceled task never completes")
	require.Equal(t, epoch.Add(time.Second).Format(time.RFC3339Nano), got["status"].(map[string]any)["timestamp"])

	e := rpcError(t, env.acme, "1.0", "CancelTask", map[string]any{"id": id})
	require.Equal(t, float64(-32002), e["code"])

	t.Run("a completed task cannot be canceled", func(t *testing.T) {
		id := rpc(t, env.acme, "", "message/send", msg03("flights", nil))["id"].(string)
		env.clock.Advance(3 * time.Second)
		e := rpcError(t, env.acme, "", "tasks/cancel", map[string]any{"id": id})
		require.Equal(t, float64(-32002), e["code"])
		require.Equal(t, map[string]any{"taskId": id, "state": "completed"}, e["data"])
	})
}

func TestUnknownTask(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, []agentcard.Reply{searchReply})
	for _, id := range []string{uuid.NewString(), "not-an-id", "../../etc"} {
		for _, m := range []struct{ version, method string }{
			{"1.0", "GetTask"}, {"1.0", "CancelTask"}, {"1.0", "SubscribeToTask"},
			{"", "tasks/get"}, {"", "tasks/cancel"}, {"", "tasks/resubscribe"},
		} {
			e := rpcError(t, env.acme, m.version, m.method, map[string]any{"id": id})
			require.Equal(t, float64(-32001), e["code"], "%s %s", m.method, id)
			require.Equal(t, map[string]any{"taskId": id}, e["data"])
		}
		e := rpcError(t, env.acme, "1.0", "SendMessage", msg10("more", map[string]any{"taskId": id}))
		require.Equal(t, float64(-32001), e["code"])
	}
}

// TestTasksStayInTheirOrganization: the id of a task of acme's agent, used
// at another organization's agent of the same name and script, is unknown
// there, whatever the method; the task is untouched.
func TestTasksStayInTheirOrganization(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, []agentcard.Reply{bookReply})
	id := rpc(t, env.acme, "1.0", "SendMessage", msg10("book", nil))["task"].(map[string]any)["id"].(string)
	env.clock.Advance(time.Second)
	for _, m := range []string{"GetTask", "CancelTask", "SubscribeToTask"} {
		e := rpcError(t, env.other, "1.0", m, map[string]any{"id": id})
		require.Equal(t, float64(-32001), e["code"], m)
	}
	e := rpcError(t, env.other, "1.0", "SendMessage", msg10("Friday", map[string]any{"taskId": id}))
	require.Equal(t, float64(-32001), e["code"])
	list := rpc(t, env.other, "1.0", "ListTasks", map[string]any{})
	require.Empty(t, list["tasks"])

	got := rpc(t, env.acme, "1.0", "GetTask", map[string]any{"id": id})
	require.Equal(t, "TASK_STATE_INPUT_REQUIRED", state(got), "neither canceled nor continued")
	require.Len(t, got["history"], 1)
}

func TestListTasks(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, []agentcard.Reply{searchReply, bookReply})
	var ids []string
	for i, text := range []string{"flights", "book", "flights", "book"} {
		ctxID := "a"
		if i%2 == 1 {
			ctxID = "b"
		}
		env.clock.Advance(time.Second)
		ids = append(ids, rpc(t, env.acme, "1.0", "SendMessage", msg10(text, map[string]any{"contextId": ctxID}))["task"].(map[string]any)["id"].(string))
	}
	env.clock.Advance(1500 * time.Millisecond) // the first search has completed, the second not
	taskIDs := func(res map[string]any) []string {
		var out []string
		for _, task := range res["tasks"].([]any) {
			out = append(out, task.(map[string]any)["id"].(string))
		}
		return out
	}
	all := rpc(t, env.acme, "1.0", "ListTasks", map[string]any{})
	require.Equal(t, []string{ids[3], ids[2], ids[1], ids[0]}, taskIDs(all))
	require.Equal(t, float64(4), all["totalSize"])
	require.NotContains(t, all["tasks"].([]any)[3], "artifacts", "artifacts only when asked")

	require.Equal(t, []string{ids[3], ids[1]}, taskIDs(rpc(t, env.acme, "1.0", "ListTasks", map[string]any{"contextId": "b"})))
	require.Equal(t, []string{ids[0]}, taskIDs(rpc(t, env.acme, "1.0", "ListTasks", map[string]any{"status": "TASK_STATE_COMPLETED"})))
	withArts := rpc(t, env.acme, "1.0", "ListTasks", map[string]any{"status": "TASK_STATE_COMPLETED", "includeArtifacts": true})
	require.Len(t, withArts["tasks"].([]any)[0].(map[string]any)["artifacts"], 2)

	first := rpc(t, env.acme, "1.0", "ListTasks", map[string]any{"pageSize": 3})
	require.Equal(t, []string{ids[3], ids[2], ids[1]}, taskIDs(first))
	require.NotEmpty(t, first["nextPageToken"])
	second := rpc(t, env.acme, "1.0", "ListTasks", map[string]any{"pageSize": 3, "pageToken": first["nextPageToken"]})
	require.Equal(t, []string{ids[0]}, taskIDs(second))
	require.Equal(t, "", second["nextPageToken"])

	for _, bad := range []map[string]any{{"pageSize": 0}, {"pageSize": 101}, {"pageToken": "nope!"}, {"historyLength": -1}} {
		e := rpcError(t, env.acme, "1.0", "ListTasks", bad)
		require.Equal(t, float64(-32602), e["code"], "%v", bad)
	}
}

// sseEvents posts a request expecting a stream and returns the results of
// its events, in order.
func sseEvents(t *testing.T, url, version, method string, params any) []map[string]any {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "s", "method": method, "params": params})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	if version != "" {
		req.Header.Set(a2aserve.VersionHeader, version)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var out []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var v map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &v))
		require.Equal(t, "s", v["id"])
		require.Contains(t, v, "result", "%v", v)
		out = append(out, v["result"].(map[string]any))
	}
	require.NoError(t, sc.Err())
	return out
}

func TestSendStreamingMessage(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, []agentcard.Reply{searchReply, bookReply})

	t.Run("1.0: the task, then its updates as the timeline plays", func(t *testing.T) {
		events := sseEvents(t, env.acme, "1.0", "SendStreamingMessage", msg10("flights to Oslo", nil))
		var kinds []string
		for _, ev := range events {
			for k := range ev {
				kinds = append(kinds, k)
			}
		}
		require.Equal(t, []string{"task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"}, kinds)
		task := events[0]["task"].(map[string]any)
		require.Equal(t, "TASK_STATE_WORKING", state(task))
		second := events[1]["statusUpdate"].(map[string]any)
		require.Equal(t, task["id"], second["taskId"])
		require.Equal(t, "TASK_STATE_WORKING", state(second))
		require.Equal(t, "Comparing fares", statusText(second))
		require.NotContains(t, second, "final", "1.0 has no final flag: the stream ends")
		art := events[2]["artifactUpdate"].(map[string]any)
		require.Equal(t, "flights", art["artifact"].(map[string]any)["name"])
		require.Equal(t, true, art["lastChunk"])
		last := events[4]["statusUpdate"].(map[string]any)
		require.Equal(t, "TASK_STATE_COMPLETED", state(last))
		require.Equal(t, task["status"].(map[string]any)["timestamp"],
			epoch.Format(time.RFC3339Nano), "the stream began at the clock's time")
	})

	t.Run("0.3: kinds and the final flag", func(t *testing.T) {
		events := sseEvents(t, env.acme, "", "message/stream", msg03("book a room", nil))
		require.Len(t, events, 2)
		require.Equal(t, []any{"task", "working"}, []any{events[0]["kind"], state(events[0])})
		require.Equal(t, []any{"status-update", "input-required", true}, []any{events[1]["kind"], state(events[1]), events[1]["final"]})

		// The answer continues the task, and its stream plays the rest.
		id := events[0]["id"].(string)
		rest := sseEvents(t, env.acme, "", "message/stream", msg03("Friday", map[string]any{"taskId": id}))
		require.Len(t, rest, 2)
		require.Equal(t, []any{"task", "working"}, []any{rest[0]["kind"], state(rest[0])})
		require.Equal(t, []any{"status-update", "completed", true}, []any{rest[1]["kind"], state(rest[1]), rest[1]["final"]})
	})

	t.Run("a message reply is one event", func(t *testing.T) {
		events := sseEvents(t, env.acme, "1.0", "SendStreamingMessage", msg10("hello", nil))
		require.Len(t, events, 1)
		require.Contains(t, events[0], "message")
	})
}

func TestSubscribeToTask(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, []agentcard.Reply{searchReply})
	id := rpc(t, env.acme, "1.0", "SendMessage", msg10("flights", nil))["task"].(map[string]any)["id"].(string)
	env.clock.Advance(1500 * time.Millisecond)

	events := sseEvents(t, env.acme, "1.0", "SubscribeToTask", map[string]any{"id": id})
	require.Len(t, events, 4)
	first := events[0]["task"].(map[string]any)
	require.Equal(t, id, first["id"], "the first event is the task")
	require.Equal(t, "Comparing fares", statusText(first))
	require.Equal(t, "TASK_STATE_COMPLETED", state(events[3]["statusUpdate"].(map[string]any)))

	e := rpcError(t, env.acme, "1.0", "SubscribeToTask", map[string]any{"id": id})
	require.Equal(t, float64(-32004), e["code"], "an ended task has nothing to subscribe to")
	e = rpcError(t, env.acme, "", "tasks/resubscribe", map[string]any{"id": id})
	require.Equal(t, float64(-32004), e["code"])
}

func TestReplyFaults(t *testing.T) {
	t.Parallel()
	never := 0.0
	env := newTaskEnv(t, []agentcard.Reply{
		{Name: "boom", Condition: json.RawMessage(`{"text":"boom"}`),
			Fault: &agentcard.ReplyFault{Error: &mockspec.RPCError{Code: -32603, Message: "Upstream exploded", Data: json.RawMessage(`{"retry":true}`)}}},
		{Name: "slow", Condition: json.RawMessage(`{"text":"slow"}`), Text: "finally", Fault: &agentcard.ReplyFault{DelayMS: 4000}},
		{Name: "drop", Condition: json.RawMessage(`{"text":"drop"}`), Fault: &agentcard.ReplyFault{Drop: true}},
		{Name: "lucky", Condition: json.RawMessage(`{"text":"lucky"}`), Text: "fine", Fault: &agentcard.ReplyFault{Rate: &never, Drop: true}},
	})

	e := rpcError(t, env.acme, "1.0", "SendMessage", msg10("boom", nil))
	require.Equal(t, map[string]any{"code": float64(-32603), "message": "Upstream exploded", "data": map[string]any{"retry": true}}, e)

	res := rpc(t, env.acme, "1.0", "SendMessage", msg10("slow", nil))
	require.Equal(t, "finally", res["message"].(map[string]any)["parts"].([]any)[0].(map[string]any)["text"])
	require.Equal(t, 4*time.Second, env.clock.Now().Sub(epoch), "the answer waited the fault's delay")

	res = rpc(t, env.acme, "1.0", "SendMessage", msg10("lucky", nil))
	require.Contains(t, res, "message", "a fault of rate 0 never applies")

	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": msg10("drop", nil)})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, env.acme, strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set(a2aserve.VersionHeader, "1.0")
	resp, err := http.DefaultClient.Do(req)
	if err == nil {
		resp.Body.Close()
	}
	require.Error(t, err, "a dropped message gets no answer: the connection closes")
}
