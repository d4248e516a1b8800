package mcpserve

import (
	"context"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/mockspec"
)

// Sequencer counts the calls answered by sequence scenarios, per server,
// scenario and client key, so that each call gets the next step.
type Sequencer interface {
	// Next counts one more call and returns how many calls came before it
	// (0 for the first).
	Next(ctx context.Context, server uuid.UUID, scenario, key string) (int64, error)
	// Reset forgets the counts of server for key, or for every key when key
	// is empty.
	Reset(ctx context.Context, server uuid.UUID, key string) error
}

// Recorder receives every call to a per-server endpoint. Neither method may
// wait.
type Recorder interface {
	// Admit reports whether an entry of org's server would be kept now;
	// when it is not, the endpoint skips building it, and the recorder
	// counts it dropped.
	Admit(org, server uuid.UUID) bool
	// Record keeps e; it returns false when it dropped it.
	Record(e journal.Entry) bool
}

// SequenceKeyHeader names the client's sequence counter; without it the
// client address does.
const SequenceKeyHeader = mockspec.SequenceKeyHeader
