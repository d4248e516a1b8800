package answertmpl_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/answertmpl"
)

// marshalNoHTML is encoding/json's string encoding without HTML escaping.
func marshalNoHTML(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(s))
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

func TestAppendQuotedEncodesAsEncodingJSON(t *testing.T) {
	for _, s := range []string{
		"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr\x00\x01\x1f",
		"<b>a & b</b>", "é ü 日本 🎉", "sep\u2028para\u2029", "bad \xff utf-8 \xe2\x82", "\x7f",
	} {
		got := answertmpl.AppendQuoted(nil, []byte(s))
		require.Equal(t, marshalNoHTML(t, s), string(got), "%q", s)
	}
}

func TestAppendQuotedAllocatesNothingIntoRoom(t *testing.T) {
	text := []byte(`{"city":"Zürich","note":"a \"b\"\n"}`)
	dst := make([]byte, 0, 256)
	allocs := testing.AllocsPerRun(100, func() {
		dst = answertmpl.AppendQuoted(dst[:0], text)
	})
	require.Zero(t, allocs)
}
