package design

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/mockspec"
)

// JSON members are kept as the request wrote them (json.RawMessage), so
// bytes that are not UTF-8 reach the checks; PostgreSQL would refuse them,
// and the refusal must name the member rather than the whole body.
func TestChecksRefuseInvalidUTF8(t *testing.T) {
	bad := json.RawMessage("{\"k\":\"\xff\"}")
	for _, tc := range []struct {
		name  string
		err   error
		field string
	}{
		{"scenario response", CheckTool(Tool{Name: "t", InputSchema: DefaultInputSchema,
			Scenarios: []Scenario{{Name: "a", Response: bad}}}), "mock_scenarios[0].response"},
		{"scenario condition", CheckTool(Tool{Name: "t", InputSchema: DefaultInputSchema,
			Scenarios: []Scenario{{Name: "a", Condition: bad, Response: json.RawMessage(`{}`)}}}), "mock_scenarios[0].condition"},
		{"resource content", CheckResource(Resource{Name: "r", URI: "a://b", Content: bad}), "content"},
		{"prompt content", CheckPrompt(Prompt{Name: "p", Messages: []PromptMessage{{Role: "user",
			Content: json.RawMessage("{\"type\":\"text\",\"text\":\"\xc3\x28\"}")}}}), "messages[0].content"},
		{"fault data", CheckServer(Server{Name: "W", Fault: &mockspec.Fault{Rate: 1,
			Error: &mockspec.RPCError{Code: 1, Message: "m", Data: json.RawMessage("\"\xff\"")}}}), "fault.error.data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, []string{tc.field}, fieldsOf(t, tc.err))
		})
	}
}
