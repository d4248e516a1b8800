package a2aserve_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/outbound"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
	"github.com/mockmcp/mockmcp/internal/upstream"
)

// pushEnv serves testCard with replies as "travel-planner" of acme and
// other, on the real clock, taking push-notification configs when async;
// allowPrivate lifts the address policy as ALLOW_PRIVATE_TARGETS does.
type pushEnv struct {
	acme, other, acmeREST string
	acmeAgent, otherAgent a2aserve.Agent
	st                    *store.Store
}

func newPushEnv(t *testing.T, replies []agentcard.Reply, async, allowPrivate bool) *pushEnv {
	t.Helper()
	return newPushEnvWith(t, replies, async, allowPrivate, allowPrivate)
}

// newPushEnvWith is newPushEnv whose configs' check (allowPrivate) and
// delivering client (clientAllowsPrivate) may differ.
func newPushEnvWith(t *testing.T, replies []agentcard.Reply, async, allowPrivate, clientAllowsPrivate bool) *pushEnv {
	t.Helper()
	st := testdb.Store(t)
	card := testCard()
	card.Replies = replies
	card.Capabilities = &agentcard.Capabilities{Async: async}
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
	key, err := upstream.RandomKey()
	require.NoError(t, err)
	var n int
	var mu sync.Mutex
	newID := func() string { mu.Lock(); defer mu.Unlock(); n++; return "id-" + strconv.Itoa(n) }
	h := a2aserve.New(lookup, st, slog.New(slog.NewTextHandler(io.Discard, nil)), newID).WithPush(a2aserve.Push{
		Configs: st, Sealer: key, AllowPrivate: allowPrivate,
		Client: outbound.NewClient(outbound.Options{AllowPrivate: clientAllowsPrivate, Timeout: 2 * time.Second, MaxRedirects: -1}),
	})
	mux := http.NewServeMux()
	mux.Handle(a2aserve.Route, h)
	mux.Handle(a2aserve.RESTRoute, h.REST())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &pushEnv{acme: srv.URL + a2aserve.EndpointPath("acme", card.Name), acmeREST: srv.URL + a2aserve.RESTPath("acme", card.Name),
		other: srv.URL + a2aserve.EndpointPath("other", card.Name), acmeAgent: agents["acme"], otherAgent: agents["other"], st: st}
}

// slowReply is a task that waits for input (no notification until the
// test says), so that configs can be set on it at leisure.
var slowReply = agentcard.Reply{
	Name: "slow", Condition: json.RawMessage(`{"field":"text","operator":"contains","value":"slow"}`),
	Task: &agentcard.ReplyTask{
		Steps:   []agentcard.TaskStep{{State: agentcard.TaskInputRequired, Message: "When?"}},
		Outcome: agentcard.TaskOutcome{State: agentcard.TaskCompleted, Message: "Done"},
	},
}

