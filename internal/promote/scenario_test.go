package promote

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
)

func TestScenarioNameReadableBoundedUnique(t *testing.T) {
	tool := &design.Tool{Scenarios: []design.Scenario{{Name: "recorded city=Paris"}, {Name: "recorded city=Paris (2)"}}}
	require.Equal(t, "recorded city=Paris (3)", scenarioName(tool, map[string]any{"city": "Paris"}))
	require.Equal(t, `recorded days=3 opts={"a":[1,2]}`, scenarioName(tool, map[string]any{"opts": map[string]any{"a": []any{1, 2}}, "days": 3}))
	require.Equal(t, "recorded call", scenarioName(tool, nil))
	long := scenarioName(tool, map[string]any{"q": strings.Repeat("x", 500) + "\n"})
	require.Equal(t, maxScenarioName, utf8.RuneCountInString(long))
	require.NotContains(t, scenarioName(tool, map[string]any{"q": "a\nb"}), "\n")
}

func TestRedactNamesEveryPath(t *testing.T) {
	var notes []string
	v := redact(map[string]any{"city": "Paris", "auth": map[string]any{"user": "u"},
		"list": []any{map[string]any{"password": "p", "idempotency-key": "k"}}}, "arguments", &notes)
	got, err := json.Marshal(v)
	require.NoError(t, err)
	require.JSONEq(t, `{"city":"Paris","auth":"****","list":[{"password":"****","idempotency-key":"k"}]}`, string(got))
	require.ElementsMatch(t, []string{"arguments.auth", "arguments.list[0].password"}, notes)
}
