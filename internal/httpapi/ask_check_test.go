package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/mockmcp/mockmcp/internal/apitest"
)

// TestAskChecks: a scenario that asks the client is refused, with every
// problem named by its path, when its questions or branches are wrong;
// nothing is stored.
func TestAskChecks(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, nil)
	ada := env.Signup(t, "Acme Labs")
	server := mkServer(t, ada, "Asker")
	tools := "/api/servers/" + server + "/tools"
	const name = `{"elicitation":{"message":"Name?","requested_schema":{"type":"object","properties":{"name":{"type":"string"}}}}}`
	for _, tc := range []struct {
		name     string
		status   int
		scenario string
		fields   []string
	}{
		{"then without ask", http.StatusUnprocessableEntity, `{"name":"s","then":[{"response":{}}]}`, []string{"mock_scenarios[0].ask"}},
		{"ask beside a response", http.StatusUnprocessableEntity, `{"name":"s","ask":{"u":` + name + `},"then":[{"response":{}}],"response":{}}`,
			[]string{"mock_scenarios[0].response"}},
		{"a schema that is not an object's", http.StatusUnprocessableEntity,
			`{"name":"s","ask":{"u":{"elicitation":{"message":"m","requested_schema":{"type":"string"}}}},"then":[{"response":{}}]}`,
			[]string{`mock_scenarios[0].ask["u"].elicitation.requested_schema`}},
		{"a bad condition and an unknown placeholder", http.StatusUnprocessableEntity,
			`{"name":"s","ask":{"u":` + name + `},"then":[{"when":{"field":"u.action","operator":"is"},"response":{}},{"response":{"a":"{{v.content}}"}}]}`,
			[]string{"mock_scenarios[0].then[0].when.operator", "mock_scenarios[0].then[1].response"}},
		{"a nested round reusing an id", http.StatusUnprocessableEntity,
			`{"name":"s","ask":{"u":` + name + `},"then":[{"ask":{"u":{"roots":{}}},"then":[{"response":{}}]}]}`,
			[]string{`mock_scenarios[0].then[0].ask["u"]`}},
		{"an unknown kind of question", http.StatusUnprocessableEntity, `{"name":"s","ask":{"u":{"telepathy":{}}},"then":[{"response":{}}]}`,
			[]string{"mock_scenarios[0].ask.u.telepathy"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ada := ada.For(t)
			ada.Do("POST", tools, map[string]any{"name": "t", "mock_scenarios": rmJSON(t, "["+tc.scenario+"]")}).
				Problem(tc.status, tc.fields...)
		})
	}
	if n := rowCount(t, env, "mcp_tools", "server_id", server); n != 0 {
		t.Fatalf("%d tools stored", n)
	}
}
