package schema_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/schema"
)

// TestMetaSchemasAreCompiledOnce: checking a schema against its dialect's
// meta-schema must not compile the meta-schema again each time (the
// library's ValidateSchema does, for Draft 4, 6 and 7: about 550
// allocations and two thirds of the time of compiling a small schema, paid
// by every tool's first call). The 2019-09 and 2020-12 schemas carry a
// keyword the quick Draft 7 check does not know, so that the meta-schema
// itself is evaluated.
func TestMetaSchemasAreCompiledOnce(t *testing.T) {
	for _, tc := range []struct {
		dialect, raw string
		most         float64
	}{
		{"draft-04", `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"exclusiveMinimum":true}},"required":["city"]}`, 1000},
		{"draft-06", `{"$schema":"http://json-schema.org/draft-06/schema#","type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`, 1000},
		{"draft-07", `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`, 500},
		{"draft-07, a keyword the quick check leaves to the meta-schema", `{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"x-unit":"day"}`, 1000},
		{"2019-09", `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","properties":{"city":{"type":"string"}},"dependentRequired":{"city":[]}}`, 1000},
		{"2020-12", `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"city":{"type":"string"}},"$defs":{"d":{"type":"integer"}}}`, 1500},
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			compile := func() {
				_, err := schema.Compile([]byte(tc.raw), schema.RequireObject, schema.Unchanging)
				require.NoError(t, err)
			}
			compile()
			if !raceEnabled { // the meta-schema checkers are pooled
				allocs := testing.AllocsPerRun(20, compile)
				require.Less(t, allocs, tc.most, "compiling a small schema allocates %.0f times", allocs)
			}
		})
	}

	// The meta-schemas still rule.
	for raw, field := range map[string]string{
		`{"type":"object","properties":{"city":{"type":"string","minLength":-1}}}`:                                       "minLength",
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","minimum":1,"exclusiveMinimum":2}`:         "exclusiveMinimum",
		`{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","required":[]}`:                            "required",
		`{"$schema":"http://json-schema.org/draft-06/schema#","type":"object","properties":{"a":{"maxLength":-2}}}`:      "maxLength",
		`{"$schema":"http://json-schema.org/draft-06/schema#","type":"object","exclusiveMaximum":false}`:                 "exclusiveMaximum",
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"strin"}}}`: "type",
	} {
		_, err := schema.Compile([]byte(raw), schema.RequireObject)
		require.ErrorContains(t, err, field, raw)
	}
}
