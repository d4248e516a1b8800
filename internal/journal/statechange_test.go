package journal

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBoundStateChange: a change is kept whole within MaxStateChange
// bytes; beyond, as the names of its keys, as many as fit, and how many
// were left out.
func TestBoundStateChange(t *testing.T) {
	require.Nil(t, boundStateChange(nil))

	small := boundStateChange(&StateChange{Set: json.RawMessage(`{"item":{"id":"1"}}`), Deleted: []string{"old"}, Version: 2})
	require.JSONEq(t, `{"set":{"item":{"id":"1"}},"deleted":["old"],"version":2}`, string(small))

	big := boundStateChange(&StateChange{Set: json.RawMessage(`{"blob":"` + strings.Repeat("x", MaxStateChange) + `"}`),
		Deleted: []string{"old"}, Version: 3})
	require.JSONEq(t, `{"set_keys":["blob"],"deleted":["old"],"version":3,"truncated":true}`, string(big))

	keys := map[string]string{}
	for i := range 1000 {
		keys[fmt.Sprintf("key-%04d", i)] = strings.Repeat("v", 10)
	}
	set, err := json.Marshal(keys)
	require.NoError(t, err)
	many := boundStateChange(&StateChange{Set: set, Version: 4})
	require.LessOrEqual(t, len(many), MaxStateChange)
	var got storedChange
	require.NoError(t, json.Unmarshal(many, &got))
	require.True(t, got.Truncated)
	require.Positive(t, got.LeftOut)
	require.Equal(t, 1000, len(got.SetKeys)+got.LeftOut)
	require.Equal(t, "key-0000", got.SetKeys[0], "sorted")
}
