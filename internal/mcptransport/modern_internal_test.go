package mcptransport

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNamesVersion: the era is read from the members of params._meta,
// names decoded and case-sensitive, never from text elsewhere in params.
func TestNamesVersion(t *testing.T) {
	for _, tc := range []struct {
		params string
		want   bool
		err    string
	}{
		{params: `{"name":"t","arguments":{"note":"io.modelcontextprotocol/protocolVersion"}}`},
		{params: `{"arguments":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`},
		{params: `{"protocolVersion":"2025-06-18","capabilities":{}}`},
		{params: `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, want: true},
		{params: `{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}`, want: true},
		{params: `{"_m\u0065ta":{"io.modelcontextprotocol/protocolVersion":null}}`, want: true},
		{params: `{"_meta":{"IO.modelcontextprotocol/protocolVersion":"2026-07-28"}}`},
		{params: `{"_META":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`},
		{params: `{"_meta":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`, err: "'_meta' appears more than once"},
		{params: `{"_meta":{"io.modelcontextprotocol/protocolVersion":"a","io.modelcontextprotocol/protocolVersion":"b"}}`,
			err: "'_meta.io.modelcontextprotocol/protocolVersion' appears more than once"},
	} {
		got, err := namesVersion([]byte(tc.params))
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.params)
			continue
		}
		require.NoError(t, err, tc.params)
		require.Equal(t, tc.want, got, tc.params)
	}
}
