package testclock_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/testclock"
)

func TestClock(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := testclock.New(start)
	require.Equal(t, start, c.Now())
	require.Equal(t, start, c.Now(), "the clock stands still")
	c.Advance(90 * time.Second)
	require.Equal(t, start.Add(90*time.Second), c.Now())
}
