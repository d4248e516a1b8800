package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// TestFaultChecks: a fault of a server, a tool or a scenario out of its
// ranges is refused with 422 naming the field and the range, through the
// REST bodies, their updates and design documents alike; nothing is
// stored.
func TestFaultChecks(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Fault Checks")
	server := mkServer(t, ada, "Faults")
	tools := "/api/servers/" + server + "/tools"
	tool := mkChild(t, ada, server, "tools", map[string]any{"name": "kept", "mock_scenarios": rmJSON(t, `[{"name":"s","response":{}}]`)})
	doc := func(tool string) map[string]any {
		return map[string]any{"apiVersion": "mockmcp/v1", "kind": "MCPServer", "name": "Doc", "tools": []any{rmJSON(t, tool)}}
	}

	for _, tc := range []struct {
		name, method, path string
		body               any
		field, message     string
	}{
		{"server rate", "POST", "/api/servers", map[string]any{"name": "f", "fault": map[string]any{"rate": 2}},
			"fault.rate", "must be between 0 and 1, got 2"},
		{"server rate in an update", "PATCH", "/api/servers/" + server, map[string]any{"fault": map[string]any{"rate": 2}},
			"fault.rate", "must be between 0 and 1, got 2"},
		{"server delay in an update", "PATCH", "/api/servers/" + server, map[string]any{"fault": map[string]any{"rate": 1, "delay_ms": -5}},
			"fault.delay_ms", "must be between 0 and 30000, got -5"},
		{"tool rate", "POST", tools, map[string]any{"name": "t", "fault": map[string]any{"rate": 1.5}},
			"fault.rate", "must be between 0 and 1, got 1.5"},
		{"tool negative delay", "POST", tools, map[string]any{"name": "t", "fault": map[string]any{"rate": 1, "delay_ms": -1}},
			"fault.delay_ms", "must be between 0 and 30000, got -1"},
		{"tool error code 0", "POST", tools, map[string]any{"name": "t", "fault": map[string]any{"rate": 1, "error": map[string]any{"code": 0, "message": "m"}}},
			"fault.error.code", "must be a non-zero integer: a JSON-RPC error code such as -32603 (internal error) or -32602 (invalid params)"},
		{"tool rate in an update", "PATCH", tools + "/" + tool, map[string]any{"fault": map[string]any{"rate": -1}},
			"fault.rate", "must be between 0 and 1, got -1"},
		{"tool unknown fault member", "POST", tools, map[string]any{"name": "t", "fault": map[string]any{"rate": 1, "code": 5}},
			"fault.code", "is not a known field"},
		{"scenario rate", "POST", tools, toolBody(t, `{"name":"s","response":{},"fault":{"rate":3}}`),
			"mock_scenarios[0].fault.rate", "must be between 0 and 1, got 3"},
		{"scenario delay", "POST", tools, toolBody(t, `{"name":"s","response":{},"fault":{"rate":1,"delay_ms":30001}}`),
			"mock_scenarios[0].fault.delay_ms", "must be between 0 and 30000, got 30001"},
		{"scenario blank error message", "POST", tools, toolBody(t, `{"name":"s","response":{},"fault":{"rate":1,"error":{"code":-32000,"message":" "}}}`),
			"mock_scenarios[0].fault.error.message", "must not be blank"},
		{"document tool rate", "POST", "/api/servers/apply", doc(`{"name":"t","fault":{"rate":2}}`),
			"tools[0].fault.rate", "must be between 0 and 1, got 2"},
		{"document scenario delay", "POST", "/api/servers/apply", doc(`{"name":"t","mock_scenarios":[{"name":"s","response":{},"fault":{"rate":1,"delay_ms":-1}}]}`),
			"tools[0].mock_scenarios[0].fault.delay_ms", "must be between 0 and 30000, got -1"},
		{"document tool error code 0", "POST", "/api/servers/apply", doc(`{"name":"t","fault":{"rate":1,"error":{"code":0,"message":"m"}}}`),
			"tools[0].fault.error.code", "must be a non-zero integer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ada.For(t).Do(tc.method, tc.path, tc.body).Problem(http.StatusUnprocessableEntity, tc.field)
			require.Contains(t, problemMessage(t, r, tc.field), tc.message)
		})
	}
	require.Nil(t, ada.Do("GET", "/api/servers/"+server, nil).Status(http.StatusOK).Get("fault"))
	require.Nil(t, ada.Do("GET", tools+"/"+tool, nil).Status(http.StatusOK).Get("fault"))
	require.Equal(t, 1, rowCount(t, env, "mcp_tools", "server_id", server))
}

