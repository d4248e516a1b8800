package apitest

import (
	"context"
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

// Stops cancels a run and fails t unless the run's result, sent on done,
// comes within the given time and is nil; what names the run in the
// failure.
func Stops(t testing.TB, what string, within time.Duration, cancel context.CancelFunc, done <-chan error) {
	t.Helper()
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err, what)
	case <-time.After(within):
		t.Errorf("%s did not return after its context was cancelled", what)
	}
}
