package scenario_test

import (
	"encoding/json"
	"testing"

	"github.com/mockmcp/mockmcp/internal/scenario"
)

// BenchmarkMatch measures a typical tools/call: five scenarios of mixed forms,
// the fourth of which matches.
func BenchmarkMatch(b *testing.B) {
	conds := []string{
		`{"city":"Paris","units":"metric"}`,
		`{"field":"email","operator":"matches","value":"^[a-z0-9._%+-]+@example\\.org$"}`,
		`{"field":"items[0].qty","operator":"gt","value":10}`,
		`{"address.city":"Berlin","tags":["a","b"]}`,
		`{}`,
	}
	compiled := make([]scenario.Condition, len(conds))
	for i, c := range conds {
		compiled[i] = mustCompile(b, c)
	}
	m := scenario.NewMatcher(compiled)

	var args map[string]any
	raw := `{"city":"Berlin","units":"metric","email":"bob@example.com",
		"items":[{"id":"x","qty":3}],"address":{"city":"Berlin","zip":"10115"},"tags":["a","b"]}`
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		b.Fatal(err)
	}
	if got, ok := m.Match(args); !ok || got != 3 {
		b.Fatalf("matched %d, %v; want 3", got, ok)
	}

	b.ReportAllocs()
	for b.Loop() {
		m.Match(args)
	}
}

// BenchmarkExplain measures what the call journal adds to an admitted
// tools/call on its goroutine: the reasons two scenarios tried before the
// matching third did not match (the endpoint's benchmarked call).
func BenchmarkExplain(b *testing.B) {
	m := scenario.NewMatcher([]scenario.Condition{
		mustCompile(b, `{"city":"Atlantis"}`),
		mustCompile(b, `{"field":"city","operator":"equals","value":"Paris"}`),
		mustCompile(b, `{"city":"Oslo"}`),
	})
	args := map[string]any{"city": "Oslo", "days": 3.0}
	if got := m.Explain(args, 2); len(got) != 2 {
		b.Fatalf("explained %v", got)
	}
	b.ReportAllocs()
	for b.Loop() {
		for range m.Mismatches(args, 2) {
		}
	}
}
