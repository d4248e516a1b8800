package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/sequence"
)

// stageDesign compiles a design of one tool, weather, for the tests of the
// tools/call stages: a required city matching a pattern, a scenario for
// Paris, a sequence for Oslo, and upstream u (nil for none).
func stageDesign(t *testing.T, u *design.Upstream) *compiled {
	t.Helper()
	step := func(v string) mockspec.Step { return mockspec.Step{Response: json.RawMessage(`{"n":"` + v + `"}`)} }
	d := design.Design{
		Server: design.Server{ID: uuid.New(), OrgID: uuid.New(), Name: "W", Version: "1", ProtocolVersion: "2025-06-18",
			Upstream: u},
		Tools: []design.Tool{{Name: "weather",
			InputSchema: []byte(`{"type":"object","required":["city"],"properties":{"city":{"type":"string","pattern":"^(a|b)*[A-Z][a-z]+$"}}}`),
			Scenarios: []design.Scenario{
				{Name: "paris", Condition: json.RawMessage(`{"city":"Paris"}`), Response: json.RawMessage(`{"sky":"blue"}`)},
				{Name: "oslo", Condition: json.RawMessage(`{"city":"Oslo"}`),
					Sequence: &mockspec.Sequence{Steps: []mockspec.Step{step("first"), step("second")}}},
			}}},
	}
	c, err := compile(d)
	require.NoError(t, err)
	return c
}

func TestResolveTool(t *testing.T) {
	fallback := &design.Upstream{URL: "https://upstream.example/mcp", Mode: design.UpstreamFallback}
	record := &design.Upstream{URL: "https://upstream.example/mcp", Mode: design.UpstreamRecord}
	for _, tc := range []struct {
		name     string
		upstream *design.Upstream
		tool     string
		modern   bool
		found    bool  // the design's tool is resolved
		code     int64 // the not-found error's code; 0 for none
	}{
		{name: "a tool the design has", tool: "weather", found: true},
		{name: "unknown, legacy: method not found", tool: "nope", code: jsonrpc.ErrMethodNotFound.Code},
		{name: "unknown, modern: invalid params", tool: "nope", modern: true, code: jsonrpc.ErrInvalidParams.Code},
		{name: "unknown with a fallback: the upstream's", upstream: fallback, tool: "nope"},
		{name: "known with a fallback: the design's", upstream: fallback, tool: "weather", found: true},
		{name: "known in record mode: the upstream's", upstream: record, tool: "weather"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			era := mcptransport.Legacy
			if tc.modern {
				era = mcptransport.Modern
			}
			got, err := resolveTool(stageDesign(t, tc.upstream), tc.tool, era)
			if tc.code != 0 {
				var rpcErr *jsonrpc.Error
				require.ErrorAs(t, err, &rpcErr)
				require.Equal(t, tc.code, rpcErr.Code)
				require.Equal(t, "Tool not found: "+tc.tool, rpcErr.Message)
				require.Nil(t, got)
				return
			}
			require.NoError(t, err)
			if tc.found {
				require.NotNil(t, got)
				require.Equal(t, tc.tool, got.name)
			} else {
				require.Nil(t, got, "the call is forwarded")
			}
		})
	}
}

