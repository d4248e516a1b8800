package journal

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/batch"
	"github.com/mockmcp/mockmcp/internal/periodic"
)

// Sink stores journal records; the store is the one in production.
type Sink interface {
	// AppendJournal writes records and returns how many it skipped because
	// the database refused them for their content (their server is gone).
	// On error none is written, so a retried batch is never written twice.
	// It must not keep records after it returns: the writer reuses the
	// slice.
	AppendJournal(ctx context.Context, records []Record) (skipped int, err error)
	// PruneJournalByAge deletes the records received before before.
	PruneJournalByAge(ctx context.Context, before time.Time, lim PruneLimits) (int64, error)
	// PruneJournalByCount deletes the records beyond the newest keep of
	// each of servers, or of every server when servers is nil.
	PruneJournalByCount(ctx context.Context, keep int, servers []uuid.UUID, lim PruneLimits) (int64, error)
}

// PruneLimits bound each statement of retention; a zero or negative field
// takes its default.
type PruneLimits struct {
	// Batch is the most rows one statement deletes; default 5000.
	Batch int
	// StatementTimeout stops a statement that takes longer (waiting for a
	// lock included); default 5s. The next run takes up what it left.
	StatementTimeout time.Duration
}

// OrDefaults is lim with its defaults in place of zero fields.
func (lim PruneLimits) OrDefaults() PruneLimits {
	if lim.Batch <= 0 {
		lim.Batch = 5000
	}
	if lim.StatementTimeout <= 0 {
		lim.StatementTimeout = 5 * time.Second
	}
	return lim
}

// MaxResponse is the most characters of an answer a record keeps.
const MaxResponse = 500

// Options tune a Writer; a zero or negative field takes its default.
type Options struct {
	// Batch tunes the queue of entries and the batched inserts of their
	// records, with the batch writer's defaults.
	Batch batch.Options

	// MaxRate is the most entries a second the writer takes; past it,
	// entries are dropped and counted before the endpoint builds them, so
	// a flood of calls costs the endpoint a map look-up per call and the
	// database nothing more. Default 1000.
	MaxRate int
	// MaxRatePerOrg and MaxRatePerServer are the most entries a second
	// the writer takes of one organization and of one server (token
	// buckets holding one second's worth). They are checked before
	// MaxRate, so a tenant's flood drops its own entries and leaves the
	// instance's budget to the others. Defaults 500 and 250.
	MaxRatePerOrg    int
	MaxRatePerServer int

	Retention     time.Duration // records older than this are deleted; default 24h
	MaxPerServer  int           // records kept per server at most; default 1000
	PruneInterval time.Duration // how often retention runs; default 1m
	Prune         PruneLimits   // bounds of each retention statement
}

// Stats counts what happened to entries since New. Once Close has returned
// nil, every Record call is either Written or Dropped; Dropped includes the
// records the database refused (see Sink).
type Stats = batch.Stats

// Writer is the call journal's bounded, batched, fire-and-forget writer.
// Record may be called from any goroutine; Run runs the insert loop and
// retention; Flush writes what is queued; Close flushes and stops. A nil
// *Writer records nothing.
type Writer struct {
	sink Sink
	log  *slog.Logger
	opts Options
	w    *batch.Writer[Entry]

	// records is the insert's scratch slice, used only by the batch
	// writer's loop holder.
	records []Record
	skipped atomic.Uint64 // refused by the database: written 0, dropped 1

	// The instance's rate budget: a fixed one-second window.
	window atomic.Int64 // the window's second (Unix time)
	used   atomic.Int64 // entries taken in it
	// adm shares the budget between organizations and servers.
	adm *admission

	// written holds the servers this writer wrote records of since count
	// retention last ran: only they can have grown past the cap, so
	// retention need not look at the others. writtenAll asks the next run
	// to look at every server (the first run, a failed one, an overflow).
	wmu        sync.Mutex
	written    map[uuid.UUID]struct{}
	writtenAll bool
	countRuns  int

	closeOnce sync.Once
	closing   chan struct{}
}

// New returns a Writer inserting into sink; a nil log means slog.Default().
// Start Run in a goroutine, and Close it at shutdown.
func New(sink Sink, log *slog.Logger, opts Options) *Writer {
	if log == nil {
		log = slog.Default()
	}
	if opts.Retention <= 0 {
		opts.Retention = 24 * time.Hour
	}
	if opts.MaxPerServer <= 0 {
		opts.MaxPerServer = 1000
	}
	if opts.PruneInterval <= 0 {
		opts.PruneInterval = time.Minute
	}
	if opts.MaxRate <= 0 {
		opts.MaxRate = 1000
	}
	if opts.MaxRatePerOrg <= 0 {
		opts.MaxRatePerOrg = 500
	}
	if opts.MaxRatePerServer <= 0 {
		opts.MaxRatePerServer = 250
	}
	w := &Writer{sink: sink, log: log, opts: opts, closing: make(chan struct{}),
		adm:     newAdmission(opts.MaxRatePerOrg, opts.MaxRatePerServer, opts.Retention),
		written: make(map[uuid.UUID]struct{}), writtenAll: true}
	w.w = batch.New("journal", w.insert, log, opts.Batch)
	return w
}

