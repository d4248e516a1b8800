package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/design"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/scenario"
	"github.com/mockmcp/mockmcp/internal/store"
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
	args, argErrs := compileMember("arguments", b.Arguments)
	answers, answerErrs := compileMember("answers", b.Answers)
	if errs := append(argErrs, answerErrs...); len(errs) > 0 {
		return nil, failure.Invalid(errs...)
	}
	asked := deref(b.Asked)
	withRounds := asked != "" || b.Answers != nil
	s.flushJournal(ctx)
	_, recorded, err := withParent(ctx, s, req.ServerId, (*store.Tx).Server,
		func(tx *store.Tx, _ design.Server) ([]store.JournalCall, error) {
			return tx.JournalToolCalls(ctx, req.ServerId, b.Tool, withRounds)
		})
	if err != nil {
		return nil, err
	}
	count := 0
	// The conditions' patterns run on every recorded call, all of them
	// paid from one call's budget.
	budget := regexlimit.NewBudget()
	for _, call := range recorded {
		if asked != "" && !sentQuestion(call.Rounds, asked) {
			continue
		}
		ok := args.MatchWithin(decodedArguments(call.Arguments), &budget)
		if budget.Exhausted() {
			return nil, overBudget("arguments", &budget)
		}
		if ok && b.Answers != nil {
			last, got := lastAnswers(call.Rounds)
			ok = got && answers.MatchWithin(last, &budget)
			if budget.Exhausted() {
				return nil, overBudget("answers", &budget)
			}
		}
		if ok {
			count++
		}
	}
	return api.VerifyJournal200JSONResponse(s.verdict(b, count, s.journal.Complete(req.ServerId))), nil
}

// compileMember compiles the condition of the body's member name; absent,
// it is the zero Condition, which matches every call.
func compileMember(name string, raw *json.RawMessage) (scenario.Condition, []failure.FieldError) {
	if raw == nil {
		return scenario.Condition{}, nil
	}
	cond, errs := scenario.Compile(*raw)
	fields := make([]failure.FieldError, len(errs))
	for i, e := range errs {
		fields[i] = failure.Field(name+strings.TrimPrefix(e.Field, "condition"), "%s", e.Message)
	}
	return cond, fields
}

// overBudget is the refusal of a verification whose condition on the
// body's member "arguments" or "answers" would take more work than a call
// may.
func overBudget(member string, budget *regexlimit.Budget) error {
	return failure.Invalid(failure.Field(member, "the condition's regular expression would take more than "+
		"the %d units of work (input bytes times pattern instructions) a verification may use on the recorded "+
		"%s (at %q); match a shorter %s or clear the journal", regexlimit.CallBudget, member, budget.Field(),
		strings.TrimSuffix(member, "s")))
}

// decodedArguments is a call's arguments as a condition reads them;
// arguments that are no object match only what anything matches.
func decodedArguments(raw json.RawMessage) map[string]any {
	var args map[string]any
	if json.Unmarshal(raw, &args) != nil {
		return nil
	}
	return args
}

// sentQuestion reports whether a round sent the question id to the client.
func sentQuestion(rounds []store.JournalRound, id string) bool {
	for _, r := range rounds {
		if _, ok := r.Asked[id]; ok && r.Sent {
			return true
		}
	}
	return false
}

// lastAnswers is the answers of the last round that has any, keyed by
// question id and decoded as arguments are, and whether there is one. An
// answer the journal left out is its marker string.
func lastAnswers(rounds []store.JournalRound) (map[string]any, bool) {
	for i := len(rounds) - 1; i >= 0; i-- {
		if len(rounds[i].Answers) == 0 {
			continue
		}
		out := make(map[string]any, len(rounds[i].Answers))
		for id, raw := range rounds[i].Answers {
			var v any
			if json.Unmarshal(raw, &v) == nil {
				out[id] = v
			}
		}
		return out, true
	}
	return nil, false
}

// verdict compares count with the request's expectation and says so, and
// whether the journal may have missed calls (complete).
func (s *Server) verdict(b *api.VerifyJournalRequest, count int, complete bool) api.VerifyJournalResult {
	out := api.VerifyJournalResult{Count: count, Expected: "at least 1", Verified: count >= 1, Complete: complete}
	if b.Times != nil {
		out.Expected, out.Verified = fmt.Sprintf("exactly %d", *b.Times), count == *b.Times
	}
	var checked []string
	if b.Arguments != nil {
		checked = append(checked, "with matching arguments")
	}
	if b.Asked != nil {
		checked = append(checked, fmt.Sprintf("asking %q", *b.Asked))
	}
	if b.Answers != nil {
		checked = append(checked, "with matching answers")
	}
	msg := fmt.Sprintf("tool %q %s", b.Tool, called(count))
	if len(checked) > 0 {
		msg += " " + strings.Join(checked, ", ")
	}
	if out.Verified {
		msg += ", as expected (" + out.Expected + ")"
	} else {
		msg += "; expected " + out.Expected
	}
	if s.journal == nil {
		msg += " (the call journal is disabled on this instance: JOURNAL_ENABLED=false)"
	}
	if !complete {
		msg += " (incomplete: the journal dropped records of this server, over its share of the journal's rate " +
			"or with its queue full, so calls may be missing)"
	}
	out.Message = msg
	return out
}

func called(n int) string {
	switch n {
	case 0:
		return "was never called"
	case 1:
		return "was called once"
	case 2:
		return "was called twice"
	}
	return fmt.Sprintf("was called %d times", n)
}

// flushJournal writes the records still queued on this instance, for a
// moment at most: a journal behind its callers must not hang the API.
func (s *Server) flushJournal(ctx context.Context) {
	if s.journal == nil {
		return
	}
	fctx, cancel := context.WithTimeout(ctx, journalFlushTimeout)
	defer cancel()
	if err := s.journal.Flush(fctx); err != nil && ctx.Err() == nil {
		s.log.WarnContext(ctx, "journal flush before a journal request", "err", err)
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