func TestValidateArguments(t *testing.T) {
	d := stageDesign(t, nil)
	tl := d.tools["weather"]
	for _, tc := range []struct {
		name string
		args map[string]any
		want string // in the error; "" for valid arguments
	}{
		{"valid", map[string]any{"city": "Paris"}, ""},
		{"missing required field", map[string]any{}, "city"},
		{"wrong type", map[string]any{"city": 7}, "arguments do not match the input schema of tool 'weather'"},
		{"pattern not met", map[string]any{"city": "paris"}, "arguments do not match the input schema of tool 'weather'"},
		{"too costly for the pattern", map[string]any{"city": strings.Repeat("ab", 1_000_000)},
			"the arguments are too large for the patterns of tool 'weather'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var budget regexlimit.Budget // zero: nothing left, until the stage starts it
			err := validateArguments(d, tl, tc.args, &budget)
			if tc.want == "" {
				require.NoError(t, err)
				require.False(t, budget.Exhausted(), "the stage starts the call's budget")
				return
			}
			require.ErrorIs(t, err, jsonrpc.ErrInvalidParams)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

func TestInjectFault(t *testing.T) {
	scripted := &jsonrpc.Scripted{Code: -32000, Body: []byte(`{"code":-32000,"message":"down"}`)}
	for _, tc := range []struct {
		name    string
		f       *fault
		err     error
		outcome string
	}{
		{"no fault", nil, nil, ""},
		{"never at rate 0", &fault{rate: 0, err: scripted}, nil, ""},
		{"an error at rate 1", &fault{rate: 1, err: scripted}, scripted, journal.OutcomeFault},
		{"a delay only: the call goes on", &fault{rate: 1}, nil, journal.OutcomeFault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rec callRecord
			err := injectFault(context.Background(), tc.f, &rec)
			if tc.err == nil {
				require.NoError(t, err) // an untyped nil: a nil *Scripted would be an error
			} else {
				require.Same(t, tc.err, err)
			}
			require.Equal(t, tc.outcome, rec.outcome)
		})
	}
	t.Run("the client leaves during the delay", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var rec callRecord
		err := injectFault(ctx, &fault{rate: 1, delay: 1 << 40, err: scripted}, &rec)
		require.True(t, errors.Is(err, errClientGone), "got %v", err)
	})
}

func TestMatchScenario(t *testing.T) {
	d := stageDesign(t, nil)
	tl := d.tools["weather"]
	for _, tc := range []struct {
		name      string
		city      string
		journal   bool
		index     int
		explained bool
	}{
		{"the first scenario", "Paris", true, 0, true},
		{"a later scenario", "Oslo", true, 1, true},
		{"none, journal on: explained", "Rome", true, -1, true},
		{"none, journal off: not explained", "Rome", false, -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &state{budget: regexlimit.NewBudget()}
			if tc.journal {
				s.rec = discardRecorder{}
			}
			args := map[string]any{"city": tc.city}
			play, i, err := matchScenario(context.Background(), d, tl, args, s)
			require.NoError(t, err)
			require.Equal(t, tc.index, i)
			require.NotNil(t, play)
			require.Equal(t, tc.explained, s.call.explained)
			if tc.explained && i < 0 {
				ms := s.call.mismatches()
				require.Len(t, ms, 2, "both scenarios were tried")
				require.Equal(t, "paris", ms[0].Scenario)
				require.Equal(t, "oslo", ms[1].Scenario)
			}
			if tc.explained && i == 1 {
				ms := s.call.mismatches()
				require.Len(t, ms, 1, "the scenario before the match")
				require.Equal(t, "paris", ms[0].Scenario)
			}
		})
	}
}

// TestPlayer plays the chosen scenario without HTTP: the answer, the
// record's scenario and step, and a sequence counted per client.
func TestPlayer(t *testing.T) {
	d := stageDesign(t, nil)
	tl := d.tools["weather"]
	play, err := tl.playing(d)
	require.NoError(t, err)
	s := &state{r: httptest.NewRequest("POST", "/mcp", nil)}
	s.seq = sequence.NewMemory(sequence.MemoryOptions{})
	pl := player{x: new(Exchange), d: d, s: s, t: tl}

	out, err := pl.play(context.Background(), play.scenes[0])
	require.NoError(t, err)
	require.Contains(t, string(out), `\"sky\":\"blue\"`)
	require.Equal(t, "paris", s.call.scenario)
	require.False(t, s.call.usedSeq, "not a sequence")

	for i, want := range []string{"first", "second", "second"} {
		s.call = callRecord{step: -1}
		out, err := pl.play(context.Background(), play.scenes[1])
		require.NoError(t, err)
		require.Contains(t, string(out), `\"n\":\"`+want+`\"`, "call %d", i)
		require.Equal(t, "oslo", s.call.scenario)
		require.True(t, s.call.usedSeq)
		require.Equal(t, min(i, 1), s.call.step, "the last step repeats")
	}
}

// discardRecorder is a journal that admits every entry and keeps none.
type discardRecorder struct{}

func (discardRecorder) Admit(uuid.UUID, uuid.UUID) bool { return true }
func (discardRecorder) Record(journal.Entry) bool       { return true }