// Record queues e. It never waits: when the queue is full or the writer is
// closed it drops e, counts it, and returns false. The writer owns e's
// Params from then on, and only reads its Answer, Mismatches and Rounds.
func (w *Writer) Record(e Entry) bool {
	if w == nil {
		return false
	}
	if !w.w.Add(e) {
		w.adm.droppedQueue(e.OrgID, e.ServerID, time.Now().UnixNano())
		return false
	}
	return true
}

// Admit reports whether Record would keep an entry of org's server now:
// within the server's, the organization's and the instance's budgets, with
// room in the queue. When not, it counts the entry as dropped, remembers
// the drop for Complete, and the endpoint need not build the entry.
func (w *Writer) Admit(org, server uuid.UUID) bool {
	if w == nil {
		return false
	}
	now := time.Now()
	if ok, _ := w.adm.admit(org, server, now.UnixNano(), w, now.Unix()); !ok {
		return false
	}
	if !w.w.Admit() {
		w.adm.droppedQueue(org, server, now.UnixNano())
		return false
	}
	return true
}

// Complete reports whether this instance dropped none of server's records
// since its journal was last cleared through this instance, within
// Retention: a verification then saw every call this instance answered.
// Drops are known per instance only. A nil Writer, which records
// nothing, is never complete.
func (w *Writer) Complete(server uuid.UUID) bool {
	if w == nil {
		return false
	}
	return w.adm.complete(server, time.Now().UnixNano())
}

// Cleared tells the writer that server's journal was cleared: earlier drops
// no longer make its verifications incomplete.
func (w *Writer) Cleared(server uuid.UUID) {
	if w != nil {
		w.adm.cleared(server, time.Now().UnixNano())
	}
}

// DroppedBy counts the entries dropped by bound since New.
func (w *Writer) DroppedBy(bound Bound) uint64 {
	if w == nil {
		return 0
	}
	return w.adm.dropped[bound].Load()
}

// DroppingOrganizations counts the organizations whose records this writer
// dropped in the last minute (a count: it never says which).
func (w *Writer) DroppingOrganizations() int {
	if w == nil {
		return 0
	}
	return w.adm.droppingOrganizations(time.Now().UnixNano())
}

// withinRate takes one entry from the budget of the second now.
func (w *Writer) withinRate(now int64) bool {
	if win := w.window.Load(); win != now && w.window.CompareAndSwap(win, now) {
		w.used.Store(0)
	}
	return w.used.Add(1) <= int64(w.opts.MaxRate)
}

// Depth is how many entries wait to be written now, not yet taken into a
// batch; 0 for a nil Writer.
func (w *Writer) Depth() int {
	if w == nil {
		return 0
	}
	return w.w.Depth()
}

// Stats reports the counters; each is read atomically, not all at once.
func (w *Writer) Stats() Stats {
	if w == nil {
		return Stats{}
	}
	s := w.w.Stats()
	skipped := w.skipped.Load()
	s.Written -= min(s.Written, skipped)
	s.Dropped += skipped + w.DroppedBy(BoundServer) + w.DroppedBy(BoundOrganization) + w.DroppedBy(BoundInstance)
	return s
}

// Run inserts queued entries and applies retention until ctx ends or Close
// is called.
func (w *Writer) Run(ctx context.Context) {
	var wg sync.WaitGroup
	wg.Go(func() { w.w.Run(ctx) })
	wg.Go(func() { w.pruneLoop(ctx, "age", w.pruneByAge) })
	wg.Go(func() { w.pruneLoop(ctx, "count", w.pruneByCount) })
	wg.Wait()
}

// Flush writes every entry queued before the call (see batch.Writer.Flush),
// so that a count that follows sees them.
func (w *Writer) Flush(ctx context.Context) error {
	if w == nil {
		return nil
	}
	return w.w.Flush(ctx)
}

// Close stops retention, stops accepting entries and writes everything
// queued until ctx ends; see batch.Writer.Close.
func (w *Writer) Close(ctx context.Context) error {
	w.closeOnce.Do(func() { close(w.closing) })
	return w.w.Close(ctx)
}

// Prune applies retention once: records older than Retention go, then
// those beyond the newest MaxPerServer of each server.
func (w *Writer) Prune(ctx context.Context) (int64, error) {
	aged, err := w.pruneByAge(ctx)
	if err != nil {
		return aged, err
	}
	over, err := w.pruneByCount(ctx)
	return aged + over, err
}

func (w *Writer) pruneByAge(ctx context.Context) (int64, error) {
	return w.sink.PruneJournalByAge(ctx, time.Now().Add(-w.opts.Retention), w.opts.Prune)
}

