package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/gen/db"
	"github.com/mockmcp/mockmcp/internal/agentjournal"
)

// AgentJournalRecord is one message sent to a card's mock agent, as the
// agent journal keeps it.
type AgentJournalRecord = agentjournal.Record

// The agent journal's writer stores its records here.
var _ agentjournal.Sink = (*Store)(nil)

// AgentJournalFilter narrows an agent journal listing; zero values do not
// filter.
type AgentJournalFilter struct {
	Method, Outcome, Reply string
	Since                  *time.Time
	After                  *PageKey
	Limit                  int
}

// AgentJournalPage is one page of a card's journal, newest first.
type AgentJournalPage struct {
	Records []AgentJournalRecord
	Next    *PageKey
}

// AgentJournalMessage is what a verification reads of one recorded
// message.
type AgentJournalMessage struct {
	Reply, Skill string
	Message      json.RawMessage // "null" when none was read
}

// AppendAgentJournal writes records as one batch, in one transaction that
// may only append; when the batch fails on a record the database refuses
// (its card was deleted meanwhile), the records go again one by one,
// skipping those refused.
func (s Journal) AppendAgentJournal(ctx context.Context, records []AgentJournalRecord) (skipped int, err error) {
	return appendBatch(ctx, s, records, agentJournalParams, (*db.Queries).AppendAgentJournal)
}

func agentJournalParams(r AgentJournalRecord) (db.AppendAgentJournalParams, error) {
	mm := make([]JournalMismatch, len(r.Mismatches))
	for i, m := range r.Mismatches {
		mm[i] = JournalMismatch{Scenario: storable(m.Scenario), Field: storable(m.Field),
			Operator: storable(m.Operator), Reason: storable(m.Reason)}
	}
	mismatches, err := json.Marshal(mm)
	if err != nil {
		return db.AppendAgentJournalParams{}, fmt.Errorf("agent journal mismatches: %w", err)
	}
	p := db.AppendAgentJournalParams{ID: r.ID, OrganizationID: r.OrgID, CardID: r.CardID, ReceivedAt: r.ReceivedAt,
		Method: storable(r.Method), Binding: storable(r.Binding), A2aVersion: storable(r.Version), Outcome: r.Outcome,
		Reply: optional(r.Reply), Skill: optional(r.Skill), Mismatches: mismatches, Response: storable(r.Response),
		LatencyUs: max(r.Latency.Microseconds(), 0), ClientAddress: storable(r.ClientAddr)}
	if len(r.Message) > 0 {
		// json.Marshal escapes NUL and invalid UTF-8 already; a message
		// built by hand gets the same care as the MCP journal's params.
		p.Message = bytes.ToValidUTF8(r.Message, []byte("\uFFFD"))
	}
	if r.ErrorCode != 0 {
		code := int32(r.ErrorCode)
		p.ErrorCode = &code
	}
	return p, nil
}

// PruneAgentJournal deletes, for every organization, the recorded messages
// received before before, then those of cards beyond their newest keep, a
// batch of lim.Batch rows a transaction. A card that fails does not stop
// the others; the first error is returned.
func (s Journal) PruneAgentJournal(ctx context.Context, before time.Time, keep int, cards []uuid.UUID, lim PruneLimits) (int64, error) {
	lim = lim.OrDefaults()
	var n int64
	for {
		var deleted int64
		err := s.pruneTx(ctx, lim, func(tx *Tx) (err error) {
			deleted, err = tx.q.PruneAgentJournalAgedBatch(ctx, tx.tx, db.PruneAgentJournalAgedBatchParams{
				Before: before, BatchSize: int32(lim.Batch)})
			return err
		})
		n += deleted
		if err != nil {
			return n, err
		}
		if deleted < int64(lim.Batch) {
			break
		}
	}
	var first error
	for _, card := range cards {
		for keep > 0 {
			var deleted int64
			err := s.inTx(ctx, Scope{JournalPrune: true}, func(tx *Tx) (err error) {
				deleted, err = tx.q.PruneAgentJournalOverBatch(ctx, tx.tx, db.PruneAgentJournalOverBatchParams{
					CardID: card, Keep: int64(keep), BatchSize: int32(lim.Batch)})
				return err
			})
			n += deleted
			if err != nil && first == nil {
				first = err
			}
			if err != nil || deleted < int64(lim.Batch) {
				break
			}
		}
	}
	return n, first
}

// AgentJournal lists a card's recorded messages, newest first. Row-level
// security limits it to the transaction's organization.
func (t AgentCardsTx) AgentJournal(ctx context.Context, card uuid.UUID, f AgentJournalFilter) (AgentJournalPage, error) {
	p := db.ListAgentJournalParams{CardID: card, Since: f.Since, RowLimit: int32(f.Limit + 1),
		Method: optional(f.Method), Outcome: optional(f.Outcome), Reply: optional(f.Reply)}
	p.AfterReceivedAt, p.AfterID = pageParams(f.After)
	rows, err := t.q.ListAgentJournal(ctx, t.tx, p)
	if err != nil {
		return AgentJournalPage{}, err
	}
	var out AgentJournalPage
	out.Records, out.Next, err = page(rows, f.Limit,
		func(r db.AgentJournal) PageKey { return PageKey{CreatedAt: r.ReceivedAt, ID: r.ID} }, agentJournalFrom)
	return out, err
}

// AgentJournalMessages reads every recorded message of a card, for a
// verification.
func (t AgentCardsTx) AgentJournalMessages(ctx context.Context, card uuid.UUID) ([]AgentJournalMessage, error) {
	rows, err := t.q.AgentJournalMessages(ctx, t.tx, card)
	if err != nil {
		return nil, err
	}
	out := make([]AgentJournalMessage, len(rows))
	for i, r := range rows {
		out[i] = AgentJournalMessage{Reply: orEmpty(r.Reply), Skill: orEmpty(r.Skill), Message: json.RawMessage(r.Message)}
	}
	return out, nil
}

// ClearAgentJournal deletes a card's recorded messages.
func (t AgentCardsTx) ClearAgentJournal(ctx context.Context, card uuid.UUID) (int64, error) {
	return t.q.ClearAgentJournal(ctx, t.tx, card)
}

func agentJournalFrom(r db.AgentJournal) (AgentJournalRecord, error) {
	out := AgentJournalRecord{ID: r.ID, OrgID: r.OrganizationID, CardID: r.CardID, ReceivedAt: r.ReceivedAt,
		Method: r.Method, Binding: r.Binding, Version: r.A2aVersion, Message: r.Message, Outcome: r.Outcome,
		Reply: orEmpty(r.Reply), Skill: orEmpty(r.Skill), Response: r.Response,
		Latency: time.Duration(r.LatencyUs) * time.Microsecond, ClientAddr: r.ClientAddress}
	if r.ErrorCode != nil {
		out.ErrorCode = int(*r.ErrorCode)
	}
	if err := json.Unmarshal(r.Mismatches, &out.Mismatches); err != nil {
		return AgentJournalRecord{}, fmt.Errorf("agent journal mismatches: %w", err)
	}
	return out, nil
}
