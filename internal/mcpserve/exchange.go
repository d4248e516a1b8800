package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/mockmcp/mockmcp/internal/clientip"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
	"github.com/mockmcp/mockmcp/internal/mockspec"
	"github.com/mockmcp/mockmcp/internal/regexlimit"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// callRecord is what the stages answering one message note about it for
// the journal: the tool and scenario it reached, the sequence step, the
// outcome, how the scenarios were tried, the rounds of questions and the
// upstream's answer. The state's End reads it once the message is
// answered; the explanation is built from it only for entries the journal
// admits. It lives in the exchange's pooled state, so noting costs no
// allocation.
type callRecord struct {
	tool     string
	scenario string
	step     int // the step of a sequence scenario; -1 for none
	outcome  string
	usedSeq  bool // the sequence key took part: the entry names it
	// explained: matcher, names, args and matched say how the tool's
	// scenarios were tried.
	explained bool
	matcher   *scenario.Matcher
	names     []string
	args      map[string]any
	matched   int
	// when and live, for a tool whose scenarios use the state: the
	// matcher of their when_state and the live state they were tried on.
	when *scenario.Matcher
	live map[string]any
	// rounds are the rounds of questions the call played.
	rounds []journal.Round
	// upstreamLatency and upstreamAnswer (a result, or a JSON-RPC error
	// object) are the upstream's, when it answered the call (outcome
	// proxied).
	upstreamLatency time.Duration
	upstreamAnswer  []byte
	// stateChange is the set_state the answering scenario applied, and
	// stateVersion the version of the live state it left; nil when the
	// call changed no state.
	stateChange  *mockspec.StateChange
	stateVersion int64
}

// explain notes how the scenarios of play were tried against args:
// matched is the index of the one that matched, or the matcher's answer
// when none did.
func (c *callRecord) explain(play *toolPlay, args, live map[string]any, matched int) {
	c.explained, c.matcher, c.names, c.args, c.matched = true, play.matcher, play.names, args, matched
	if play.state != nil {
		c.when, c.live = play.state.whenMatcher, live
	}
}

// mismatches is the journal's explanation of the scenarios that did not
// match; nil when none were tried.
func (c *callRecord) mismatches() []journal.Mismatch {
	if !c.explained {
		return nil
	}
	return explain(c.matcher, c.when, c.names, c.args, c.live, c.matched)
}

// Exchange is the transport's exchange, as this endpoint's methods get it.
type Exchange = mcptransport.Exchange

// serverSide is what the per-server endpoint adds to an exchange: the
// design, its journal (rec, nil when off) and the sequence counters.
type serverSide struct {
	rec        Recorder
	d          *compiled
	seq        Sequencer
	log        *slog.Logger
	ips        *clientip.Resolver // resolves clientAddr when it is empty
	clientAddr string
	// hub holds the open subscriptions/listen streams; keepAlive spaces
	// the comments sent on a quiet one; lifetime ends one with its result.
	hub       *hub
	keepAlive time.Duration
	lifetime  time.Duration
	// states signs and verifies the requestState of scenarios that ask.
	states *stateSigner
	// asks routes legacy clients' answers to the questions waiting for
	// them; askTimeout is how long a round waits without a timeout branch.
	asks       *asker
	askTimeout time.Duration
	// tasks keeps the tasks of the tasks extension; clock reads the time
	// their scripts are reckoned by (time.Now when nil).
	tasks Tasks
	clock func() time.Time
	// fwd relays calls to the design's upstream; nil when forwarding is
	// off.
	fwd Forwarder
	// liveStates keeps the designs' live state; nil when the endpoint
	// keeps none.
	liveStates LiveStates
}

// now is the time of the handler's clock.
func (s *serverSide) now() time.Time {
	if s.clock != nil {
		return s.clock()
	}
	return time.Now()
}

// state is what the per-server endpoint keeps about one exchange, beside
// the transport's. It is the target the transport answers the exchange's
// messages with (Call), so that the method handlers and the journal get it
// typed; it is pooled, and what each message notes is reset per message
// (Begin).
type state struct {
	r *http.Request
	serverSide
	seqKey string
	keyed  bool // seqKey is known

	// view is the design's view answering the current message: d, or its
	// modern form for a modern request (Call).
	view *compiled
	// start is when the current message began to be answered, for the
	// journal.
	start time.Time

	// call is what the stages answering the current message note for
	// the journal.
	call callRecord
	// budget is the regular-expression work the current tools/call may
	// still take; here rather than on the stack because the schema's
	// estimate keeps a pointer to it.
	budget regexlimit.Budget
	// live is the design's live state (a JSON object) as the current
	// tools/call read it, or as its scenario's set_state left it; nil
	// for a call of a tool whose scenarios use no state.
	live json.RawMessage
}

var statePool = sync.Pool{New: func() any { return new(state) }}

func newState(r *http.Request) *state {
	s := statePool.Get().(*state)
	*s = state{r: r}
	return s
}

func (s *state) release() {
	*s = state{}
	statePool.Put(s)
}

// The state is the target of its exchange: the design's, answering its
// methods and taking its client's answers, and keeping the journal.
var (
	_ mcptransport.ModernTarget = (*state)(nil)
	_ mcptransport.Responder    = (*state)(nil)
	_ mcptransport.Recording    = (*state)(nil)
)

