package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// TestGeneratedTestsOnLargeIntegers: scenarios on integers beyond 2^53,
// which float64 cannot tell apart, are matched exactly on the endpoint, and
// the tests generated from them reach each scenario and pass.
func TestGeneratedTestsOnLargeIntegers(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Large Integer Org")

	server := ada.Do("POST", "/api/servers", map[string]any{"name": "Ledger"}).Status(http.StatusCreated).String("id")
	tool := ada.Do("POST", "/api/servers/"+server+"/tools", []byte(`{
		"name": "account",
		"input_schema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "integer"}}},
		"mock_scenarios": [
			{"name": "neighbour", "condition": {"id": 9007199254740992}, "response": {"who": "neighbour"}},
			{"name": "large", "condition": {"id": 9007199254740993}, "response": {"who": "large", "id": 9007199254740993}},
			{"name": "listed", "condition": {"field": "id", "operator": "in", "value": [12345678901234567891]},
			 "response": {"who": "listed"}},
			{"name": "fallback", "response": {"who": "nobody"}}
		]}`)).Status(http.StatusCreated).String("id")
	ada.Do("PATCH", "/api/servers/"+server, map[string]any{"enabled": true}).Status(http.StatusOK)

	for id, who := range map[string]string{
		"9007199254740992": "neighbour", "9007199254740993": "large", "12345678901234567891": "listed",
		"9007199254740994": "nobody", "12345678901234567890": "nobody",
	} {
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"account","arguments":{"id":` + id + `}}}`
		code, body := rtMCPCall(t, env, server, call)
		require.Equal(t, http.StatusOK, code, body)
		require.Contains(t, body, `\"who\":\"`+who+`\"`, "id %s", id)
	}

	r := ada.Do("POST", "/api/servers/"+server+"/tools/"+tool+"/generate-tests", nil).Status(http.StatusCreated)
	require.Equal(t, 4, r.Len("items"))
	require.Equal(t, 0, r.Len("warnings"), "warnings: %s", rtJSONAt(t, r, "warnings"))
	var ids []string
	for i := range 4 {
		ids = append(ids, r.String("items."+string(rune('0'+i))+".id"))
	}
	require.Contains(t, string(r.Raw), `"arguments":{"id":9007199254740993}`, "the large scenario's test sends the exact id")
	require.Contains(t, string(r.Raw), `"value":9007199254740993`, "and expects the exact id back")

	suite := rtMkSuite(t, ada, map[string]any{"name": "ledger scenarios", "test_ids": ids})
	run := ada.Do("POST", "/api/suites/"+suite+"/run", nil).Status(http.StatusCreated)
	require.Equal(t, true, run.Get("passed"), "suite run: %s", run.Raw)
	require.Equal(t, float64(4), run.Get("passed_count"))

	var scenarios []string
	for i := range 4 {
		scenarios = append(scenarios, r.String("items."+string(rune('0'+i))+".generated_from.scenario"))
	}
	require.Equal(t, []string{"neighbour", "large", "listed", "fallback"}, scenarios)
}
