package a2aserve_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/a2aserve"
	"github.com/mockmcp/mockmcp/internal/agentcard"
)

// restDo sends method path (below the binding's base) with body (nil for
// none) and returns the status and the JSON answered.
func restDo(t *testing.T, base, method, path string, body any, header ...string) (int, map[string]any) {
	t.Helper()
	var r io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		require.NoError(t, err)
		r = strings.NewReader(string(raw))
	}
	req, err := http.NewRequest(method, base+path, r)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(a2aserve.VersionHeader, "1.0")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(raw, &v), "%s", raw)
	return resp.StatusCode, v
}

// reason is the ErrorInfo reason of an HTTP+JSON error body.
func reason(t *testing.T, v map[string]any) string {
	t.Helper()
	e, ok := v["error"].(map[string]any)
	require.True(t, ok, "an error: %v", v)
	details, _ := e["details"].([]any)
	if len(details) == 0 {
		return ""
	}
	return details[0].(map[string]any)["reason"].(string)
}

func TestRESTBinding(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, []agentcard.Reply{searchReply})
	base := env.acmeREST

	status, v := restDo(t, base, http.MethodPost, "/message:send", msg10("flights to Rome", map[string]any{"contextId": "trip"}))
	require.Equal(t, http.StatusOK, status, "%v", v)
	task := v["task"].(map[string]any)
	id := task["id"].(string)
	require.Equal(t, "TASK_STATE_WORKING", state(task))

	env.clock.Advance(3 * time.Second)
	status, got := restDo(t, base, http.MethodGet, "/tasks/"+id+"?historyLength=0", nil)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "TASK_STATE_COMPLETED", state(got))
	require.NotContains(t, got, "history")
	require.Len(t, got["artifacts"], 2)

	status, list := restDo(t, base, http.MethodGet, "/tasks?contextId=trip&includeArtifacts=true", nil)
	require.Equal(t, http.StatusOK, status)
	require.Len(t, list["tasks"], 1)
	status, list = restDo(t, base, http.MethodGet, "/tasks?contextId=elsewhere", nil)
	require.Equal(t, http.StatusOK, status)
	require.Empty(t, list["tasks"])

	status, e := restDo(t, base, http.MethodPost, "/tasks/"+id+":cancel", nil)
	require.Equal(t, http.StatusConflict, status)
	require.Equal(t, "TASK_NOT_CANCELABLE", reason(t, e))

	_, v = restDo(t, base, http.MethodPost, "/message:send", msg10("flights", nil))
	other := v["task"].(map[string]any)["id"].(string)
	status, canceled := restDo(t, base, http.MethodPost, "/tasks/"+other+":cancel", nil)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, "TASK_STATE_CANCELED", state(canceled))

	for _, tc := range []struct {
		name, method, path string
		body               any
		header             []string
		status             int
		reason             string
	}{
		{"an unknown task", http.MethodGet, "/tasks/" + uuid.NewString(), nil, nil, http.StatusNotFound, "TASK_NOT_FOUND"},
		{"no task id of ours", http.MethodPost, "/tasks/nope:cancel", nil, nil, http.StatusNotFound, "TASK_NOT_FOUND"},
		{"an ended task's subscription", http.MethodGet, "/tasks/" + id + ":subscribe", nil, nil, http.StatusBadRequest, "UNSUPPORTED_OPERATION"},
		{"no extended card", http.MethodGet, "/extendedAgentCard", nil, nil, http.StatusBadRequest, "EXTENDED_AGENT_CARD_NOT_CONFIGURED"},
		{"a version not served", http.MethodPost, "/message:send", msg10("hi", nil), []string{a2aserve.VersionHeader, "0.3"},
			http.StatusBadRequest, "VERSION_NOT_SUPPORTED"},
		{"a message without parts", http.MethodPost, "/message:send", map[string]any{"message": map[string]any{"messageId": "m", "role": "ROLE_USER"}},
			nil, http.StatusBadRequest, "INVALID_PARAMS"},
		{"a bad page size", http.MethodGet, "/tasks?pageSize=many", nil, nil, http.StatusBadRequest, "INVALID_PARAMS"},
		{"an unknown operation", http.MethodDelete, "/tasks/" + id, nil, nil, http.StatusNotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, e := restDo(t, base, tc.method, tc.path, tc.body, tc.header...)
			require.Equal(t, tc.status, status, "%v", e)
			require.Equal(t, tc.reason, reason(t, e))
			require.Equal(t, float64(tc.status), e["error"].(map[string]any)["code"])
		})
	}
}

func TestRESTStream(t *testing.T) {
	t.Parallel()
	env := newTaskEnv(t, []agentcard.Reply{searchReply})
	body, err := json.Marshal(msg10("flights", nil))
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, env.acmeREST+"/message:stream", strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set(a2aserve.VersionHeader, "1.0")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	var kinds []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &ev))
		require.NotContains(t, ev, "jsonrpc", "the HTTP+JSON binding has no envelope")
		for k := range ev {
			kinds = append(kinds, k)
		}
	}
	require.Equal(t, []string{"task", "statusUpdate", "artifactUpdate", "artifactUpdate", "statusUpdate"}, kinds)
}
