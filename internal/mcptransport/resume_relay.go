package mcptransport

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Relay carries messages between instances on pub/sub channels (Redis in
// production): with one, a client resumes a stream whichever instance its
// GET reaches, the instance that keeps the stream sending it the events.
type Relay interface {
	// Publish sends msg on channel and returns how many subscribers
	// received it.
	Publish(ctx context.Context, channel string, msg []byte) (int64, error)
	// Subscribe calls fn with every message of channel until ctx ends;
	// ready is called each time the subscription is (re)established.
	Subscribe(ctx context.Context, channel string, fn func(msg []byte), ready func())
}

// relayWait bounds each wait on the relay before the first event: the
// subscription of the answer's channel, and the keeping instance's first
// answer.
const relayWait = 2 * time.Second

// The first byte of each message on an answer's channel.
const (
	relayEvent    = 'e' // an event, framed, follows
	relayDone     = 'd' // the stream has ended
	relayNotFound = 'n' // the instance keeps no such stream
)

// resumeRequest asks the instance that keeps Stream for its events after
// After, published on that instance's channel; the events go to Reply.
type resumeRequest struct {
	Stream string `json:"stream"`
	Scope  string `json:"scope"`
	After  int    `json:"after"`
	Reply  string `json:"reply"`
}

// Share has s serve and resume streams through relay: call it before s
// is used, then Listen.
func (s *Streams) Share(relay Relay) { s.relay = relay }

// streamChannel is the relay channel of an instance's resume requests.
func streamChannel(instance string) string { return "mockmcp:streams:" + instance }

// newInstance names an instance: 12 hex digits.
func newInstance() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// instanceOf is the instance that keeps the stream of an event id: the
// stream id begins with it.
func instanceOf(eventID string) string {
	inst, _, ok := strings.Cut(eventID, "~")
	if !ok {
		return ""
	}
	return inst
}

// Listen answers, until ctx ends, the requests of other instances to
// resume a stream this one keeps. Without a relay it returns at once.
func (s *Streams) Listen(ctx context.Context) {
	if s == nil || s.relay == nil {
		return
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	s.relay.Subscribe(ctx, streamChannel(s.instance), func(msg []byte) {
		var req resumeRequest
		if json.Unmarshal(msg, &req) != nil || !strings.HasPrefix(req.Reply, replyChannelPrefix) {
			return
		}
		wg.Go(func() { s.serveRemote(ctx, req) })
	}, func() {})
}

// serveRemote sends the events of req's stream after req.After on
// req.Reply, then each as it comes, until the stream ends, no one
// listens any more, or ctx ends.
func (s *Streams) serveRemote(ctx context.Context, req resumeRequest) {
	ctx, cancel := context.WithTimeout(ctx, DetachedCallLimit+StreamRetention)
	defer cancel()
	l, n, ok := s.lookup(req.Stream+"."+strconv.Itoa(req.After), req.Scope)
	if !ok {
		_, _ = s.relay.Publish(ctx, req.Reply, []byte{relayNotFound})
		return
	}
	for {
		frames, last, done, changed := l.after(n)
		for _, f := range frames {
			got, err := s.relay.Publish(ctx, req.Reply, append([]byte{relayEvent}, f...))
			if err != nil || got == 0 {
				return // the resuming instance is gone
			}
		}
		n = last
		if done {
			_, _ = s.relay.Publish(ctx, req.Reply, []byte{relayDone})
			return
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return
		}
	}
}

const replyChannelPrefix = "mockmcp:streams:reply:"

// resumeRemote answers a GET resuming a stream another instance keeps:
// it asks that instance on the relay for the events after n and writes
// them as they come. false when no instance answers with the stream
// (the caller answers 404).
func (tr Transport) resumeRemote(w http.ResponseWriter, r *http.Request, instance, stream string, n int) bool {
	s := tr.Streams
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	reply := replyChannelPrefix + newInstance() + newInstance()
	msgs := make(chan []byte, StreamEvents)
	ready := make(chan struct{})
	var once sync.Once
	go s.relay.Subscribe(ctx, reply, func(m []byte) {
		select {
		case msgs <- bytes.Clone(m):
		case <-ctx.Done():
		}
	}, func() { once.Do(func() { close(ready) }) })
	select {
	case <-ready:
	case <-time.After(relayWait):
		return false
	}
	req, _ := json.Marshal(resumeRequest{Stream: stream, Scope: r.URL.Path, After: n, Reply: reply}) // strings and an int always encode
	if got, err := s.relay.Publish(ctx, streamChannel(instance), req); err != nil || got == 0 {
		return false
	}
	var first []byte
	select {
	case first = <-msgs:
	case <-time.After(relayWait):
		return false
	}
	if len(first) == 0 || first[0] == relayNotFound {
		return false
	}
	sw := beginResumed(w)
	for m := first; ; {
		switch {
		case len(m) == 0 || m[0] == relayDone:
			return true
		case m[0] == relayEvent:
			if !sw.write(m[1:]) {
				return true
			}
		}
		select {
		case m = <-msgs:
		case <-ctx.Done():
			return true
		}
	}
}

// resumedWriter writes the events of a resumed stream.
type resumedWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

// beginResumed sends the headers of a resumed stream.
func beginResumed(w http.ResponseWriter) resumedWriter {
	setAnswerHeaders(w.Header())
	setSSEHeaders(w.Header())
	w.Header()["X-Accel-Buffering"] = hdrNo
	w.WriteHeader(http.StatusOK)
	sw := resumedWriter{w: w, rc: http.NewResponseController(w)}
	_ = sw.rc.Flush()
	return sw
}

// write sends one framed event and flushes it; false once the client is
// gone.
func (sw resumedWriter) write(frame []byte) bool {
	_ = sw.rc.SetWriteDeadline(time.Now().Add(StreamWriteTimeout))
	if _, err := sw.w.Write(frame); err != nil {
		return false
	}
	err := sw.rc.Flush()
	return err == nil || errors.Is(err, http.ErrNotSupported)
}
