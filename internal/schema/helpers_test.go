package schema

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// decodeJSON decodes as a tools/call handler does: numbers as float64.
func decodeJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	return v
}

// decodeNumbers decodes keeping numbers as json.Number.
func decodeNumbers(t testing.TB, s string) any {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader([]byte(s)))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

func mustCompile(t testing.TB, raw string, opts ...Option) *Schema {
	t.Helper()
	s, err := Compile([]byte(raw), opts...)
	require.NoError(t, err)
	return s
}
