package mcpserve_test

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
)

// largestPattern compiles to 2,000 instructions, the most allowed, and never
// matches a string of a and b: the slowest kind of run.
const largestPattern = `(?:a|b){999}(?:a|b){998}c`

// patternDesign has a tool whose schema runs largestPattern on "code" and
// whose first scenario runs it on "q".
func patternDesign(t *testing.T) serverDesign {
	return serverDesign{
		Server: raw(t, map[string]any{"name": "Patterns"}),
		Tools: []json.RawMessage{raw(t, map[string]any{
			"name": "lookup", "description": "Looks things up.",
			"input_schema": map[string]any{"type": "object", "properties": map[string]any{
				"code": map[string]any{"type": "string", "pattern": largestPattern},
				"q":    map[string]any{"type": "string"},
			}},
			"mock_scenarios": []any{
				map[string]any{"name": "pattern", "condition": map[string]any{"field": "q", "operator": "matches", "value": largestPattern},
					"response": map[string]any{"hit": true}},
				map[string]any{"name": "fallback", "condition": map[string]any{}, "response": map[string]any{"hit": false}},
			},
		})},
		Enabled: true,
	}
}

// rpcAnswer is one JSON-RPC response as the tests read it.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

// callLookup calls the lookup tool with args in the session's era.
func callLookup(t *testing.T, s *session, args map[string]any) rpcAnswer {
	t.Helper()
	r := s.call("tools/call", map[string]any{"name": "lookup", "arguments": args})
	require.Equal(t, http.StatusOK, r.status, r.raw)
	var a rpcAnswer
	require.NoError(t, json.Unmarshal([]byte(r.raw), &a), r.raw)
	return a
}

// TestPatternBudget: arguments whose check against the tool's patterns
// would take more than a call's budget are refused with -32602 naming the
// argument, before any pattern runs on them; smaller ones are checked.
func TestPatternBudget(t *testing.T) {
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Patterns")
	id := createDesign(t, owner, patternDesign(t))
	url := env.URL + "/api/platform/" + id + "/mcp"
	for _, e := range bothEras {
		t.Run(e.name, func(t *testing.T) {
			s := e.open(t, url)
			t.Run("within the budget", func(t *testing.T) {
				a := callLookup(t, s, map[string]any{"q": strings.Repeat("ab", 100)})
				require.Nil(t, a.Error)
				require.Contains(t, string(a.Result), `\"hit\":false`)

				a = callLookup(t, s, map[string]any{"code": strings.Repeat("ab", 100)})
				require.NotNil(t, a.Error)
				require.Contains(t, a.Error.Message, "arguments do not match the input schema", "checked against the pattern")
			})
			for _, tc := range []struct{ name, field string }{{"schema pattern", "code"}, {"condition", "q"}} {
				t.Run(tc.name, func(t *testing.T) {
					// 100 KB against 2,000 instructions: 2e8 units.
					a := callLookup(t, s, map[string]any{tc.field: strings.Repeat("ab", 50000)})
					require.NotNil(t, a.Error)
					require.Equal(t, -32602, a.Error.Code)
					require.Equal(t, "Invalid params: the arguments are too large for the patterns of tool 'lookup'", a.Error.Message)
					require.Equal(t, tc.field, a.Error.Data["field"])
					require.Contains(t, a.Error.Data["reason"], "10000000 units")
				})
			}
			t.Run("nested argument named", func(t *testing.T) {
				a := callLookup(t, s, map[string]any{"code": strings.Repeat("ab", 50000), "q": "x"})
				require.NotNil(t, a.Error)
				require.Equal(t, "code", a.Error.Data["field"])
			})
		})
	}
}

