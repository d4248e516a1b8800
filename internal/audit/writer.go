// Package audit writes the policy audit trail in the background. Request
// handlers hand each record to a Writer without waiting; one loop inserts
// them in batches and retries a failed insert with backoff. A slow or failing
// database costs records, counted in Stats, never request latency.
package audit

import (
	"context"
	"log/slog"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/batch"
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

// Options tune a Writer; a zero or negative field takes its default (see
// batch.Options).
type Options = batch.Options

// Stats counts what happened to records since New. Once Close has returned
// nil, every Record call is either Written or Dropped.
type Stats = batch.Stats

// Writer is the bounded, batched, fire-and-forget audit writer. Record may
// be called from any goroutine; Run runs the insert loop; Close flushes.
type Writer struct {
	w *batch.Writer[store.AuditRecord]
}

// New returns a Writer inserting into sink; a nil log means slog.Default().
// Start Run in a goroutine, and Close it at shutdown.
func New(sink Sink, log *slog.Logger, opts Options) *Writer {
	return &Writer{w: batch.New("audit", sink.AppendAudit, log, opts)}
}

// Record queues r for insertion and fills its ID (a UUIDv7) when zero. It
// never waits for the database: when the queue is full or the writer is
// closed it drops r, counts it, and returns false.
func (w *Writer) Record(r store.AuditRecord) bool {
	if r.ID == uuid.Nil {
		id, err := uuid.NewV7()
		if err != nil { // only if the system's random source fails
			w.w.Discard()
			return false
		}
		r.ID = id
	}
	return w.w.Add(r)
}

// Stats reports the counters; each is read atomically, not all at once.
func (w *Writer) Stats() Stats { return w.w.Stats() }

// Depth is how many records wait to be written now, not yet taken into a
// batch.
func (w *Writer) Depth() int { return w.w.Depth() }

// Run inserts queued records until ctx ends or Close is called; see
// batch.Writer.Run.
func (w *Writer) Run(ctx context.Context) { w.w.Run(ctx) }

// Close stops accepting records and writes everything queued until ctx
// ends; see batch.Writer.Close.
func (w *Writer) Close(ctx context.Context) error { return w.w.Close(ctx) }
