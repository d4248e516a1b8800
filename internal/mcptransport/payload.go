package mcptransport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/protocol"
)

// DefaultMaxBatchMessages is the longest batch answered when the Transport
// names no limit.
const DefaultMaxBatchMessages = 100

// Payload is the body of a POST, read and sized up before any of it is
// answered: a rate limit counts its messages, and a batch that is too long
// (or not allowed at all) is refused as a whole without a member being
// decoded. Declare one per request, fill it with Transport.Read, and
// Release it once answered.
type Payload struct {
	buf     *bodyBuffer // from bodyPool; Release returns it
	body    []byte
	isBatch bool
	batch   jsonrpc.Batch
	// count is how many messages the body holds; a body refused as a
	// whole counts one.
	count int
	// refusal, when set, is the one error that answers the whole body, with
	// HTTP status refusalStatus.
	refusal       error
	refusalStatus int
	// limited: only the first admitted messages are answered; each later
	// request gets a rate-limit error saying retryAfter.
	limited    bool
	admitted   int
	retryAfter int64
}

// Read reads the body of a POST into p and counts its messages. When the
// body cannot be read it answers (413, 400) and returns false; otherwise
// the caller releases p once the request is answered.
//
// The body is held once, in a pooled buffer of at most MaxBodyBytes; a
// batch is checked (json.Valid) and its members counted without copying
// or decoding them, and counting stops past MaxBatchMessages, so what a
// request holds in memory is bounded by the body limit whatever the body
// contains.
func (tr Transport) Read(w http.ResponseWriter, r *http.Request, p *Payload) bool {
	if status, detail := tr.ReadBody(r, p); status != 0 {
		WriteProblem(w, status, detail)
		return false
	}
	return true
}

// ReadBody is Read without the answer: when the body cannot be read it
// returns the status to answer (413, 400) and why, for an endpoint that
// sets headers of its own on the refusal (WriteProblem writes it); status
// 0 is a body read, which the caller releases.
func (tr Transport) ReadBody(r *http.Request, p *Payload) (status int, detail string) {
	if r.ContentLength > tr.MaxBodyBytes {
		return http.StatusRequestEntityTooLarge, msgTooLarge
	}
	buf := bodyPool.Get().(*bodyBuffer)
	buf.Reset()
	buf.limit = io.LimitedReader{R: r.Body, N: tr.MaxBodyBytes + 1}
	n, err := buf.ReadFrom(&buf.limit)
	buf.limit.R = nil
	if err != nil || n > tr.MaxBodyBytes {
		bodyPool.Put(buf)
		if err != nil {
			return http.StatusBadRequest, "the request body could not be read"
		}
		return http.StatusRequestEntityTooLarge, msgTooLarge
	}
	*p = Payload{buf: buf, body: buf.Bytes(), count: 1}
	if !jsonrpc.IsBatch(p.body) {
		return 0, ""
	}
	if v := r.Header.Get("Mcp-Protocol-Version"); !protocol.HasBatches(v) {
		if !utf8.Valid(p.body) || !jsonrpc.Valid(p.body) {
			// Not UTF-8 JSON, so not a batch either: a parse error, as
			// any such body is.
			return 0, ""
		}
		// The body is not a message of the protocol the client speaks: a
		// transport error, which that protocol answers with an HTTP error
		// status (400, with a JSON-RPC error and no id), as the MCP SDKs do.
		p.refusal = jsonrpc.InvalidRequest(fmt.Sprintf(
			"JSON-RPC batching was removed from MCP in protocol version %s (this request names %s): send one message per request",
			protocol.BatchesRemovedIn, v))
		p.refusalStatus = http.StatusBadRequest
		return 0, ""
	}
	batch, count, err := jsonrpc.OpenBatch(p.body, tr.maxBatch())
	if err != nil {
		// Where batches exist, a refused batch is a JSON-RPC error like any
		// other (HTTP 200): an empty batch or one that is not JSON is
		// answered that way too.
		p.refusal, p.refusalStatus = err, http.StatusOK
		return 0, ""
	}
	p.isBatch, p.batch, p.count = true, batch, count
	return 0, ""
}

const msgTooLarge = "request body too large"

func (tr Transport) maxBatch() int {
	if tr.MaxBatchMessages > 0 {
		return tr.MaxBatchMessages
	}
	return DefaultMaxBatchMessages
}

// bodyBuffer holds a request body, with the reader that bounds it (kept
// here so that reading allocates nothing).
type bodyBuffer struct {
	bytes.Buffer
	limit io.LimitedReader
}

var bodyPool = sync.Pool{New: func() any { return new(bodyBuffer) }}

// Messages is how many JSON-RPC messages the body holds, to count against a
// rate limit: one for a single message, each member of a batch, and one for
// a body refused as a whole.
func (p *Payload) Messages() int { return p.count }

// Limit answers only the first admitted messages; every later request of
// the batch gets a rate-limit error (-32000) saying retryAfter seconds.
func (p *Payload) Limit(admitted int, retryAfter int64) {
	p.limited, p.admitted, p.retryAfter = true, admitted, retryAfter
}

// Release returns the payload's buffer; p must not be used after.
func (p *Payload) Release() {
	if p.buf != nil {
		bodyPool.Put(p.buf)
		*p = Payload{}
	}
}

// rateLimited is the error a message past the allowance gets.
func (p *Payload) rateLimited() error {
	return rateLimitError(p.retryAfter)
}

func rateLimitError(retryAfter int64) error {
	return jsonrpc.WithData(fmt.Errorf("%w: retry after %d seconds", jsonrpc.ErrRateLimited, retryAfter),
		map[string]int64{"retry_after": retryAfter})
}

// WriteRateLimited answers 429 with a JSON-RPC error (-32000), carrying the
// request's id when the body is a single message whose id can be read.
func (tr Transport) WriteRateLimited(w http.ResponseWriter, p *Payload, retryAfter int64) {
	if tr.RateLimited != nil {
		tr.RateLimited(p.Messages())
	}
	var id json.RawMessage
	if !jsonrpc.IsBatch(p.body) {
		var msg struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(p.body, &msg) == nil && len(msg.ID) > 0 && strings.IndexByte(`"-0123456789`, msg.ID[0]) >= 0 {
			id = msg.ID // a string or a number: an id the client can match
		}
	}
	WriteRPCError(w, http.StatusTooManyRequests, id, rateLimitError(retryAfter))
}

// EachMessage calls fn with each message of the body (each member of a
// batch, or the one message) until fn returns false; a body refused as a
// whole has none. The messages are not checked: fn decodes what it needs.
func (p *Payload) EachMessage(fn func(msg []byte) bool) {
	switch {
	case p.refusal != nil:
	case p.isBatch:
		b := p.batch // a copy: the batch is answered from the start later
		for m, ok := b.Next(); ok; m, ok = b.Next() {
			if !fn(m) {
				return
			}
		}
	default:
		fn(p.body)
	}
}
