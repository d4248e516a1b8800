package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestJournalSettings(t *testing.T) {
	c, err := Parse(env(nil))
	require.NoError(t, err)
	require.True(t, c.JournalEnabled)
	require.Equal(t, 24*time.Hour, c.JournalRetention)
	require.Equal(t, 1000, c.JournalMaxPerServer)
	require.Equal(t, 10000, c.JournalQueue)
	require.Equal(t, time.Minute, c.JournalPruneInterval)
	require.Equal(t, 500, c.JournalMaxRatePerOrg, "half of JOURNAL_MAX_RATE")
	require.Equal(t, 250, c.JournalMaxRatePerServer, "a quarter of JOURNAL_MAX_RATE")

	c, err = Parse(env(map[string]string{"JOURNAL_ENABLED": "false", "JOURNAL_RETENTION": "90m",
		"JOURNAL_MAX_PER_SERVER": "50", "JOURNAL_QUEUE": "200"}))
	require.NoError(t, err)
	require.False(t, c.JournalEnabled)
	require.Equal(t, 90*time.Minute, c.JournalRetention)
	require.Equal(t, 50, c.JournalMaxPerServer)
	require.Equal(t, 200, c.JournalQueue)

	c, err = Parse(env(map[string]string{"JOURNAL_MAX_RATE": "4000"}))
	require.NoError(t, err)
	require.Equal(t, 2000, c.JournalMaxRatePerOrg)
	require.Equal(t, 1000, c.JournalMaxRatePerServer)
	c, err = Parse(env(map[string]string{"JOURNAL_MAX_RATE_PER_ORG": "70", "JOURNAL_MAX_RATE_PER_SERVER": "30"}))
	require.NoError(t, err)
	require.Equal(t, 70, c.JournalMaxRatePerOrg)
	require.Equal(t, 30, c.JournalMaxRatePerServer)

	requireRefused(t, "JOURNAL_ENABLED=sometimes", "JOURNAL_RETENTION=a day", "JOURNAL_RETENTION=0s", "JOURNAL_RETENTION=-1h",
		"JOURNAL_MAX_PER_SERVER=0", "JOURNAL_MAX_PER_SERVER=lots", "JOURNAL_QUEUE=-5", "JOURNAL_MAX_RATE_PER_ORG=0",
		"JOURNAL_MAX_RATE_PER_SERVER=many")
}
