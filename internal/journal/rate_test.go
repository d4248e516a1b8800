package journal

import (
	"testing"
	"time"

	"github.com/mockmcp/mockmcp/internal/batch"
)

// TestAdmitKeepsTheRateBudget: past MaxRate entries a second, Admit refuses
// and counts the drop; the next second the budget is back.
func TestAdmitKeepsTheRateBudget(t *testing.T) {
	w := New(nil, nil, Options{Batch: batch.Options{QueueSize: 100}, MaxRate: 5})
	now := time.Now().Unix()
	taken := 0
	for range 20 {
		if w.withinRate(now) {
			taken++
		}
	}
	if taken != 5 {
		t.Fatalf("took %d entries in one second, want 5", taken)
	}
	if !w.withinRate(now + 1) {
		t.Fatal("the next second has no budget")
	}
	// Admit counts what the budget refuses as dropped.
	before := w.Stats().Dropped
	admitted := 0
	for range 2000 {
		if w.Admit() {
			admitted++
		}
	}
	if admitted > 10 {
		t.Fatalf("admitted %d of 2000 at a budget of 5 a second", admitted)
	}
	if got := w.Stats().Dropped - before; got != uint64(2000-admitted) {
		t.Fatalf("dropped %d, want %d", got, 2000-admitted)
	}
}
