package mcpserve

import (
	"context"
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/journal"
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
	// Admit reports whether an entry would be kept now; when it is not,
	// the endpoint skips building it, and the recorder counts it dropped.
	Admit() bool
	// Record keeps e; it returns false when it dropped it.
	Record(e journal.Entry) bool
}

// SequenceKeyHeader names the client's sequence counter; without it the
// client address does.
const SequenceKeyHeader = "Mcp-Mock-Sequence-Key"

// memorySequencer is the Sequencer of a Handler given none: counts in this
// process, unbounded, for tests and tools that build a Handler directly.
type memorySequencer struct {
	mu     sync.Mutex
	counts map[string]int64
}

// NewMemorySequencer returns a Sequencer counting in memory.
func NewMemorySequencer() Sequencer { return &memorySequencer{counts: map[string]int64{}} }

func (m *memorySequencer) Next(_ context.Context, server uuid.UUID, scenario, key string) (int64, error) {
	k := server.String() + "\x00" + key + "\x00" + scenario
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.counts[k]
	m.counts[k] = n + 1
	return n, nil
}

func (m *memorySequencer) Reset(_ context.Context, server uuid.UUID, key string) error {
	prefix := server.String() + "\x00"
	if key != "" {
		prefix += key + "\x00"
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.counts {
		if strings.HasPrefix(k, prefix) {
			delete(m.counts, k)
		}
	}
	return nil
}
