package jsonvalue_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/jsonvalue"
)

func TestNumberEnd(t *testing.T) {
	for _, s := range []string{"0", "-0", "7", "-12", "10", "1.5", "0.25", "1e9", "1E+9", "2.5e-3", "-0.0e0",
		"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "--1", "1.e3", "0x1", "1_0", "Infinity", "NaN", "- 1"} {
		end, ok := jsonvalue.NumberEnd(s, 0)
		require.Equal(t, json.Valid([]byte(s)), ok && end == len(s), "%q", s)
		bend, bok := jsonvalue.NumberEnd([]byte(s), 0)
		require.Equal(t, end, bend, "%q", s)
		require.Equal(t, ok, bok, "%q", s)
	}
	// What follows a number is the caller's.
	end, ok := jsonvalue.NumberEnd(`[12.5e1,3]`, 1)
	require.True(t, ok)
	require.Equal(t, 7, end)
	end, ok = jsonvalue.NumberEnd(`01`, 0)
	require.True(t, ok, "0 is a number; the 1 after it is for the caller to refuse")
	require.Equal(t, 1, end)
}
