package platformmcp_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/platformmcp"
)

// A tool whose REST operation answers 503 (the database out) is a tool
// error carrying the problem, which tells the caller to retry, not -32603.
func TestToolOfAnUnavailableOperationIsARetryableToolError(t *testing.T) {
	env, _, raw := signupWithKey(t, "Unavailable Org", "k")

	spec, err := api.GetSpec()
	require.NoError(t, err)
	// call runs tools/call list_servers on an endpoint whose REST router
	// answers status with body.
	call := func(status int, body string) rpcAnswer {
		t.Helper()
		rest := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/problem+json")
			w.Header().Set("Retry-After", "5")
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		})
		h, err := platformmcp.New(spec, rest, env.Service.Keys(), slog.New(slog.NewTextHandler(io.Discard, nil)), platformmcp.Options{})
		require.NoError(t, err)
		req := httptest.NewRequest(http.MethodPost, platformmcp.Path,
			strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_servers","arguments":{}}}`))
		req.Header.Set("Accept", "application/json")
		req.Header.Set("X-API-Key", raw)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		var a rpcAnswer
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &a), w.Body.String())
		require.Equal(t, 7, a.ID)
		return a
	}

	const problem = `{"type":"about:blank","title":"Service Unavailable","status":503,"detail":"the database cannot be reached; retry shortly"}`
	a := call(http.StatusServiceUnavailable, problem)
	require.Nil(t, a.Error)
	require.NotNil(t, a.Result)
	require.True(t, a.Result.IsError)
	require.Len(t, a.Result.Content, 1)
	require.JSONEq(t, problem, a.Result.Content[0].Text)

	// Any other 5xx stays a fault of the service.
	a = call(http.StatusInternalServerError, `{"status":500}`)
	require.Nil(t, a.Result)
	require.Equal(t, -32603, a.Error.Code)
}

type rpcAnswer struct {
	ID     int `json:"id"`
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	} `json:"result"`
	Error *struct {
		Code int `json:"code"`
	} `json:"error"`
}
