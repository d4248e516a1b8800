package batch_test

import (
	"context"
	"runtime"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/batch"
)

// TestAnIdleQueueHoldsLittleForTheCollector: the queue's buffer is scanned
// whole by the garbage collector on every cycle, however few items wait in
// it, so a queue of QueueSize items holding pointers must not be allocated
// up front. (It was: 10,000 journal records of 280 bytes, 2.8 MB, about a
// fifth of the service's heap to mark on every cycle.)
func TestAnIdleQueueHoldsLittleForTheCollector(t *testing.T) {
	type record struct {
		a, b, c, d string
		raw        []byte
		refs       [20]*int
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var written []record
	w := batch.New("test", func(_ context.Context, items []record) error {
		written = append(written, items...)
		return nil
	}, nil, batch.Options{QueueSize: 10_000, BatchSize: 1})
	runtime.ReadMemStats(&after)
	grown := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	require.Less(t, grown, int64(200<<10), "an empty queue of 10,000 records of %d bytes holds %d bytes",
		unsafe.Sizeof(record{}), grown)

	one := 1
	sent := record{a: "a", b: "b", c: "c", d: "d", raw: []byte("raw"), refs: [20]*int{&one}}
	require.True(t, w.Add(sent))
	require.NoError(t, w.Flush(context.Background()))
	require.Equal(t, []record{sent}, written, "the item written is the one added")
	runtime.KeepAlive(w)
}
