package agentjournal

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/batch"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/periodic"
)

// Sink stores agent journal records; the store is the one in production.
type Sink interface {
	// AppendAgentJournal writes records and returns how many it skipped
	// because the database refused them (their card is gone). On error
	// none is written. It must not keep records after it returns.
	AppendAgentJournal(ctx context.Context, records []Record) (skipped int, err error)
	// PruneAgentJournal deletes the records received before before, then
	// those of cards beyond their newest keep.
	PruneAgentJournal(ctx context.Context, before time.Time, keep int, cards []uuid.UUID, lim journal.PruneLimits) (int64, error)
}

// Options tune a Writer; a zero or negative field takes its default.
type Options struct {
	Batch         batch.Options
	Retention     time.Duration // records older than this are deleted; default 24h
	MaxPerCard    int           // records kept per card at most; default 1000
	PruneInterval time.Duration // how often retention runs; default 1m
}

// maxTracked bounds the cards whose drops a writer remembers; past it a
// drop makes every verification incomplete until a clear: the bound never
// hides a drop.
const maxTracked = 1 << 16

// Writer is the agent journal's bounded, batched, fire-and-forget writer.
// A nil *Writer records nothing.
type Writer struct {
	sink Sink
	log  *slog.Logger
	opts Options
	w    *batch.Writer[Entry]

	records []Record // the insert's scratch slice

	mu      sync.Mutex
	written map[uuid.UUID]struct{} // cards written since retention last ran
	dropped map[uuid.UUID]time.Time
	lost    time.Time // the last drop of a card that could not be tracked

	closeOnce sync.Once
	closing   chan struct{}
}

// New returns a Writer inserting into sink. Start Run in a goroutine, and
// Close it at shutdown.
func New(sink Sink, log *slog.Logger, opts Options) *Writer {
	if log == nil {
		log = slog.Default()
	}
	if opts.Retention <= 0 {
		opts.Retention = 24 * time.Hour
	}
	if opts.MaxPerCard <= 0 {
		opts.MaxPerCard = 1000
	}
	if opts.PruneInterval <= 0 {
		opts.PruneInterval = time.Minute
	}
	w := &Writer{sink: sink, log: log, opts: opts, closing: make(chan struct{}),
		written: map[uuid.UUID]struct{}{}, dropped: map[uuid.UUID]time.Time{}}
	w.w = batch.New("agent journal", w.insert, log, opts.Batch)
	return w
}

// Admit reports whether Record would keep an entry of card now; when not,
// it counts the entry as dropped and the endpoint need not build it.
func (w *Writer) Admit(card uuid.UUID) bool {
	if w == nil {
		return false
	}
	if !w.w.Admit() {
		w.drop(card)
		return false
	}
	return true
}

// Record queues e without waiting; when the queue is full or the writer is
// closed it drops e, counts it, and returns false.
func (w *Writer) Record(e Entry) bool {
	if w == nil {
		return false
	}
	if !w.w.Add(e) {
		w.drop(e.CardID)
		return false
	}
	return true
}

func (w *Writer) drop(card uuid.UUID) {
	now := time.Now()
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.dropped[card]; ok || len(w.dropped) < maxTracked {
		w.dropped[card] = now
		return
	}
	w.lost = now
}

// Complete reports whether this instance dropped none of card's records
// since its journal was last cleared here, within Retention. A nil Writer
// is never complete.
func (w *Writer) Complete(card uuid.UUID) bool {
	if w == nil {
		return false
	}
	since := time.Now().Add(-w.opts.Retention)
	w.mu.Lock()
	defer w.mu.Unlock()
	at, ok := w.dropped[card]
	return (!ok || at.Before(since)) && w.lost.Before(since)
}

// Cleared tells the writer that card's journal was cleared.
func (w *Writer) Cleared(card uuid.UUID) {
	if w == nil {
		return
	}
	w.mu.Lock()
	delete(w.dropped, card)
	w.mu.Unlock()
}

// Stats reports the counters.
func (w *Writer) Stats() batch.Stats {
	if w == nil {
		return batch.Stats{}
	}
	return w.w.Stats()
}

// Depth is how many entries wait to be written.
func (w *Writer) Depth() int {
	if w == nil {
		return 0
	}
	return w.w.Depth()
}

// Run inserts queued entries and applies retention until ctx ends or Close
// is called.
func (w *Writer) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { w.w.Run(ctx) })
	wg.Go(func() {
		periodic.Sweep(ctx, w.opts.PruneInterval, w.closing, w.Prune,
			func(n int64, err error) { w.log.Warn("agent journal retention failed", "deleted", n, "err", err) },
			func(n int64) { w.log.Debug("agent journal retention", "deleted", n) })
	})
	wg.Wait()
}

// Flush writes every entry queued before the call.
func (w *Writer) Flush(ctx context.Context) error {
	if w == nil {
		return nil
	}
	return w.w.Flush(ctx)
}

// Close stops retention, stops accepting entries and writes what is queued
// until ctx ends.
func (w *Writer) Close(ctx context.Context) error {
	if w == nil {
		return nil
	}
	w.closeOnce.Do(func() { close(w.closing) })
	return w.w.Close(ctx)
}

// Prune applies retention once: records older than Retention go, then
// those beyond the newest MaxPerCard of the cards written since the last
// run.
func (w *Writer) Prune(ctx context.Context) (int64, error) {
	w.mu.Lock()
	cards := make([]uuid.UUID, 0, len(w.written))
	for c := range w.written {
		cards = append(cards, c)
	}
	clear(w.written)
	w.mu.Unlock()
	n, err := w.sink.PruneAgentJournal(ctx, time.Now().Add(-w.opts.Retention), w.opts.MaxPerCard, cards, journal.PruneLimits{})
	if err != nil {
		w.mu.Lock()
		for _, c := range cards {
			w.written[c] = struct{}{}
		}
		w.mu.Unlock()
	}
	return n, err
}

// insert is the batch writer's InsertFunc.
func (w *Writer) insert(ctx context.Context, entries []Entry) error {
	for _, e := range entries {
		w.records = append(w.records, recordOf(e))
	}
	skipped, err := w.sink.AppendAgentJournal(ctx, w.records)
	if err == nil {
		w.mu.Lock()
		for _, r := range w.records {
			if len(w.written) < maxTracked {
				w.written[r.CardID] = struct{}{}
			}
		}
		w.mu.Unlock()
	}
	clear(w.records)
	w.records = w.records[:0]
	if err == nil && skipped > 0 {
		w.log.Warn("agent journal records refused by the database; skipped", "records", skipped)
	}
	return err
}
