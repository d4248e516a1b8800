package apitest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// JSON is v encoded as JSON; it fails t when v does not encode.
func JSON(t testing.TB, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return raw
}
