//go:build race

package schema_test

// raceEnabled: the race detector makes sync.Pool drop items at random, so
// allocation counts of pooled code are not exact under it.
const raceEnabled = true
