package mcpserve

import (
	"encoding/json"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

// exactArguments applies jsonvalue's decoding rule to the arguments of a
// tools/call decoded with float64 numbers: when the params hold an integer
// beyond 2^53 (which float64 rounds), the arguments are decoded again,
// keeping it as a json.Number, so a condition on it compares exactly. Params
// without a run of 16 digits, the common case, cost one scan and nothing
// more.
func exactArguments(params json.RawMessage, args map[string]any) map[string]any {
	if !jsonvalue.HasLongDigitRun(params) {
		return args
	}
	var p struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Arguments) == 0 {
		return args
	}
	v, err := jsonvalue.Decode(p.Arguments)
	if m, ok := v.(map[string]any); ok && err == nil {
		return m
	}
	return args
}
