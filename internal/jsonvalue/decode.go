package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// The decoding rule: a JSON number decodes to float64, except an integer
// (no fraction, no exponent) beyond ±2^53, which float64 would round, and
// which decodes to a json.Number holding its text. So the common numbers
// cost what encoding/json's float64 costs, and large identifiers keep their
// value. Decode and Exact apply the rule; HasLongDigitRun tells cheaply
// whether a document may hold such an integer at all.

// Decode decodes exactly one JSON value (white space around it aside) by
// the decoding rule. It fails where json.Unmarshal into an any fails (a
// number beyond float64's range among them), with json.Unmarshal's error.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	if err == nil {
		if _, end := dec.Token(); end != io.EOF {
			err = errors.New("unexpected data after the JSON value")
		}
	}
	if err == nil {
		if v, ok := exact(v); ok {
			return v, nil
		}
	}
	var f any
	if uerr := json.Unmarshal(data, &f); uerr != nil {
		return nil, uerr
	}
	if err == nil {
		err = errors.New("a number is out of range")
	}
	return nil, err
}

// Exact applies the decoding rule to a value decoded with UseNumber: each
// json.Number becomes a float64 unless it is an integer beyond ±2^53 (or a
// number beyond float64's range). Objects and arrays are changed in place;
// the value is returned.
func Exact(v any) any {
	v, _ = exact(v)
	return v
}

// exact is Exact, and reports false when a number is beyond float64's
// range.
func exact(v any) (any, bool) {
	ok := true
	switch x := v.(type) {
	case json.Number:
		if IsLargeInteger(string(x)) {
			return x, true
		}
		if f, err := x.Float64(); err == nil {
			return f, true
		}
		return x, false
	case map[string]any:
		for k, e := range x {
			var eok bool
			x[k], eok = exact(e)
			ok = ok && eok
		}
	case []any:
		for i, e := range x {
			var eok bool
			x[i], eok = exact(e)
			ok = ok && eok
		}
	}
	return v, ok
}

// IsLargeInteger reports whether text is a JSON integer (no fraction, no
// exponent) of magnitude beyond 2^53.
func IsLargeInteger(text string) bool {
	if !isIntegerText(text) {
		return false
	}
	_, digits := splitSign(text)
	digits = strings.TrimLeft(digits, "0")
	const limit = "9007199254740992" // 2^53
	return len(digits) > len(limit) || (len(digits) == len(limit) && digits > limit)
}

// HasLongDigitRun reports whether data holds 16 or more decimal digits in
// a row, as every integer beyond 2^53 does: a document without one decodes
// the same with float64 as by the decoding rule. It allocates nothing.
func HasLongDigitRun(data []byte) bool {
	run := 0
	for _, c := range data {
		if c >= '0' && c <= '9' {
			if run++; run >= 16 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
