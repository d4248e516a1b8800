// Package batch writes items to a database in the background: callers hand
// each item to a Writer without waiting; one loop inserts them in batches and
// retries a failed insert with backoff. A slow or failing database costs
// items, counted in Stats, never the caller's latency. The audit trail and
// the call journal are its users.
package batch

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// maxBackoff caps the wait between two attempts at the same batch.
const maxBackoff = 5 * time.Second

// ErrClosing is what Flush returns when Close cut it short: Close writes
// what is left.
var ErrClosing = errors.New("batch writer closing")

// Options tune a Writer; a zero or negative field takes its default.
type Options struct {
	QueueSize     int           // items waiting at most; default 10000
	BatchSize     int           // items per insert at most; default 500
	FlushInterval time.Duration // a partial batch waits at most this long; default 200ms
	RetryBackoff  time.Duration // first wait after a failed insert, doubling, capped at 5s; default 250ms
	MaxAttempts   int           // insert attempts per batch before it is dropped; default 8
	InsertTimeout time.Duration // per insert attempt; default 5s
}

func (o Options) withDefaults() Options {
	orInt := func(v, d int) int {
		if v <= 0 {
			return d
		}
		return v
	}
	orDur := func(v, d time.Duration) time.Duration {
		if v <= 0 {
			return d
		}
		return v
	}
	o.QueueSize = orInt(o.QueueSize, 10000)
	o.BatchSize = orInt(o.BatchSize, 500)
	o.FlushInterval = orDur(o.FlushInterval, 200*time.Millisecond)
	o.RetryBackoff = orDur(o.RetryBackoff, 250*time.Millisecond)
	o.MaxAttempts = orInt(o.MaxAttempts, 8)
	o.InsertTimeout = orDur(o.InsertTimeout, 5*time.Second)
	return o
}

// Stats counts what happened to items since New. Once Close has returned
// nil, every Add call is either Written or Dropped.
type Stats struct {
	Queued  uint64 // items accepted by Add
	Written uint64 // items inserted
	Dropped uint64 // items lost: the queue was full, the writer closed, or their batch ran out of attempts
	Failed  uint64 // failed insert attempts
}

// InsertFunc writes items all or none, so that a retried batch is never
// written twice. It must not keep items after it returns: the writer reuses
// the slice.
type InsertFunc[T any] func(ctx context.Context, items []T) error

// Writer is a bounded, batched, fire-and-forget writer. Add may be called
// from any goroutine; Run runs the insert loop; Flush writes what is queued;
// Close flushes and stops.
type Writer[T any] struct {
	name   string // what the logs call the items, e.g. "audit"
	insert InsertFunc[T]
	log    *slog.Logger
	opts   Options

	// queue is never closed, so an Add racing with Close cannot panic; mu
	// makes Close wait for sends in progress, after which nothing more
	// enters the queue and draining it terminates. It carries pointers:
	// a channel's buffer is one allocation that the garbage collector
	// scans whole on every cycle, and QueueSize items holding pointers
	// (a journal record's strings and bytes) made a mostly empty queue a
	// quarter of the service's marking work; QueueSize pointers are a few
	// words each to scan.
	queue   chan *T
	mu      sync.RWMutex
	closed  bool
	closing chan struct{} // closed by the first Close
	flushes chan flushRequest

	// loop is held (a value sent into it) by whoever inserts, Run, Flush or
	// Close, so inserts never overlap. The holder alone uses the fields below
	// it, which survive from Run to Close: a batch under retry is not lost.
	loop     chan struct{}
	batch    []T
	due      time.Time // when a partial batch is inserted anyway
	attempts int       // failed attempts at batch
	streak   uint64    // failed attempts since the last successful insert
	lostAt   uint64    // Dropped when the streak began
	fullSeen uint64    // full when last reported
	fullAt   time.Time // when the queue's overflow was last reported

	queued, written, dropped, failed atomic.Uint64
	lost                             atomic.Uint64 // dropped because their batch ran out of attempts
	full                             atomic.Uint64 // dropped because the queue was full
}

// flushRequest asks Run to write what is queued, under ctx.
type flushRequest struct {
	ctx  context.Context
	done chan error // buffered: Run never waits for the requester
}

// New returns a Writer inserting through insert; name prefixes its log
// messages and a nil log means slog.Default(). Start Run in a goroutine, and
// Close it at shutdown.
func New[T any](name string, insert InsertFunc[T], log *slog.Logger, opts Options) *Writer[T] {
	if log == nil {
		log = slog.Default()
	}
	opts = opts.withDefaults()
	return &Writer[T]{
		name:    name,
		insert:  insert,
		log:     log,
		opts:    opts,
		queue:   make(chan *T, opts.QueueSize),
		closing: make(chan struct{}),
		flushes: make(chan flushRequest),
		loop:    make(chan struct{}, 1),
		batch:   make([]T, 0, opts.BatchSize),
	}
}

