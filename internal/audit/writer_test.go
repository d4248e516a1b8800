package audit_test

import (
	"context"
	"errors"
	"log/slog"
	"net/netip"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/audit"
	"github.com/mockmcp/mockmcp/internal/batch/batchtest"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

func TestConcurrentRecordsAllWrittenOnce(t *testing.T) {
	t.Parallel()
	st := testdb.Store(t)
	org := testdb.Org(t, st)
	w := audit.New(st, testLog(t), audit.Options{})
	batchtest.Run(t, w)

	const goroutines, each = 50, 100
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range each {
				if !w.Record(record(org)) {
					t.Error("Record refused a record")
				}
			}
		})
	}
	wg.Wait()
	require.NoError(t, batchtest.CloseWithin(w, 30*time.Second))

	const n = goroutines * each
	var rows, ids, v7 int
	err := st.Pool().QueryRow(context.Background(), `SELECT count(*), count(DISTINCT id),
		count(*) FILTER (WHERE substr(id::text, 15, 1) = '7') FROM policy_api_audit`).Scan(&rows, &ids, &v7)
	require.NoError(t, err)
	require.Equal(t, n, rows)
	require.Equal(t, n, ids)
	require.Equal(t, n, v7, "Record fills a UUIDv7 id")
	s := w.Stats()
	require.Equal(t, audit.Stats{Queued: n, Written: n}, s)
}

func TestFailingInsertsRetryUntilTheDatabaseAcceptsThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := testdb.Store(t)
	org := testdb.Org(t, st)
	_, err := st.Pool().Exec(ctx, "REVOKE INSERT ON policy_api_audit FROM "+store.AppRole)
	require.NoError(t, err)
	w, logs := runLogged(t, st, audit.Options{
		FlushInterval: 5 * time.Millisecond, RetryBackoff: 5 * time.Millisecond, MaxAttempts: 1000,
	})

	const m = 40
	for range m {
		start := time.Now()
		require.True(t, w.Record(record(org)))
		require.Less(t, time.Since(start), batchtest.RecordBudget)
	}
	require.Eventually(t, func() bool { return w.Stats().Failed >= 3 }, 10*time.Second, 5*time.Millisecond)
	for range 5 { // while inserts fail, recording stays as fast
		start := time.Now()
		require.True(t, w.Record(record(org)))
		require.Less(t, time.Since(start), batchtest.RecordBudget)
	}
	require.Equal(t, 0, rowCount(t, st))

	_, err = st.Pool().Exec(ctx, "GRANT INSERT ON policy_api_audit TO "+store.AppRole)
	require.NoError(t, err)
	require.Eventually(t, func() bool { return rowCount(t, st) == m+5 }, 15*time.Second, 10*time.Millisecond)
	require.NoError(t, batchtest.CloseWithin(w, 10*time.Second))

	var rows, ids int
	require.NoError(t, st.Pool().QueryRow(ctx,
		`SELECT count(*), count(DISTINCT id) FROM policy_api_audit`).Scan(&rows, &ids))
	require.Equal(t, m+5, rows)
	require.Equal(t, m+5, ids)
	s := w.Stats()
	require.EqualValues(t, m+5, s.Written)
	require.Zero(t, s.Dropped)
	require.GreaterOrEqual(t, s.Failed, uint64(3))
	logs.requireStreaks(t, 1)
}

func TestFullQueueDropsWithoutBlocking(t *testing.T) {
	t.Parallel()
	sink := gatedSink()
	w := audit.New(sink, testLog(t), audit.Options{QueueSize: 10, BatchSize: 1, FlushInterval: time.Millisecond})
	batchtest.Run(t, w)
	batchtest.FullQueueDropsWithoutBlocking(t, w, func() bool { return w.Record(record(uuid.Nil)) },
		func() { close(sink.gate) }, sink.distinct)
}

func TestBatchDroppedAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	sink := newMemorySink()
	sink.fail = errors.New("database down")
	w, logs := runLogged(t, sink, audit.Options{
		BatchSize: 3, FlushInterval: time.Hour, RetryBackoff: time.Millisecond, MaxAttempts: 2,
	})

	for range 3 { // a full batch goes out at once
		require.True(t, w.Record(record(uuid.Nil)))
	}
	require.Eventually(t, func() bool { return w.Stats().Dropped == 3 }, 5*time.Second, time.Millisecond)
	require.NoError(t, batchtest.CloseWithin(w, time.Second), "nothing is left to write")
	require.Equal(t, audit.Stats{Queued: 3, Dropped: 3, Failed: 2}, w.Stats())
	require.Equal(t, 2, sink.callCount())
	warns := logs.messages(slog.LevelWarn)
	require.Len(t, warns, 2, "the streak's first failure and the dropped batch")
	require.Equal(t, "audit batch dropped", warns[1].Message)
	require.EqualValues(t, 3, attr(warns[1], "records").Uint64())
	require.Equal(t, "database down", attr(warns[1], "err").String())
}

