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

// rateOneFault is a fault of rate 1 answering code with message, as a body
// member.
func rateOneFault(code int, message string) map[string]any {
	return map[string]any{"rate": 1, "error": map[string]any{"code": code, "message": message}}
}

// TestFaultLevels: a call gets one fault, the most specific there is: its
// matched scenario's, else its tool's, else its server's; a fault of rate
// 0 spares its tool's or scenario's calls the wider one. In either era.
func TestFaultLevels(t *testing.T) {
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Fault Levels")
	tool := func(name string, fault any, scenarios ...any) json.RawMessage {
		body := map[string]any{"name": name, "description": "Faults.", "input_schema": map[string]any{"type": "object"},
			"mock_scenarios": scenarios}
		if fault != nil {
			body["fault"] = fault
		}
		return raw(t, body)
	}
	answer := func(name string, cond map[string]any, fault any) map[string]any {
		sc := map[string]any{"name": name, "condition": cond, "response": map[string]any{"answered": name}}
		if fault != nil {
			sc["fault"] = fault
		}
		return sc
	}
	id := createDesign(t, owner, serverDesign{
		Server: raw(t, map[string]any{"name": "Faults", "fault": rateOneFault(-32090, "server fault")}),
		Tools: []json.RawMessage{
			tool("plain", nil, answer("any", map[string]any{}, nil)),
			tool("exempt", map[string]any{"rate": 0}, answer("any", map[string]any{}, nil)),
			tool("faulty", rateOneFault(-32091, "tool fault"),
				answer("own", map[string]any{"kind": "own"}, rateOneFault(-32092, "scenario fault")),
				answer("spared", map[string]any{"kind": "spared"}, map[string]any{"rate": 0}),
				answer("rest", map[string]any{}, nil)),
		},
		Enabled: true,
	})
	rec := make(chanRecorder, 16)
	h := mcpserve.New(env.Service.Store(), slog.New(slog.NewTextHandler(io.Discard, nil)), mcpserve.Options{Journal: rec})
	srv := httptest.NewServer(h)
	defer srv.Close()

	for _, era := range bothEras {
		t.Run(era.name, func(t *testing.T) {
			s := era.open(t, srv.URL+"/api/platform/"+id+"/mcp")
			call := func(name, kind string) reply {
				return s.call("tools/call", map[string]any{"name": name, "arguments": map[string]any{"kind": kind}})
			}
			call("plain", "x").failed(t, -32090, "server fault")
			require.Contains(t, call("exempt", "x").ok(t), `answered\":\"any`, "a tool fault of rate 0 spares the tool")
			call("faulty", "other").failed(t, -32091, "tool fault")
			call("faulty", "own").failed(t, -32092, "scenario fault")
			require.Contains(t, call("faulty", "spared").ok(t), `answered\":\"spared`, "a scenario fault of rate 0 spares the scenario")

			var faulted []journal.Entry
			for len(faulted) < 3 {
				if e := <-rec; e.Method == "tools/call" && e.Outcome == journal.OutcomeFault {
					faulted = append(faulted, e)
				}
			}
			require.Equal(t, []string{"any", "rest", "own"},
				[]string{faulted[0].Scenario, faulted[1].Scenario, faulted[2].Scenario}, "a faulted call names the scenario it matched")
			require.Equal(t, -32092, faulted[2].ErrorCode)
			for len(rec) > 0 {
				<-rec
			}
		})
	}
}
