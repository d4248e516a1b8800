package mcptransport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mockmcp/mockmcp/internal/protocol"
)

// The bounds of resumable streams: what the protocol.V20251125 transport lets a
// client resume (a priming event with an id and a retry field first, then
// GET with Last-Event-ID for the rest of the stream).
const (
	// RetryMillis is the retry field of the priming event: how long a
	// client waits before it reconnects.
	RetryMillis = 1000
	// StreamEvents and StreamBytes bound what one stream keeps for a
	// client that reconnects: past either the oldest events are dropped
	// (the newest one is always kept).
	StreamEvents = 64
	StreamBytes  = 256 << 10
	// StreamRetention is how long a stream that has ended can still be
	// resumed.
	StreamRetention = time.Minute
	// DetachedCallLimit bounds a call whose stream can be resumed, which
	// goes on when its client disconnects, so that the client can get
	// the rest by reconnecting.
	DetachedCallLimit = 10 * time.Minute
	// MaxStreams and MaxStreamBytes bound every stream kept by one
	// instance together: past either the oldest streams are forgotten.
	MaxStreams     = 10_000
	MaxStreamBytes = 64 << 20
)

// primingFrom is the first revision whose streams are primed: older
// clients may not read an event without data.
const primingFrom = protocol.V20251125

// Streams keeps the SSE streams of one instance that clients may resume:
// each a bounded log of its events, kept while its call runs and
// StreamRetention after. The zero value is not usable: NewStreams.
type Streams struct {
	// instance begins the id of every stream this instance keeps, for
	// another instance to ask it through relay (nil: no other).
	instance string
	relay    Relay

	mu   sync.Mutex
	byID map[string]*streamLog
	// order holds the streams kept, oldest first, and forgotten ones
	// until they reach the front (forgetting one is then O(1)).
	order   []*streamLog
	bytes   int
	now     func() time.Time
	streams int // bound on len(byID)
	budget  int // bound on bytes
}

// NewStreams returns an empty set of resumable streams with the default
// bounds.
func NewStreams() *Streams {
	return &Streams{instance: newInstance(), byID: map[string]*streamLog{}, now: time.Now, streams: MaxStreams, budget: MaxStreamBytes}
}

// streamLog is one resumable stream: the events sent after its priming
// event, numbered from 1, the oldest possibly dropped.
type streamLog struct {
	set   *Streams
	id    string
	scope string // the endpoint's path: a stream is resumed where it began
	// Guarded by set.mu.
	events  [][]byte // messages, events[i] numbered first+i
	first   int
	next    int
	bytes   int
	done    bool
	ended   time.Time
	changed chan struct{} // closed when an event is added or the stream ends
}

// primes reports whether the reply to r is a stream a client may resume:
// an SSE reply to a legacy request of protocol.V20251125 or later (older clients
// may not read the priming event's empty data; modern requests are
// stateless).
func primes(r *http.Request, sse bool) bool {
	if !sse {
		return false
	}
	v := r.Header[HeaderProtocolVersion]
	if len(v) == 0 {
		return false
	}
	version := strings.Trim(v[0], " \t")
	return protocol.Supported(version) && protocol.AtLeast(version, primingFrom)
}

// open begins a stream for scope: its id is the instance's name and 128
// random bits, so no client can name another's stream, in its
// organization or another.
func (s *Streams) open(scope string) *streamLog {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	l := &streamLog{set: s, id: s.instance + "~" + base64.RawURLEncoding.EncodeToString(b[:]), scope: scope, first: 1, next: 1,
		changed: make(chan struct{})}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	for len(s.byID) >= s.streams {
		s.forget(s.oldest())
	}
	s.byID[l.id] = l
	s.order = append(s.order, l)
	return l
}

// sweep forgets the oldest streams that ended more than StreamRetention
// ago. Called with mu held.
func (s *Streams) sweep() {
	now := s.now()
	for len(s.order) > 0 {
		l := s.oldest()
		if l == nil || !l.done || now.Sub(l.ended) < StreamRetention {
			return
		}
		s.forget(l)
	}
}

// oldest is the oldest stream kept, the forgotten ones before it dropped
// from order; nil when none is kept. Called with mu held.
func (s *Streams) oldest() *streamLog {
	for len(s.order) > 0 {
		if l := s.order[0]; s.byID[l.id] == l {
			return l
		}
		s.order[0] = nil
		s.order = s.order[1:]
	}
	return nil
}

// forget drops l. Called with mu held.
func (s *Streams) forget(l *streamLog) {
	if s.byID[l.id] != l {
		return
	}
	delete(s.byID, l.id)
	s.oldest() // drops l from order when it was the oldest
	s.bytes -= l.bytes
	l.events, l.bytes = nil, 0
	if !l.done {
		l.done = true
		close(l.changed)
	}
}

// eventID is the id of event n of l.
func (l *streamLog) eventID(n int) string { return l.id + "." + strconv.Itoa(n) }

// primingEvent is the first event of l: its id, the retry field, no data.
func (l *streamLog) primingEvent() []byte {
	return []byte("id: " + l.eventID(0) + "\nretry: " + strconv.Itoa(RetryMillis) + "\ndata: \n\n")
}

