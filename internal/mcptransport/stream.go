package mcptransport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
)

// StreamWriteTimeout bounds one write on a long-lived stream: a client that
// stops reading for that long loses its stream instead of holding it.
const StreamWriteTimeout = 30 * time.Second

// Stream is the long-lived SSE reply of one request (subscriptions/listen):
// its headers are sent when it begins, and each message goes out as it is
// sent. It is written by the request's goroutine only; the request's
// result, returned by its method as usual, is the stream's last event.
type Stream struct {
	x  *Exchange
	rc *http.ResponseController
}

// ID is the JSON-RPC id of the request being answered, as sent.
func (x *Exchange) ID() json.RawMessage { return x.req.ID }

// Stream begins the reply to the current request as a long-lived SSE
// stream. The reply of a client that does not accept text/event-stream
// cannot be one: that is -32600 with HTTP 406 Not Acceptable, as is a
// member of a batch.
func (x *Exchange) Stream() (*Stream, error) {
	if !x.sse || x.inBatch {
		return nil, WithStatus(fmt.Errorf("%w: the answer to %s is a stream of server-sent events; send it alone, with Accept: text/event-stream",
			jsonrpc.ErrInvalidRequest, x.req.Method), http.StatusNotAcceptable)
	}
	if x.resume != nil { // a long-lived stream is not kept for resuming
		x.resume.discard()
	}
	x.streams, x.resume = nil, nil
	s := &Stream{x: x, rc: http.NewResponseController(x.w)}
	hdr := x.w.Header()
	setSSEHeaders(hdr)
	hdr["X-Accel-Buffering"] = hdrNo
	x.w.WriteHeader(http.StatusOK)
	x.streaming = true
	return s, s.flush()
}

// Send writes one message as an SSE event and flushes it.
func (s *Stream) Send(msg []byte) error {
	var frame bytes.Buffer
	frame.Grow(len(sseEventPrefix) + len(msg) + len(sseEventSuffix))
	frame.Write(sseEventPrefix)
	frame.Write(msg)
	frame.Write(sseEventSuffix)
	return s.write(frame.Bytes())
}

var keepAlive = []byte(":\n\n")

// KeepAlive writes an SSE comment, which clients ignore and which keeps
// idle connections from being closed by proxies.
func (s *Stream) KeepAlive() error { return s.write(keepAlive) }

func (s *Stream) write(b []byte) error {
	_ = s.rc.SetWriteDeadline(time.Now().Add(StreamWriteTimeout))
	if _, err := s.x.w.Write(b); err != nil {
		return err
	}
	return s.flush()
}

func (s *Stream) flush() error {
	if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}
