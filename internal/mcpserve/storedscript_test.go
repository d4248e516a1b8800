package mcpserve

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/golden"
)

// TestStoredScriptIsPinned pins the JSON of a task's script as every task
// it begins keeps it (mcp_tasks.script): the store holds those bytes as
// given, so a renamed field of a task, step, branch or answer would leave
// the tasks in flight unreadable by the next version. A fully populated
// script must encode as the golden file, and the golden file must decode
// to the same script.
func TestStoredScriptIsPinned(t *testing.T) {
	const path, test = "testdata/stored/mcp_tasks.script.json", "TestStoredScriptIsPinned"
	script := golden.Filled[storedScript](t)
	text, err := json.Marshal(script)
	require.NoError(t, err)
	golden.Compare(t, path, test, golden.Indented(t, text))

	var back storedScript
	require.NoError(t, json.Unmarshal(golden.Read(t, path, test), &back))
	again, err := json.Marshal(back)
	require.NoError(t, err)
	require.JSONEq(t, string(text), string(again), "the golden script reads back as written")
}
