package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestListenAndQuestionBounds(t *testing.T) {
	c, err := Parse(env(nil))
	require.NoError(t, err)
	require.Equal(t, 50, c.ListenMaxPerAddress)
	require.Equal(t, 1000, c.ListenMaxPerOrg)
	require.Equal(t, 30*time.Minute, c.ListenMaxLifetime)
	require.Equal(t, 20, c.MaxPendingQuestionsPerClient)

	c, err = Parse(env(map[string]string{"LISTEN_MAX_PER_ADDRESS": "5", "LISTEN_MAX_PER_ORG": "40",
		"LISTEN_MAX_LIFETIME": "10m", "MAX_PENDING_QUESTIONS_PER_CLIENT": "3"}))
	require.NoError(t, err)
	require.Equal(t, 5, c.ListenMaxPerAddress)
	require.Equal(t, 40, c.ListenMaxPerOrg)
	require.Equal(t, 10*time.Minute, c.ListenMaxLifetime)
	require.Equal(t, 3, c.MaxPendingQuestionsPerClient)

	requireRefused(t, "LISTEN_MAX_PER_ADDRESS=0", "LISTEN_MAX_PER_ORG=many", "LISTEN_MAX_LIFETIME=forever",
		"LISTEN_MAX_LIFETIME=-1m", "MAX_PENDING_QUESTIONS_PER_CLIENT=-2")
}
