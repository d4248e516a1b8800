package scenario

import (
	"encoding/json"
	"strconv"
)

// jsonEqual reports whether two decoded JSON values are equal as JSON values.
// It is hand-written rather than reflect.DeepEqual because numbers must
// compare by value across float64 and json.Number, and because it must not
// allocate.
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !jsonEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !jsonEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		xf, ok := toFloat(a)
		if !ok {
			return false
		}
		yf, ok := toFloat(b)
		return ok && xf == yf
	}
}

// toFloat accepts the number representations a caller may hand us:
// encoding/json's float64 and json.Number, plus plain Go integers for callers
// that build arguments by hand.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := strconv.ParseFloat(string(n), 64)
		return f, err == nil
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case uint64:
		return float64(n), true
	case uint32:
		return float64(n), true
	case uint:
		return float64(n), true
	default:
		return 0, false
	}
}

// jsonTypeName names a decoded JSON value's type for error messages.
func jsonTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	default:
		return "an unknown type"
	}
}
