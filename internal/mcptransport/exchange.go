package mcptransport

import (
	"bytes"
	"net/http"
	"sync"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
)

// Exchange is one HTTP request to an MCP endpoint while it is answered:
// where notifications go (the SSE reply, begun early when a call sends
// one), the message being answered, and the target's recording of its
// messages (a per-server endpoint's journal).
type Exchange struct {
	w   http.ResponseWriter
	r   *http.Request
	sse bool
	// streaming: the reply's headers are sent; what follows goes out as
	// it is written.
	streaming bool
	out       *bytes.Buffer
	// committed is how much of out holds whole replies, which may go out
	// before a notification; the rest is a reply being written.
	committed int

	// req is the current message; invalid, why it does not parse; refused, the
	// error a member of a batch past the rate limit's allowance gets
	// instead of being run.
	req              jsonrpc.Request
	invalid, refused error

	// recording is the target, when it keeps a record of each message
	// (Recording); nil otherwise.
	recording Recording

	// target and eras: the endpoint, when it may answer modern requests
	// (eras zero otherwise); modern and meta: the current message is a
	// modern request, and its _meta; status: the HTTP status a lone
	// message's reply goes with (0 for 200).
	target  ModernTarget
	eras    Eras
	inBatch bool
	modern  bool
	meta    RequestMeta
	status  int
	// unavailable is the detail of a lone message's reply that is 503: a
	// dependency (the database, another instance) could not be reached.
	unavailable string
	// streams is where the reply is kept for a client to resume it, when
	// it may be (nil otherwise): its events carry ids, after a priming
	// event. resume is its stream, opened with the first event.
	streams *Streams
	resume  *streamLog
}

// resumable opens the reply's stream, once.
func (x *Exchange) resumable() *streamLog {
	if x.resume == nil {
		x.resume = x.streams.open(x.r.URL.Path)
	}
	return x.resume
}

var exchangePool = sync.Pool{New: func() any { return new(Exchange) }}

func newExchange(w http.ResponseWriter, r *http.Request, sse bool, out *bytes.Buffer) *Exchange {
	x := exchangePool.Get().(*Exchange)
	*x = Exchange{w: w, r: r, sse: sse, out: out}
	return x
}

func (x *Exchange) release() {
	*x = Exchange{}
	exchangePool.Put(x)
}

// Request is the HTTP request of the exchange.
func (x *Exchange) Request() *http.Request { return x.r }

// Refused is the error the current message gets instead of being run (a
// member of a batch past the rate limit's allowance); nil for one that is
// run.
func (x *Exchange) Refused() error { return x.refused }

// Notify sends one notification on the SSE reply, beginning the reply if
// needed; on a plain JSON reply there is nowhere to send it, and it is
// dropped. Replies already complete (earlier messages of a batch) go first.
func (x *Exchange) Notify(msg ...[]byte) {
	if !x.sse {
		return
	}
	if !x.streaming {
		setSSEHeaders(x.w.Header())
		x.w.WriteHeader(http.StatusOK)
		x.streaming = true
		if x.streams != nil {
			_, _ = x.w.Write(x.resumable().primingEvent())
		}
	}
	if x.committed > 0 {
		_, _ = x.w.Write(x.out.Next(x.committed))
		x.committed = 0
	}
	if x.streams != nil {
		_, _ = x.w.Write(x.resumable().add(bytes.Join(msg, nil)))
		_ = http.NewResponseController(x.w).Flush()
		return
	}
	var frame bytes.Buffer
	frame.WriteString("event: message\ndata: ")
	for _, m := range msg {
		frame.Write(m)
	}
	frame.WriteString("\n\n")
	_, _ = x.w.Write(frame.Bytes())
	_ = http.NewResponseController(x.w).Flush()
}

// CanAsk reports whether requests can be sent to the client on this
// exchange: its reply is an SSE stream (the client accepts
// text/event-stream) and the message is not a member of a batch.
func (x *Exchange) CanAsk() bool { return x.sse && !x.inBatch }

// endResumable sends the rest of a resumable reply and ends its stream:
// the priming event first when nothing went out yet, then the reply (the
// one message's answer in out, framed by dispatch) as an event with its
// id.
func (x *Exchange) endResumable(answered int) {
	x.resumable()
	if !x.streaming {
		setSSEHeaders(x.w.Header())
		x.w.WriteHeader(http.StatusOK)
		x.streaming = true
		_, _ = x.w.Write(x.resume.primingEvent())
	}
	if msg := bytes.TrimSuffix(bytes.TrimPrefix(x.out.Bytes(), sseEventPrefix), sseEventSuffix); answered > 0 && len(msg) > 0 {
		_, _ = x.w.Write(x.resume.add(bytes.Clone(msg)))
	}
	x.resume.end()
}
