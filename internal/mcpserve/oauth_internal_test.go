package mcpserve

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestBearerToken(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER  abc ", "abc", true},
		{"Bearer ", "", false},
		{"Bearer", "", false},
		{"Basic abc", "", false},
		{"", "", false},
	} {
		r := &http.Request{Header: http.Header{}}
		if tc.header != "" {
			r.Header.Set("Authorization", tc.header)
		}
		tok, ok := bearerToken(r)
		require.Equal(t, tc.ok, ok, "%q", tc.header)
		require.Equal(t, tc.token, tok, "%q", tc.header)
	}
}

func TestChallengeText(t *testing.T) {
	t.Parallel()
	require.Equal(t, `bad 'sig' 'x' caf'`, quotable("bad \"sig\" \\x\\ caf\u00e9"))
	require.Equal(t, []string{"a", "b", "c"}, union([]string{"a", "b"}, []string{"b", "c"}))
	require.True(t, hasScopes([]string{"a", "b"}, []string{"b"}))
	require.False(t, hasScopes([]string{"a"}, []string{"a", "b"}))
}
