package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// problemMessage is the message of the problem's error naming field.
func problemMessage(t *testing.T, r *apitest.Response, field string) string {
	t.Helper()
	errs, _ := r.Get("errors").([]any)
	for _, e := range errs {
		if m, ok := e.(map[string]any); ok && m["field"] == field {
			return m["message"].(string)
		}
	}
	require.Failf(t, "no error names the field", "%s in %s", field, r.Raw)
	return ""
}

// TestStrictConditions: an object that reads as an operator condition
// must have exactly its members: a misspelt one is refused naming it and
// the member it misspells, where it used to be read as an equality on an
// argument of that name. Plain conditions on arguments named field,
// value or operator beside others are kept and match.
func TestStrictConditions(t *testing.T) {
	t.Parallel()
	env, ada := apitest.SignedUp(t, "Strict Conditions")
	server := mkServer(t, ada, "Strict")
	tools := "/api/servers/" + server + "/tools"

	for _, tc := range []struct{ name, cond, field, message string }{
		{"misspelt operator", `{"field":"q","oprator":"gt","value":3}`, "mock_scenarios[0].condition.oprator",
			"unknown key 'oprator' (did you mean operator?)"},
		{"misspelt field", `{"feild":"q","operator":"gt","value":3}`, "mock_scenarios[0].condition.feild",
			"unknown key 'feild' (did you mean field?)"},
		{"misspelt value", `{"field":"q","operator":"gt","vaule":3}`, "mock_scenarios[0].condition.vaule",
			"unknown key 'vaule' (did you mean value?)"},
		{"an extra member", `{"field":"q","operator":"gt","value":3,"city":"Paris"}`, "mock_scenarios[0].condition.city",
			"unknown key 'city' (an operator condition has only field, operator and value)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ada := ada.For(t)
			r := ada.Do("POST", tools, toolBody(t, `{"name":"s","condition":`+tc.cond+`,"response":{}}`)).
				Problem(http.StatusUnprocessableEntity, tc.field)
			require.Equal(t, tc.message, problemMessage(t, r, tc.field))
		})
	}
	require.Equal(t, 0, rowCount(t, env, "mcp_tools", "server_id", server), "nothing stored")

	t.Run("plain conditions on such names", func(t *testing.T) {
		ada := ada.For(t)
		mkChild(t, ada, server, "tools", map[string]any{"name": "filter", "mock_scenarios": rmJSON(t, `[
			{"name":"status","condition":{"field":"status","values":["open"]},"response":{"hit":"status"}},
			{"name":"calc","condition":{"operator":"+","a":1},"response":{"hit":"calc"}},
			{"name":"pair","condition":{"field":"x","value":3},"response":{"hit":"pair"}},
			{"name":"both","condition":{"field":"operator","operator":"equals","value":"-"},"response":{"hit":"both"}},
			{"name":"fallback","response":{"hit":"none"}}]`)})
		ada.Do("PATCH", "/api/servers/"+server, map[string]any{"enabled": true}).Status(http.StatusOK)
		for args, want := range map[string]string{
			`{"field":"status","values":["open"]}`: "status",
			`{"operator":"+","a":1}`:               "calc",
			`{"field":"x","value":3}`:              "pair",
			`{"operator":"-","field":"y"}`:         "both",
			`{"field":"x","value":4}`:              "none",
		} {
			r := callTool(t, env, server, "filter", rmJSON(t, args).(map[string]any))
			require.Contains(t, r.String("result.content.0.text"), `"hit":"`+want+`"`, "arguments %s", args)
		}
	})
}
