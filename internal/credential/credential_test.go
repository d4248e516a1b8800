package credential_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/credential"
)

func TestIs(t *testing.T) {
	for _, name := range credential.Headers {
		require.True(t, credential.Is(name), name)
		require.True(t, credential.Is(" "+name+" "), "%q padded", name)
	}
	for _, name := range credential.Names {
		require.True(t, credential.Is(name), "credential %s", name)
	}
	for _, name := range credential.NearMisses {
		require.False(t, credential.Is(name), "not a credential: %s", name)
	}
	for _, w := range credential.Words {
		require.True(t, credential.Is(w), "word %s", w)
		require.True(t, credential.Is("x_"+w), "word %s in a name", w)
	}
}

func TestSplit(t *testing.T) {
	for name, want := range map[string][]string{
		"X-API-Key":           {"x", "api", "key"},
		"APIKey":              {"api", "key"},
		"accessToken":         {"access", "token"},
		"X-Hub-Signature-256": {"x", "hub", "signature", "256"},
		"pin2":                {"pin", "2"},
		"keyboard":            {"keyboard"},
		"  ":                  nil,
	} {
		require.Equal(t, want, credential.Split(name), name)
	}
}
