package promote

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/jsonvalue"
	"github.com/mockmcp/mockmcp/internal/mockspec"
)

// maxScenarioName bounds a promoted scenario's name, in characters.
const maxScenarioName = 80

// sameJSON reports whether two JSON texts are the same value; absent,
// null and {} conditions are the same.
func sameJSON(a, b json.RawMessage) bool {
	if empty(a) || empty(b) {
		return empty(a) && empty(b)
	}
	va, err1 := jsonvalue.Decode(a)
	vb, err2 := jsonvalue.Decode(b)
	return err1 == nil && err2 == nil && jsonvalue.Equal(va, vb)
}

// empty reports whether a JSON text is absent, null or {}.
func empty(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "" || s == "null" || s == "{}"
}

// sameError reports whether two JSON-RPC errors are the same.
func sameError(a, b *mockspec.RPCError) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.Code == b.Code && a.Message == b.Message && sameJSON(a.Data, b.Data)
}

// isFallback reports whether a scenario matches every call.
func isFallback(s mockspec.Scenario) bool {
	return empty(s.Condition)
}

// scenarioName is a readable name for a recorded call ("recorded
// city=Paris"), bounded, and unique in the tool.
func scenarioName(t *design.Tool, args map[string]any) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := args[k]
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		parts[i] = k + "=" + s
	}
	base := "recorded"
	if len(parts) > 0 {
		base += " " + strings.Join(parts, " ")
	} else {
		base += " call"
	}
	base = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(base, "?"))
	if utf8.RuneCountInString(base) > maxScenarioName {
		base = string([]rune(base)[:maxScenarioName-1]) + "…"
	}
	taken := map[string]bool{}
	for _, s := range t.Scenarios {
		taken[s.Name] = true
	}
	name := base
	for i := 2; taken[name]; i++ {
		name = fmt.Sprintf("%s (%d)", base, i)
	}
	return name
}
