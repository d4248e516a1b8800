package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// TestJournalFairnessUnderAFlood: organization X floods its own design
// (bounded: at most 4,000 requests or 10 seconds, loopback only) while
// organization Y makes 50 calls to its design. X's flood spends X's share
// of the journal's rate, not the instance's: Y keeps all 50 records and its
// verification of exactly 50 holds and is complete, X's says it is not.
// The metrics count one organization dropping, and name none.
func TestJournalFairnessUnderAFlood(t *testing.T) {
	env := withMetrics(t, func(c *config.Config) {
		c.JournalMaxRate = 200
		c.JournalMaxRatePerOrg = 100
		c.JournalMaxRatePerServer = 60
	})
	x := env.Signup(t, "Flooder Org")
	y := env.Signup(t, "Quiet Org")
	xServer, yServer := forecastServer(t, x), forecastServer(t, y)
	call := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Paris"}}}`)

	const floodMax, workers = 4000, 8
	var sent atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: workers}}
	defer client.CloseIdleConnections()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil && sent.Add(1) <= floodMax {
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, env.URL+"/api/platform/"+xServer+"/mcp",
					bytes.NewReader(call))
				if err != nil {
					return
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		})
	}
	// Y's calls go while the flood runs.
	require.Eventually(t, func() bool { return sent.Load() >= 200 }, 10*time.Second, time.Millisecond, "the flood started")
	for range 50 {
		code, body := rpc(t, env.URL+"/api/platform/"+yServer+"/mcp", string(call))
		require.Equal(t, http.StatusOK, code, body)
	}
	wg.Wait()
	t.Logf("flood: %d requests", min(sent.Load(), floodMax))

	yVerdict := y.Do("POST", "/api/servers/"+yServer+"/journal/verify",
		map[string]any{"tool": "get_forecast", "times": 50}).Status(http.StatusOK)
	require.Equal(t, true, yVerdict.Get("verified"), "Y's verification: %s", yVerdict.Raw)
	require.Equal(t, true, yVerdict.Get("complete"), "Y lost no record: %s", yVerdict.Raw)
	require.Equal(t, 50, y.Do("GET", "/api/servers/"+yServer+"/journal?limit=100", nil).Status(http.StatusOK).Len("items"))

	xVerdict := x.Do("POST", "/api/servers/"+xServer+"/journal/verify",
		map[string]any{"tool": "get_forecast"}).Status(http.StatusOK)
	require.Equal(t, false, xVerdict.Get("complete"), "X's flood was dropped: %s", xVerdict.Raw)
	require.Contains(t, xVerdict.String("message"), "incomplete")

	metrics := scrape(t, env)
	require.Equal(t, 1.0, metrics["mockmcp_journal_dropping_organizations"])
	require.Positive(t, metrics[`mockmcp_journal_dropped_total{bound="server"}`])
	for series := range metrics {
		for _, id := range []string{x.OrgID, y.OrgID} {
			require.NotContains(t, series, id, "the metrics name no organization")
		}
	}

	// Clearing X's journal starts a complete window again.
	x.Do("DELETE", "/api/servers/"+xServer+"/journal", nil).Status(http.StatusNoContent)
	xVerdict = x.Do("POST", "/api/servers/"+xServer+"/journal/verify",
		map[string]any{"tool": "get_forecast", "times": 0}).Status(http.StatusOK)
	require.Equal(t, true, xVerdict.Get("complete"), "after a clear: %s", xVerdict.Raw)
}

// forecastServer creates and enables a server with one tool that answers
// any arguments, and returns its id.
func forecastServer(t *testing.T, c *apitest.Client) string {
	t.Helper()
	id := c.CreateServer(json.RawMessage(`{"name":"Forecast","version":"1.0.0"}`), []json.RawMessage{json.RawMessage(
		`{"name":"get_forecast","description":"The forecast.","input_schema":{"type":"object"},` +
			`"mock_scenarios":[{"name":"any","condition":{},"response":{"forecast":"sunny"}}]}`)}, nil, nil)
	c.EnableServer(id)
	return strings.TrimSpace(id)
}
