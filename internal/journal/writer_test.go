package journal_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/batch"
	"github.com/mockmcp/mockmcp/internal/batch/batchtest"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

func TestBatches(t *testing.T) {
	t.Parallel()
	sink := newMemorySink()
	w := journal.New(sink, quiet(), journal.Options{Batch: batch.Options{BatchSize: 3, FlushInterval: time.Hour}})
	batchtest.Run(t, w)

	for range 7 {
		require.True(t, w.Record(entry("ping")))
	}
	// Two full batches go out at once; the seventh waits for partners.
	require.Eventually(t, func() bool { return len(sink.records()) == 6 }, 5*time.Second, time.Millisecond)
	require.Equal(t, []int{3, 3}, sink.batchSizes())
	require.NoError(t, batchtest.CloseWithin(w, 5*time.Second))
	require.Equal(t, []int{3, 3, 1}, sink.batchSizes())
	require.Equal(t, journal.Stats{Queued: 7, Written: 7}, w.Stats())
}

func TestFullQueueDropsWithoutBlocking(t *testing.T) {
	t.Parallel()
	sink := newMemorySink()
	sink.gate = make(chan struct{})
	w := journal.New(sink, quiet(), journal.Options{Batch: batch.Options{QueueSize: 10, BatchSize: 1, FlushInterval: time.Millisecond}})
	batchtest.Run(t, w)
	batchtest.FullQueueDropsWithoutBlocking(t, w, func() bool { return w.Record(entry("ping")) },
		func() { close(sink.gate) }, func() int { return len(sink.records()) })
}

func TestAdmit(t *testing.T) {
	t.Parallel()
	sink := newMemorySink()
	sink.gate = make(chan struct{})
	sink.entered = make(chan struct{}, 1)
	w := journal.New(sink, quiet(), journal.Options{Batch: batch.Options{QueueSize: 3, BatchSize: 1, FlushInterval: time.Millisecond}})
	batchtest.Run(t, w)

	require.True(t, w.Admit(uuid.Nil, uuid.Nil), "room in the queue")
	require.True(t, w.Record(entry("ping")))
	// The loop now holds that entry, stuck on the gate: it takes no more.
	<-sink.entered
	for w.Record(entry("ping")) { // fill the queue
		require.Less(t, w.Stats().Queued, uint64(10))
	}
	before := w.Stats().Dropped
	for range 5 {
		start := time.Now()
		require.False(t, w.Admit(uuid.Nil, uuid.Nil), "a full queue")
		require.Less(t, time.Since(start), batchtest.RecordBudget)
	}
	require.Equal(t, before+5, w.Stats().Dropped, "each refusal counts as a dropped entry")

	close(sink.gate)
	require.NoError(t, batchtest.CloseWithin(w, 5*time.Second))
	require.False(t, w.Admit(uuid.Nil, uuid.Nil), "a closed writer")
	s := w.Stats()
	require.Equal(t, before+6, s.Dropped)
	require.Equal(t, s.Queued, s.Written)
}

func TestRetriesThenSucceeds(t *testing.T) {
	t.Parallel()
	sink, w := failingFirst(t, 3, 2)

	require.True(t, w.Record(entry("ping")))
	require.True(t, w.Record(entry("tools/list")))
	require.Eventually(t, func() bool { return w.Stats().Written == 2 }, 5*time.Second, time.Millisecond)
	require.Equal(t, journal.Stats{Queued: 2, Written: 2, Failed: 3}, w.Stats())
	require.Len(t, sink.records(), 2, "the failed attempts wrote nothing")
}

// A failed insert is retried with the records derived from the same
// entries: the explanation the endpoint computed, not a new one.
func TestRetryKeepsTheExplanation(t *testing.T) {
	t.Parallel()
	sink, w := failingFirst(t, 2, 1)

	e := entry("tools/call")
	e.Outcome = journal.OutcomeNoMatch
	e.Mismatches = []journal.Mismatch{{Scenario: "code", Field: "q", Operator: "matches", Reason: `q: matches "^a" but was "b"`}}
	require.True(t, w.Record(e))
	require.Eventually(t, func() bool { return w.Stats().Written == 1 }, 5*time.Second, time.Millisecond)

	sink.mu.Lock()
	attempts := sink.attempts
	sink.mu.Unlock()
	require.Len(t, attempts, 3, "two failures, then the write")
	for _, a := range attempts {
		require.Len(t, a, 1)
		require.Equal(t, e.Mismatches, a[0].Mismatches)
	}
	require.Equal(t, e.Mismatches, sink.records()[0].Mismatches)
}

