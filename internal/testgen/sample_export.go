package testgen

import (
	"encoding/json"

	"github.com/mockmcp/mockmcp/internal/schema"
)

// Sample builds a value satisfying the JSON Schema raw, with the generator
// that builds test arguments: the least value of each type inside the
// schema's bounds, required object members only, formats and patterns
// honoured. The value holds what encoding/json decodes (float64, string,
// bool, nil, []any, map[string]any). ok reports whether the schema
// compiles and the value satisfies it, as checked by the same validator
// tools/call uses; when ok is false the value is still the best attempt
// (nil when raw is not JSON).
func Sample(raw json.RawMessage) (v any, ok bool) {
	d := &schemaDoc{}
	if err := json.Unmarshal(raw, &d.root); err != nil {
		return nil, false
	}
	v = d.sample(d.root)
	compiled, err := schema.Compile(raw)
	if err != nil {
		return v, false
	}
	return v, len(compiled.Validate(v)) == 0
}
