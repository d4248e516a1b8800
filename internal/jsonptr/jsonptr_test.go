package jsonptr

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGet(t *testing.T) {
	var doc any
	require.NoError(t, json.Unmarshal([]byte(`{"a":{"b/c":[10,{"d~e":true}]},"":1}`), &doc))
	for _, tc := range []struct {
		ptr  string
		want any
		ok   bool
	}{
		{"", doc, true},
		{"/a/b~1c/0", float64(10), true},
		{"/a/b~1c/1/d~0e", true, true},
		{"/", float64(1), true},
		{"/a/b~1c/2", nil, false},
		{"/a/b~1c/-1", nil, false},
		{"/a/b~1c/x", nil, false},
		{"/a/missing", nil, false},
		{"/a/b~1c/0/deeper", nil, false},
		{"a", nil, false},
	} {
		got, ok := Get(doc, tc.ptr)
		require.Equal(t, tc.ok, ok, tc.ptr)
		require.Equal(t, tc.want, got, tc.ptr)
	}
}

func TestTokens(t *testing.T) {
	for _, tc := range []struct {
		ptr  string
		want []string
		ok   bool
	}{
		{"", nil, true},
		{"/", []string{""}, true},
		{"/a//b", []string{"a", "", "b"}, true},
		{"/a~1b/c~0d/~01", []string{"a/b", "c~d", "~1"}, true},
		{"a/b", nil, false},
	} {
		got, ok := Tokens(tc.ptr)
		require.Equal(t, tc.ok, ok, tc.ptr)
		require.Equal(t, tc.want, got, tc.ptr)
	}
}

func TestEscape(t *testing.T) {
	for _, name := range []string{"", "plain", "a/b", "c~d", "~1", "/~"} {
		esc := Escape(name)
		require.NotContains(t, esc, "/", name)
		got, ok := Tokens("/" + esc)
		require.True(t, ok)
		require.Equal(t, []string{name}, got)
	}
	require.Equal(t, "a~1b~0c", Escape("a/b~c"))
}