func TestBatchDroppedAfterMaxAttempts(t *testing.T) {
	t.Parallel()
	sink := newMemorySink()
	sink.fail = errors.New("database down")
	w := journal.New(sink, quiet(), journal.Options{Batch: batch.Options{BatchSize: 2, RetryBackoff: time.Millisecond, MaxAttempts: 3}})
	batchtest.Run(t, w)

	require.True(t, w.Record(entry("ping")))
	require.True(t, w.Record(entry("ping")))
	require.Eventually(t, func() bool { return w.Stats().Dropped == 2 }, 5*time.Second, time.Millisecond)
	require.NoError(t, batchtest.CloseWithin(w, time.Second))
	require.Equal(t, journal.Stats{Queued: 2, Dropped: 2, Failed: 3}, w.Stats())
}

func TestCloseFlushesEverything(t *testing.T) {
	t.Parallel()
	withAndWithoutRun(t, func(t *testing.T, w *journal.Writer, sink *memorySink) {
		for range 10 {
			require.True(t, w.Record(entry("ping")))
		}
		require.NoError(t, batchtest.CloseWithin(w, 5*time.Second))
		require.Len(t, sink.records(), 10)
		require.Equal(t, journal.Stats{Queued: 10, Written: 10}, w.Stats())
		require.False(t, w.Record(entry("ping")), "Record after Close")
		require.EqualValues(t, 1, w.Stats().Dropped)
	})
}

func TestFlushWritesWhatIsQueued(t *testing.T) {
	t.Parallel()
	withAndWithoutRun(t, func(t *testing.T, w *journal.Writer, sink *memorySink) {
		for round := 1; round <= 3; round++ {
			for range 5 {
				require.True(t, w.Record(entry("ping")))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			require.NoError(t, w.Flush(ctx))
			cancel()
			require.Len(t, sink.records(), 5*round, "a partial batch is not left waiting for the interval")
		}
		require.Equal(t, journal.Stats{Queued: 15, Written: 15}, w.Stats())
	})
}

// withAndWithoutRun calls test, in parallel subtests, with a writer (batches
// of 4, an hour's flush interval) over a fresh memory sink: once without
// its loop running and once with it.
func withAndWithoutRun(t *testing.T, test func(t *testing.T, w *journal.Writer, sink *memorySink)) {
	t.Helper()
	for _, withRun := range []bool{false, true} {
		name := "without Run"
		if withRun {
			name = "with Run"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			sink := newMemorySink()
			w := journal.New(sink, quiet(), journal.Options{Batch: batch.Options{BatchSize: 4, FlushInterval: time.Hour}})
			if withRun {
				batchtest.Run(t, w)
			}
			test(t, w, sink)
		})
	}
}

func TestFlushGivesUpAtItsDeadline(t *testing.T) {
	t.Parallel()
	sink := newMemorySink()
	sink.gate = make(chan struct{})
	w := journal.New(sink, quiet(), journal.Options{Batch: batch.Options{FlushInterval: time.Hour}})
	batchtest.Run(t, w)
	require.True(t, w.Record(entry("ping")))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	require.ErrorIs(t, w.Flush(ctx), context.DeadlineExceeded)
	require.Less(t, time.Since(start), 2*time.Second)
	close(sink.gate)
	require.NoError(t, batchtest.CloseWithin(w, 5*time.Second))
	require.Len(t, sink.records(), 1, "the entry is written later")
}

func TestRefusedRecordsCountAsDropped(t *testing.T) {
	t.Parallel()
	sink := newMemorySink()
	sink.skip = 1
	w := journal.New(sink, quiet(), journal.Options{})
	for range 3 {
		require.True(t, w.Record(entry("ping")))
	}
	require.NoError(t, batchtest.CloseWithin(w, 5*time.Second))
	require.Equal(t, journal.Stats{Queued: 3, Written: 2, Dropped: 1}, w.Stats())
}

