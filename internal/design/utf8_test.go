package design

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/store"
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
		{"scenario response", CheckTool(store.Tool{Name: "t", InputSchema: DefaultInputSchema,
			Scenarios: []store.Scenario{{Name: "a", Response: bad}}}), "mock_scenarios[0].response"},
		{"scenario condition", CheckTool(store.Tool{Name: "t", InputSchema: DefaultInputSchema,
			Scenarios: []store.Scenario{{Name: "a", Condition: bad, Response: json.RawMessage(`{}`)}}}), "mock_scenarios[0].condition"},
		{"resource content", CheckResource(store.Resource{Name: "r", URI: "a://b", Content: bad}), "content"},
		{"prompt content", CheckPrompt(store.Prompt{Name: "p", Messages: []store.PromptMessage{{Role: "user",
			Content: json.RawMessage("{\"type\":\"text\",\"text\":\"\xc3\x28\"}")}}}), "messages[0].content"},
		{"fault data", CheckServer(store.Server{Name: "W", Fault: &mockspec.Fault{Rate: 1,
			Error: &mockspec.RPCError{Code: 1, Message: "m", Data: json.RawMessage("\"\xff\"")}}}), "fault.error.data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, []string{tc.field}, fieldsOf(t, tc.err))
		})
	}
}
