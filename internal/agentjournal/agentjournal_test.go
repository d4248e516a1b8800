package agentjournal

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBoundedMessage: a message within MaxMessage is kept whole; a longer
// one keeps its text cut and its context, and counts what it left out.
func TestBoundedMessage(t *testing.T) {
	small := Message{Text: "hello", Data: map[string]any{"n": 1.0}, ContextID: "c1"}
	require.JSONEq(t, `{"text":"hello","data":{"n":1},"contextId":"c1"}`, string(bounded(small)))

	big := Message{Text: strings.Repeat("é", 10000), Data: strings.Repeat("x", 20000), ContextID: "c2"}
	raw := bounded(big)
	require.LessOrEqual(t, len(raw), MaxMessage)
	var got Message
	require.NoError(t, json.Unmarshal(raw, &got))
	require.Equal(t, MaxText, len([]rune(got.Text)))
	require.True(t, strings.HasSuffix(got.Text, "…"))
	require.Nil(t, got.Data)
	require.Equal(t, "c2", got.ContextID)
	require.Greater(t, got.LeftOut, 40000)
}
