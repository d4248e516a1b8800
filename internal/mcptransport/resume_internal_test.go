package mcptransport

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStreamBounds: a stream keeps at most StreamEvents events and
// StreamBytes bytes (the oldest dropped, the newest always kept); the
// streams of an instance are at most their bound in number and bytes
// (the oldest forgotten), and an ended one is forgotten StreamRetention
// after it ended.
func TestStreamBounds(t *testing.T) {
	t.Run("events of a stream", func(t *testing.T) {
		s := NewStreams()
		l := s.open("/a")
		for i := 1; i <= StreamEvents+10; i++ {
			l.add([]byte(fmt.Sprint(i)))
		}
		frames, last, done, _ := l.after(0)
		require.Len(t, frames, StreamEvents)
		require.Equal(t, StreamEvents+10, last)
		require.False(t, done)
		require.Contains(t, string(frames[0]), fmt.Sprintf("id: %s.11\n", l.id), "the oldest are dropped")

		big := l.add([]byte(strings.Repeat("x", StreamBytes+1)))
		require.Contains(t, string(big), "id: "+l.id+"."+fmt.Sprint(StreamEvents+11))
		frames, _, _, _ = l.after(0)
		require.Len(t, frames, 1, "one event larger than the bound is kept alone")
		require.Equal(t, StreamBytes+1, s.bytes)
	})
	t.Run("streams of an instance", func(t *testing.T) {
		s := NewStreams()
		s.streams, s.budget = 3, 100
		a, b := s.open("/a"), s.open("/a")
		a.add([]byte(strings.Repeat("a", 60)))
		b.add([]byte(strings.Repeat("b", 60)))
		_, _, ok := s.lookup(a.eventID(0), "/a")
		require.False(t, ok, "past the bytes the oldest stream is forgotten")
		_, _, ok = s.lookup(b.eventID(0), "/a")
		require.True(t, ok)
		_, _, ok = s.lookup(b.eventID(0), "/b")
		require.False(t, ok, "a stream is resumed at its endpoint only")
		s.open("/a")
		s.open("/a")
		s.open("/a")
		_, _, ok = s.lookup(b.eventID(0), "/a")
		require.False(t, ok, "past the number the oldest stream is forgotten")
		require.Len(t, s.byID, 3)
	})
	t.Run("retention", func(t *testing.T) {
		s := NewStreams()
		now := time.Now()
		s.now = func() time.Time { return now }
		l := s.open("/a")
		l.add([]byte("x"))
		l.end()
		now = now.Add(StreamRetention - time.Second)
		s.open("/a")
		_, _, ok := s.lookup(l.eventID(1), "/a")
		require.True(t, ok)
		now = now.Add(2 * time.Second)
		s.open("/a")
		_, _, ok = s.lookup(l.eventID(1), "/a")
		require.False(t, ok, "forgotten once its retention is over")
		require.Zero(t, s.bytes)
	})
}
