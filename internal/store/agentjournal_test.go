package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/golden"
	"github.com/mockmcp/mockmcp/internal/store"
)

func newCard(t *testing.T, st *store.Store, org uuid.UUID, name string) uuid.UUID {
	t.Helper()
	id := uuid.New()
	require.NoError(t, st.WithTx(context.Background(), store.Scope{OrgID: org}, func(tx *store.Tx) error {
		_, err := tx.CreateAgentCard(context.Background(), id, agentcard.Card{Name: name}, "test")
		return err
	}))
	return id
}

func agentMessage(org, card uuid.UUID, at time.Time, reply string) store.AgentJournalRecord {
	id, err := uuid.NewV7()
	if err != nil {
		panic(err)
	}
	return store.AgentJournalRecord{ID: id, OrgID: org, CardID: card, ReceivedAt: at, Method: "SendMessage",
		Binding: "JSONRPC", Version: "1.0", Message: json.RawMessage(`{"text":"hi\u0000"}`), Outcome: "result",
		Reply: reply, Latency: time.Millisecond}
}

func agentJournalOf(t *testing.T, st *store.Store, org, card uuid.UUID) []store.AgentJournalRecord {
	t.Helper()
	var page store.AgentJournalPage
	require.NoError(t, st.WithTx(context.Background(), store.Scope{OrgID: org}, func(tx *store.Tx) (err error) {
		page, err = tx.AgentJournal(context.Background(), card, store.AgentJournalFilter{Limit: 500})
		return err
	}))
	return page.Records
}

// TestAgentJournalRowLevelSecurity: a card's records are its
// organization's alone to read and clear; a record of a deleted card is
// skipped, not its batch; retention keeps the newest of each card.
func TestAgentJournalRowLevelSecurity(t *testing.T) {
	t.Parallel()
	st, a, b := seedTwo(t)
	ctx := context.Background()
	cardA, cardB := newCard(t, st, a.OrgID, "alpha-agent"), newCard(t, st, b.OrgID, "beta-agent")
	base := time.Now().UTC().Add(-time.Minute)
	var records []store.AgentJournalRecord
	for i := range 4 {
		records = append(records, agentMessage(a.OrgID, cardA, base.Add(time.Duration(i)*time.Second), "paris"))
	}
	records = append(records, agentMessage(b.OrgID, cardB, base, "default"),
		agentMessage(a.OrgID, uuid.New(), base, "gone")) // no such card
	skipped, err := st.AppendAgentJournal(ctx, records)
	require.NoError(t, err)
	require.Equal(t, 1, skipped)

	got := agentJournalOf(t, st, a.OrgID, cardA)
	require.Len(t, got, 4)
	require.Equal(t, records[3].ID, got[0].ID, "newest first")
	require.Equal(t, "paris", got[0].Reply)
	require.Empty(t, agentJournalOf(t, st, b.OrgID, cardA), "another organization reads nothing")
	require.NoError(t, st.WithTx(ctx, store.Scope{OrgID: b.OrgID}, func(tx *store.Tx) error {
		n, err := tx.ClearAgentJournal(ctx, cardA)
		require.Zero(t, n, "another organization clears nothing")
		return err
	}))
	require.Len(t, agentJournalOf(t, st, a.OrgID, cardA), 4)

	n, err := st.PruneAgentJournal(ctx, base.Add(500*time.Millisecond), 2, []uuid.UUID{cardA}, store.PruneLimits{Batch: 1})
	require.NoError(t, err)
	require.EqualValues(t, 3, n, "the oldest of each card by age, then cardA beyond its newest 2")
	got = agentJournalOf(t, st, a.OrgID, cardA)
	require.Equal(t, []uuid.UUID{records[3].ID, records[2].ID}, []uuid.UUID{got[0].ID, got[1].ID})
	require.Len(t, got, 2)
	require.Empty(t, agentJournalOf(t, st, b.OrgID, cardB))
}

func writeAgentJournal(t *testing.T, p pinEnv) (any, store.AgentJournalRecord) {
	t.Helper()
	card := newCard(t, p.st, p.ten.OrgID, "pinned-agent")
	r := agentMessage(p.ten.OrgID, card, time.Now(), "paris")
	// As agentjournal.bounded writes it.
	r.Message = json.RawMessage(`{"text":"Weather in Paris?","data":{"nights":3},"metadata":{"kind":"travel"},"contextId":"trip-1","left_out":12}`)
	r.Mismatches = golden.Filled[[]store.JournalMismatch](t)
	skipped, err := p.st.AppendAgentJournal(p.ctx, []store.AgentJournalRecord{r})
	require.NoError(t, err)
	require.Zero(t, skipped)
	return r.ID, r
}

func readAgentJournal(t *testing.T, p pinEnv, key any) store.AgentJournalRecord {
	t.Helper()
	var rows []store.AgentJournalRecord
	require.NoError(t, p.st.WithTx(p.ctx, store.Scope{OrgID: p.ten.OrgID}, func(tx *store.Tx) error {
		var cards store.AgentCardPage
		cards, err := tx.AgentCards(p.ctx, "", nil, 100)
		for _, c := range cards.Cards {
			page, err := tx.AgentJournal(p.ctx, c.ID, store.AgentJournalFilter{Limit: 100})
			if err != nil {
				return err
			}
			rows = append(rows, page.Records...)
		}
		return err
	}))
	for _, r := range rows {
		if r.ID == key.(uuid.UUID) {
			return r
		}
	}
	require.Failf(t, "agent journal record not found", "%s", key)
	return store.AgentJournalRecord{}
}
