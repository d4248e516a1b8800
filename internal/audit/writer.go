// Package audit writes the policy audit trail in the background. Request
// handlers hand each record to a Writer without waiting; one loop inserts
// them in batches and retries a failed insert with backoff. A slow or failing
// database costs records, counted in Stats, never request latency.
package audit

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/store"
)

// Sink stores audit records; *store.Store is the one in production.
type Sink interface {
	// AppendAudit writes all records or none, so a retried batch is never
	// written twice. It must not keep records after it returns: the writer
	// reuses the slice.
	AppendAudit(ctx context.Context, records []store.AuditRecord) error
}

var _ Sink = (*store.Store)(nil)

// maxBackoff caps the wait between two attempts at the same batch.
const maxBackoff = 5 * time.Second

// Options tune a Writer; a zero or negative field takes its default.
type Options struct {
	QueueSize     int           // records waiting at most; default 10000
	BatchSize     int           // records per insert at most; default 500
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

// Stats counts what happened to records since New. Once Close has returned
// nil, every Record call is either Written or Dropped.
type Stats struct {
	Queued  uint64 // records accepted by Record
	Written uint64 // records inserted
	Dropped uint64 // records lost: the queue was full, the writer closed, or their batch ran out of attempts
	Failed  uint64 // failed insert attempts
}

// Writer is the bounded, batched, fire-and-forget audit writer. Record may
// be called from any goroutine; Run runs the insert loop; Close flushes.
type Writer struct {
	sink Sink
	log  *slog.Logger
	opts Options

	// queue is never closed, so a Record racing with Close cannot panic;
	// mu makes Close wait for sends in progress, after which nothing more
	// enters the queue and draining it terminates.
	queue   chan store.AuditRecord
	mu      sync.RWMutex
	closed  bool
	closing chan struct{} // closed by the first Close

	// loop is held (a value sent into it) by whoever inserts, Run or Close,
	// so inserts never overlap. The holder alone uses the fields below it,
	// which survive from Run to Close: a batch under retry is not lost.
	loop     chan struct{}
	batch    []store.AuditRecord
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

// New returns a Writer inserting into sink; a nil log means slog.Default().
// Start Run in a goroutine, and Close it at shutdown.
func New(sink Sink, log *slog.Logger, opts Options) *Writer {
	if log == nil {
		log = slog.Default()
	}
	opts = opts.withDefaults()
	return &Writer{
		sink:    sink,
		log:     log,
		opts:    opts,
		queue:   make(chan store.AuditRecord, opts.QueueSize),
		closing: make(chan struct{}),
		loop:    make(chan struct{}, 1),
		batch:   make([]store.AuditRecord, 0, opts.BatchSize),
	}
}

// Record queues r for insertion and fills its ID (a UUIDv7) when zero. It
// never waits for the database: when the queue is full or the writer is
// closed it drops r, counts it, and returns false.
func (w *Writer) Record(r store.AuditRecord) bool {
	if r.ID == uuid.Nil {
		id, err := uuid.NewV7()
		if err != nil { // only if the system's random source fails
			w.dropped.Add(1)
			return false
		}
		r.ID = id
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if w.closed {
		w.dropped.Add(1)
		return false
	}
	select {
	case w.queue <- r:
		w.queued.Add(1)
		return true
	default:
		w.full.Add(1)
		w.dropped.Add(1)
		return false
	}
}

// Stats reports the counters; each is read atomically, not all at once.
func (w *Writer) Stats() Stats {
	return Stats{
		Queued:  w.queued.Load(),
		Written: w.written.Load(),
		Dropped: w.dropped.Load(),
		Failed:  w.failed.Load(),
	}
}

// Run inserts queued records until ctx ends or Close is called. It lets an
// insert in progress finish (within InsertTimeout) but starts no other, and
// leaves what is still queued to Close, which writes it under its own
// deadline. Calling Run again after ctx ended resumes where it stopped.
func (w *Writer) Run(ctx context.Context) {
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
			case r := <-w.queue:
				w.batch = append(w.batch, r)
				w.due = time.Now().Add(w.opts.FlushInterval)
			case <-w.closing:
				return
			case <-ctx.Done():
				return
			}
		}
		// A batch under retry stays as it failed; newer records wait in
		// the queue.
		if w.attempts == 0 && !w.gather(ctx, timer) || w.stopping(ctx) {
			return
		}
		if !w.insert(ctx, w.closing) {
			return
		}
	}
}

