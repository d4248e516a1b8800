package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"
)

var validityCases = []string{
	`{}`, `[]`, `""`, `0`, `-0`, `1.5e-3`, `1E+2`, `true`, `false`, `null`, ` {"a" : [1, 2, {"b": null}] } `,
	`"\u00e9\n\"\\\/\b\f\r\t"`, "\"\xff\xfe\"", `01`, `1.`, `.5`, `-`, `1e`, `1e+`, `+1`, `"\x"`, `"\u12g4"`,
	"\"a\tb\"", `{"a":1,}`, `[1,]`, `{"a" 1}`, `{1:2}`, `tru`, `nul`, `truex`, `[1 2]`, ``, ` `, `{}{}`, `"abc`,
	`{"a":"b"`, `["\u12"]`, "\"\x7f\"", `[-]`, `[1e5.0]`, `{"a":[]]}`,
	strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
	strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000),
	strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
}

// TestValid checks Valid against json.Valid.
func TestValid(t *testing.T) {
	for _, c := range validityCases {
		if got, want := Valid([]byte(c)), json.Valid([]byte(c)); got != want {
			t.Errorf("Valid(%.60q) = %v, json.Valid %v", c, got, want)
		}
	}
}

// FuzzValid checks Valid against json.Valid on arbitrary bytes.
func FuzzValid(f *testing.F) {
	for _, c := range validityCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid %v", data, got, want)
		}
	})
}

func BenchmarkValid(b *testing.B) {
	msg := []byte(commonCases[0].msg)
	b.Run("Valid", func(b *testing.B) {
		for b.Loop() {
			Valid(msg)
		}
	})
	b.Run("json.Valid", func(b *testing.B) {
		for b.Loop() {
			json.Valid(msg)
		}
	})
}

// stringEndByByte is stringEnd as a plain scan, the reference of
// FuzzStringEnd.
func stringEndByByte(s []byte, i int) int {
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(s) - 1
}

// FuzzStringEnd holds stringEnd to a plain scan on arbitrary bytes.
func FuzzStringEnd(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\"b"`, `"a\\"b"`, `"\\\\\"x"`, `"abc`, `"a\`, `""`, `"\\"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		if len(s) == 0 || s[0] != '"' {
			return
		}
		if got, want := stringEnd(s, 0), stringEndByByte(s, 0); got != want {
			t.Fatalf("stringEnd(%q) = %d, want %d", s, got, want)
		}
	})
}
