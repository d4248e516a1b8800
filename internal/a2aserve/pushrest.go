package a2aserve

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
)

// pushOperation finds the push-notification config operation of method
// and path below tasks/: POST and GET {id}/pushNotificationConfigs, GET
// and DELETE {id}/pushNotificationConfigs/{configId}.
func pushOperation(method, path string) (restOp, bool) {
	task, rest, ok := strings.Cut(path, "/pushNotificationConfigs")
	if !ok || task == "" || strings.Contains(task, "/") {
		return restOp{}, false
	}
	config, sub := strings.CutPrefix(rest, "/")
	switch {
	case rest == "" && method == http.MethodPost:
		return restOp{run: (*Handler).createPushConfig, params: func(r *http.Request, _ string) (json.RawMessage, error) {
			return pushBody(r, task)
		}}, true
	case rest == "" && method == http.MethodGet:
		return restOp{run: (*Handler).listPushConfigs, params: func(r *http.Request, _ string) (json.RawMessage, error) {
			p := map[string]any{"taskId": task}
			if v := r.URL.Query().Get("pageToken"); v != "" {
				p["pageToken"] = v
			}
			if v := r.URL.Query().Get("pageSize"); v != "" {
				var n int
				if err := json.Unmarshal([]byte(v), &n); err != nil {
					return nil, invalidQuery("pageSize", v)
				}
				p["pageSize"] = n
			}
			return json.Marshal(p)
		}}, true
	case sub && config != "" && !strings.Contains(config, "/") && (method == http.MethodGet || method == http.MethodDelete):
		run := (*Handler).getPushConfig
		if method == http.MethodDelete {
			run = (*Handler).deletePushConfig
		}
		return restOp{run: run, params: func(*http.Request, string) (json.RawMessage, error) {
			return json.Marshal(map[string]string{"taskId": task, "id": config})
		}}, true
	}
	return restOp{}, false
}

// pushBody reads a config from the body, its task from the path.
func pushBody(r *http.Request, task string) (json.RawMessage, error) {
	raw, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, maxBody))
	if err != nil {
		return nil, errBodyTooLarge
	}
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil || p == nil {
		return nil, jsonrpc.ErrParse
	}
	p["taskId"] = task
	return json.Marshal(p)
}