// TestToolFaults: a tool's fault is kept, answered, replaced and removed
// by its updates, and a scenario's is kept with the scenario.
func TestToolFaults(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Tool Faults")
	server := mkServer(t, ada, "Faults")
	tools := "/api/servers/" + server + "/tools"
	r := ada.Do("POST", tools, map[string]any{"name": "t", "fault": map[string]any{"rate": 0.5, "delay_ms": 10},
		"mock_scenarios": rmJSON(t, `[{"name":"s","response":{},"fault":{"rate":1,"error":{"code":-32050,"message":"down"}}}]`)}).
		Status(http.StatusCreated)
	id := r.String("id")
	require.Equal(t, map[string]any{"rate": 0.5, "delay_ms": float64(10)}, r.Get("fault"))
	require.Equal(t, map[string]any{"rate": float64(1), "error": map[string]any{"code": float64(-32050), "message": "down"}},
		r.Get("mock_scenarios.0.fault"))
	require.Equal(t, r.Get("fault"), ada.Do("GET", tools+"/"+id, nil).Status(http.StatusOK).Get("fault"))

	r = ada.Do("PATCH", tools+"/"+id, map[string]any{"description": "kept"}).Status(http.StatusOK)
	require.Equal(t, map[string]any{"rate": 0.5, "delay_ms": float64(10)}, r.Get("fault"), "an update without fault keeps it")
	r = ada.Do("PATCH", tools+"/"+id, map[string]any{"fault": map[string]any{"rate": 1}}).Status(http.StatusOK)
	require.Equal(t, map[string]any{"rate": float64(1)}, r.Get("fault"))
	r = ada.Do("PATCH", tools+"/"+id, map[string]any{"fault": nil}).Status(http.StatusOK)
	require.Nil(t, r.Get("fault"))
	require.Nil(t, ada.Do("GET", tools+"/"+id, nil).Status(http.StatusOK).Get("fault"))

	ada.Do("PATCH", tools+"/"+id, map[string]any{"fault": map[string]any{"rate": 0.25}}).Status(http.StatusOK)
	copied := ada.Do("POST", "/api/servers/"+server+"/duplicate", nil).Status(http.StatusCreated).String("id")
	list := ada.Do("GET", "/api/servers/"+copied+"/tools", nil).Status(http.StatusOK)
	require.Equal(t, map[string]any{"rate": 0.25}, list.Get("items.0.fault"), "a duplicate keeps the tool's fault")

	// A design document carries both faults, and applying it elsewhere
	// keeps them.
	exported := string(ada.Do("GET", "/api/servers/"+server+"/export", nil).Status(http.StatusOK).Raw)
	require.Contains(t, exported, `"fault": {`+"\n"+`        "rate": 0.25`)
	bob := env.Signup(t, "Tool Faults Elsewhere")
	applied := bob.Do("POST", "/api/servers/apply", json.RawMessage(exported)).Status(http.StatusCreated)
	other := applied.String("server.id")
	list = bob.Do("GET", "/api/servers/"+other+"/tools", nil).Status(http.StatusOK)
	require.Equal(t, map[string]any{"rate": 0.25}, list.Get("items.0.fault"))
	require.Equal(t, float64(-32050), list.Get("items.0.mock_scenarios.0.fault.error.code"))
}
