package mcpserve

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
)

// DefaultKeepAlive spaces the SSE comments sent on a quiet listen stream.
const DefaultKeepAlive = 15 * time.Second

// maxResourceSubscriptions bounds the URIs one listen stream watches.
const maxResourceSubscriptions = 100

// subscriptionFilter is the notifications member of subscriptions/listen:
// what the stream is to carry.
type subscriptionFilter struct {
	ToolsListChanged      bool     `json:"toolsListChanged,omitempty"`
	PromptsListChanged    bool     `json:"promptsListChanged,omitempty"`
	ResourcesListChanged  bool     `json:"resourcesListChanged,omitempty"`
	ResourceSubscriptions []string `json:"resourceSubscriptions,omitempty"`
	// TaskIDs are the tasks whose status the stream carries
	// (notifications/tasks), for a client of the tasks extension.
	TaskIDs []string `json:"taskIds,omitempty"`
}

func (f *subscriptionFilter) changes() changes {
	var c changes
	if f.ToolsListChanged {
		c |= toolsChanged
	}
	if f.PromptsListChanged {
		c |= promptsChanged
	}
	if f.ResourcesListChanged {
		c |= resourcesChanged
	}
	return c
}

// listen answers subscriptions/listen: an SSE stream that acknowledges the
// filter first, then carries the notifications it asked for, each tagged
// with the request's id, until the client goes away, the server is
// disabled or deleted, or the instance shuts down; the last two end it with
// the request's result.
func listen(ctx context.Context, x *Exchange, s *state, params json.RawMessage) (json.RawMessage, error) {
	d := s.view
	var p struct {
		Notifications *subscriptionFilter `json:"notifications"`
	}
	if err := decodeParams(params, &p); err != nil {
		return nil, err
	}
	f := p.Notifications
	switch {
	case f == nil:
		return nil, missing("notifications", "subscriptions/listen names the notifications the stream carries (an object; {} for none)")
	case len(f.ResourceSubscriptions) > maxResourceSubscriptions:
		return nil, invalidParams("field 'notifications.resourceSubscriptions' may list at most %d URIs, got %d",
			maxResourceSubscriptions, len(f.ResourceSubscriptions))
	}
	f.ResourceSubscriptions = distinct(f.ResourceSubscriptions)
	var watch *taskWatch
	if len(f.TaskIDs) > 0 {
		var err error
		if watch, err = watchTasks(ctx, x, s, d, f.TaskIDs); err != nil {
			return nil, err
		}
		f.TaskIDs = watch.ids() // the tasks it agrees to report on: those it knows
	}
	if s.hub == nil {
		return nil, jsonrpc.ErrInternal
	}
	tag := subscriptionTag(x.ID())
	final := append(append([]byte(`{"resultType":"complete",`), tag...), '}')
	// Registered first: a stream past the bounds is refused with an HTTP
	// status, before the stream's headers go out.
	sub, err := s.hub.open(d, s.address(), f.changes(), f.ResourceSubscriptions)
	if err != nil {
		return nil, err
	}
	defer s.hub.close(sub)
	stream, err := x.Stream()
	if err != nil {
		return nil, err
	}
	ack, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	if stream.Send(notification("notifications/subscriptions/acknowledged", tag, `,"notifications":`+string(ack))) != nil {
		return final, nil
	}
	every := s.keepAlive
	if every <= 0 {
		every = DefaultKeepAlive
	}
	keepAlive := time.NewTicker(every)
	defer keepAlive.Stop()
	// A stream lasts s.lifetime at most, then ends with its result as at
	// shutdown: the client listens again (the modern revision lets a
	// server end a stream), and no connection holds a slot for good.
	lifetime := s.lifetime
	if lifetime <= 0 {
		lifetime = DefaultMaxStreamLifetime
	}
	expiry := time.NewTimer(lifetime)
	defer expiry.Stop()
	var tasksDue <-chan time.Time
	if watch != nil {
		if !watch.send(ctx, stream, tag) {
			return final, nil
		}
		t := time.NewTicker(watch.every)
		defer t.Stop()
		tasksDue = t.C
	}
	for {
		select {
		case <-tasksDue:
			if !watch.send(ctx, stream, tag) {
				return final, nil
			}
		case <-ctx.Done():
			return final, nil // the client went away: nobody reads the result
		case <-sub.end:
			sendPending(stream, s.hub, sub, tag)
			return final, nil
		case <-expiry.C:
			sendPending(stream, s.hub, sub, tag)
			return final, nil
		case <-keepAlive.C:
			if stream.KeepAlive() != nil {
				return final, nil
			}
		case <-sub.wake:
			if !sendPending(stream, s.hub, sub, tag) {
				return final, nil
			}
		}
	}
}