// Add queues v for insertion. It never waits for the database: when the
// queue is full or the writer is closed it drops v, counts it, and returns
// false.
func (w *Writer[T]) Add(v T) bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		w.dropped.Add(1)
		return false
	}
	p := new(T)
	*p = v
	select {
	case w.queue <- p:
		w.queued.Add(1)
		return true
	default:
		w.full.Add(1)
		w.dropped.Add(1)
		return false
	}
}

// Admit reports whether Add would queue an item now. When it would not (the
// queue is full or the writer closed) Admit counts the item as dropped, so
// that a caller may skip building it; a caller told true still calls Add,
// which may yet drop the item if the queue filled meanwhile.
func (w *Writer[T]) Admit() bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	switch {
	case w.closed:
	case len(w.queue) < cap(w.queue):
		return true
	default:
		w.full.Add(1)
	}
	w.dropped.Add(1)
	return false
}

// Discard counts an item its caller could not even hand over as dropped.
func (w *Writer[T]) Discard() { w.dropped.Add(1) }

// Depth is how many items wait in the queue now, not yet taken into a
// batch.
func (w *Writer[T]) Depth() int { return len(w.queue) }

// Stats reports the counters; each is read atomically, not all at once.
func (w *Writer[T]) Stats() Stats {
	return Stats{
		Queued:  w.queued.Load(),
		Written: w.written.Load(),
		Dropped: w.dropped.Load(),
		Failed:  w.failed.Load(),
	}
}

// Run inserts queued items until ctx ends or Close is called. It lets an
// insert in progress finish (within InsertTimeout) but starts no other, and
// leaves what is still queued to Close, which writes it under its own
// deadline. Calling Run again after ctx ended resumes where it stopped.
func (w *Writer[T]) Run(ctx context.Context) {
	select {
	case w.loop <- struct{}{}:
	case <-w.closing:
		return
	case <-ctx.Done():
		return
	}
	defer func() { <-w.loop }()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for !w.stopping(ctx) {
		if len(w.batch) == 0 {
			select {
			case v := <-w.queue:
				w.batch = append(w.batch, *v)
				w.due = time.Now().Add(w.opts.FlushInterval)
			case req := <-w.flushes:
				w.serve(ctx, req)
				continue
			case <-w.closing:
				return
			case <-ctx.Done():
				return
			}
		}
		// A batch under retry stays as it failed; newer items wait in the
		// queue.
		if w.attempts == 0 && !w.gather(ctx, timer) || w.stopping(ctx) {
			return
		}
		if len(w.batch) == 0 { // a flush wrote it
			continue
		}
		if !w.insertBatch(ctx, w.closing) {
			return
		}
	}
}

