package httpapi

import (
	"context"
	"encoding/json"

	"github.com/oapi-codegen/nullable"

	"github.com/mockmcp/mockmcp/gen/api"
	"github.com/mockmcp/mockmcp/internal/store"
	"github.com/mockmcp/mockmcp/internal/verification"
)

// GetAgentJournal lists the messages recorded for a card's mock agent,
// newest first.
func (s *Server) GetAgentJournal(ctx context.Context, req api.GetAgentJournalRequestObject) (api.GetAgentJournalResponseObject, error) {
	q := req.Params
	after, err := decodeCursor(deref(q.Cursor))
	if err != nil {
		return nil, err
	}
	f := store.AgentJournalFilter{Method: deref(q.Method), Reply: deref(q.Reply), Since: q.Since, After: after,
		Limit: or(q.Limit, 100)}
	if q.Outcome != nil {
		f.Outcome = string(*q.Outcome)
	}
	_, page, err := withParent(ctx, s, req.CardId, (*store.Tx).AgentCard,
		func(tx *store.Tx, _ store.AgentCard) (store.AgentJournalPage, error) {
			return tx.AgentJournal(ctx, req.CardId, f)
		})
	if err != nil {
		return nil, err
	}
	return api.GetAgentJournal200JSONResponse{Items: mapEach(page.Records, apiAgentJournalEntry),
		NextCursor: cursorOf(page.Next)}, nil
}

// ClearAgentJournal deletes a card's recorded messages, those still queued
// included.
func (s *Server) ClearAgentJournal(ctx context.Context, req api.ClearAgentJournalRequestObject) (api.ClearAgentJournalResponseObject, error) {
	s.flushAgentJournal(ctx)
	_, _, err := withParent(ctx, s, req.CardId, (*store.Tx).AgentCard,
		func(tx *store.Tx, _ store.AgentCard) (int64, error) { return tx.ClearAgentJournal(ctx, req.CardId) })
	if err != nil {
		return nil, err
	}
	s.agentJournal.Cleared(req.CardId)
	return api.ClearAgentJournal204Response{}, nil
}

// VerifyAgent counts the recorded messages of a card's mock agent that a
// reply answered, about a skill, matching a condition, and compares the
// count with the expectation.
func (s *Server) VerifyAgent(ctx context.Context, req api.VerifyAgentRequestObject) (api.VerifyAgentResponseObject, error) {
	b := req.Body
	e := verification.AgentExpectation{Reply: b.Reply, Skill: b.Skill, Exactly: b.Exactly, AtLeast: b.AtLeast, AtMost: b.AtMost}
	if b.Message != nil {
		e.Message = *b.Message
	}
	v, err := verification.CompileAgent(e)
	if err != nil {
		return nil, err
	}
	s.flushAgentJournal(ctx)
	_, recorded, err := withParent(ctx, s, req.CardId, (*store.Tx).AgentCard,
		func(tx *store.Tx, _ store.AgentCard) ([]store.AgentJournalMessage, error) {
			return tx.AgentJournalMessages(ctx, req.CardId)
		})
	if err != nil {
		return nil, err
	}
	count, err := v.Count(mapEach(recorded, func(m store.AgentJournalMessage) verification.AgentMessage {
		return verification.AgentMessage{Reply: m.Reply, Skill: m.Skill, Message: m.Message}
	}))
	if err != nil {
		return nil, err
	}
	r := v.Verdict(count, s.agentJournal.Complete(req.CardId), s.agentJournal != nil)
	return api.VerifyAgent200JSONResponse{Count: r.Count, Expected: r.Expected, Verified: r.Verified,
		Complete: r.Complete, Message: r.Message}, nil
}

// flushAgentJournal writes the records still queued on this instance, for
// a moment at most.
func (s *Server) flushAgentJournal(ctx context.Context) {
	if s.agentJournal != nil {
		s.flushWithin(ctx, "agent journal", s.agentJournal.Flush)
	}
}

func apiAgentJournalEntry(r store.AgentJournalRecord) api.AgentJournalEntry {
	out := api.AgentJournalEntry{
		Id: r.ID, ReceivedAt: r.ReceivedAt.UTC(), Method: r.Method, Binding: r.Binding, A2aVersion: r.Version,
		Outcome: api.AgentJournalOutcome(r.Outcome), Reply: nullableText(r.Reply), Skill: nullableText(r.Skill),
		Mismatches: make([]api.JournalMismatch, len(r.Mismatches)), Response: r.Response,
		LatencyMs: float32(r.Latency.Microseconds()) / 1000, ClientAddress: r.ClientAddr,
		ErrorCode: nullable.NewNullNullable[int](), Message: nullable.NewNullNullable[json.RawMessage](),
	}
	if r.Message != nil {
		out.Message = nullable.NewNullableWithValue(r.Message)
	}
	if r.ErrorCode != 0 {
		out.ErrorCode = nullable.NewNullableWithValue(r.ErrorCode)
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
