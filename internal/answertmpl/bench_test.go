package answertmpl_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/answertmpl"
)

// BenchmarkRender renders a plain answer, which must cost what returning
// it costs, and a text answer with two placeholders, into a fresh buffer
// (as a handler that returns the result does) and into a reused one.
func BenchmarkRender(b *testing.B) {
	for _, bb := range []struct {
		name, doc string
		reuse     bool
	}{
		{"constant", `{"content":[{"type":"text","text":"Sunny, 21 degrees"}]}`, false},
		{"text", `{"content":[{"type":"text","text":"Hello, {{args.name}}! seq {{seq}}"}]}`, false},
		{"text/reused buffer", `{"content":[{"type":"text","text":"Hello, {{args.name}}! seq {{seq}}"}]}`, true},
		{"typed values", `{"content":[],"structuredContent":{"n":"{{args.count}}","id":"{{uuid}}","at":"{{now}}"}}`, false},
	} {
		b.Run(bb.name, func(b *testing.B) {
			tmpl, err := answertmpl.CompileJSON(json.RawMessage(bb.doc))
			require.NoError(b, err)
			in := input(b)
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				out, err := tmpl.Render(buf[:0], in)
				if err != nil {
					b.Fatal(err)
				}
				if bb.reuse {
					buf = out
				}
			}
		})
	}
}
