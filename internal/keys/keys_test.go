package keys_test

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/auth"
	"github.com/mockmcp/mockmcp/internal/keys"
)

func TestGenerate(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		raw, hash := keys.Generate()
		require.True(t, keys.WellFormed(raw), raw)
		require.Len(t, raw, len("mmcp_")+43)
		require.Equal(t, auth.HashToken(raw), hash)
		require.Len(t, hash, 64)
		require.False(t, seen[raw])
		seen[raw] = true
	}
}

func TestWellFormed(t *testing.T) {
	raw, _ := keys.Generate()
	for _, bad := range []string{
		"", "mmcp_", raw[:len(raw)-1], raw + "A", "MMCP_" + raw[5:], "xxxx_" + raw[5:],
		"mmcp_" + strings.Repeat("A", 42) + "=", "mmcp_" + strings.Repeat("A", 42) + "+",
		"mmcp_" + strings.Repeat("A", 42) + "é",
	} {
		require.False(t, keys.WellFormed(bad), "%q", bad)
	}
	require.True(t, keys.WellFormed("mmcp_"+strings.Repeat("-", 20)+strings.Repeat("_", 23)))
}

func TestFromRequest(t *testing.T) {
	for _, tc := range []struct {
		name    string
		headers map[string]string
		want    string
		ok      bool
		err     bool
	}{
		{"none", nil, "", false, false},
		{"X-API-Key", map[string]string{"X-API-Key": "k1"}, "k1", true, false},
		{"bearer", map[string]string{"Authorization": "Bearer k1"}, "k1", true, false},
		{"bearer any case, extra space", map[string]string{"Authorization": "bearer   k1 "}, "k1", true, false},
		{"both, same key", map[string]string{"Authorization": "Bearer k1", "X-API-Key": "k1"}, "k1", true, false},
		{"both, different keys", map[string]string{"Authorization": "Bearer k1", "X-API-Key": "k2"}, "", false, true},
		{"basic is not a key", map[string]string{"Authorization": "Basic k1"}, "", false, false},
		{"bare bearer", map[string]string{"Authorization": "Bearer"}, "", false, false},
		{"blank X-API-Key", map[string]string{"X-API-Key": "  "}, "", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			raw, ok, err := keys.FromRequest(r)
			require.Equal(t, tc.err, err != nil, "%v", err)
			require.Equal(t, tc.ok, ok)
			require.Equal(t, tc.want, raw)
		})
	}
}