// stopping reports whether Run should return. select alone would not do:
// it picks among ready cases at random, so a busy queue could keep Run
// gathering and inserting after Close was called.
func (w *Writer[T]) stopping(ctx context.Context) bool {
	select {
	case <-w.closing:
		return true
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// gather fills the batch until it is full or due, or a flush has written
// it, and reports false when ctx ends or Close is called first.
func (w *Writer[T]) gather(ctx context.Context, timer *time.Timer) bool {
	timer.Reset(time.Until(w.due))
	defer timer.Stop()
	for len(w.batch) < w.opts.BatchSize {
		select {
		case v := <-w.queue:
			w.batch = append(w.batch, *v)
		case req := <-w.flushes:
			w.serve(ctx, req)
			return true
		case <-timer.C:
			w.fill() // what is already waiting rides along
			return true
		case <-w.closing:
			return false
		case <-ctx.Done():
			return false
		}
	}
	return true
}

// fill tops the batch up with what is queued, without waiting.
func (w *Writer[T]) fill() {
	for len(w.batch) < w.opts.BatchSize {
		select {
		case v := <-w.queue:
			w.batch = append(w.batch, *v)
		default:
			return
		}
	}
}

// Flush writes the batch in progress and every item queued before the call
// (or drops a batch that runs out of attempts) and returns nil, or returns
// early with ctx's error, or ErrClosing when Close is called meanwhile. With
// Run going, Run does the writing; without, Flush does.
func (w *Writer[T]) Flush(ctx context.Context) error {
	req := flushRequest{ctx: ctx, done: make(chan error, 1)}
	select {
	case w.loop <- struct{}{}: // no Run holds the loop
		defer func() { <-w.loop }()
		return w.drain(ctx, w.closing)
	case w.flushes <- req:
		select {
		case err := <-req.done:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	case <-ctx.Done():
		return ctx.Err()
	}
}

// serve answers a flush request on Run's loop, under the request's context
// and Run's together.
func (w *Writer[T]) serve(ctx context.Context, req flushRequest) {
	fctx, cancel := context.WithCancel(req.ctx)
	stop := context.AfterFunc(ctx, cancel)
	req.done <- w.drain(fctx, w.closing)
	stop()
	cancel()
}

// drain inserts the batch and what is queued now, batch by batch.
func (w *Writer[T]) drain(ctx context.Context, stop <-chan struct{}) error {
	n := len(w.queue) // items queued later are not waited for
	for {
		for w.attempts == 0 && n > 0 && len(w.batch) < w.opts.BatchSize {
			select {
			case v := <-w.queue:
				w.batch = append(w.batch, *v)
				n--
			default:
				n = 0
			}
		}
		if len(w.batch) == 0 {
			return nil
		}
		if !w.insertBatch(ctx, stop) {
			if err := ctx.Err(); err != nil {
				return err
			}
			return ErrClosing
		}
	}
}

// Close stops accepting items and writes everything queued, including a
// batch under retry, until ctx ends. It returns ctx.Err() if items are left
// unwritten; they stay queued, so a later Close may still write them. Call
// it before cancelling Run's context or after: either way Run stops and
// Close does the flushing.
func (w *Writer[T]) Close(ctx context.Context) error {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.closing)
	}
	w.mu.Unlock()
	select {
	case w.loop <- struct{}{}: // preferred even when ctx has already ended
	default:
		select {
		case w.loop <- struct{}{}:
		case <-ctx.Done():
			return w.gaveUp(ctx)
		}
	}
	defer func() { <-w.loop }()
	for {
		if w.attempts == 0 {
			w.fill()
		}
		if len(w.batch) == 0 {
			return nil
		}
		if !w.insertBatch(ctx, nil) {
			return w.gaveUp(ctx)
		}
	}
}

// gaveUp ends a Close whose ctx ended, after Add can no longer queue.
func (w *Writer[T]) gaveUp(ctx context.Context) error {
	done := w.written.Load() + w.lost.Load()
	queued := w.queued.Load()
	left := queued - min(queued, done)
	if left == 0 {
		return nil
	}
	w.log.Warn(w.name+" records left unwritten at close", "records", left, "err", ctx.Err())
	return ctx.Err()
}

// insertBatch tries the batch until it is written or has run out of
// attempts, then empties it and reports true. It reports false, keeping the
// batch, when ctx ends or stop is closed first.
func (w *Writer[T]) insertBatch(ctx context.Context, stop <-chan struct{}) bool {
	for {
		actx, cancel := context.WithTimeout(ctx, w.opts.InsertTimeout)
		err := w.insert(actx, w.batch)
		cancel()
		n := uint64(len(w.batch))
		if err == nil {
			w.written.Add(n)
			w.recovered()
			w.reset()
			return true
		}
		if ctx.Err() != nil {
			return false // cut short by shutdown, not the database's failure
		}
		w.failed.Add(1)
		w.attempts++
		if w.streak == 0 {
			w.lostAt = w.dropped.Load()
			w.log.Warn(w.name+" insert failed; retrying", "records", n, "err", err)
		}
		w.streak++
		if w.attempts >= w.opts.MaxAttempts {
			w.lost.Add(n)
			w.dropped.Add(n)
			w.log.Warn(w.name+" batch dropped", "records", n, "attempts", w.attempts, "err", err)
			w.reset()
			return true
		}
		t := time.NewTimer(w.backoff())
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return false
		case <-stop:
			t.Stop()
			return false
		}
	}
}

// fullReportEvery spaces the warnings about a queue that overflows while
// inserts succeed: the database keeps up too slowly, maybe for hours.
const fullReportEvery = time.Minute

// recovered logs the end of a failure streak, which accounts for what the
// full queue dropped meanwhile, or else a queue that overflows anyway, at
// most once every fullReportEvery.
func (w *Writer[T]) recovered() {
	full := w.full.Load()
	switch {
	case w.streak > 0:
		w.log.Info(w.name+" inserts succeed again", "failed_attempts", w.streak,
			"dropped", w.dropped.Load()-w.lostAt)
		w.streak = 0
		w.fullSeen = full
	case full > w.fullSeen && time.Since(w.fullAt) >= fullReportEvery:
		w.log.Warn(w.name+" queue full; records dropped", "dropped", full-w.fullSeen,
			"queue_size", w.opts.QueueSize)
		w.fullSeen, w.fullAt = full, time.Now()
	}
}

func (w *Writer[T]) reset() {
	clear(w.batch) // let the items' memory go
	w.batch = w.batch[:0]
	w.attempts = 0
}

// backoff is the wait after the batch's latest failed attempt.
func (w *Writer[T]) backoff() time.Duration {
	d := w.opts.RetryBackoff
	for i := 1; i < w.attempts && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}