// distinct is list without repeats, in its order.
func distinct(list []string) []string {
	var out []string
	for _, v := range list {
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// subscriptionTag is `"_meta":{"io.modelcontextprotocol/subscriptionId":<id>}`.
func subscriptionTag(id json.RawMessage) []byte {
	out := []byte(`"_meta":{"` + mcptransport.MetaSubscriptionID + `":`)
	out = append(out, id...)
	return append(out, '}')
}

// notification encodes a notification of a listen stream: its params are
// the tag, then rest (members beginning with a comma).
func notification(method string, tag []byte, rest string) []byte {
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","method":`)
	b.WriteString(strconv.Quote(method))
	b.WriteString(`,"params":{`)
	b.Write(tag)
	b.WriteString(rest)
	b.WriteString("}}")
	return b.Bytes()
}

var changeMethods = []struct {
	c      changes
	method string
}{
	{toolsChanged, "notifications/tools/list_changed"},
	{promptsChanged, "notifications/prompts/list_changed"},
	{resourcesChanged, "notifications/resources/list_changed"},
}

// sendPending writes what sub has yet to send; false when the stream is
// broken.
func sendPending(stream *mcptransport.Stream, h *hub, sub *subscriber, tag []byte) bool {
	c, uris := h.take(sub)
	for _, m := range changeMethods {
		if c&m.c != 0 && stream.Send(notification(m.method, tag, "")) != nil {
			return false
		}
	}
	for _, u := range uris {
		quoted, _ := json.Marshal(u) // a string always encodes
		if stream.Send(notification("notifications/resources/updated", tag, `,"uri":`+string(quoted))) != nil {
			return false
		}
	}
	return true
}

// designChanged compares the design of server id with what its listen
// streams last saw, when it has streams, and tells them what changed: the
// tools, prompts or resources list (resources with templates), and each
// watched resource whose content differs. A server no longer served (or
// no longer to modern clients) ends its streams. One comparison runs per
// server at a time; a change that comes during one runs another.
func (h *Handler) designChanged(ctx context.Context, id uuid.UUID) {
	seen, ok := h.hub.startCheck(id)
	for ok {
		d, err := h.cache.get(ctx, id)
		var now *compiled
		switch {
		case failure.Is(err, failure.ErrNotFound) || (err == nil && !d.Eras().Has(mcptransport.Modern)):
			h.hub.end(&id)
		case err != nil:
			// The design cannot be read now: the streams learn of the
			// change with the next one, or when notifications resume.
			h.log.Debug("listen streams: design not compared", "server_id", id.String(), "error", err.Error())
		default:
			if now, err = d.forModern(ctx); err != nil {
				break // every request to the server fails the same way
			}
			c, uris := diff(seen, now, h.hub.subscribed(id))
			if c != 0 || len(uris) > 0 {
				h.hub.notify(id, c, uris)
			}
		}
		seen, ok = h.hub.finishCheck(id, now)
	}
}

// diff is what changed from design a to b (both as served to modern
// requests): the lists, and which of uris read differently.
func diff(a, b *compiled, uris []string) (changes, []string) {
	var c changes
	if !bytes.Equal(a.toolsList, b.toolsList) {
		c |= toolsChanged
	}
	if !bytes.Equal(a.promptsList, b.promptsList) {
		c |= promptsChanged
	}
	if !bytes.Equal(a.resourcesList, b.resourcesList) || !bytes.Equal(a.templatesList, b.templatesList) {
		c |= resourcesChanged
	}
	var updated []string
	for _, u := range uris {
		ta, ra, oka := a.read(u)
		tb, rb, okb := b.read(u)
		if oka != okb || ta != tb || (oka && (ra.mimeType != rb.mimeType || ra.binary != rb.binary)) {
			updated = append(updated, u)
		}
	}
	return c, updated
}

// CloseStreams ends every open subscriptions/listen stream with its
// result, and every later one as it opens, and every call waiting for a
// client's answers: the instance shuts down. The HTTP server's shutdown
// would otherwise wait on them.
func (h *Handler) CloseStreams() {
	h.hub.end(nil)
	h.asks.close()
}