// add keeps msg as l's next event and returns it framed with its id.
func (l *streamLog) add(msg []byte) []byte {
	s := l.set
	s.mu.Lock()
	n := l.next
	l.next++
	if s.byID[l.id] == l {
		l.events = append(l.events, msg)
		l.bytes += len(msg)
		s.bytes += len(msg)
		for len(l.events) > 1 && (len(l.events) > StreamEvents || l.bytes > StreamBytes) {
			l.drop()
		}
		for s.bytes > s.budget {
			o := s.oldest()
			if o == l || o == nil {
				break
			}
			s.forget(o)
		}
		close(l.changed)
		l.changed = make(chan struct{})
	}
	s.mu.Unlock()
	return eventFrame(l.eventID(n), msg)
}

// drop forgets l's oldest event. Called with mu held.
func (l *streamLog) drop() {
	l.bytes -= len(l.events[0])
	l.set.bytes -= len(l.events[0])
	l.events[0] = nil
	l.events = l.events[1:]
	l.first++
}

// end marks l complete: a client resuming it gets what is kept, then the
// end of the stream.
func (l *streamLog) end() {
	s := l.set
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.done {
		return
	}
	l.done, l.ended = true, s.now()
	close(l.changed)
}

// discard forgets l at once: its reply was no stream (an HTTP error, or
// no answer).
func (l *streamLog) discard() {
	s := l.set
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forget(l)
}

// eventFrame is msg as an SSE event with id.
func eventFrame(id string, msg []byte) []byte {
	var b bytes.Buffer
	b.Grow(len("id: \n") + len(id) + len(sseEventPrefix) + len(msg) + len(sseEventSuffix))
	b.WriteString("id: ")
	b.WriteString(id)
	b.WriteByte('\n')
	b.Write(sseEventPrefix)
	b.Write(msg)
	b.Write(sseEventSuffix)
	return b.Bytes()
}

// after returns the events of l after event n, framed, the number of the
// last of them (n when there is none), whether l has ended, and what to
// wait on for more.
func (l *streamLog) after(n int) (frames [][]byte, last int, done bool, changed <-chan struct{}) {
	s := l.set
	s.mu.Lock()
	defer s.mu.Unlock()
	last = n
	for i, msg := range l.events {
		if k := l.first + i; k > n {
			frames = append(frames, eventFrame(l.eventID(k), msg))
			last = k
		}
	}
	return frames, last, l.done, l.changed
}

// parseEventID reads an event id: its stream and its number.
func parseEventID(eventID string) (stream string, n int, ok bool) {
	stream, num, ok := strings.Cut(eventID, ".")
	if !ok || stream == "" {
		return "", 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 {
		return "", 0, false
	}
	return stream, n, true
}

// lookup finds the stream of an event id resumed at scope, and the
// number of that event.
func (s *Streams) lookup(eventID, scope string) (*streamLog, int, bool) {
	id, n, ok := parseEventID(eventID)
	if !ok {
		return nil, 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.byID[id]
	if !ok || l.scope != scope || n >= l.next {
		return nil, 0, false
	}
	return l, n, true
}

// HeaderLastEventID is the header a client resuming a stream names the
// last event it received in.
const HeaderLastEventID = "Last-Event-Id"

// Resumes reports whether r is a GET resuming a stream (with
// Last-Event-ID), which the endpoint authorizes as a POST and then
// answers with Resume.
func (tr Transport) Resumes(r *http.Request) bool {
	return tr.Streams != nil && r.Method == http.MethodGet && r.Header.Get(HeaderLastEventID) != ""
}

// Resume answers a GET with Last-Event-ID: the events of that stream
// after the one named, then each event as it is sent, until the stream
// ends (its call answered), the client goes or StreamWriteTimeout passes
// without a write going through. A stream another instance keeps is
// asked of it through the relay, when there is one. An id no instance
// keeps (never given, forgotten past the bounds, or of another endpoint)
// is 404.
func (tr Transport) Resume(w http.ResponseWriter, r *http.Request) {
	s := tr.Streams
	eventID := strings.TrimSpace(r.Header.Get(HeaderLastEventID))
	l, n, ok := s.lookup(eventID, r.URL.Path)
	if !ok {
		stream, after, parsed := parseEventID(eventID)
		if inst := instanceOf(eventID); parsed && s.relay != nil && inst != "" && inst != s.instance &&
			tr.resumeRemote(w, r, inst, stream, after) {
			return
		}
		WriteProblem(w, http.StatusNotFound, "no stream to resume from this Last-Event-ID: it ended more than a minute ago, was never given, or is kept by an instance that cannot be reached")
		return
	}
	sw := beginResumed(w)
	ctx := r.Context()
	for {
		frames, last, done, changed := l.after(n)
		for _, f := range frames {
			if !sw.write(f) {
				return
			}
		}
		n = last
		if done {
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

// detach is the context of a call whose stream can be resumed: it does
// not end when the client disconnects, so the client can reconnect for
// the rest, but ends within DetachedCallLimit.
func detach(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), DetachedCallLimit)
}