// Call answers one method of the design's endpoint, from the design's view
// for the request's era.
func (s *state) Call(ctx context.Context, x *Exchange, method string, params json.RawMessage) (json.RawMessage, error) {
	s.view = s.d
	if x.Modern() {
		m, err := s.d.forModern(ctx)
		if err != nil {
			return nil, err
		}
		s.view = m
	}
	return methods.Call(ctx, x, s, method, params)
}

// Eras, ServerInfo, SupportedVersions and TargetParam are the design's
// (mcptransport.ModernTarget).
func (s *state) Eras() mcptransport.Eras          { return s.d.Eras() }
func (s *state) ServerInfo() []byte               { return s.d.ServerInfo() }
func (s *state) SupportedVersions() []string      { return s.d.SupportedVersions() }
func (s *state) TargetParam(method string) string { return s.d.TargetParam(method) }

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

// sequenceKey is the client's sequence key: the Mcp-Mock-Sequence-Key
// header, else the client address.
func (s *state) sequenceKey() string {
	if !s.keyed {
		s.seqKey = s.r.Header.Get(SequenceKeyHeader)
		if s.seqKey == "" {
			s.seqKey = s.address()
		}
		s.keyed = true
	}
	return s.seqKey
}

// address is the client's address, resolved on first use: through the
// trusted proxies when the handler has a resolver, else the peer's.
func (s *state) address() string {
	if s.clientAddr == "" && s.ips != nil {
		s.clientAddr = s.ips.Of(s.r).String()
	}
	if s.clientAddr == "" && s.r != nil {
		host, _, err := net.SplitHostPort(s.r.RemoteAddr)
		if err != nil {
			host = s.r.RemoteAddr
		}
		s.clientAddr = host
	}
	return s.clientAddr
}

// Begin readies the record of a message when the journal is on: every
// message, answered, refused or invalid, becomes an entry (when the
// journal admits it), with what the stages answering it noted.
func (s *state) Begin() {
	if s.rec == nil {
		return
	}
	s.start = time.Now()
	s.call = callRecord{step: -1}
}

// End records a message once answered, when the journal is on.
func (s *state) End(x *Exchange, req *jsonrpc.Request, result json.RawMessage, err error) {
	if s.rec == nil {
		return
	}
	if x.Refused() != nil {
		s.call.outcome = journal.OutcomeRejected
	}
	s.record(s.start, req, result, err)
}

// record hands the journal what happened to one message: its result (which
// the entry may share: results are never modified) or its error.
func (s *state) record(start time.Time, req *jsonrpc.Request, result json.RawMessage, err error) {
	if !s.rec.Admit(s.d.orgID, s.d.id) {
		return // over the journal's budget: dropped, and counted, before any work
	}
	e := journal.Entry{
		OrgID: s.d.orgID, ServerID: s.d.id, ReceivedAt: start, Latency: time.Since(start),
		ClientAddr: s.address(), Method: req.Method, Tool: s.call.tool, Scenario: s.call.scenario,
		Step: s.call.step, Outcome: s.call.outcome, Answer: result, Rounds: s.call.rounds,
	}
	e.Mismatches = s.call.mismatches()
	if s.call.usedSeq {
		e.SequenceKey = s.sequenceKey()
	}
	if c := s.call.stateChange; c != nil {
		e.StateChange = &journal.StateChange{Set: c.Sets, Deleted: c.Deletes, Version: s.call.stateVersion}
	}
	if c := &s.call; c.outcome == journal.OutcomeProxied {
		e.Upstream = &journal.Upstream{Latency: c.upstreamLatency, Answer: c.upstreamAnswer}
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
	s.rec.Record(e)
}

// explain says why the scenarios tried before the matched one (every one
// when none matched) did not match, in at most journal.MaxExplanation
// bytes; a longer explanation ends with a count of the scenarios left out.
// It runs on the request's goroutine, once, for an admitted entry, and runs
// no pattern (see scenario.Matcher.Explain).
func explain(m, when *scenario.Matcher, names []string, args, live map[string]any, matched int) []journal.Mismatch {
	tried := matched
	if tried < 0 {
		tried = len(names)
	}
	out := make([]journal.Mismatch, 0, min(tried, 8))
	size := 0
	for mm := range mismatches(m, when, args, live, matched) {
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

// mismatches yields why each scenario tried did not match: its condition
// over the arguments, or else (for a tool whose scenarios use the state,
// when is set) its when_state over the live state, the field then read as
// "when_state.FIELD".
func mismatches(m, when *scenario.Matcher, args, live map[string]any, matched int) iter.Seq[scenario.Mismatch] {
	if when == nil {
		return m.Mismatches(args, matched)
	}
	return func(yield func(scenario.Mismatch) bool) {
		byState := map[int]scenario.Mismatch{}
		for mm := range when.Mismatches(live, matched) {
			mm.Field = "when_state." + mm.Field
			mm.Reason = "state " + mm.Reason
			byState[mm.Index] = mm
		}
		next, stop := iter.Pull(m.Mismatches(args, matched))
		defer stop()
		mm, ok := next()
		tried := matched
		if tried < 0 {
			tried = math.MaxInt
		}
		for i := 0; i < tried && (ok || len(byState) > 0); i++ {
			var out scenario.Mismatch
			st, inState := byState[i]
			switch {
			case ok && mm.Index == i:
				// A pattern is taken as the clause that failed without
				// being run again; the state's failing clause is sure.
				out = mm
				if inState && mm.Operator == string(scenario.OpMatches) {
					out = st
				}
				mm, ok = next()
			case inState:
				out = st
			default:
				continue
			}
			delete(byState, i)
			if !yield(out) {
				return
			}
		}
	}
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
