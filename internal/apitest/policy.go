package apitest

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// CanonicalHash recomputes a policy document's hash as a policy engine
// would: the document raw without its member drop, keys sorted, no white
// space, numbers as written. It fails t when raw is not an object holding
// drop.
func CanonicalHash(t testing.TB, raw []byte, drop string) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var doc map[string]any
	require.NoError(t, dec.Decode(&doc))
	require.Contains(t, doc, drop)
	delete(doc, drop)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(doc))
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return hex.EncodeToString(sum[:])
}
