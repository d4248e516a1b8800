package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRequestStateSecrets(t *testing.T) {
	a, b := strings.Repeat("a", 32), strings.Repeat("b", 40)
	c, err := Parse(env(map[string]string{"REQUEST_STATE_SECRETS": a + ", " + b}))
	require.NoError(t, err)
	require.Equal(t, [][]byte{[]byte(a), []byte(b)}, c.RequestStateSecrets, "the first signs, both verify")

	c, err = Parse(env(nil))
	require.NoError(t, err)
	require.Empty(t, c.RequestStateSecrets, "unset: the database's secret")

	_, err = Parse(env(map[string]string{"REQUEST_STATE_SECRETS": a + ",short"}))
	require.ErrorContains(t, err, "REQUEST_STATE_SECRETS: secret 2 has 5 characters")
}
