package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/journal"
)

// Journal is the part of the Store that appends to the call journal and
// prunes it, each in a transaction of its own.
type Journal struct{ *conn }

// JournalTx is the part of a transaction that reads and clears a server's
// call journal.
type JournalTx struct{ *txConn }

// JournalRecord is one call to a per-server MCP endpoint, as the call
// journal keeps it; the journal defines it, the store writes and lists it.
type JournalRecord = journal.Record

// JournalMismatch says why one scenario did not match a call.
type JournalMismatch = journal.Mismatch

// JournalRound is one round of questions to the client a call played.
type JournalRound = journal.Round

// JournalCall is what a verification reads of one recorded tools/call.
type JournalCall struct {
	Arguments json.RawMessage // the call's arguments as JSON text, "null" when none
	Rounds    []JournalRound  // nil unless asked for
}

// The journal's writer stores its records here.
var _ journal.Sink = (*Store)(nil)

// JournalFilter narrows a journal listing; zero values do not filter.
type JournalFilter struct {
	Method, Tool, Outcome string
	Since                 *time.Time
	After                 *PageKey
	Limit                 int
}

// JournalPage is one page of a server's journal, newest first.
type JournalPage struct {
	Records []JournalRecord
	Next    *PageKey // (received_at, id) to continue after; nil on the last page
}

// AppendJournal writes records as one batch of inserts (one round trip), in
// one transaction that may only append to the journal, and returns how many
// it skipped. When the batch fails on a record the database refuses for
// itself (its server was deleted meanwhile, a value it cannot store), the
// records are inserted again one by one, skipping those refused: one bad
// record must not cost its whole batch. Otherwise either all records are
// written or none.
func (s Journal) AppendJournal(ctx context.Context, records []JournalRecord) (skipped int, err error) {
	return appendBatch(ctx, s, records, journalParams, (*db.Queries).AppendJournal)
}

// batchResults are the results of a batch of inserts sqlc writes.
type batchResults interface{ Exec(func(int, error)) }

// appendBatch appends records, each made into its insert's params by
// toParams, through appendRecords with the batch of inserts batch sends.
func appendBatch[R, P any, B batchResults](ctx context.Context, s Journal, records []R, toParams func(R) (P, error),
	batch func(*db.Queries, context.Context, db.DBTX, []P) B) (skipped int, err error) {
	if len(records) == 0 {
		return 0, nil
	}
	params := make([]P, len(records))
	for i, r := range records {
		if params[i], err = toParams(r); err != nil {
			return 0, err
		}
	}
	return appendRecords(ctx, s, params, func(q *db.Queries, conn db.DBTX, ps []P) (first error) {
		batch(q, ctx, conn, ps).Exec(func(_ int, err error) {
			if err != nil && first == nil {
				first = err
			}
		})
		return first
	})
}

// appendRecords appends params in one batch through exec; when the
// database refuses a record, it appends them again one by one, each in a
// savepoint, skipping (and counting) the records refused.
func appendRecords[P any](ctx context.Context, s Journal, params []P, exec func(q *db.Queries, conn db.DBTX, ps []P) error) (skipped int, err error) {
	refused := false // checked before WithTx maps the error
	err = s.inTx(ctx, Scope{JournalAppend: true}, func(tx *Tx) error {
		first := exec(tx.q, tx.tx, params)
		refused = refusedRecord(first)
		return first
	})
	if err == nil || !refused {
		return 0, err
	}
	err = s.inTx(ctx, Scope{JournalAppend: true}, func(tx *Tx) error {
		skipped = 0
		for _, p := range params {
			err := tx.savepoint(ctx, func(sp pgx.Tx) error { return exec(tx.q, sp, []P{p}) })
			switch {
			case err == nil:
			case refusedRecord(err):
				skipped++
			default:
				return err
			}
		}
		return nil
	})
	return skipped, err
}

// refusedRecord reports whether the database refused a record for its
// content: a data exception (class 22) or an integrity violation (class 23,
// foreign keys included), which a retry cannot cure.
func refusedRecord(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	return strings.HasPrefix(pgErr.Code, "22") || strings.HasPrefix(pgErr.Code, "23")
}

