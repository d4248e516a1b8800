package schema_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/schema"
)

// TestDraft7MetaSchemaIsCompiledOnce: checking a Draft 7 schema against
// its meta-schema must not compile the meta-schema again each time (the
// library's ValidateSchema does: about 550 allocations and two thirds of
// the time of compiling a small schema, paid by every tool's first call).
func TestDraft7MetaSchemaIsCompiledOnce(t *testing.T) {
	raw := []byte(`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"]}`)
	compile := func() {
		_, err := schema.Compile(raw, schema.RequireObject, schema.Unchanging)
		require.NoError(t, err)
	}
	compile()
	if !raceEnabled { // the meta-schema checkers are pooled
		allocs := testing.AllocsPerRun(20, compile)
		require.Less(t, allocs, 1000.0, "compiling a two-property schema allocates %.0f times", allocs)
	}

	// The meta-schema still rules: a negative minLength is refused.
	_, err := schema.Compile([]byte(`{"type":"object","properties":{"city":{"type":"string","minLength":-1}}}`), schema.RequireObject)
	require.ErrorContains(t, err, "minLength")
}
