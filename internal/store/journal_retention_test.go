package store_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// TestJournalCountRetentionInBatches: each server keeps its newest keep
// records in (received_at, id) order, ties on received_at broken by id,
// however many batches the deletion takes; servers at or under the cap
// and servers of other organizations over it are pruned in the same run.
func TestJournalCountRetentionInBatches(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	busy, atCap, under, ofB := newServer(t, st, a.OrgID), newServer(t, st, a.OrgID), newServer(t, st, a.OrgID),
		newServer(t, st, b.OrgID)
	const keep = 5
	base := time.Now().UTC().Truncate(time.Second)
	var busyCalls, bCalls []store.JournalRecord
	for i := range 23 { // three records a second: ties on received_at
		busyCalls = append(busyCalls, call(a.OrgID, busy, base.Add(time.Duration(i/3)*time.Second), "ping", "", "result"))
	}
	for i := range 9 {
		bCalls = append(bCalls, call(b.OrgID, ofB, base.Add(time.Duration(i)*time.Millisecond), "ping", "", "result"))
	}
	var atCapCalls []store.JournalRecord
	for i := range keep {
		atCapCalls = append(atCapCalls, call(a.OrgID, atCap, base.Add(time.Duration(i)*time.Second), "ping", "", "result"))
	}
	underCall := call(a.OrgID, under, base, "ping", "", "result")
	appendAll(t, st, slices.Concat(busyCalls, bCalls, atCapCalls, []store.JournalRecord{underCall})...)

	n, err := st.PruneJournalByCount(ctx, keep, nil, store.PruneLimits{Batch: 3, StatementTimeout: 5 * time.Second})
	require.NoError(t, err)
	require.EqualValues(t, 23-keep+9-keep, n)

	require.Equal(t, newestIDs(busyCalls, keep), ids(journalOf(t, st, a.OrgID, busy, store.JournalFilter{})),
		"the newest 5 by (received_at, id)")
	require.Equal(t, newestIDs(bCalls, keep), ids(journalOf(t, st, b.OrgID, ofB, store.JournalFilter{})),
		"the other organization's server over its cap")
	require.Len(t, journalOf(t, st, a.OrgID, atCap, store.JournalFilter{}), keep)
	require.Len(t, journalOf(t, st, a.OrgID, under, store.JournalFilter{}), 1)

	n, err = st.PruneJournalByCount(ctx, keep, nil, store.PruneLimits{Batch: 3})
	require.NoError(t, err)
	require.Zero(t, n, "a second run finds nothing over the cap")

	// Named servers: only they are pruned.
	more := slices.Concat(busyCalls[:3], bCalls[:3])
	for i := range more {
		more[i] = call(more[i].OrgID, more[i].ServerID, base.Add(time.Hour+time.Duration(i)*time.Second), "ping", "", "result")
	}
	appendAll(t, st, more...)
	n, err = st.PruneJournalByCount(ctx, keep, []uuid.UUID{busy}, store.PruneLimits{})
	require.NoError(t, err)
	require.EqualValues(t, 3, n)
	require.Len(t, journalOf(t, st, a.OrgID, busy, store.JournalFilter{}), keep)
	require.Len(t, journalOf(t, st, b.OrgID, ofB, store.JournalFilter{}), keep+3, "a server not named is left")
}

// newestIDs is the ids of the keep newest records in (received_at, id)
// order, newest first, as a journal lists them.
func newestIDs(records []store.JournalRecord, keep int) []uuid.UUID {
	sorted := slices.Clone(records)
	slices.SortFunc(sorted, func(x, y store.JournalRecord) int {
		if c := y.ReceivedAt.Compare(x.ReceivedAt); c != 0 {
			return c
		}
		return slices.Compare(y.ID[:], x.ID[:])
	})
	return ids(sorted[:keep])
}

