package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Update, set by -update, rewrites golden files rather than comparing.
var Update = flag.Bool("update", false, "rewrite golden files rather than compare with them")

// Indented is JSON text indented by two spaces, with a final newline: the
// form of a golden file.
func Indented(t *testing.T, text []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, json.Indent(&b, text, "", "  "), "JSON text: %s", text)
	b.WriteByte('\n')
	return b.Bytes()
}

// Compare requires got to be the golden file at path, or with -update
// writes it there. test names the test that rewrites it, for the message.
func Compare(t *testing.T, path, test string, got []byte) {
	t.Helper()
	if *Update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	require.Equal(t, string(Read(t, path, test)), string(got),
		"the stored form changed: what is already stored would not read back (go test -run %s -update rewrites %s)", test, path)
}

// Read is the golden file at path.
func Read(t *testing.T, path, test string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing: go test -run %s -update writes it", test)
	return b
}
