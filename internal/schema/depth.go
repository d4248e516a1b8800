package schema

// maxDepth bounds how many levels of arrays and objects a schema document or
// a validated value may nest. The library's costs grow with the square of
// the depth (compiling a 5,000-level schema takes seconds, and so does
// validating a 9,000-level value against a recursive schema), which would let
// a small request occupy a CPU. Real tool schemas and arguments stay far
// below this.
const maxDepth = 100

// nestedDeeper reports whether v, a value decoded from JSON, nests arrays and
// objects more than levels deep.
func nestedDeeper(v any, levels int) bool {
	switch x := v.(type) {
	case map[string]any:
		if levels == 0 {
			return true
		}
		for _, e := range x {
			if nestedDeeper(e, levels-1) {
				return true
			}
		}
	case []any:
		if levels == 0 {
			return true
		}
		for _, e := range x {
			if nestedDeeper(e, levels-1) {
				return true
			}
		}
	}
	return false
}
