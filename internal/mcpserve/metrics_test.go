package mcpserve_test

import (
	"testing"
)

// TestMetricsAllocateNothingPerCall: a warm tools/call through the endpoint as the
// service routes it allocates as much with metrics on as with them off: the
// request metrics and the message counters are resolved in advance.
func TestMetricsAllocateNothingPerCall(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	allocs := func(metrics bool) float64 {
		serve, _ := toolsCall(t, benchOptions{routed: true, metrics: metrics})
		serve() // resolves the cells of status 200
		return testing.AllocsPerRun(200, func() { serve() })
	}
	off, on := allocs(false), allocs(true)
	t.Logf("allocations per call: %.1f with metrics off, %.1f on", off, on)
	if on > off {
		t.Fatalf("a call allocates %.1f times with metrics on, %.1f with them off", on, off)
	}
}