// TestPushConfigCRUD: configs are set, read, listed and deleted in both
// versions and both bindings; their token and credentials are never read
// back.
func TestPushConfigCRUD(t *testing.T) {
	t.Parallel()
	env := newPushEnv(t, []agentcard.Reply{slowReply}, true, false)
	id := rpc(t, env.acme, "1.0", "SendMessage", msg10("slow", nil))["task"].(map[string]any)["id"].(string)

	t.Run("1.0", func(t *testing.T) {
		got := rpc(t, env.acme, "1.0", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "one",
			"url": "https://push.example.com/hook", "token": "secret-token",
			"authentication": map[string]any{"scheme": "Bearer", "credentials": "secret-creds"}})
		want := map[string]any{"id": "one", "taskId": id, "url": "https://push.example.com/hook",
			"authentication": map[string]any{"scheme": "Bearer"}}
		require.Equal(t, want, got)
		require.Equal(t, want, rpc(t, env.acme, "1.0", "GetTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "one"}))
		list := rpc(t, env.acme, "1.0", "ListTaskPushNotificationConfigs", map[string]any{"taskId": id})
		require.Equal(t, []any{want}, list["configs"])

		rpc(t, env.acme, "1.0", "DeleteTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "one"})
		e := rpcError(t, env.acme, "1.0", "GetTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "one"})
		require.Equal(t, float64(-32602), e["code"])
		e = rpcError(t, env.acme, "1.0", "DeleteTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "one"})
		require.Equal(t, float64(-32602), e["code"])
	})

	t.Run("0.3", func(t *testing.T) {
		got := rpc(t, env.acme, "", "tasks/pushNotificationConfig/set", map[string]any{"taskId": id,
			"pushNotificationConfig": map[string]any{"url": "https://push.example.com/03", "token": "tok",
				"authentication": map[string]any{"schemes": []string{"Basic"}, "credentials": "dXNlcjpwdw=="}}})
		want := map[string]any{"taskId": id, "pushNotificationConfig": map[string]any{"id": id,
			"url": "https://push.example.com/03", "authentication": map[string]any{"schemes": []any{"Basic"}}}}
		require.Equal(t, want, got, "a config set without an id takes the task's")
		require.Equal(t, want, rpc(t, env.acme, "", "tasks/pushNotificationConfig/get", map[string]any{"id": id}))
		list := rpcAnswer(t, env.acme, "", "tasks/pushNotificationConfig/list", map[string]any{"id": id})
		require.Equal(t, []any{want}, list["result"])
		del := rpcAnswer(t, env.acme, "", "tasks/pushNotificationConfig/delete", map[string]any{"id": id, "pushNotificationConfigId": id})
		require.Contains(t, del, "result")
		require.Nil(t, del["result"])
		list = rpcAnswer(t, env.acme, "", "tasks/pushNotificationConfig/list", map[string]any{"id": id})
		require.Equal(t, []any{}, list["result"])
	})

	t.Run("HTTP+JSON", func(t *testing.T) {
		path := "/tasks/" + id + "/pushNotificationConfigs"
		status, got := restDo(t, env.acmeREST, http.MethodPost, path, map[string]any{"id": "rest", "url": "https://push.example.com/rest", "token": "t"})
		require.Equal(t, http.StatusOK, status, "%v", got)
		want := map[string]any{"id": "rest", "taskId": id, "url": "https://push.example.com/rest"}
		require.Equal(t, want, got)
		status, got = restDo(t, env.acmeREST, http.MethodGet, path+"/rest", nil)
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, want, got)
		status, got = restDo(t, env.acmeREST, http.MethodGet, path, nil)
		require.Equal(t, http.StatusOK, status)
		require.Equal(t, []any{want}, got["configs"])
		status, _ = restDo(t, env.acmeREST, http.MethodDelete, path+"/rest", nil)
		require.Equal(t, http.StatusOK, status)
		status, got = restDo(t, env.acmeREST, http.MethodGet, path+"/rest", nil)
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "INVALID_PARAMS", reason(t, got))
	})

	t.Run("secrets are sealed at rest", func(t *testing.T) {
		rpc(t, env.acme, "1.0", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "sealed",
			"url": "https://push.example.com/s", "token": "plain-token-value"})
		c, err := env.st.A2APushConfig(context.Background(), env.acmeAgent.OrgID, env.acmeAgent.ID, uuid.MustParse(id), "sealed")
		require.NoError(t, err)
		require.NotEmpty(t, c.Secrets)
		require.NotContains(t, string(c.Secrets), "plain-token-value")
	})
}

func TestPushConfigUnknownTask(t *testing.T) {
	t.Parallel()
	env := newPushEnv(t, []agentcard.Reply{slowReply}, true, false)
	for _, id := range []string{uuid.NewString(), "not-an-id"} {
		for _, m := range []struct {
			version, method string
			params          map[string]any
		}{
			{"1.0", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": "https://push.example.com/"}},
			{"1.0", "GetTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "x"}},
			{"1.0", "ListTaskPushNotificationConfigs", map[string]any{"taskId": id}},
			{"1.0", "DeleteTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "x"}},
			{"", "tasks/pushNotificationConfig/set", map[string]any{"taskId": id, "pushNotificationConfig": map[string]any{"url": "https://push.example.com/"}}},
			{"", "tasks/pushNotificationConfig/get", map[string]any{"id": id}},
			{"", "tasks/pushNotificationConfig/list", map[string]any{"id": id}},
			{"", "tasks/pushNotificationConfig/delete", map[string]any{"id": id, "pushNotificationConfigId": "x"}},
		} {
			e := rpcError(t, env.acme, m.version, m.method, m.params)
			require.Equal(t, float64(-32001), e["code"], "%s %s", m.method, id)
		}
		status, v := restDo(t, env.acmeREST, http.MethodGet, "/tasks/"+id+"/pushNotificationConfigs", nil)
		require.Equal(t, http.StatusNotFound, status)
		require.Equal(t, "TASK_NOT_FOUND", reason(t, v))
	}
}

// TestPushNotSupported: a card without the async capability (rendered as
// capabilities.pushNotifications false) takes no config.
func TestPushNotSupported(t *testing.T) {
	t.Parallel()
	env := newPushEnv(t, []agentcard.Reply{slowReply}, false, false)
	id := rpc(t, env.acme, "1.0", "SendMessage", msg10("slow", nil))["task"].(map[string]any)["id"].(string)
	e := rpcError(t, env.acme, "1.0", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": "https://push.example.com/"})
	require.Equal(t, float64(-32003), e["code"])
	e = rpcError(t, env.acme, "", "tasks/pushNotificationConfig/get", map[string]any{"id": id})
	require.Equal(t, float64(-32003), e["code"])
	p := msg10("slow", nil)
	p["configuration"] = map[string]any{"returnImmediately": true, "pushNotificationConfig": map[string]any{"url": "https://push.example.com/"}}
	e = rpcError(t, env.acme, "1.0", "SendMessage", p)
	require.Equal(t, float64(-32003), e["code"])
	status, v := restDo(t, env.acmeREST, http.MethodPost, "/tasks/"+id+"/pushNotificationConfigs", map[string]any{"url": "https://push.example.com/"})
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "PUSH_NOTIFICATION_NOT_SUPPORTED", reason(t, v))

	card := testCard()
	card.Capabilities = &agentcard.Capabilities{Async: false}
	require.False(t, agentcard.A2A(card, agentcard.Publisher{}).Capabilities.PushNotifications)
	card.Capabilities.Async = true
	require.True(t, agentcard.A2A(card, agentcard.Publisher{}).Capabilities.PushNotifications)
}

// TestPushURLRefused: with the address policy in its default mode, a
// config naming a private, loopback or metadata address is invalid params
// naming the field, in every way a config can be given.
func TestPushURLRefused(t *testing.T) {
	t.Parallel()
	env := newPushEnv(t, []agentcard.Reply{slowReply}, true, false)
	id := rpc(t, env.acme, "1.0", "SendMessage", msg10("slow", nil))["task"].(map[string]any)["id"].(string)
	for _, u := range []string{"http://127.0.0.1:8080/hook", "http://localhost/hook", "http://169.254.169.254/latest/meta-data",
		"http://10.1.2.3/", "http://[::1]/", "http://192.168.0.10/", "ftp://push.example.com/", "not a url"} {
		e := rpcError(t, env.acme, "1.0", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": u})
		require.Equal(t, float64(-32602), e["code"], u)
		require.Equal(t, "params.url", e["data"].(map[string]any)["field"], u)

		e = rpcError(t, env.acme, "", "tasks/pushNotificationConfig/set", map[string]any{"taskId": id, "pushNotificationConfig": map[string]any{"url": u}})
		require.Equal(t, float64(-32602), e["code"], u)
		require.Equal(t, "params.pushNotificationConfig.url", e["data"].(map[string]any)["field"], u)

		p := msg10("slow", nil)
		p["configuration"] = map[string]any{"pushNotificationConfig": map[string]any{"url": u}}
		e = rpcError(t, env.acme, "1.0", "SendMessage", p)
		require.Equal(t, float64(-32602), e["code"], u)
		require.Equal(t, "params.configuration.pushNotificationConfig.url", e["data"].(map[string]any)["field"], u)
	}
	list := rpc(t, env.acme, "1.0", "ListTaskPushNotificationConfigs", map[string]any{"taskId": id})
	require.Empty(t, list["configs"])
	tasks := rpc(t, env.acme, "1.0", "ListTasks", map[string]any{})
	require.Len(t, tasks["tasks"], 1, "a message whose config is refused begins no task")
}

// receiver records the notifications posted to it.
type receiver struct {
	mu   sync.Mutex
	got  []notification
	srv  *httptest.Server
	more chan struct{}
}

type notification struct {
	token, auth, version string
	body                 map[string]any
}

func newReceiver(t *testing.T) *receiver {
	t.Helper()
	rc := &receiver{more: make(chan struct{}, 100)}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		rc.mu.Lock()
		rc.got = append(rc.got, notification{r.Header.Get("X-A2A-Notification-Token"), r.Header.Get("Authorization"),
			r.Header.Get(a2aserve.VersionHeader), body})
		rc.mu.Unlock()
		rc.more <- struct{}{}
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

// states waits for n notifications and returns their tasks' states.
func (rc *receiver) wait(t *testing.T, n int) []notification {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		rc.mu.Lock()
		if len(rc.got) >= n {
			out := append([]notification(nil), rc.got...)
			rc.mu.Unlock()
			return out
		}
		rc.mu.Unlock()
		select {
		case <-rc.more:
		case <-deadline:
			t.Fatalf("%d notifications arrived, not %d", len(rc.got), n)
		}
	}
}

func TestPushDelivery(t *testing.T) {
	t.Parallel()
	timeline := agentcard.Reply{
		Name: "trip", Condition: json.RawMessage(`{"field":"text","operator":"contains","value":"trip"}`),
		Task: &agentcard.ReplyTask{
			Steps:   []agentcard.TaskStep{{Message: "Searching", DurationMS: 300}, {Message: "Comparing", DurationMS: 300}},
			Outcome: agentcard.TaskOutcome{State: agentcard.TaskCompleted, Message: "Found"},
		},
	}
	env := newPushEnv(t, []agentcard.Reply{timeline, slowReply}, true, true)

	t.Run("each change of the timeline, with the token and authentication", func(t *testing.T) {
		rc := newReceiver(t)
		p := msg10("trip to Rome", nil)
		p["configuration"] = map[string]any{"returnImmediately": true, "pushNotificationConfig": map[string]any{
			"url": rc.srv.URL + "/hook", "token": "tok-1", "authentication": map[string]any{"scheme": "Bearer", "credentials": "cred-1"}}}
		id := rpc(t, env.acme, "1.0", "SendMessage", p)["task"].(map[string]any)["id"].(string)
		got := rc.wait(t, 2)
		time.Sleep(200 * time.Millisecond)
		rc.mu.Lock()
		require.Len(t, rc.got, 2, "the step change and the outcome, nothing more")
		rc.mu.Unlock()
		for i, want := range []struct{ state, text string }{{"TASK_STATE_WORKING", "Comparing"}, {"TASK_STATE_COMPLETED", "Found"}} {
			n := got[i]
			require.Equal(t, "tok-1", n.token)
			require.Equal(t, "Bearer cred-1", n.auth)
			require.Equal(t, "1.0", n.version)
			task := n.body["task"].(map[string]any)
			require.Equal(t, id, task["id"])
			require.Equal(t, want.state, state(task))
			require.Equal(t, want.text, statusText(task))
		}
	})

	t.Run("a cancel and a message that resumes the task, in 0.3's shape", func(t *testing.T) {
		rc := newReceiver(t)
		id := rpc(t, env.acme, "", "message/send", msg03("slow", nil))["id"].(string)
		rpc(t, env.acme, "", "tasks/pushNotificationConfig/set", map[string]any{"taskId": id,
			"pushNotificationConfig": map[string]any{"url": rc.srv.URL, "token": "tok-2"}})
		rpc(t, env.acme, "", "message/send", msg03("Friday", map[string]any{"taskId": id}))
		got := rc.wait(t, 1)
		require.Equal(t, "completed", state(got[0].body), "the message resumed the task, which then ended")
		require.Equal(t, "task", got[0].body["kind"])
		require.Equal(t, "tok-2", got[0].token)
		require.Empty(t, got[0].auth)

		id = rpc(t, env.acme, "1.0", "SendMessage", msg10("slow", nil))["task"].(map[string]any)["id"].(string)
		rpc(t, env.acme, "1.0", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": rc.srv.URL + "/c"})
		rpc(t, env.acme, "1.0", "CancelTask", map[string]any{"id": id})
		got = rc.wait(t, 2)
		require.Equal(t, "TASK_STATE_CANCELED", state(got[1].body["task"].(map[string]any)))
		require.Empty(t, got[1].token)
	})
}

// TestPushConfigOnAContinuingMessage: a message that continues a task may
// carry a push config, as a first message may: it is added to the task's
// and told of what follows; one the policy refuses is -32602 naming the
// field, and leaves the task as it was.
func TestPushConfigOnAContinuingMessage(t *testing.T) {
	t.Parallel()
	env := newPushEnv(t, []agentcard.Reply{slowReply}, true, false)
	rc := newReceiver(t)
	id := rpc(t, env.acme, "1.0", "SendMessage", msg10("slow", nil))["task"].(map[string]any)["id"].(string)

	refused := msg10("Friday", map[string]any{"taskId": id})
	refused["configuration"] = map[string]any{"pushNotificationConfig": map[string]any{"url": "http://169.254.169.254/latest"}}
	e := rpcError(t, env.acme, "1.0", "SendMessage", refused)
	require.Equal(t, float64(-32602), e["code"])
	require.Contains(t, e["message"], "params.configuration.pushNotificationConfig.url")
	task := rpc(t, env.acme, "1.0", "GetTask", map[string]any{"id": id})
	require.Equal(t, "TASK_STATE_INPUT_REQUIRED", state(task), "the refused message changed nothing")
	require.Len(t, task["history"], 1)

	// The receiver is on loopback: only the delivering client is told to
	// allow it, as the policy above still refuses such an address.
	env = newPushEnvWith(t, []agentcard.Reply{slowReply}, true, true, true)
	id = rpc(t, env.acme, "1.0", "SendMessage", msg10("slow", nil))["task"].(map[string]any)["id"].(string)
	p := msg10("Friday", map[string]any{"taskId": id})
	p["configuration"] = map[string]any{"returnImmediately": true, "pushNotificationConfig": map[string]any{
		"url": rc.srv.URL + "/resumed", "token": "tok-3"}}
	rpc(t, env.acme, "1.0", "SendMessage", p)
	got := rc.wait(t, 1)
	require.Equal(t, "tok-3", got[0].token)
	require.Equal(t, "TASK_STATE_COMPLETED", state(got[0].body["task"].(map[string]any)))
	list := rpc(t, env.acme, "1.0", "ListTaskPushNotificationConfigs", map[string]any{"taskId": id})
	require.Len(t, list["configs"], 1, "%v", list)
}

// TestPushConfigsStayInTheirOrganization: another organization's agent of
// the same name cannot set, read, list or delete acme's task's configs,
// and row-level security hides them from its transactions.
func TestPushConfigsStayInTheirOrganization(t *testing.T) {
	t.Parallel()
	env := newPushEnv(t, []agentcard.Reply{slowReply}, true, false)
	id := rpc(t, env.acme, "1.0", "SendMessage", msg10("slow", nil))["task"].(map[string]any)["id"].(string)
	rpc(t, env.acme, "1.0", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "a", "url": "https://push.example.com/a"})
	for _, m := range []struct {
		method string
		params map[string]any
	}{
		{"CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "a", "url": "https://push.example.com/b"}},
		{"GetTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "a"}},
		{"ListTaskPushNotificationConfigs", map[string]any{"taskId": id}},
		{"DeleteTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "a"}},
	} {
		e := rpcError(t, env.other, "1.0", m.method, m.params)
		require.Equal(t, float64(-32001), e["code"], m.method)
	}
	ctx := context.Background()
	hidden, err := env.st.A2APushConfigs(ctx, env.otherAgent.OrgID, env.acmeAgent.ID, uuid.MustParse(id))
	require.NoError(t, err)
	require.Empty(t, hidden, "row-level security hides another organization's configs")
	_, err = env.st.A2APushConfig(ctx, env.otherAgent.OrgID, env.acmeAgent.ID, uuid.MustParse(id), "a")
	require.ErrorIs(t, err, failure.ErrNotFound)
	err = env.st.PutA2APushConfig(ctx, store.A2APushConfig{TaskID: uuid.MustParse(id), ID: "b", OrgID: env.otherAgent.OrgID,
		CardID: env.acmeAgent.ID, URL: "https://push.example.com/b", Era: "1.0"})
	require.ErrorIs(t, err, failure.ErrNotFound)

	got := rpc(t, env.acme, "1.0", "GetTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "a"})
	require.Equal(t, "https://push.example.com/a", got["url"], "untouched")
}

// TestPushDeliveryThroughTheGuard: a config that passed its check (here,
// the check is lifted) is still posted through the outbound address
// policy, which refuses loopback at connection time: nothing arrives.
func TestPushDeliveryThroughTheGuard(t *testing.T) {
	t.Parallel()
	env := newPushEnvWith(t, []agentcard.Reply{slowReply}, true, true, false)
	rc := newReceiver(t)
	id := rpc(t, env.acme, "1.0", "SendMessage", msg10("slow", nil))["task"].(map[string]any)["id"].(string)
	rpc(t, env.acme, "1.0", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "url": rc.srv.URL})
	rpc(t, env.acme, "1.0", "CancelTask", map[string]any{"id": id})
	time.Sleep(time.Second)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	require.Empty(t, rc.got)
}

func TestPushConfigsPerTaskAreBounded(t *testing.T) {
	t.Parallel()
	env := newPushEnv(t, []agentcard.Reply{slowReply}, true, false)
	id := rpc(t, env.acme, "1.0", "SendMessage", msg10("slow", nil))["task"].(map[string]any)["id"].(string)
	for i := range store.MaxA2APushConfigsPerTask {
		rpc(t, env.acme, "1.0", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "id": strconv.Itoa(i), "url": "https://push.example.com/"})
	}
	e := rpcError(t, env.acme, "1.0", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "one-more", "url": "https://push.example.com/"})
	require.Equal(t, float64(-32602), e["code"])
	require.Equal(t, "params.id", e["data"].(map[string]any)["field"])
	// Replacing one of them is not one more.
	rpc(t, env.acme, "1.0", "CreateTaskPushNotificationConfig", map[string]any{"taskId": id, "id": "0", "url": "https://push.example.com/again"})
}

// TestPushThroughTheService: the service takes a config in a message and
// posts the task's changes, its secrets sealed with the service's key;
// here ALLOW_PRIVATE_TARGETS lets it post to the test's receiver.
func TestPushThroughTheService(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) { c.AllowPrivateTargets = true }})
	owner := env.Signup(t, "Push Org")
	slug := owner.Do(http.MethodGet, "/api/organizations/"+owner.OrgID, nil).Status(http.StatusOK).String("slug")
	id := owner.Do(http.MethodPost, "/api/agent-cards", map[string]any{"name": "desk", "version": "1.0.0", "description": cardDesc("Desks."),
		"skills":       []any{map[string]any{"name": "book_desk", "description": cardDesc("Books a desk.")}},
		"invocation":   map[string]any{"protocol": "mcp", "endpoint": "https://agents.example.com/mcp"},
		"capabilities": map[string]any{"async": true},
		"replies": []any{map[string]any{"name": "r", "task": map[string]any{
			"steps": []any{map[string]any{"duration_ms": 200}}, "outcome": map[string]any{"state": "completed"}}}},
	}).Status(http.StatusCreated).String("id")
	owner.Do(http.MethodPost, "/api/agent-cards/"+id+"/publish", nil).Status(http.StatusOK)
	card := owner.Do(http.MethodGet, "/api/exchange/agent-cards/"+slug+"/desk/.well-known/agent-card.json", nil).Status(http.StatusOK)
	require.Equal(t, true, card.Get("capabilities.pushNotifications"))

	rc := newReceiver(t)
	p := msg10("a desk", nil)
	p["configuration"] = map[string]any{"returnImmediately": true, "pushNotificationConfig": map[string]any{"url": rc.srv.URL, "token": "svc"}}
	task := rpc(t, env.URL+a2aserve.EndpointPath(slug, "desk"), "1.0", "SendMessage", p)["task"].(map[string]any)
	got := rc.wait(t, 1)
	require.Equal(t, "svc", got[0].token)
	done := got[0].body["task"].(map[string]any)
	require.Equal(t, task["id"], done["id"])
	require.Equal(t, "TASK_STATE_COMPLETED", state(done))
}