func journalParams(r JournalRecord) (db.AppendJournalParams, error) {
	mm := make([]JournalMismatch, len(r.Mismatches))
	for i, m := range r.Mismatches {
		mm[i] = JournalMismatch{Scenario: storable(m.Scenario), Field: storable(m.Field),
			Operator: storable(m.Operator), Reason: storable(m.Reason)}
	}
	mismatches, err := json.Marshal(mm)
	if err != nil {
		return db.AppendJournalParams{}, fmt.Errorf("journal mismatches: %w", err)
	}
	rounds := []byte("[]")
	if len(r.Rounds) > 0 {
		if rounds, err = json.Marshal(r.Rounds); err != nil {
			return db.AppendJournalParams{}, fmt.Errorf("journal rounds: %w", err)
		}
	}
	p := db.AppendJournalParams{
		ID: r.ID, OrganizationID: r.OrgID, ServerID: r.ServerID, ReceivedAt: r.ReceivedAt,
		Method: storable(r.Method), Tool: optional(r.Tool), Outcome: r.Outcome,
		MatchedScenario: optional(r.Scenario), Mismatches: mismatches, Response: storable(r.Response),
		LatencyUs: max(r.Latency.Microseconds(), 0), ClientAddress: storable(r.ClientAddr),
		SequenceKey: optional(r.SequenceKey), Rounds: rounds, StateChange: jsonOrNull(r.StateChange),
	}
	if len(r.Params) > 0 {
		p.Params = bytes.ToValidUTF8(r.Params, []byte("\uFFFD"))
	}
	if u := r.Upstream; u != nil {
		p.UpstreamLatencyUs = pgtype.Int8{Int64: max(u.Latency.Microseconds(), 0), Valid: true}
		answer := storable(u.Answer)
		p.UpstreamAnswer = &answer
	}
	if r.Step >= 0 {
		step := int32(r.Step)
		p.SequenceStep = &step
	}
	if r.ErrorCode != 0 {
		code := int32(r.ErrorCode)
		p.ErrorCode = &code
	}
	return p, nil
}

// storable replaces what PostgreSQL text cannot hold (invalid UTF-8, NUL)
// with U+FFFD: a journal keeps what it can of a hostile request rather than
// refuse it.
func storable(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

// optional is nil for "" and a storable copy otherwise.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	s = storable(s)
	return &s
}

// PruneLimits bound each statement of retention.
type PruneLimits = journal.PruneLimits

// pruneServersPage is how many servers count retention lists at a time.
const pruneServersPage = 1000

// PruneJournalByAge deletes, for every organization, the recorded calls
// received before before, lim.Batch rows a statement, each statement its own
// transaction bounded by lim.StatementTimeout, so that it holds no lock for
// long and never waits behind count retention. It returns how many rows it
// deleted.
func (s Journal) PruneJournalByAge(ctx context.Context, before time.Time, lim PruneLimits) (int64, error) {
	lim = lim.OrDefaults()
	var n int64
	for {
		var deleted int64
		err := s.pruneTx(ctx, lim, func(tx *Tx) (err error) {
			deleted, err = tx.q.PruneJournalAgedBatch(ctx, tx.tx, db.PruneJournalAgedBatchParams{
				Before: before, BatchSize: int32(lim.Batch)})
			return err
		})
		n += deleted
		if err != nil || deleted < int64(lim.Batch) {
			return n, err
		}
	}
}