func TestRecordDerivation(t *testing.T) {
	t.Parallel()
	mismatches := []journal.Mismatch{
		{Scenario: "paris", Field: "city", Operator: "equals", Reason: `city: equals "Paris" but was "London"`},
		{Scenario: "warm", Field: "temp", Operator: "gt", Reason: `temp: gt 10 but was 3`},
	}

	cases := []struct {
		name    string
		entry   func(journal.Entry) journal.Entry
		check   func(t *testing.T, r store.JournalRecord)
		outcome string
	}{
		{
			name: "matched: the explanation as the endpoint gave it",
			entry: func(e journal.Entry) journal.Entry {
				e.Scenario, e.Mismatches = "london", mismatches
				return e
			},
			check: func(t *testing.T, r store.JournalRecord) {
				require.Equal(t, mismatches, r.Mismatches)
				require.Equal(t, "london", r.Scenario)
			},
		},
		{
			name:  "no explanation",
			entry: func(e journal.Entry) journal.Entry { return e },
			check: func(t *testing.T, r store.JournalRecord) { require.Empty(t, r.Mismatches) },
		},
		{
			name: "long answer summarized",
			entry: func(e journal.Entry) journal.Entry {
				e.Answer = []byte(`{"content":[{"type":"text","text":"` + strings.Repeat("ü", 1000) + `"}]}`)
				return e
			},
			check: func(t *testing.T, r store.JournalRecord) {
				require.Equal(t, journal.MaxResponse, utf8.RuneCountInString(r.Response))
				require.True(t, strings.HasPrefix(r.Response, `{"content":[{"type":"text","text":"üü`))
				require.True(t, strings.HasSuffix(r.Response, "ü…"))
			},
		},
		{
			name: "params that are not JSON kept as a string",
			entry: func(e journal.Entry) journal.Entry {
				e.Params = json.RawMessage(`{"name":`)
				return e
			},
			check: func(t *testing.T, r store.JournalRecord) { require.Equal(t, `"{\"name\":"`, string(r.Params)) },
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sink := newMemorySink()
			w := journal.New(sink, quiet(), journal.Options{})
			e := tc.entry(entry("tools/call"))
			require.True(t, w.Record(e))
			require.NoError(t, batchtest.CloseWithin(w, 5*time.Second))
			got := sink.records()
			require.Len(t, got, 1)
			r := got[0]
			require.NotEqual(t, uuid.Nil, r.ID)
			require.EqualValues(t, 7, r.ID.Version(), "a UUIDv7")
			require.Equal(t, e.OrgID, r.OrgID)
			require.Equal(t, e.ServerID, r.ServerID)
			require.Equal(t, e.ReceivedAt, r.ReceivedAt)
			require.Equal(t, e.Latency, r.Latency)
			require.Equal(t, e.ClientAddr, r.ClientAddr)
			tc.check(t, r)
		})
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	require.Equal(t, "", journal.Summary(nil))
	require.Equal(t, `{"a":1}`, journal.Summary([]byte(`{"a":1}`)))
	exact := strings.Repeat("x", journal.MaxResponse)
	require.Equal(t, exact, journal.Summary([]byte(exact)), "500 characters fit")
	over := journal.Summary([]byte(exact + "y"))
	require.Equal(t, strings.Repeat("x", journal.MaxResponse-1)+"…", over)
	require.Equal(t, "a\uFFFDb", journal.Summary([]byte("a\xffb")))
	require.LessOrEqual(t, utf8.RuneCountInString(journal.Summary([]byte(strings.Repeat("\xff", 2000)))), journal.MaxResponse)
}