// TestPatternBudgetWorstCase measures the worst calls the limits allow:
// the largest pattern, in the schema and in a condition, against arguments
// just within the budget, and against the largest body. It reports CPU
// time; the assertions are on the answers.
func TestPatternBudgetWorstCase(t *testing.T) {
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Worst")
	id := createDesign(t, owner, patternDesign(t))
	s := legacyEra.open(t, env.URL+"/api/platform/"+id+"/mcp")
	callLookup(t, s, nil) // load the design

	// 4,990 bytes against 2,000 instructions is 9.98e6 units, just within
	// the budget of 1e7: the largest pattern, never matching, run to the
	// end.
	just := strings.Repeat("ab", 2495)
	for _, tc := range []struct {
		name   string
		args   map[string]any
		answer string // in the answer
	}{
		{"just within: schema", map[string]any{"code": just}, "arguments do not match the input schema"},
		{"just within: condition", map[string]any{"q": just}, `\"hit\":false`},
		{"largest body: schema", map[string]any{"code": strings.Repeat("ab", 500000)}, "too large for the patterns"},
		{"largest body: condition", map[string]any{"q": strings.Repeat("ab", 500000)}, "too large for the patterns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := cpuTime(t)
			start := time.Now()
			a := callLookup(t, s, tc.args)
			t.Logf("%s: %v wall, %v CPU (process)", tc.name, time.Since(start), cpuTime(t)-before)
			got := string(a.Result)
			if a.Error != nil {
				got = a.Error.Message
			}
			require.Contains(t, got, tc.answer)
		})
	}
}

func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestJournalExplanationCapped: the explanation is computed by the endpoint,
// before the entry is handed over, and kept to journal.MaxExplanation
// bytes, with a count of the scenarios left out.
func TestJournalExplanationCapped(t *testing.T) {
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Explained")
	scenarios := make([]any, 150)
	for i := range scenarios {
		scenarios[i] = map[string]any{"name": fmt.Sprintf("s%03d", i),
			"condition": map[string]any{"field": "q", "operator": "matches", "value": fmt.Sprintf("^%s%d$", strings.Repeat("x", 120), i)},
			"response":  map[string]any{"i": i}}
	}
	id := createDesign(t, owner, serverDesign{
		Server: raw(t, map[string]any{"name": "Many"}),
		Tools: []json.RawMessage{raw(t, map[string]any{"name": "lookup", "description": "Looks.",
			"input_schema": map[string]any{"type": "object"}, "mock_scenarios": scenarios})},
		Enabled: true,
	})
	rec := make(chanRecorder, 8)
	h := mcpserve.New(env.Service.Store(), slog.New(slog.NewTextHandler(io.Discard, nil)), mcpserve.Options{Journal: rec})
	srv := httptest.NewServer(h)
	defer srv.Close()

	for _, era := range bothEras {
		t.Run(era.name, func(t *testing.T) {
			s := era.open(t, srv.URL+"/api/platform/"+id+"/mcp")
			a := callLookup(t, s, map[string]any{"q": "nothing"})
			require.Nil(t, a.Error)
			e := <-rec
			for e.Method != "tools/call" { // a legacy client's initialize comes first
				e = <-rec
			}
			require.Equal(t, journal.OutcomeNoMatch, e.Outcome)
			require.NotEmpty(t, e.Mismatches, "explained before it was handed over")
			last := e.Mismatches[len(e.Mismatches)-1]
			kept := e.Mismatches[:len(e.Mismatches)-1]
			size := 0
			for i, m := range kept {
				require.Equal(t, fmt.Sprintf("s%03d", i), m.Scenario)
				require.Equal(t, "q", m.Field)
				require.Equal(t, "matches", m.Operator)
				size += len(m.Scenario) + len(m.Field) + len(m.Operator) + len(m.Reason)
			}
			require.LessOrEqual(t, size, journal.MaxExplanation)
			require.Greater(t, size, journal.MaxExplanation-200, "filled up to the cap")
			require.Empty(t, last.Scenario)
			require.Equal(t, fmt.Sprintf("%d more scenarios did not match (an explanation keeps 4096 bytes)", 150-len(kept)), last.Reason)
		})
	}
}
