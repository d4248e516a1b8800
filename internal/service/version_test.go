package service

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVersionLine(t *testing.T) {
	defer func(v, c, d string) { Version, Commit, Date = v, c, d }(Version, Commit, Date)
	for _, tc := range []struct {
		name, commit, date, want string
	}{
		{"unstamped", "", "", "v1.2.0"},
		{"commit and date", "0b6f2c1", "2026-11-27T17:31:48Z", "v1.2.0 (commit 0b6f2c1, 2026-11-27T17:31:48Z)"},
		{"commit only", "0b6f2c1", "", "v1.2.0 (commit 0b6f2c1)"},
		{"date only", "", "2026-11-27T17:31:48Z", "v1.2.0 (2026-11-27T17:31:48Z)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			Version, Commit, Date = "v1.2.0", tc.commit, tc.date
			require.Equal(t, tc.want, VersionLine())
		})
	}
}