func TestRetention(t *testing.T) {
	t.Parallel()
	sink := newMemorySink()
	w := journal.New(sink, quiet(), journal.Options{Retention: time.Hour, MaxPerServer: 7, PruneInterval: 5 * time.Millisecond})
	batchtest.Run(t, w)
	require.Eventually(t, func() bool { return len(sink.pruneCalls()) >= 4 }, 5*time.Second, time.Millisecond)
	byAge, byCount := 0, 0
	for _, p := range sink.pruneCalls() {
		if p.keep == 0 {
			byAge++
			require.WithinDuration(t, time.Now().Add(-time.Hour), p.before, 5*time.Second)
			continue
		}
		byCount++
		require.Equal(t, 7, p.keep)
	}
	require.Positive(t, byAge, "age retention runs")
	require.Positive(t, byCount, "count retention runs")
	require.NoError(t, batchtest.CloseWithin(w, time.Second))
	n := len(sink.pruneCalls())
	time.Sleep(30 * time.Millisecond)
	require.Len(t, sink.pruneCalls(), n, "retention stops at Close")
}

// TestCountRetentionLooksAtWrittenServers: count retention looks at every
// server on its first run, then only at the servers written since its last
// run, and not at all when none was.
func TestCountRetentionLooksAtWrittenServers(t *testing.T) {
	t.Parallel()
	sink := newMemorySink()
	w := journal.New(sink, quiet(), journal.Options{MaxPerServer: 7, PruneInterval: time.Hour})
	batchtest.Run(t, w)
	ctx := context.Background()
	countCalls := func() []prune {
		var out []prune
		for _, p := range sink.pruneCalls() {
			if p.keep != 0 {
				out = append(out, p)
			}
		}
		return out
	}
	_, err := w.Prune(ctx)
	require.NoError(t, err)
	require.Len(t, countCalls(), 1)
	require.True(t, countCalls()[0].all, "the first run looks at every server")

	a, b := entry("ping"), entry("ping")
	for _, e := range []journal.Entry{a, b, a} {
		require.True(t, w.Record(e))
	}
	require.NoError(t, w.Flush(ctx))
	_, err = w.Prune(ctx)
	require.NoError(t, err)
	require.Len(t, countCalls(), 2)
	require.False(t, countCalls()[1].all)
	require.ElementsMatch(t, []uuid.UUID{a.ServerID, b.ServerID}, countCalls()[1].servers)

	_, err = w.Prune(ctx)
	require.NoError(t, err)
	require.Len(t, countCalls(), 2, "nothing written: no server to look at")
}

func TestNilWriterRecordsNothing(t *testing.T) {
	t.Parallel()
	var w *journal.Writer
	require.False(t, w.Admit(uuid.Nil, uuid.Nil))
	require.False(t, w.Record(entry("ping")))
	require.NoError(t, w.Flush(context.Background()))
	require.Equal(t, journal.Stats{}, w.Stats())
}

// storeWriter is a running writer to a fresh database holding one
// organization and a server of it.
func storeWriter(t *testing.T) (st *store.Store, w *journal.Writer, org, server uuid.UUID) {
	t.Helper()
	st = testdb.Store(t)
	org, server = testdb.Server(t, st)
	w = journal.New(st, quiet(), journal.Options{})
	batchtest.Run(t, w)
	return st, w, org, server
}

// TestWritesToTheDatabase goes through the real store: what the endpoint
// hands over is what the journal lists, "why no match" included.
func TestWritesToTheDatabase(t *testing.T) {
	t.Parallel()
	st, w, org, server := storeWriter(t)
	ctx := context.Background()
	e := entry("tools/call")
	e.OrgID, e.ServerID, e.Tool, e.Outcome = org, server, "get_weather", journal.OutcomeNoMatch
	e.Params = json.RawMessage(`{"name":"get_weather","arguments":{"city":"London"}}`)
	e.Answer = []byte(`{"code":-32602,"message":"No mock scenario matched"}`)
	e.ErrorCode = -32602
	e.Mismatches = []journal.Mismatch{{Scenario: "paris", Field: "city", Operator: "equals", Reason: `city: equals "Paris" but was "London"`}}
	const n = 1200 // more than two batches
	for range n {
		require.True(t, w.Record(e))
	}
	require.NoError(t, w.Flush(ctx))
	var rows int
	require.NoError(t, st.Pool().QueryRow(ctx, `SELECT count(*) FROM mcp_journal WHERE server_id = $1`, server).Scan(&rows))
	require.Equal(t, n, rows, "Flush wrote everything queued")

	var page store.JournalPage
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: org}, func(tx *store.Tx) (err error) {
		page, err = tx.Journal(ctx, server, store.JournalFilter{Limit: 1})
		return err
	}))
	require.Len(t, page.Records, 1)
	r := page.Records[0]
	require.Equal(t, []store.JournalMismatch{{Scenario: "paris", Field: "city", Operator: "equals",
		Reason: `city: equals "Paris" but was "London"`}}, r.Mismatches)
	require.Equal(t, string(e.Answer), r.Response)
	require.Equal(t, -32602, r.ErrorCode)
	require.Equal(t, journal.OutcomeNoMatch, r.Outcome)

	_, err := w.Prune(ctx)
	require.NoError(t, err)
	require.NoError(t, st.Pool().QueryRow(ctx, `SELECT count(*) FROM mcp_journal WHERE server_id = $1`, server).Scan(&rows))
	require.Equal(t, 1000, rows, "retention keeps MaxPerServer (default 1000)")
}

