package gctune

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, headroom uint64
		want           int
	}{
		{14 * mib, 64 * mib, 457},  // a small heap: the headroom
		{1 * mib, 64 * mib, 1000},  // capped
		{290 * mib, 64 * mib, 25},  // a large heap: a quarter of it
		{200 * mib, 64 * mib, 32},  // the headroom still
		{0, 64 * mib, 1000},        // nothing measured yet
		{4096 * mib, 64 * mib, 25}, // never below a quarter
	} {
		if got := Percent(c.live, c.headroom); got != c.want {
			t.Errorf("Percent(%d MiB, %d MiB) = %d, want %d", c.live/mib, c.headroom/mib, got, c.want)
		}
	}
}

// TestTunerFollowsCollections: after a collection the tuner has set GOGC
// from the live heap, and Stop restores 100.
func TestTunerFollowsCollections(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	tn := Start(64 << 20)
	defer tn.Stop()
	keep := make([]byte, 8<<20) // some live heap
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs in its own goroutine
		if p := tn.Percent(); p > 100 && p <= maxPercent {
			break
		}
	}
	runtime.KeepAlive(keep)
	if p := tn.Percent(); p <= 100 || p > maxPercent {
		t.Fatalf("GOGC %d after collections of a small heap, want the headroom's (over 100)", p)
	}
	if got := debug.SetGCPercent(77); got != tn.Percent() {
		t.Fatalf("the runtime's GOGC is %d, the tuner's %d", got, tn.Percent())
	}
	debug.SetGCPercent(tn.Percent())
	tn.Stop()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Fatalf("GOGC %d after Stop, want 100", got)
	}
}
