package httpapi

import (
	"context"
	"encoding/json"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/verification"
)

// journalFlushTimeout bounds the wait for queued journal records before a
// clear or a verification; past it the request goes on with what is
// written.
const journalFlushTimeout = 5 * time.Second

// ListJournal lists the calls recorded for a server, newest first.
func (s *Server) ListJournal(ctx context.Context, req api.ListJournalRequestObject) (api.ListJournalResponseObject, error) {
	q := req.Params
	after, err := decodeCursor(deref(q.Cursor))
	if err != nil {
		return nil, err
	}
	f := store.JournalFilter{Method: deref(q.Method), Tool: deref(q.Tool), Since: q.Since, After: after,
		Limit: or(q.Limit, 100)}
	if q.Outcome != nil {
		f.Outcome = string(*q.Outcome)
	}
	_, page, err := withParent(ctx, s, req.ServerId, (*store.Tx).Server,
		func(tx *store.Tx, _ design.Server) (store.JournalPage, error) {
			return tx.Journal(ctx, req.ServerId, f)
		})
	if err != nil {
		return nil, err
	}
	return api.ListJournal200JSONResponse{Items: mapEach(page.Records, apiJournalEntry), NextCursor: cursorOf(page.Next)}, nil
}

// ClearJournal deletes a server's recorded calls, those still queued
// included, so that a verification that follows counts only later calls.
func (s *Server) ClearJournal(ctx context.Context, req api.ClearJournalRequestObject) (api.ClearJournalResponseObject, error) {
	s.flushJournal(ctx)
	_, _, err := withParent(ctx, s, req.ServerId, (*store.Tx).Server,
		func(tx *store.Tx, _ design.Server) (int64, error) { return tx.ClearJournal(ctx, req.ServerId) })
	if err != nil {
		return nil, err
	}
	s.journal.Cleared(req.ServerId)
	return api.ClearJournal204Response{}, nil
}

// VerifyJournal counts the recorded calls of a tool whose arguments match a
// condition, that sent a question to the client and whose answers match
// another, whatever their outcome, and compares the count with the
// expectation.
func (s *Server) VerifyJournal(ctx context.Context, req api.VerifyJournalRequestObject) (api.VerifyJournalResponseObject, error) {
	b := req.Body
	e := verification.Expectation{Tool: b.Tool, Asked: b.Asked, Times: b.Times}
	if b.Arguments != nil {
		e.Arguments = *b.Arguments
	}
	if b.Answers != nil {
		e.Answers = *b.Answers
	}
	v, err := verification.Compile(e)
	if err != nil {
		return nil, err
	}
	s.flushJournal(ctx)
	_, recorded, err := withParent(ctx, s, req.ServerId, (*store.Tx).Server,
		func(tx *store.Tx, _ design.Server) ([]store.JournalCall, error) {
			return tx.JournalToolCalls(ctx, req.ServerId, b.Tool, v.WithRounds())
		})
	if err != nil {
		return nil, err
	}
	count, err := v.Count(mapEach(recorded, func(c store.JournalCall) verification.Call {
		return verification.Call{Arguments: c.Arguments, Rounds: c.Rounds}
	}))
	if err != nil {
		return nil, err
	}
	r := v.Verdict(count, s.journal.Complete(req.ServerId), s.journal != nil)
	return api.VerifyJournal200JSONResponse{Count: r.Count, Expected: r.Expected, Verified: r.Verified,
		Complete: r.Complete, Message: r.Message}, nil
}

// flushJournal writes the records still queued on this instance, for a
// moment at most: a journal behind its callers must not hang the API.
func (s *Server) flushJournal(ctx context.Context) {
	if s.journal != nil {
		s.flushWithin(ctx, "journal", s.journal.Flush)
	}
}

// flushWithin runs flush for journalFlushTimeout at most, logging a
// failure that is not the request's own end; what names the journal.
func (s *Server) flushWithin(ctx context.Context, what string, flush func(context.Context) error) {
	fctx, cancel := context.WithTimeout(ctx, journalFlushTimeout)
	defer cancel()
	if err := flush(fctx); err != nil && ctx.Err() == nil {
		s.log.WarnContext(ctx, what+" flush before a journal request", "err", err)
	}
}

func apiJournalEntry(r store.JournalRecord) api.JournalEntry {
	out := api.JournalEntry{
		Id: r.ID.String(), ReceivedAt: r.ReceivedAt.UTC(), Method: r.Method, Tool: nullableText(r.Tool),
		Outcome: api.JournalOutcome(r.Outcome), MatchedScenario: nullableText(r.Scenario),
		Mismatches: make([]api.JournalMismatch, len(r.Mismatches)), Response: r.Response,
		LatencyMs: float32(r.Latency.Microseconds()) / 1000, ClientAddress: r.ClientAddr,
		SequenceKey: nullableText(r.SequenceKey), SequenceStep: nullable.NewNullNullable[int](),
		ErrorCode: nullable.NewNullNullable[int](), Rounds: mapEach(r.Rounds, apiJournalRound),
	}
	if r.Params != nil {
		out.Params = r.Params
	}
	if r.Step >= 0 {
		out.SequenceStep = nullable.NewNullableWithValue(r.Step)
	}
	if r.ErrorCode != 0 {
		out.ErrorCode = nullable.NewNullableWithValue(r.ErrorCode)
	}
	out.Upstream = nullable.NewNullNullable[api.JournalUpstream]()
	if u := r.Upstream; u != nil {
		ju := api.JournalUpstream{LatencyMs: float32(u.Latency.Microseconds()) / 1000, Truncated: u.Truncated}
		if u.Truncated {
			ju.Answer = u.Answer
		} else {
			ju.Answer = json.RawMessage(u.Answer)
		}
		out.Upstream = nullable.NewNullableWithValue(ju)
	}
	out.StateChange = nullable.NewNullNullable[api.JournalStateChange]()
	var sc api.JournalStateChange
	if len(r.StateChange) > 0 && json.Unmarshal(r.StateChange, &sc) == nil { // written by journal.boundStateChange
		out.StateChange = nullable.NewNullableWithValue(sc)
	}
	for i, m := range r.Mismatches {
		out.Mismatches[i] = api.JournalMismatch{Scenario: m.Scenario, Reason: m.Reason}
		if m.Field != "" {
			out.Mismatches[i].Field = &m.Field
		}
		if m.Operator != "" {
			out.Mismatches[i].Operator = &m.Operator
		}
	}
	return out
}

func apiJournalRound(r store.JournalRound) api.JournalRound {
	out := api.JournalRound{Asked: r.Asked, Sent: r.Sent, Answers: r.Answers, TimedOut: r.TimedOut,
		Branch: nullable.NewNullNullable[int]()}
	if out.Asked == nil {
		out.Asked = map[string]json.RawMessage{}
	}
	if out.Answers == nil {
		out.Answers = map[string]json.RawMessage{}
	}
	if r.Branch >= 0 {
		out.Branch = nullable.NewNullableWithValue(r.Branch)
	}
	return out
}

// nullableText is null for "" and the text otherwise.
func nullableText(s string) nullable.Nullable[string] {
	if s == "" {
		return nullable.NewNullNullable[string]()
	}
	return nullable.NewNullableWithValue(s)
}