// stopping reports whether Run should return. select alone would not do:
// it picks among ready cases at random, so a busy queue could keep Run
// gathering and inserting after Close was called.
func (w *Writer) stopping(ctx context.Context) bool {
	select {
	case <-w.closing:
		return true
	case <-ctx.Done():
		return true
	default:
		return false
	}
}

// gather fills the batch until it is full or due, and reports false when
// ctx ends or Close is called first.
func (w *Writer) gather(ctx context.Context, timer *time.Timer) bool {
	timer.Reset(time.Until(w.due))
	defer timer.Stop()
	for len(w.batch) < w.opts.BatchSize {
		select {
		case r := <-w.queue:
			w.batch = append(w.batch, r)
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
func (w *Writer) fill() {
	for len(w.batch) < w.opts.BatchSize {
		select {
		case r := <-w.queue:
			w.batch = append(w.batch, r)
		default:
			return
		}
	}
}

// Close stops accepting records and writes everything queued, including a
// batch under retry, until ctx ends. It returns ctx.Err() if records are
// left unwritten; they stay queued, so a later Close may still write them.
// Call it before cancelling Run's context or after: either way Run stops and
// Close does the flushing.
func (w *Writer) Close(ctx context.Context) error {
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
		if !w.insert(ctx, nil) {
			return w.gaveUp(ctx)
		}
	}
}

// gaveUp ends a Close whose ctx ended, after Record can no longer queue.
func (w *Writer) gaveUp(ctx context.Context) error {
	done := w.written.Load() + w.lost.Load()
	queued := w.queued.Load()
	left := queued - min(queued, done)
	if left == 0 {
		return nil
	}
	w.log.Warn("audit records left unwritten at close", "records", left, "err", ctx.Err())
	return ctx.Err()
}

// insert tries the batch until it is written or has run out of attempts,
// then empties it and reports true. It reports false, keeping the batch,
// when ctx ends or stop is closed first.
func (w *Writer) insert(ctx context.Context, stop <-chan struct{}) bool {
	for {
		actx, cancel := context.WithTimeout(ctx, w.opts.InsertTimeout)
		err := w.sink.AppendAudit(actx, w.batch)
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
			w.log.Warn("audit insert failed; retrying", "records", n, "err", err)
		}
		w.streak++
		if w.attempts >= w.opts.MaxAttempts {
			w.lost.Add(n)
			w.dropped.Add(n)
			w.log.Warn("audit batch dropped", "records", n, "attempts", w.attempts, "err", err)
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
func (w *Writer) recovered() {
	full := w.full.Load()
	switch {
	case w.streak > 0:
		w.log.Info("audit inserts succeed again", "failed_attempts", w.streak,
			"dropped", w.dropped.Load()-w.lostAt)
		w.streak = 0
		w.fullSeen = full
	case full > w.fullSeen && time.Since(w.fullAt) >= fullReportEvery:
		w.log.Warn("audit queue full; records dropped", "dropped", full-w.fullSeen,
			"queue_size", w.opts.QueueSize)
		w.fullSeen, w.fullAt = full, time.Now()
	}
}

func (w *Writer) reset() {
	clear(w.batch) // let the records' strings go
	w.batch = w.batch[:0]
	w.attempts = 0
}

// backoff is the wait after the batch's latest failed attempt.
func (w *Writer) backoff() time.Duration {
	d := w.opts.RetryBackoff
	for i := 1; i < w.attempts && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}
