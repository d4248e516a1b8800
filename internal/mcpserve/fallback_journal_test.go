package mcpserve_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
)

// TestJournalMismatchesBeforeFallback: when the fallback (a scenario
// without a condition) answers, the journal says why each scenario tried
// before it did not match.
func TestJournalMismatchesBeforeFallback(t *testing.T) {
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Fallback")
	id := createDesign(t, owner, serverDesign{
		Server: raw(t, map[string]any{"name": "Fallback"}),
		Tools: []json.RawMessage{raw(t, map[string]any{"name": "lookup", "description": "Looks.",
			"input_schema": map[string]any{"type": "object"}, "mock_scenarios": []any{
				map[string]any{"name": "paris", "condition": map[string]any{"city": "Paris"}, "response": map[string]any{"hit": "paris"}},
				map[string]any{"name": "hot", "condition": map[string]any{"field": "temp", "operator": "gt", "value": 30}, "response": map[string]any{"hit": "hot"}},
				map[string]any{"name": "fallback", "response": map[string]any{"hit": "none"}},
			}})},
		Enabled: true,
	})
	rec := make(chanRecorder, 8)
	h := mcpserve.New(env.Service.Store(), slog.New(slog.NewTextHandler(io.Discard, nil)), mcpserve.Options{Journal: rec})
	srv := httptest.NewServer(h)
	defer srv.Close()

	for _, era := range bothEras {
		t.Run(era.name, func(t *testing.T) {
			s := era.open(t, srv.URL+"/api/platform/"+id+"/mcp")
			a := callLookup(t, s, map[string]any{"city": "London", "temp": 12})
			require.Nil(t, a.Error)
			require.Contains(t, string(a.Result), `none`)
			e := <-rec
			for e.Method != "tools/call" {
				e = <-rec
			}
			require.Equal(t, "fallback", e.Scenario)
			require.Equal(t, []journal.Mismatch{
				{Scenario: "paris", Field: "city", Operator: "equals", Reason: `city: equals "Paris" but was "London"`},
				{Scenario: "hot", Field: "temp", Operator: "gt", Reason: "temp: gt 30 but was 12"},
			}, e.Mismatches)
		})
	}
}
