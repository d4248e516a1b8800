package apitest

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// JSONRequest makes a request that sends body (none when nil) as JSON and
// accepts JSON, the way an MCP client posts its messages.
func JSONRequest(t testing.TB, method, url string, body io.Reader) *http.Request {
	t.Helper()
	if body == nil {
		body = http.NoBody
	}
	req, err := http.NewRequest(method, url, body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	return req
}

// Send sends req with the default client and returns the response with
// its body, read and closed.
func Send(t testing.TB, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, raw
}

// Eventually waits up to 5s for ok, asking again every 10ms; what names
// the awaited state in the failure.
func Eventually(t testing.TB, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !ok() {
		require.True(t, time.Now().Before(deadline), "%s: not within 5s", what)
		time.Sleep(10 * time.Millisecond)
	}
}
