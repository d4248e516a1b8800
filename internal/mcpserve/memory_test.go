package mcpserve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/protocol"
	"github.com/mockmcp/mockmcp/internal/schema"
)

// bulkDesign is design s of the load run's memory measurement
// (cmd/mcpload): tools small input schemas, distinct from every other
// design's, and three scenarios each.
func bulkDesign(tb testing.TB, s, tools int) design.Design {
	d := design.Design{Server: design.Server{ID: uuid.New(), OrgID: uuid.New(), Name: fmt.Sprintf("Bulk server %d", s),
		Description: "generated", Version: "1.0.0", Type: "mock", Enabled: true, AuthMode: "none",
		ProtocolVersion: protocol.Latest, Eras: design.ErasModernAndLegacy}}
	for t := range tools {
		name, count := fmt.Sprintf("s%d_t%d_name", s, t), fmt.Sprintf("s%d_t%d_count", s, t)
		schema, err := json.Marshal(map[string]any{
			"type": "object",
			"properties": map[string]any{
				name:                              map[string]any{"type": "string", "maxLength": 16 + t, "description": fmt.Sprintf("name for tool %d of server %d", t, s)},
				count:                             map[string]any{"type": "integer", "minimum": 0, "maximum": 100 + s},
				fmt.Sprintf("s%d_t%d_mode", s, t): map[string]any{"type": "string", "enum": []string{"fast", "slow", fmt.Sprintf("m%d", s*1000+t)}},
				fmt.Sprintf("s%d_t%d_flag", s, t): map[string]any{"type": "boolean"},
			},
			"required":             []string{name},
			"additionalProperties": false,
		})
		if err != nil {
			tb.Fatal(err)
		}
		var scenarios []mockspec.Scenario
		raw, _ := json.Marshal([]map[string]any{
			{"name": "match_name", "condition": map[string]any{"field": name, "operator": "equals", "value": "special"},
				"response": map[string]any{"ok": true, "server": s, "tool": t, "kind": "special"}},
			{"name": "match_count", "condition": map[string]any{count: 7},
				"response": map[string]any{"ok": true, "server": s, "tool": t, "kind": "seven"}},
			{"name": "fallback", "condition": map[string]any{},
				"response": map[string]any{"ok": true, "server": s, "tool": t, "kind": "default"}},
		})
		if err := json.Unmarshal(raw, &scenarios); err != nil {
			tb.Fatal(err)
		}
		d.Tools = append(d.Tools, design.Tool{ID: uuid.New(), ServerID: d.Server.ID, Name: fmt.Sprintf("tool_%02d", t),
			Description: fmt.Sprintf("Tool %d of bulk server %d.", t, s), InputSchema: schema, Scenarios: scenarios})
	}
	return d
}

// BenchmarkCompiledDesignMemory reports the heap a compiled design of 20
// tools holds (B/design), and once each tool's arguments were validated and
// its scenarios compiled by a first call (B/design-called).
func BenchmarkCompiledDesignMemory(b *testing.B) {
	const designs, tools = 200, 20
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for b.Loop() {
		before := heap()
		cs := make([]*compiled, designs)
		for i := range cs {
			c, err := compile(bulkDesign(b, i, tools)) // the design is not held after, as when loaded
			if err != nil {
				b.Fatal(err)
			}
			cs[i] = c
		}
		compiledBytes := heap() - before
		for i, c := range cs {
			for t := range tools {
				s, err := c.tools[fmt.Sprintf("tool_%02d", t)].inputSchema(c)
				if err != nil {
					b.Fatal(err)
				}
				s.Validate(map[string]any{fmt.Sprintf("s%d_t%d_name", i, t): "x"})
				if _, err := c.tools[fmt.Sprintf("tool_%02d", t)].playing(c); err != nil {
					b.Fatal(err)
				}
			}
		}
		calledBytes := heap() - before
		b.ReportMetric(float64(compiledBytes)/designs, "B/design")
		b.ReportMetric(float64(calledBytes)/designs, "B/design-called")
		runtime.KeepAlive(cs)
	}
}

// TestToolsCompileOnFirstCall: a loaded design holds its tools' scenarios
// as text and their input schemas inside tools/list; a tool's first call
// compiles its scenarios and counts their bytes for the design.
func TestToolsCompileOnFirstCall(t *testing.T) {
	c, err := compile(bulkDesign(t, 1, 3))
	if err != nil {
		t.Fatal(err)
	}
	var charged int
	charge := func(n int) { charged += n }
	c.modern.charge.Store(&charge)
	for name, tl := range c.tools {
		if tl.play != nil {
			t.Fatalf("tool %s compiled its scenarios before its first call", name)
		}
		if !bytes.Contains(c.toolsList, tl.inputRaw) || &tl.inputRaw[0] != &c.toolsList[bytes.Index(c.toolsList, tl.inputRaw)] {
			t.Fatalf("tool %s holds its input schema apart from tools/list", name)
		}
		if _, err := schema.Compile(tl.inputRaw, schema.RequireObject); err != nil {
			t.Fatalf("tool %s: its input schema read from tools/list: %v", name, err)
		}
	}
	tl := c.tools["tool_01"]
	play, err := tl.playing(c)
	if err != nil {
		t.Fatal(err)
	}
	if len(play.scenes) != 3 || play.names[2] != "fallback" || charged != play.size || charged == 0 {
		t.Fatalf("first call: %d scenes %v, charged %d of %d", len(play.scenes), play.names, charged, play.size)
	}
	if again, _ := tl.playing(c); again != play || charged != play.size {
		t.Fatalf("a second call compiled again or charged again (%d)", charged)
	}
	in, err := tl.inputSchema(c)
	if err != nil || charged != play.size+in.Footprint() || in.Footprint() == 0 {
		t.Fatalf("the input schema compiled on the first call (%v) counts %d, charged %d in all", err, in.Footprint(), charged)
	}
	i, ok := play.matcher.Match(map[string]any{"s1_t1_count": float64(7)})
	if !ok || play.names[i] != "match_count" {
		t.Fatalf("the compiled conditions match %d %v", i, ok)
	}
}
