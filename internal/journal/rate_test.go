package journal

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/batch"
)

// TestAdmitKeepsTheRateBudget: past MaxRate entries a second, Admit refuses
// and counts the drop; the next second the budget is back.
func TestAdmitKeepsTheRateBudget(t *testing.T) {
	w := New(nil, nil, Options{Batch: batch.Options{QueueSize: 100}, MaxRate: 5, MaxRatePerOrg: 10_000,
		MaxRatePerServer: 10_000})
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
	org, server := uuid.New(), uuid.New()
	for range 2000 {
		if w.Admit(org, server) {
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

// TestAdmitSharesTheRateBetweenTenants: organization X floods two of its
// servers; its entries are dropped by its servers' and its organization's
// budgets, and the instance's budget is left to organization Y, whose 50
// entries are all admitted. Verifications of X's servers are incomplete,
// Y's complete; the metrics count one dropping organization.
func TestAdmitSharesTheRateBetweenTenants(t *testing.T) {
	w := New(nil, nil, Options{Batch: batch.Options{QueueSize: 100_000}, MaxRate: 200, MaxRatePerOrg: 60,
		MaxRatePerServer: 50})
	x, x1, x2 := uuid.New(), uuid.New(), uuid.New()
	y, y1 := uuid.New(), uuid.New()
	start := time.Now()
	admitted := map[uuid.UUID]int{}
	for _, s := range []uuid.UUID{x1, x2} { // x1 past its server's budget, x2 past the organization's
		for range 10_000 {
			if w.Admit(x, s) {
				admitted[s]++
			}
		}
	}
	for range 50 {
		if w.Admit(y, y1) {
			admitted[y1]++
		}
	}
	// Buckets refill while the loop runs: allow what the rates earned.
	slack := int(time.Since(start).Seconds()*60) + 1
	if got := admitted[x1] + admitted[x2]; got > 60+slack {
		t.Fatalf("organization X got %d entries admitted, its budget is 60 a second", got)
	}
	if got := admitted[x1]; got > 50+slack {
		t.Fatalf("server x1 got %d entries admitted, its budget is 50 a second", got)
	}
	if admitted[y1] != 50 {
		t.Fatalf("organization Y kept %d of its 50 entries during X's flood", admitted[y1])
	}
	if w.DroppedBy(BoundServer) == 0 || w.DroppedBy(BoundOrganization) == 0 {
		t.Fatalf("drops by server %d, by organization %d: both bounds should have dropped",
			w.DroppedBy(BoundServer), w.DroppedBy(BoundOrganization))
	}
	if n := w.DroppingOrganizations(); n != 1 {
		t.Fatalf("%d organizations dropping, want 1", n)
	}
	if w.Complete(x1) || w.Complete(x2) {
		t.Fatal("X's servers lost records, yet their journals are complete")
	}
	if !w.Complete(y1) {
		t.Fatal("Y's server lost no record, yet its journal is incomplete")
	}
	w.Cleared(x1)
	if !w.Complete(x1) {
		t.Fatal("a cleared journal still counts the drops before the clear")
	}
}

// TestAdmitAllocatesNothing: once an organization and a server are known,
// admitting or dropping their entries allocates nothing.
func TestAdmitAllocatesNothing(t *testing.T) {
	w := New(nil, nil, Options{Batch: batch.Options{QueueSize: 10}, MaxRate: 5})
	org, server := uuid.New(), uuid.New()
	w.Admit(org, server)
	if n := testing.AllocsPerRun(1000, func() { w.Admit(org, server) }); n != 0 {
		t.Fatalf("Admit allocates %v times a call", n)
	}
}

// TestAdmitBoundNeverHidesADrop: with every tracked server holding a drop
// that still counts, a new server is not tracked, and a drop of its
// records makes every verification incomplete instead of going unnoticed.
func TestAdmitBoundNeverHidesADrop(t *testing.T) {
	w := New(nil, nil, Options{Batch: batch.Options{QueueSize: 10}, MaxRate: 1 << 30, MaxRatePerOrg: 1,
		MaxRatePerServer: 1})
	org := uuid.New()
	for range maxTracked { // every one loses its second record, if not its first
		s := uuid.New()
		w.Admit(org, s)
		w.Admit(org, s)
	}
	if n := len(w.adm.servers); n != maxTracked {
		t.Fatalf("%d servers tracked, want %d", n, maxTracked)
	}
	quiet := uuid.New()
	if !w.Complete(quiet) {
		t.Fatal("a server never seen is incomplete before any untracked drop")
	}
	untracked := uuid.New()
	if w.Admit(org, untracked) {
		t.Fatal("admitted past the organization's budget")
	}
	if len(w.adm.servers) > maxTracked {
		t.Fatalf("%d servers tracked, past the bound of %d", len(w.adm.servers), maxTracked)
	}
	if w.Complete(untracked) || w.Complete(quiet) {
		t.Fatal("an untracked server's drop went unnoticed")
	}
}