// TestJournalAgeRetentionDoesNotWaitForCount: while count retention waits
// for rows another transaction holds locked, age retention deletes the old
// records of every other server; count retention gives up on the locked
// server after its statement timeout and still prunes the others.
func TestJournalAgeRetentionDoesNotWaitForCount(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	locked, aged := newServer(t, st, a.OrgID), newServer(t, st, b.OrgID)
	bystander := newServer(t, st, b.OrgID)
	now := time.Now()
	var lockedCalls, bystanderCalls []store.JournalRecord
	for i := range 10 {
		lockedCalls = append(lockedCalls, call(a.OrgID, locked, now.Add(-time.Duration(i)*time.Second), "ping", "", "result"))
		bystanderCalls = append(bystanderCalls, call(b.OrgID, bystander, now.Add(-time.Duration(i)*time.Second), "ping", "", "result"))
	}
	old := call(b.OrgID, aged, now.Add(-3*time.Hour), "ping", "", "result")
	appendAll(t, st, slices.Concat(lockedCalls, bystanderCalls, []store.JournalRecord{old})...)

	// Another transaction holds the locked server's rows.
	holder, err := st.Pool().Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = holder.Rollback(ctx) }()
	_, err = holder.Exec(ctx, `SELECT id FROM mcp_journal WHERE server_id = $1 FOR UPDATE`, locked)
	require.NoError(t, err)

	const timeout = 2 * time.Second
	type result struct {
		n   int64
		err error
	}
	counted := make(chan result, 1)
	start := time.Now()
	go func() {
		n, err := st.PruneJournalByCount(ctx, 2, nil, store.PruneLimits{Batch: 4, StatementTimeout: timeout})
		counted <- result{n, err}
	}()
	require.Eventually(t, func() bool { return waitingForLock(t, st) }, 5*time.Second, 10*time.Millisecond,
		"count retention waits for the locked rows")

	actx, cancel := context.WithTimeout(ctx, timeout/2)
	defer cancel()
	n, err := st.PruneJournalByAge(actx, now.Add(-time.Hour), store.PruneLimits{})
	require.NoError(t, err, "age retention while count retention waits")
	require.EqualValues(t, 1, n)
	require.Empty(t, journalOf(t, st, b.OrgID, aged, store.JournalFilter{}))

	r := <-counted
	require.Error(t, r.err, "the locked server's statement times out")
	require.GreaterOrEqual(t, time.Since(start), timeout)
	require.Less(t, time.Since(start), 4*timeout, "bounded by the statement timeout")
	require.EqualValues(t, 8, r.n, "the bystander is pruned all the same")
	require.Equal(t, ids(bystanderCalls[:2]), ids(journalOf(t, st, b.OrgID, bystander, store.JournalFilter{})))
	require.Len(t, journalOf(t, st, a.OrgID, locked, store.JournalFilter{}), 10)

	// Once the lock goes, the next run prunes the locked server too.
	require.NoError(t, holder.Rollback(ctx))
	n, err = st.PruneJournalByCount(ctx, 2, nil, store.PruneLimits{})
	require.NoError(t, err)
	require.EqualValues(t, 8, n)
}

// waitingForLock reports whether a session of the test's database waits
// for a lock.
func waitingForLock(t *testing.T, st *store.Store) bool {
	t.Helper()
	var waiting bool
	require.NoError(t, st.Pool().QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
		WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting))
	return waiting
}

// BenchmarkJournalRetention measures count retention of one server's
// journal of 10k, 100k and 1M records down to the default cap of 1000, and
// the journal's write path (batches of 500 records appended) into a table
// of that size. Run the 1M case with -bench 'JournalRetention/rows=1M';
// skipped with -short.
func BenchmarkJournalRetention(b *testing.B) {
	if testing.Short() {
		b.Skip("fills a database: not with -short")
	}
	for _, rows := range []int{10_000, 100_000, 1_000_000} {
		b.Run("rows="+countName(rows), func(b *testing.B) {
			st := testdb.Store(b)
			ctx := context.Background()
			org, server := benchServer(b, st)
			b.Run("prune", func(b *testing.B) {
				for range b.N {
					b.StopTimer()
					fill(b, st, org, server, rows)
					b.StartTimer()
					n, err := st.PruneJournalByCount(ctx, 1000, nil, journal.PruneLimits{})
					if err != nil {
						b.Fatal(err)
					}
					if n != int64(rows-1000) {
						b.Fatalf("deleted %d, want %d", n, rows-1000)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/prune")
			})
			b.Run("append", func(b *testing.B) {
				b.StopTimer()
				fill(b, st, org, server, rows)
				batch := make([]store.JournalRecord, 500)
				b.StartTimer()
				for range b.N {
					for i := range batch {
						batch[i] = call(org, server, time.Now(), "tools/call", "get_weather", "result")
					}
					if _, err := st.AppendJournal(ctx, batch); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(batch)), "µs/record")
			})
		})
	}
}

func countName(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%dM", n/1_000_000)
	default:
		return fmt.Sprintf("%dk", n/1000)
	}
}

// benchServer creates an organization and a server as the owner.
func benchServer(b *testing.B, st *store.Store) (org, server uuid.UUID) {
	b.Helper()
	org, server = uuid.New(), uuid.New()
	ctx := context.Background()
	if _, err := st.Pool().Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES ($1, 'Org', $2)`,
		org, "org-"+org.String()[:8]); err != nil {
		b.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `INSERT INTO mcp_servers (id, organization_id, name, created_by)
		VALUES ($1, $2, 's', 't')`, server, org); err != nil {
		b.Fatal(err)
	}
	return org, server
}

// fill replaces server's journal with rows records, one a millisecond up
// to now, and analyzes the table as autovacuum would.
func fill(b *testing.B, st *store.Store, org, server uuid.UUID, rows int) {
	b.Helper()
	ctx := context.Background()
	batch := &pgx.Batch{}
	batch.Queue(`DELETE FROM mcp_journal WHERE server_id = $1`, server)
	batch.Queue(`INSERT INTO mcp_journal (id, organization_id, server_id, received_at, method, outcome, latency_us,
			params, response, client_address)
		SELECT gen_random_uuid(), $1, $2, now() - (g * interval '1 millisecond'), 'tools/call', 'result', 1500,
			'{"name":"get_weather","arguments":{"city":"Paris"}}', '{"content":[{"type":"text","text":"sunny"}]}',
			'192.0.2.1'
		FROM generate_series(1, $3::integer) g`, org, server, rows)
	if err := st.Pool().SendBatch(ctx, batch).Close(); err != nil {
		b.Fatal(err)
	}
	if _, err := st.Pool().Exec(ctx, `VACUUM ANALYZE mcp_journal`); err != nil {
		b.Fatal(err)
	}
}
