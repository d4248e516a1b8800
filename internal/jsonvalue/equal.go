// Package jsonvalue holds the rules for decoded JSON values that the
// scenario matcher, the REST test conditions and test generation share:
// how numbers are decoded, when two values are equal, and how a field path
// steps through objects and arrays.
//
// Decoded values are what encoding/json produces into an any: nil, bool,
// string, float64 or json.Number, []any and map[string]any. Plain Go
// integers (int, int64, ...) are accepted too, for values built by hand.
package jsonvalue

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Equal reports whether two decoded JSON values are equal as JSON: objects
// member by member whatever their order, arrays element by element, strings
// byte for byte, and numbers by value, exactly: 1, 1.0 and 1e0 are equal,
// while 9007199254740993 and 9007199254740992 differ even though float64
// cannot tell them apart. A float64 stands for its shortest decimal form
// (the one strconv.FormatFloat(f, 'g', -1, 64) gives). It allocates nothing
// for strings, booleans and numbers held as float64, or for integers held as
// json.Number compared with float64 integers.
func Equal(a, b any) bool {
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
			if !ok || !Equal(xv, yv) {
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
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64:
		if y, ok := b.(float64); ok {
			return x == y
		}
	}
	return numbersEqual(a, b)
}

// maxExact is 2^53: every integer of at most this magnitude is a float64.
const maxExact = 1 << 53

// numbersEqual compares two numbers of any representation exactly.
func numbersEqual(a, b any) bool {
	x, ok := exactOrText(a)
	if !ok {
		return false
	}
	y, ok := exactOrText(b)
	if !ok {
		return false
	}
	switch {
	case x.text == "" && y.text == "":
		return x.f == y.f
	case x.text == y.text:
		return true
	case x.text == "":
		return floatEqualsText(x.f, y.text)
	case y.text == "":
		return floatEqualsText(y.f, x.text)
	}
	return textsEqual(x.text, y.text)
}

// number is a number as float64 (text "") or as its JSON text.
type number struct {
	f    float64
	text string
}

func exactOrText(v any) (number, bool) {
	switch n := v.(type) {
	case float64:
		return number{f: n}, true
	case json.Number:
		if n == "" {
			return number{}, false
		}
		return number{text: string(n)}, true
	case float32:
		return number{f: float64(n)}, true
	case int:
		return intNumber(int64(n)), true
	case int64:
		return intNumber(n), true
	case int32:
		return number{f: float64(n)}, true
	case uint32:
		return number{f: float64(n)}, true
	case uint:
		return uintNumber(uint64(n)), true
	case uint64:
		return uintNumber(n), true
	}
	return number{}, false
}

func intNumber(n int64) number {
	if n >= -maxExact && n <= maxExact {
		return number{f: float64(n)}
	}
	return number{text: strconv.FormatInt(n, 10)}
}

func uintNumber(n uint64) number {
	if n <= maxExact {
		return number{f: float64(n)}
	}
	return number{text: strconv.FormatUint(n, 10)}
}

// floatEqualsText compares a float64 with a number's JSON text; an integer
// text against an integral float64 of at most 2^53 compares without
// allocating.
func floatEqualsText(f float64, text string) bool {
	if isIntegerText(text) && math.Abs(f) <= maxExact && f == math.Trunc(f) {
		n, err := strconv.ParseInt(text, 10, 64)
		return err == nil && float64(n) == f && n >= -maxExact && n <= maxExact
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return false
	}
	return textsEqual(strconv.FormatFloat(f, 'g', -1, 64), text)
}

// isIntegerText reports whether s is an optional '-' and decimal digits.
func isIntegerText(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// textsEqual compares two numbers' JSON texts exactly by value, without
// the cost of arbitrary precision on huge exponents.
func textsEqual(a, b string) bool {
	if a == b {
		return true
	}
	if isIntegerText(a) && isIntegerText(b) {
		an, ad := splitSign(a)
		bn, bd := splitSign(b)
		ad, bd = strings.TrimLeft(ad, "0"), strings.TrimLeft(bd, "0")
		return ad == bd && (an == bn || ad == "")
	}
	na, okA := normalize(a)
	nb, okB := normalize(b)
	if okA && okB {
		return na == nb
	}
	fa, errA := strconv.ParseFloat(a, 64)
	fb, errB := strconv.ParseFloat(b, 64)
	return errA == nil && errB == nil && fa == fb
}

func splitSign(s string) (neg bool, digits string) {
	if strings.HasPrefix(s, "-") {
		return true, s[1:]
	}
	return false, s
}

type decimal struct {
	neg    bool
	digits string // significant digits, no leading or trailing zeros; "" for zero
	exp    int    // value = digits × 10^exp
}

// normalize reads a JSON number into a canonical decimal; it fails only
// on text that is not a JSON number or on an absurd exponent.
func normalize(s string) (decimal, bool) {
	var d decimal
	d.neg, s = splitSign(s)
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	if digits == "" {
		return decimal{}, false
	}
	for i := 0; i < len(digits); i++ {
		if digits[i] < '0' || digits[i] > '9' {
			return decimal{}, false
		}
	}
	exp := 0
	if hasExp {
		if len(strings.TrimLeft(strings.TrimLeft(expText, "+-"), "0")) > 9 {
			return decimal{}, false
		}
		e, err := strconv.Atoi(expText)
		if err != nil {
			return decimal{}, false
		}
		exp = e
	}
	exp -= len(frac)
	digits = strings.TrimLeft(digits, "0")
	trimmed := strings.TrimRight(digits, "0")
	exp += len(digits) - len(trimmed)
	d.digits = trimmed
	d.exp = exp
	if d.digits == "" {
		return decimal{}, true // zero, whatever its sign and exponent
	}
	return d, true
}

// Float returns a number's value as float64, rounding a json.Number that
// float64 cannot hold; ok is false for a value that is not a number.
func Float(v any) (float64, bool) {
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
	}
	return 0, false
}

// IsNumber reports whether v is a number in any representation.
func IsNumber(v any) bool {
	_, ok := exactOrText(v)
	return ok
}

// TypeName names a decoded value's JSON type for messages: "null", "a
// boolean", "a string", "a number", "an array" or "an object".
func TypeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	if IsNumber(v) {
		return "a number"
	}
	return "an unknown type"
}
