package main

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCreatedTime(t *testing.T) {
	for _, tc := range []struct {
		name, created, epoch string
		want                 time.Time
		err                  string
	}{
		{"flag", "2026-11-27T17:31:48Z", "1", time.Date(2026, 11, 27, 17, 31, 48, 0, time.UTC), ""},
		{"SOURCE_DATE_EPOCH", "", "1764264708", time.Unix(1764264708, 0), ""},
		{"neither: the Unix epoch, never now", "", "", time.Unix(0, 0), ""},
		{"bad flag", "yesterday", "", time.Time{}, `-created "yesterday": want RFC 3339`},
		{"bad epoch", "", "soon", time.Time{}, "SOURCE_DATE_EPOCH: want Unix seconds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := createdTime(tc.created, tc.epoch)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.True(t, tc.want.Equal(got), "got %v, want %v", got, tc.want)
		})
	}
}

func TestRunRefuses(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-binary", "linux/amd64"}, "want PLATFORM=PATH"},
		{[]string{"-o", dir + "/image.tar", "-version", "v1"}, "no binary"},
		{[]string{"-o", dir + "/image.tar", "-binary", "linux/amd64=" + dir + "/gone"}, "version is empty"},
	} {
		require.ErrorContains(t, run(tc.args), tc.want, "%v", tc.args)
	}
	left, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Empty(t, left, "a failed build leaves no image and no temporary file")
}
