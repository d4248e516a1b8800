// Package gctune sizes the Go garbage collector's headroom for the
// service's heap. With the default GOGC=100 the next collection comes once
// the heap has grown by as much as it holds live: a service whose live heap
// is small collects often under load (every few milliseconds of requests),
// each time marking all of it, which costs CPU and, on one core, delays
// requests; a service holding many cached designs doubles their memory
// before it collects. The tuner keeps the growth between collections near
// a fixed headroom instead: at least Headroom bytes, so a small heap is
// collected rarely, and at most about a quarter of the live heap beyond it,
// so a large one is not doubled.
package gctune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// Bounds of the GOGC percentage the tuner sets.
const (
	minPercent = 25
	maxPercent = 1000
)

// liveMetric is the heap marked live by the last collection.
const liveMetric = "/gc/heap/live:bytes"

// Tuner adjusts GOGC after every collection; Stop ends it.
type Tuner struct {
	headroom uint64
	stopped  atomic.Bool
	sample   []metrics.Sample
	last     atomic.Int64 // the percentage set last
}

// Enabled reports whether the tuner should run: not when the operator set
// GOGC or GOMEMLIMIT, which then rule.
func Enabled() bool {
	return os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == ""
}

// Start starts a tuner keeping about headroom bytes of growth between
// collections.
func Start(headroom uint64) *Tuner {
	t := &Tuner{headroom: headroom, sample: []metrics.Sample{{Name: liveMetric}}}
	t.tune()
	t.arm()
	return t
}

// Stop stops tuning and restores GOGC=100.
func (t *Tuner) Stop() {
	if t.stopped.CompareAndSwap(false, true) {
		debug.SetGCPercent(100)
	}
}

// Percent is the GOGC percentage set last.
func (t *Tuner) Percent() int { return int(t.last.Load()) }

// arm calls tune once the next collection has run: a finalizer runs after
// the collection that finds its object unreachable, and re-arms itself.
func (t *Tuner) arm() {
	// Not a tiny object: the tiny allocator packs those together, and one
	// is finalized only once all of its block is unreachable.
	sentinel := new(sentinelObject)
	runtime.SetFinalizer(sentinel, func(*sentinelObject) {
		if t.stopped.Load() {
			return
		}
		t.tune()
		t.arm()
	})
}

type sentinelObject struct{ _ [64]byte }

// tune sets GOGC from the live heap.
func (t *Tuner) tune() {
	metrics.Read(t.sample)
	if t.sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	p := Percent(t.sample[0].Value.Uint64(), t.headroom)
	if int64(p) != t.last.Load() {
		t.last.Store(int64(p))
		debug.SetGCPercent(p)
	}
}

// Percent is the GOGC percentage that lets a heap of live bytes grow by
// max(headroom, live/4) before the next collection, within 25 and 1000.
func Percent(live, headroom uint64) int {
	if live == 0 {
		return maxPercent
	}
	growth := max(headroom, live/4)
	p := growth * 100 / live
	return int(min(max(p, minPercent), maxPercent))
}
