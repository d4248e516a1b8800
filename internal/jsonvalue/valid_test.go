package jsonvalue

import (
	"encoding/json"
	"errors"
	"math"
	"testing"
)

var validCases = []string{
	`{"city":"Oslo","days":3}`,
	` { "a" : [ 1 , -0 , 0.5 , 1e3 , 255 , 256 , -1 , 9007199254740993 , -9007199254740993 , 1.0 ] } `,
	`{"s":"caf\u00e9 \"q\" \\ \n","t":"naïve","u":"\ud83d\ude00","bad":"\ud800x"}`,
	"{\"invalid\":\"a\xffb\",\"k\xfe\":1}",
	`{"a":{"b":{"c":[[],{},null,true,false]}},"a":2}`,
	`[]`, `"x"`, `12`, `null`, `-0.0`, `1E-7`, `123456789012345678901234567890`,
	`{"big":1e400}`, `{"tiny":1e-400}`,
}

// sameValue compares two decoded values exactly: float64s bit for bit
// (so -0 differs from 0), json.Numbers by text.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !sameValue(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

func checkDecodeValid(t *testing.T, data []byte) {
	if !json.Valid(data) {
		return
	}
	want, err := Decode(data)
	if err == nil && FirstDuplicate(data) != "" {
		err = errors.New("a repeated member name") // which DecodeValid leaves to its caller
	}
	got, ok := DecodeValid(data)
	if ok != (err == nil) {
		t.Fatalf("DecodeValid(%q): ok %v, Decode's error %v", data, ok, err)
	}
	if ok && !sameValue(got, want) {
		t.Fatalf("DecodeValid(%q) = %#v, Decode: %#v", data, got, want)
	}
}

// TestDecodeValid checks DecodeValid against Decode.
func TestDecodeValid(t *testing.T) {
	for _, c := range validCases {
		checkDecodeValid(t, []byte(c))
	}
	if v, ok := DecodeValid([]byte(`{"big":1e400}`)); ok {
		t.Errorf("a number beyond float64's range decoded to %v", v)
	}
}

// FuzzDecodeValid checks DecodeValid against Decode on arbitrary valid JSON.
func FuzzDecodeValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(checkDecodeValid)
}

// TestDecodeValidAllocations: an object of a string and a small integer
// costs the copy of the text, the map and the string's box.
func TestDecodeValidAllocations(t *testing.T) {
	data := []byte(`{"city":"Oslo","days":3}`)
	if n := testing.AllocsPerRun(100, func() { _, _ = DecodeValid(data) }); n > 4 {
		t.Errorf("DecodeValid allocates %v times, want at most 4", n)
	}
}
