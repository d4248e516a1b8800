package schema

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

// typicalSchemas are tool input schemas of the kinds tools usually declare,
// each with a value that satisfies it and one that does not.
var typicalSchemas = []struct {
	name, schema, valid, invalid string
}{
	{
		name:    "two properties",
		schema:  `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1}},"required":["city"]}`,
		valid:   `{"city":"Paris","days":3}`,
		invalid: `{"days":3}`,
	},
	{
		name: "typical",
		schema: `{"type":"object","additionalProperties":false,"required":["query","limit"],"properties":{
			"query":{"type":"string","minLength":1,"maxLength":200,"description":"what to search"},
			"limit":{"type":"integer","minimum":1,"maximum":100,"default":10},
			"sort":{"type":"string","enum":["asc","desc"]},
			"code":{"type":"string","pattern":"^[A-Z]{3}$"},
			"tags":{"type":"array","items":{"type":"string"},"maxItems":10},
			"where":{"type":"object","properties":{"lat":{"type":"number"},"lon":{"type":"number"}},"required":["lat","lon"]},
			"note":{"type":["string","null"]}}}`,
		valid:   `{"query":"hotels","limit":5,"sort":"asc","code":"CDG","tags":["a","b"],"where":{"lat":48.8,"lon":2.3},"note":null}`,
		invalid: `{"query":"","limit":500,"sort":"up","code":"cdg","tags":[1],"where":{"lat":"x"},"extra":true}`,
	},
}

func BenchmarkValidateTypical(b *testing.B) {
	for _, c := range typicalSchemas {
		s := mustCompile(b, c.schema, RequireObject)
		for _, kind := range []string{"valid", "invalid"} {
			value := c.valid
			if kind == "invalid" {
				value = c.invalid
			}
			v := decodeJSON(b, value)
			b.Run(c.name+"/"+kind, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					s.Validate(v)
				}
			})
		}
	}
}

// TestLiveBytesPerSchema reports the heap a compiled schema keeps once it has
// validated a value, against Footprint's estimate: run with -v to see it.
func TestLiveBytesPerSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("measures the heap")
	}
	const n = 1000
	measure := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for _, c := range typicalSchemas {
		for _, withTree := range []bool{false, true} {
			v := decodeJSON(t, c.valid)
			before := measure()
			kept := make([]*Schema, n)
			for i := range kept {
				// Distinct documents: a description differs.
				raw := fmt.Sprintf(`{"description":"tool %d",%s`, i, c.schema[1:])
				if withTree {
					kept[i] = reference(t, raw) // as before the fast path
				} else {
					kept[i] = mustCompile(t, raw, RequireObject)
				}
				kept[i].Validate(v)
			}
			live := int(measure()-before) / n
			estimate := Footprint([]byte(c.schema))
			if withTree {
				estimate = treeBytes(len(c.schema))
			}
			t.Logf("%s (tree kept: %v): %d bytes live per compiled schema of %d bytes; estimated %d",
				c.name, withTree, live, len(c.schema), estimate)
			require.GreaterOrEqual(t, estimate, live, "the estimate must not undercount")
			runtime.KeepAlive(kept)
		}
	}
}
