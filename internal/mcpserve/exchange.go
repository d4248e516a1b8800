package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// Exchange is one HTTP request to an MCP endpoint while it is answered:
// where notifications go (the SSE reply, begun early when a call sends
// one), and what the journal learns about each message.
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

	// What a per-server endpoint adds; zero elsewhere.
	serverSide
	seqKey string
	keyed  bool // seqKey is known

	// call is what the method answering the current message tells the
	// journal.
	call callNote
	// budget is the regular-expression work the current tools/call may
	// still take; here rather than on the stack because the schema's
	// estimate keeps a pointer to it.
	budget regexlimit.Budget
}

// callNote is what a method says about the message it answered. The
// journal's explanation is built from it only for entries the journal
// admits.
type callNote struct {
	tool     string
	scenario string
	step     int
	outcome  string
	usedSeq  bool
	// explained: matcher, names, args and matched say how the tool's
	// scenarios were tried.
	explained bool
	matcher   *scenario.Matcher
	names     []string
	args      map[string]any
	matched   int
}

// serverSide is what the per-server endpoint adds to an exchange: the
// design, its journal (rec, nil when off) and the sequence counters.
type serverSide struct {
	rec        Recorder
	d          *design
	seq        Sequencer
	log        *slog.Logger
	ips        *clientip.Resolver // resolves clientAddr when it is empty
	clientAddr string
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

// errClientGone ends a call whose client went away while it waited.
var errClientGone = errors.New("the client went away")

// sleep waits d, or less when the client goes away, without holding
// anything but the request's own goroutine.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return errClientGone
	}
}

// notify sends one notification on the SSE reply, beginning the reply if
// needed; on a plain JSON reply there is nowhere to send it, and it is
// dropped. Replies already complete (earlier messages of a batch) go first.
func (x *Exchange) notify(msg ...[]byte) {
	if !x.sse {
		return
	}
	if !x.streaming {
		setSSEHeaders(x.w.Header())
		x.w.WriteHeader(http.StatusOK)
		x.streaming = true
	}
	if x.committed > 0 {
		_, _ = x.w.Write(x.out.Next(x.committed))
		x.committed = 0
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

// sequenceKey is the client's sequence key: the Mcp-Mock-Sequence-Key
// header, else the client address.
func (x *Exchange) sequenceKey() string {
	if !x.keyed {
		x.seqKey = x.r.Header.Get(SequenceKeyHeader)
		if x.seqKey == "" {
			x.seqKey = x.address()
		}
		x.keyed = true
	}
	return x.seqKey
}

// address is the client's address, resolved on first use: through the
// trusted proxies when the handler has a resolver, else the peer's.
func (x *Exchange) address() string {
	if x.clientAddr == "" && x.ips != nil {
		x.clientAddr = x.ips.Of(x.r).String()
	}
	if x.clientAddr == "" && x.r != nil {
		host, _, err := net.SplitHostPort(x.r.RemoteAddr)
		if err != nil {
			host = x.r.RemoteAddr
		}
		x.clientAddr = host
	}
	return x.clientAddr
}

// journaled is the middleware of a per-server endpoint whose journal is
// on: every message, answered, refused or invalid, becomes an entry (when
// the journal admits it).
func journaled(next MessageHandler) MessageHandler {
	return func(ctx context.Context, x *Exchange, t Target, req *jsonrpc.Request) (json.RawMessage, error) {
		if x.rec == nil {
			return next(ctx, x, t, req)
		}
		start := time.Now()
		x.call = callNote{step: -1}
		result, err := next(ctx, x, t, req)
		if x.refused != nil {
			x.call.outcome = journal.OutcomeRejected
		}
		x.record(start, req, result, err)
		return result, err
	}
}

// record hands the journal what happened to one message: its result (which
// the entry may share: results are never modified) or its error.
func (x *Exchange) record(start time.Time, req *jsonrpc.Request, result json.RawMessage, err error) {
	if !x.rec.Admit() {
		return // over the journal's budget: dropped, and counted, before any work
	}
	e := journal.Entry{
		OrgID: x.d.orgID, ServerID: x.d.id, ReceivedAt: start, Latency: time.Since(start),
		ClientAddr: x.address(), Method: req.Method, Tool: x.call.tool, Scenario: x.call.scenario,
		Step: x.call.step, Outcome: x.call.outcome, Answer: result,
	}
	if c := &x.call; c.explained {
		e.Mismatches = explain(c.matcher, c.names, c.args, c.matched)
	}
	if x.call.usedSeq {
		e.SequenceKey = x.sequenceKey()
	}
	if len(req.Params) > 0 {
		e.Params = append(json.RawMessage(nil), req.Params...)
	}
	if err != nil {
		e.ErrorCode = int(errorCode(err))
		e.Answer = errorObject(err)
		if e.Outcome == "" || e.Outcome == journal.OutcomeResult {
			e.Outcome = journal.OutcomeError
		}
	} else if e.Outcome == "" {
		e.Outcome = journal.OutcomeResult
	}
	x.rec.Record(e)
}

// explain says why the scenarios tried before the matched one (every one
// when none matched) did not match, in at most journal.MaxExplanation
// bytes; a longer explanation ends with a count of the scenarios left out.
// It runs on the request's goroutine, once, for an admitted entry, and runs
// no pattern (see scenario.Matcher.Explain).
func explain(m *scenario.Matcher, names []string, args map[string]any, matched int) []journal.Mismatch {
	tried := matched
	if tried < 0 {
		tried = len(names)
	}
	out := make([]journal.Mismatch, 0, min(tried, 8))
	size := 0
	for mm := range m.Mismatches(args, matched) {
		name := "#" + strconv.Itoa(mm.Index)
		if mm.Index < len(names) {
			name = names[mm.Index]
		}
		size += len(name) + len(mm.Field) + len(mm.Operator) + len(mm.Reason)
		if size > journal.MaxExplanation {
			out = append(out, journal.Mismatch{Reason: fmt.Sprintf(
				"%d more scenarios did not match (an explanation keeps %d bytes)", tried-len(out), journal.MaxExplanation)})
			break
		}
		out = append(out, journal.Mismatch{Scenario: name, Field: mm.Field, Operator: mm.Operator, Reason: mm.Reason})
	}
	return out
}

// errorObject is the JSON of the error object err is sent as.
func errorObject(err error) []byte {
	var sc *jsonrpc.Scripted
	if errors.As(err, &sc) {
		return sc.Body
	}
	b, _ := json.Marshal(jsonrpc.Wire(err))
	return b
}

func errorCode(err error) int64 {
	var sc *jsonrpc.Scripted
	if errors.As(err, &sc) {
		return sc.Code
	}
	return jsonrpc.Wire(err).Code
}
