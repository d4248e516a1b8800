package a2aserve

import (
	"encoding/json"
	"net/http"

	"github.com/mockmcp/mockmcp/internal/agentcard"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/store"
)

// stream is an SSE answer: each event one JSON-RPC response with the
// request's id, or in the HTTP+JSON binding the bare StreamResponse (and
// an error as an `error` event).
type stream struct {
	w    http.ResponseWriter
	rc   *http.ResponseController
	id   json.RawMessage
	rest bool
}

func startStream(c *call) *stream {
	h := c.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	c.w.WriteHeader(http.StatusOK)
	return &stream{w: c.w, rc: http.NewResponseController(c.w), id: c.id, rest: c.rest}
}

// send writes one event; false when the client has gone.
func (s *stream) send(result any) bool {
	raw, err := json.Marshal(result)
	if err != nil {
		return s.fail(err)
	}
	if s.rest {
		return s.write("", raw)
	}
	return s.write("", jsonrpc.AppendResult(nil, s.id, raw))
}

// fail ends the stream with err.
func (s *stream) fail(err error) bool {
	if s.rest {
		return s.write("error", restError(err))
	}
	return s.write("", jsonrpc.AppendError(nil, s.id, err))
}

func (s *stream) write(event string, body []byte) bool {
	buf := make([]byte, 0, len(body)+24)
	if event != "" {
		buf = append(buf, "event: "+event+"\n"...)
	}
	buf = append(buf, "data: "...)
	buf = append(buf, body...)
	buf = append(buf, "\n\n"...)
	if _, err := s.w.Write(buf); err != nil {
		return false
	}
	return s.rc.Flush() == nil
}

// play streams task t: first the Task as it is now, then a status update
// (and, as it ends, its artifacts) each time its timeline moves, until it
// ends or waits for input. It looks at the task at least every h.poll, so
// that a cancel from another request ends the stream too.
func (h *Handler) play(c *call, t store.A2ATask, sc script) {
	s := startStream(c)
	id := t.ID.String()
	v := sc.at(t, h.now())
	task, err := h.taskNow(t, sc, c.era, nil)
	if err != nil {
		h.log.ErrorContext(c.ctx, "agent task unreadable", "task", id, "error", err.Error())
		s.fail(err)
		return
	}
	if !s.send(taskResult(c.era, task)) {
		return
	}
	for !v.Terminal() && v.State != agentcard.TaskInputRequired {
		d := h.poll
		if !v.Next.IsZero() {
			d = min(d, v.Next.Sub(h.now()))
		}
		if d > 0 {
			if err := h.wait(c.ctx, d); err != nil {
				return
			}
		}
		latest, err := h.tasks.A2ATask(c.ctx, t.OrgID, t.CardID, t.ID)
		if err != nil {
			s.fail(taskError(err, id))
			return
		}
		next := sc.at(latest, h.now())
		if next.State == v.State && next.Phase == v.Phase {
			continue
		}
		v = next
		if v.Terminal() {
			for _, a := range v.Artifacts {
				if !s.send(artifactEvent(c.era, id, t.ContextID, a)) {
					return
				}
			}
		}
		if !s.send(statusEvent(c.era, id, t.ContextID, v, v.Terminal() || v.State == agentcard.TaskInputRequired)) {
			return
		}
	}
}