func TestEachBatchGetsItsOwnAttempts(t *testing.T) {
	t.Parallel()
	sink := newMemorySink()
	w, logs := runLogged(t, sink, audit.Options{
		BatchSize: 1, RetryBackoff: time.Millisecond, MaxAttempts: 2,
	})

	for i := range 2 { // each batch fails once, then goes in
		sink.failNext(1)
		require.True(t, w.Record(record(uuid.Nil)))
		require.Eventually(t, func() bool { return w.Stats().Written == uint64(i+1) }, 5*time.Second, time.Millisecond)
	}
	require.Equal(t, audit.Stats{Queued: 2, Written: 2, Failed: 2}, w.Stats())
	logs.requireStreaks(t, 2)
}

func TestCloseGivesUpAtItsDeadline(t *testing.T) {
	t.Parallel()
	sink := gatedSink()
	sink.ignoreCtx = true // stuck beyond any timeout
	w := audit.New(sink, testLog(t), audit.Options{FlushInterval: time.Millisecond})
	done := batchtest.Run(t, w)

	require.True(t, w.Record(record(uuid.Nil)))
	<-sink.entered
	require.True(t, w.Record(record(uuid.Nil)))

	start := time.Now()
	err := batchtest.CloseWithin(w, 100*time.Millisecond)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	require.Less(t, time.Since(start), 2*time.Second)
	require.ErrorIs(t, batchtest.CloseWithin(w, 10*time.Millisecond), context.DeadlineExceeded, "Close twice")
	require.False(t, w.Record(record(uuid.Nil)), "Record after Close")

	// Once the sink answers, Run stops and a later Close writes the rest.
	close(sink.gate)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after Close")
	}
	require.NoError(t, batchtest.CloseWithin(w, 5*time.Second))
	require.Equal(t, audit.Stats{Queued: 2, Written: 2, Dropped: 1}, w.Stats())
	require.Equal(t, 2, sink.distinct())
}

func TestPartialBatchWrittenAfterFlushInterval(t *testing.T) {
	t.Parallel()
	st := testdb.Store(t)
	const interval = 100 * time.Millisecond
	w := audit.New(st, testLog(t), audit.Options{FlushInterval: interval})
	batchtest.Run(t, w)

	start := time.Now()
	require.True(t, w.Record(record(testdb.Org(t, st))))
	for rowCount(t, st) == 0 {
		require.Less(t, time.Since(start), interval+time.Second, "the record did not arrive")
		time.Sleep(5 * time.Millisecond)
	}
	require.GreaterOrEqual(t, time.Since(start), interval, "a partial batch waits for more records")
	// The row is visible once its transaction commits, a moment before the
	// writer counts it.
	require.Eventually(t, func() bool { return w.Stats().Written == 1 }, 5*time.Second, time.Millisecond)
}

func TestCloseWritesWhatRunLeft(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		run  bool
	}{
		{name: "run never started", run: false},
		{name: "run context ended first", run: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sink := newMemorySink()
			w := audit.New(sink, testLog(t), audit.Options{BatchSize: 2, FlushInterval: time.Hour})
			kept := record(uuid.Nil)
			kept.ID = uuid.New()
			require.True(t, w.Record(kept))
			for range 4 {
				require.True(t, w.Record(record(uuid.Nil)))
			}
			if tc.run {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { defer close(done); w.Run(ctx) }()
				require.Eventually(t, func() bool { return sink.callCount() == 2 }, 5*time.Second, time.Millisecond)
				cancel() // the fifth record waits for a partner or the interval
				<-done
				require.EqualValues(t, 4, w.Stats().Written)
			}
			require.NoError(t, batchtest.CloseWithin(w, 5*time.Second))
			require.Equal(t, audit.Stats{Queued: 5, Written: 5}, w.Stats())
			require.Equal(t, 3, sink.callCount(), "batches of at most 2")
			require.Equal(t, 5, sink.distinct())
			require.True(t, sink.has(kept.ID), "Record keeps an id it was given")
		})
	}
}