// entry is a call of method on a random server.
func entry(method string) journal.Entry {
	return journal.Entry{
		OrgID: uuid.New(), ServerID: uuid.New(), ReceivedAt: time.Now().UTC().Truncate(time.Microsecond),
		Latency: 1500 * time.Microsecond, ClientAddr: "192.0.2.1", Method: method, Outcome: journal.OutcomeResult,
		Step: -1, Answer: []byte(`{}`),
	}
}

// failingFirst starts a writer of batches of batchSize, flushing and
// retrying every millisecond, over a memory sink whose first failures
// inserts fail.
func failingFirst(t *testing.T, failures, batchSize int) (*memorySink, *journal.Writer) {
	t.Helper()
	sink := newMemorySink()
	sink.failNext(failures)
	w := journal.New(sink, quiet(), journal.Options{Batch: batch.Options{BatchSize: batchSize,
		FlushInterval: time.Millisecond, RetryBackoff: time.Millisecond}})
	batchtest.Run(t, w)
	return sink, w
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// memorySink is a Sink for what the database cannot be made to do on cue:
// block, fail, refuse records.
type memorySink struct {
	gate chan struct{} // when set, each call waits for it to close (or ctx)
	// entered, when set, is signalled (without blocking) as a call starts,
	// so a test knows the writer's loop holds a batch.
	entered chan struct{}
	fail    error // returned by every call
	skip    int   // records each call reports refused

	mu       sync.Mutex
	failures int                     // calls still to fail, before fail applies
	attempts [][]store.JournalRecord // what every call was given, failed ones too
	batches  [][]store.JournalRecord
	prunes   []prune
}

type prune struct {
	before  time.Time
	keep    int
	servers []uuid.UUID // the servers count retention looked at
	all     bool        // every server
}

func newMemorySink() *memorySink { return &memorySink{} }

func (s *memorySink) AppendJournal(ctx context.Context, records []store.JournalRecord) (int, error) {
	if s.entered != nil {
		select {
		case s.entered <- struct{}{}:
		default:
		}
	}
	if s.gate != nil {
		select {
		case <-s.gate:
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.attempts = append(s.attempts, append([]store.JournalRecord(nil), records...))
	if s.failures > 0 {
		s.failures--
		return 0, errors.New("transient failure")
	}
	if s.fail != nil {
		return 0, s.fail
	}
	s.batches = append(s.batches, append([]store.JournalRecord(nil), records[s.skip:]...))
	return s.skip, nil
}

func (s *memorySink) PruneJournalByAge(_ context.Context, before time.Time, _ journal.PruneLimits) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prunes = append(s.prunes, prune{before: before})
	return 0, nil
}

func (s *memorySink) PruneJournalByCount(_ context.Context, keep int, servers []uuid.UUID, _ journal.PruneLimits) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prunes = append(s.prunes, prune{keep: keep, servers: servers, all: servers == nil})
	return 0, nil
}

func (s *memorySink) failNext(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = n
}

func (s *memorySink) records() []store.JournalRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []store.JournalRecord
	for _, b := range s.batches {
		out = append(out, b...)
	}
	return out
}

func (s *memorySink) batchSizes() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for _, b := range s.batches {
		out = append(out, len(b))
	}
	return out
}

func (s *memorySink) pruneCalls() []prune {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]prune(nil), s.prunes...)
}
