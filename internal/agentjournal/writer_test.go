package agentjournal

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/batch"
	"github.com/mockmcp/mockmcp/internal/journal"
)

// stuckSink never finishes an insert until released: the database hangs.
type stuckSink struct{ release chan struct{} }

func (s stuckSink) AppendAgentJournal(ctx context.Context, _ []Record) (int, error) {
	select {
	case <-s.release:
	case <-ctx.Done():
	}
	return 0, ctx.Err()
}

func (stuckSink) PruneAgentJournal(context.Context, time.Time, int, []uuid.UUID, journal.PruneLimits) (int64, error) {
	return 0, nil
}

// TestWriterNeverWaits: with the database hung and the queue full, Record
// returns at once, dropping the entry; the card's verifications are then
// incomplete until its journal is cleared.
func TestWriterNeverWaits(t *testing.T) {
	sink := stuckSink{release: make(chan struct{})}
	w := New(sink, nil, Options{Batch: batch.Options{QueueSize: 1, BatchSize: 1, FlushInterval: time.Millisecond}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { w.Run(ctx); close(done) }()
	t.Cleanup(func() { close(sink.release); cancel(); <-done })

	card := uuid.New()
	require.True(t, w.Complete(card))
	start := time.Now()
	dropped := false
	for range 10 {
		if !w.Record(Entry{CardID: card, Outcome: OutcomeResult}) {
			dropped = true
		}
	}
	require.Less(t, time.Since(start), time.Second)
	require.True(t, dropped, "a full queue drops")
	require.False(t, w.Complete(card))
	require.True(t, w.Complete(uuid.New()), "another card's verifications stay complete")
	w.Cleared(card)
	require.True(t, w.Complete(card))
	require.False(t, (*Writer)(nil).Complete(card), "no journal, never complete")
}