func TestRecordRacingClose(t *testing.T) {
	t.Parallel()
	sink := newMemorySink()
	w := audit.New(sink, testLog(t), audit.Options{QueueSize: 64, BatchSize: 16, FlushInterval: time.Millisecond})
	batchtest.Run(t, w)

	var calls atomic.Uint64
	var closing atomic.Bool
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			for {
				calls.Add(1)
				if !w.Record(record(uuid.Nil)) && closing.Load() {
					return
				}
			}
		})
	}
	time.Sleep(20 * time.Millisecond)
	closing.Store(true)
	require.NoError(t, batchtest.CloseWithin(w, 10*time.Second))
	wg.Wait()
	s := w.Stats()
	require.Positive(t, s.Written)
	require.Equal(t, calls.Load(), s.Written+s.Dropped)
	require.Equal(t, s.Queued, s.Written)
	require.EqualValues(t, s.Written, sink.distinct())
}

// runLogged runs a writer over sink with opts whose log the returned
// recorder keeps.
func runLogged(t *testing.T, sink audit.Sink, opts audit.Options) (*audit.Writer, *logRecorder) {
	t.Helper()
	logs := &logRecorder{}
	w := audit.New(sink, slog.New(logs), opts)
	batchtest.Run(t, w)
	return w, logs
}

func record(org uuid.UUID) store.AuditRecord {
	return store.AuditRecord{
		OrgID: org, Route: "validate", Status: 200, LatencyMS: 1.5, UserAgent: "audit-test",
		IP: netip.MustParseAddr("192.0.2.1"), ReceivedAt: time.Now(),
	}
}

func rowCount(t *testing.T, st *store.Store) int {
	t.Helper()
	var n int
	require.NoError(t, st.Pool().QueryRow(context.Background(), `SELECT count(*) FROM policy_api_audit`).Scan(&n))
	return n
}

// testLog shows what the writer logs when a test fails, or with -v.
func testLog(t *testing.T) *slog.Logger { return slog.New(slog.NewTextHandler(t.Output(), nil)) }

// memorySink is a Sink for what the database cannot be made to do on cue:
// block, or fail every time.
type memorySink struct {
	gate      chan struct{} // when set, each call waits for it to close
	ignoreCtx bool          // wait for gate even past ctx
	fail      error         // returned by every call
	entered   chan struct{} // receives once per call, if anyone listens

	mu       sync.Mutex
	calls    int
	failures int // calls still to fail, before fail applies
	ids      map[uuid.UUID]int
}

func newMemorySink() *memorySink {
	return &memorySink{ids: map[uuid.UUID]int{}, entered: make(chan struct{}, 1)}
}

func (s *memorySink) AppendAudit(ctx context.Context, records []store.AuditRecord) error {
	select {
	case s.entered <- struct{}{}:
	default:
	}
	if s.gate != nil {
		if s.ignoreCtx {
			<-s.gate
		} else {
			select {
			case <-s.gate:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if s.failures > 0 {
		s.failures--
		return errors.New("transient failure")
	}
	if s.fail != nil {
		return s.fail
	}
	for _, r := range records {
		s.ids[r.ID]++
	}
	return nil
}

// gatedSink returns a memory sink whose calls wait until its gate is
// closed.
func gatedSink() *memorySink {
	s := newMemorySink()
	s.gate = make(chan struct{})
	return s
}

// failNext makes the next n calls fail.
func (s *memorySink) failNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = n
}

func (s *memorySink) callCount() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// distinct counts the records written, failing on any written twice.
func (s *memorySink) distinct() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, n := range s.ids {
		if n != 1 {
			panic("record " + id.String() + " written more than once")
		}
	}
	return len(s.ids)
}

func (s *memorySink) has(id uuid.UUID) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ids[id] == 1
}

// logRecorder is a slog.Handler keeping what the writer logs.
type logRecorder struct {
	mu      sync.Mutex
	records []slog.Record
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecorder) WithGroup(string) slog.Handler            { return l }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r.Clone())
	return nil
}

func (l *logRecorder) messages(level slog.Level) []slog.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []slog.Record
	for _, r := range l.records {
		if r.Level == level {
			out = append(out, r)
		}
	}
	return out
}

func (l *logRecorder) count(level slog.Level) int { return len(l.messages(level)) }

// requireStreaks requires the log to tell of n failure streaks: one warning
// as each began and one notice as inserts succeeded again.
func (l *logRecorder) requireStreaks(t *testing.T, n int) {
	t.Helper()
	require.Equal(t, n, l.count(slog.LevelWarn), "one warning per failure streak")
	require.Equal(t, n, l.count(slog.LevelInfo), "one notice per recovery")
}

func attr(r slog.Record, key string) slog.Value {
	var v slog.Value
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == key {
			v = a.Value
			return false
		}
		return true
	})
	return v
}