// PruneJournalByCount deletes each of servers' recorded calls beyond its
// newest keep (in (received_at, id) order; keep < 1 keeps every row), or
// every server's, of every organization, when servers is nil, and returns
// how many rows it deleted. Its cost is linear: the servers come from a
// skip scan of the server index, each server's cut from one index probe of
// keep entries, and the rows below the cut go lim.Batch at a time, each
// batch its own transaction bounded by lim.StatementTimeout. A server that
// fails (its rows locked past the timeout) does not stop the others; the
// first error is returned.
func (s Journal) PruneJournalByCount(ctx context.Context, keep int, servers []uuid.UUID, lim PruneLimits) (int64, error) {
	if keep < 1 {
		return 0, nil
	}
	lim = lim.OrDefaults()
	var n int64
	var first error
	prune := func(servers []uuid.UUID) error {
		for _, server := range servers {
			deleted, err := s.pruneServer(ctx, server, keep, lim)
			n += deleted
			if err != nil && first == nil {
				first = err
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		return nil
	}
	if servers != nil {
		if err := prune(servers); err != nil {
			return n, err
		}
		return n, first
	}
	after := uuid.Nil
	for {
		var page []uuid.UUID
		err := s.pruneTx(ctx, lim, func(tx *Tx) (err error) {
			page, err = tx.q.JournalServers(ctx, tx.tx, db.JournalServersParams{After: after, RowLimit: pruneServersPage})
			return err
		})
		if err == nil {
			err = prune(page)
		}
		if err != nil {
			return n, err
		}
		if len(page) < pruneServersPage {
			return n, first
		}
		after = page[len(page)-1]
	}
}

// pruneServer deletes server's rows below its keep-th newest.
func (s Journal) pruneServer(ctx context.Context, server uuid.UUID, keep int, lim PruneLimits) (int64, error) {
	var cut []db.JournalCutRow
	err := s.pruneTx(ctx, lim, func(tx *Tx) (err error) {
		cut, err = tx.q.JournalCut(ctx, tx.tx, db.JournalCutParams{ServerID: server, KeepOffset: int64(keep - 1)})
		return err
	})
	if err != nil || len(cut) == 0 {
		return 0, err
	}
	var n int64
	below := db.PruneJournalBelowBatchParams{ServerID: server, BelowAt: cut[0].ReceivedAt, BelowID: cut[0].ID,
		BatchSize: int32(lim.Batch)}
	for {
		var r db.PruneJournalBelowBatchRow
		err := s.pruneTx(ctx, lim, func(tx *Tx) (err error) {
			r, err = tx.q.PruneJournalBelowBatch(ctx, tx.tx, below)
			return err
		})
		n += r.Deleted
		if err != nil || r.Deleted < int64(lim.Batch) {
			return n, err
		}
		below.BelowAt, below.BelowID = r.LastAt, r.LastID
	}
}

// pruneTx runs fn in a retention transaction whose statements stop after
// lim.StatementTimeout and walk the journal's indexes in order. Under
// row-level security the planner misjudges how many rows of a server match
// (it estimated 5,000 of a server's 1,000,000), and then reads and sorts
// every row of the server for each batch, which makes a large server's
// retention quadratic; without sequential scans, bitmap scans and sorts,
// the cut and each batch are the index probes they are meant to be.
func (s Journal) pruneTx(ctx context.Context, lim PruneLimits, fn func(*Tx) error) error {
	return s.inTx(ctx, Scope{JournalPrune: true}, func(tx *Tx) error {
		ms := max(lim.StatementTimeout.Milliseconds(), 1)
		if _, err := tx.tx.Exec(ctx, `SELECT set_config('statement_timeout', $1, true),
			set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true),
			set_config('enable_sort', 'off', true), set_config('enable_incremental_sort', 'off', true)`,
			strconv.FormatInt(ms, 10)); err != nil {
			return err
		}
		return fn(tx)
	})
}

// Journal lists a server's recorded calls, newest first. Row-level security
// limits it to the transaction's organization: another organization's server
// has an empty journal.
func (t JournalTx) Journal(ctx context.Context, server uuid.UUID, f JournalFilter) (JournalPage, error) {
	p := db.ListJournalParams{ServerID: server, Since: f.Since, RowLimit: int32(f.Limit + 1),
		Method: optional(f.Method), Tool: optional(f.Tool), Outcome: optional(f.Outcome)}
	p.AfterReceivedAt, p.AfterID = pageParams(f.After)
	rows, err := t.q.ListJournal(ctx, t.tx, p)
	if err != nil {
		return JournalPage{}, err
	}
	var out JournalPage
	out.Records, out.Next, err = page(rows, f.Limit,
		func(r db.McpJournal) PageKey { return PageKey{CreatedAt: r.ReceivedAt, ID: r.ID} }, journalFrom)
	return out, err
}

// ClearJournal deletes a server's recorded calls and returns how many.
func (t JournalTx) ClearJournal(ctx context.Context, server uuid.UUID) (int64, error) {
	return t.q.ClearJournal(ctx, t.tx, server)
}

// JournalToolCalls returns the arguments of every recorded tools/call of
// tool on server and, when withRounds, their rounds of questions.
func (t JournalTx) JournalToolCalls(ctx context.Context, server uuid.UUID, tool string, withRounds bool) ([]JournalCall, error) {
	rows, err := t.q.JournalToolCalls(ctx, t.tx, db.JournalToolCallsParams{ServerID: server, Tool: tool, WithRounds: withRounds})
	if err != nil {
		return nil, err
	}
	out := make([]JournalCall, len(rows))
	for i, r := range rows {
		out[i].Arguments = json.RawMessage(r.Arguments)
		if out[i].Rounds, err = roundsFrom(r.Rounds); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func journalFrom(r db.McpJournal) (JournalRecord, error) {
	j := JournalRecord{
		ID: r.ID, OrgID: r.OrganizationID, ServerID: r.ServerID, ReceivedAt: r.ReceivedAt, Method: r.Method,
		Tool: orEmpty(r.Tool), Params: r.Params, Outcome: r.Outcome, Scenario: orEmpty(r.MatchedScenario), Step: -1,
		Response: r.Response, Latency: time.Duration(r.LatencyUs) * time.Microsecond,
		ClientAddr: r.ClientAddress, SequenceKey: orEmpty(r.SequenceKey), StateChange: r.StateChange,
	}
	if r.SequenceStep != nil {
		j.Step = int(*r.SequenceStep)
	}
	if r.ErrorCode != nil {
		j.ErrorCode = int(*r.ErrorCode)
	}
	if err := json.Unmarshal(r.Mismatches, &j.Mismatches); err != nil {
		return JournalRecord{}, fmt.Errorf("journal %s mismatches: %w", r.ID, err)
	}
	rounds, err := roundsFrom(r.Rounds)
	if err != nil {
		return JournalRecord{}, fmt.Errorf("journal %s %w", r.ID, err)
	}
	j.Rounds = rounds
	if r.UpstreamLatencyUs.Valid {
		j.Upstream = &journal.UpstreamRecord{Latency: time.Duration(r.UpstreamLatencyUs.Int64) * time.Microsecond,
			Answer: orEmpty(r.UpstreamAnswer)}
		j.Upstream.Truncated = !json.Valid([]byte(j.Upstream.Answer))
	}
	return j, nil
}

// roundsFrom decodes a rounds column; nil for none.
func roundsFrom(raw []byte) ([]JournalRound, error) {
	var rounds []JournalRound
	if err := json.Unmarshal(raw, &rounds); err != nil {
		return nil, fmt.Errorf("rounds: %w", err)
	}
	if len(rounds) == 0 {
		return nil, nil
	}
	return rounds, nil
}

// orEmpty is *s, or "" for nil.
func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
