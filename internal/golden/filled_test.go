package golden_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/golden"
)

// TestFillerLeavesNothingEmpty checks the filler against the zero check on
// a type with every kind a stored type uses, and the zero check against a
// value with one field left out.
func TestFillerLeavesNothingEmpty(t *testing.T) {
	type inner struct {
		Raw  json.RawMessage
		When *time.Time
	}
	type shape struct {
		S      string
		B      bool
		I      int64
		F      float64
		List   []inner
		Map    map[string][]string
		Any    any
		ID     uuid.UUID
		Hidden string  `json:"-"`
		Nested []shape // left empty: a type inside itself
	}
	v := golden.Filled[shape](t)
	require.Empty(t, v.Hidden, "a field encoding/json skips is not filled")
	require.Equal(t, v, golden.Filled[shape](t), "the filler is deterministic")

	v.List[0].When = nil
	require.Equal(t, []string{"golden_test.shape.List[0].When"}, golden.Empty(v))
}
