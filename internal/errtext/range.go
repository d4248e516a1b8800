package errtext

import "fmt"

// Range says that a number must lie within its schema's bounds (min and
// max, either nil when the schema has none) and what it was, as the REST
// validator and design documents word it: "must be between 0 and 1, got
// 2".
func Range(min, max *float64, got any) string {
	switch {
	case min != nil && max != nil:
		return fmt.Sprintf("must be between %g and %g, got %v", *min, *max, got)
	case min != nil:
		return fmt.Sprintf("must be at least %g, got %v", *min, got)
	case max != nil:
		return fmt.Sprintf("must be at most %g, got %v", *max, got)
	}
	return fmt.Sprintf("is out of range, got %v", got)
}
