package a2aserve

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/agentjournal"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/scenario"
)

// Recorder journals the messages an agent answered; *agentjournal.Writer
// is the one in production. Admit is asked first, so that a message the
// journal would drop costs nothing more.
type Recorder interface {
	Admit(card uuid.UUID) bool
	Record(e agentjournal.Entry) bool
}

// journaling is what a Handler needs to journal its messages; its zero
// value journals nothing.
type journaling struct {
	rec        Recorder
	clientAddr func(*http.Request) string
	tokens     TokenCheck
}

// Journal makes h journal every message to a card into rec; clientAddr
// names a request's client. It returns h.
func (h *Handler) Journal(rec Recorder, clientAddr func(*http.Request) string) *Handler {
	h.rec, h.clientAddr = rec, clientAddr
	return h
}

// exchange is the journal entry of one request being answered; a nil
// *exchange records nothing, so the endpoint calls its methods freely.
type exchange struct {
	rec   Recorder
	start time.Time
	e     agentjournal.Entry
}

// begin starts the entry of a request to agent over binding, or nil when the handler
// does not journal or the journal would drop it.
func (h *Handler) begin(r *http.Request, agent Agent, start time.Time, binding string) *exchange {
	if h.rec == nil || agent.ID == uuid.Nil || !h.rec.Admit(agent.ID) {
		return nil
	}
	version := r.Header.Get(VersionHeader)
	if version == "" && binding == agentjournal.BindingHTTP {
		version = Version10 // the HTTP+JSON binding speaks 1.0 alone
	} else if version == "" {
		version = Version03
	}
	x := &exchange{rec: h.rec, start: start, e: agentjournal.Entry{OrgID: agent.OrgID, CardID: agent.ID,
		ReceivedAt: start, Binding: binding, Version: version}}
	if h.clientAddr != nil {
		x.e.ClientAddr = h.clientAddr(r)
	}
	return x
}

// method notes the request's method.
func (x *exchange) method(m string) {
	if x != nil {
		x.e.Method = m
	}
}

// received notes the message read from the request.
func (x *exchange) received(in incoming) {
	if x == nil {
		return
	}
	x.e.Message = &agentjournal.Message{Text: in.Text, Data: in.Data, Metadata: in.Metadata, ContextID: in.ContextID}
}

// answered notes the reply chosen for in, and why the replies tried before
// it did not match. It runs no pattern: the match already paid for them.
func (x *exchange) answered(card agentcard.Card, in incoming, out outgoing) {
	if x == nil {
		return
	}
	x.e.Reply, x.e.Skill = out.Reply, out.Skill
	if x.e.Reply == "" {
		x.e.Reply = agentjournal.DefaultReply
	}
	in.ContextID = out.ContextID
	x.e.Mismatches = explainReplies(card.Replies, in.args(), out.Reply)
}

// finish records the entry with the answer sent and the error, if any.
func (x *exchange) finish(answer []byte, err error) {
	if x == nil {
		return
	}
	x.e.Latency = time.Since(x.start)
	x.e.Answer = answer
	x.e.Outcome = agentjournal.OutcomeResult
	if err != nil {
		x.e.Outcome = agentjournal.OutcomeError
		x.e.Reply, x.e.Skill, x.e.Mismatches = "", "", nil
		var je *jsonrpc.Error
		if errors.As(err, &je) {
			x.e.ErrorCode = int(je.Code)
		} else {
			x.e.ErrorCode = int(jsonrpc.ErrInternal.Code)
		}
	}
	x.rec.Record(x.e)
}

// explainReplies says, for each reply before the one named chosen (every
// reply when chosen is ""), why its condition did not match args, in at
// most agentjournal.MaxExplanation bytes.
func explainReplies(replies []agentcard.Reply, args map[string]any, chosen string) []agentjournal.Mismatch {
	if len(replies) == 0 {
		return nil
	}
	conds := make([]scenario.Condition, len(replies))
	upto := -1
	for i, r := range replies {
		conds[i], _ = scenario.Compile(r.Condition) // an invalid one matches nothing, and says so
		if r.Name == chosen && upto < 0 {
			upto = i
		}
	}
	tried := upto
	if tried < 0 {
		tried = len(replies)
	}
	var out []agentjournal.Mismatch
	size := 0
	for mm := range scenario.NewMatcher(conds).Mismatches(args, upto) {
		name := replies[mm.Index].Name
		if name == "" {
			name = "#" + strconv.Itoa(mm.Index)
		}
		size += len(name) + len(mm.Field) + len(mm.Operator) + len(mm.Reason)
		if size > agentjournal.MaxExplanation {
			out = append(out, agentjournal.Mismatch{Reason: fmt.Sprintf(
				"%d more replies did not match (an explanation keeps %d bytes)", tried-len(out), agentjournal.MaxExplanation)})
			break
		}
		out = append(out, agentjournal.Mismatch{Scenario: name, Field: mm.Field, Operator: mm.Operator, Reason: mm.Reason})
	}
	return out
}