// fullCountEvery is how many count retention runs go between two that look
// at every server, for the records of instances that stopped before
// pruning what they wrote.
const fullCountEvery = 60

// pruneByCount prunes the servers written since the last run; the first
// run, every fullCountEvery-th, and the one after a failure prune every
// server.
func (w *Writer) pruneByCount(ctx context.Context) (int64, error) {
	w.wmu.Lock()
	all := w.writtenAll || w.countRuns%fullCountEvery == 0
	var servers []uuid.UUID
	if !all {
		servers = make([]uuid.UUID, 0, len(w.written))
		for s := range w.written {
			servers = append(servers, s)
		}
	}
	clear(w.written)
	w.writtenAll = false
	w.countRuns++
	w.wmu.Unlock()
	if !all && len(servers) == 0 {
		return 0, nil
	}
	n, err := w.sink.PruneJournalByCount(ctx, w.opts.MaxPerServer, servers, w.opts.Prune)
	if err != nil {
		w.wmu.Lock()
		w.writtenAll = true
		w.wmu.Unlock()
	}
	return n, err
}

// wrote remembers the servers of records for count retention.
func (w *Writer) wrote(records []Record) {
	w.wmu.Lock()
	defer w.wmu.Unlock()
	if w.writtenAll {
		return
	}
	for _, r := range records {
		w.written[r.ServerID] = struct{}{}
	}
	if len(w.written) > maxTracked {
		clear(w.written)
		w.writtenAll = true
	}
}

// pruneLoop runs prune every PruneInterval. Age and count retention run in
// loops of their own, so that a slow count retention (a server's rows
// locked, a huge backlog) never delays the deletion of old records.
func (w *Writer) pruneLoop(ctx context.Context, what string, prune func(context.Context) (int64, error)) {
	periodic.Sweep(ctx, w.opts.PruneInterval, w.closing, prune,
		func(n int64, err error) { w.log.Warn("journal retention failed", "by", what, "deleted", n, "err", err) },
		func(n int64) { w.log.Debug("journal retention", "by", what, "deleted", n) })
}

// insert is the batch writer's InsertFunc: it derives the records, which
// takes nothing but copying and summarizing, then stores them. A failed
// batch comes back here unchanged, so a retry writes what the first
// attempt would have.
func (w *Writer) insert(ctx context.Context, entries []Entry) error {
	for _, e := range entries {
		w.records = append(w.records, recordOf(e))
	}
	skipped, err := w.sink.AppendJournal(ctx, w.records)
	if err == nil {
		w.wrote(w.records)
	}
	clear(w.records) // let the records' memory go
	w.records = w.records[:0]
	if err == nil && skipped > 0 {
		w.skipped.Add(uint64(skipped))
		w.log.Warn("journal records refused by the database; skipped", "records", skipped)
	}
	return err
}

// recordOf derives the stored record from an entry: its id, the answer's
// summary and the rounds within their bounds; the explanation is the
// entry's.
func recordOf(e Entry) Record {
	id, err := uuid.NewV7()
	if err != nil { // only if the system's random source fails
		id = uuid.New()
	}
	r := Record{
		ID: id, OrgID: e.OrgID, ServerID: e.ServerID, ReceivedAt: e.ReceivedAt, Method: e.Method, Tool: e.Tool,
		Params: e.Params, Outcome: e.Outcome, Scenario: e.Scenario, Step: e.Step, Response: Summary(e.Answer),
		ErrorCode: e.ErrorCode, Latency: e.Latency, ClientAddr: e.ClientAddr, SequenceKey: e.SequenceKey,
		Mismatches: e.Mismatches, Rounds: boundRounds(e.Rounds), StateChange: boundStateChange(e.StateChange),
	}
	if u := e.Upstream; u != nil {
		r.Upstream = &UpstreamRecord{Latency: u.Latency}
		answer := u.Answer
		if len(answer) > MaxUpstreamAnswer {
			answer, r.Upstream.Truncated = answer[:MaxUpstreamAnswer], true
		}
		r.Upstream.Answer = strings.ToValidUTF8(string(answer), "")
	}
	if r.ReceivedAt.IsZero() {
		r.ReceivedAt = time.Now()
	}
	if len(r.Params) > 0 && !json.Valid(r.Params) {
		// Not JSON (the request did not parse): kept as a JSON string.
		r.Params, _ = json.Marshal(Summary(r.Params))
	}
	return r
}

// Summary is answer as text, cut to MaxResponse characters (the last one
// then "…") without splitting a character; invalid UTF-8 becomes U+FFFD.
func Summary(answer []byte) string {
	n, cut := 0, 0
	for i := 0; i < len(answer); n++ {
		if n == MaxResponse-1 {
			cut = i
		}
		if n == MaxResponse {
			return strings.ToValidUTF8(string(answer[:cut]), "\uFFFD") + "…"
		}
		_, size := utf8.DecodeRune(answer[i:])
		i += size
	}
	return strings.ToValidUTF8(string(answer), "\uFFFD")
}
