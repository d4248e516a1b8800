package mcpserve

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/jsonrpc"
	"github.com/mockmcp/mockmcp/internal/mcptransport"
)

// Bounds on the subscriptions/listen streams one instance keeps open: per
// server, from one client address to one server, from one client address
// to every server, and for one organization's servers together; and how
// long one stream lasts before it ends with its result (the client then
// listens again).
const (
	DefaultMaxStreamsPerServer  = 100
	DefaultMaxStreamsPerClient  = 10
	DefaultMaxStreamsPerAddress = 50
	DefaultMaxStreamsPerOrg     = 1000
	DefaultMaxStreamLifetime    = 30 * time.Minute
)

// streamBounds are the bounds of a hub; zero fields take the defaults.
type streamBounds struct {
	perServer, perClient, perAddress, perOrg int
}

func (b streamBounds) withDefaults() streamBounds {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&b.perServer, DefaultMaxStreamsPerServer)
	def(&b.perClient, DefaultMaxStreamsPerClient)
	def(&b.perAddress, DefaultMaxStreamsPerAddress)
	def(&b.perOrg, DefaultMaxStreamsPerOrg)
	return b
}

// changes is a set of list changes, as bits.
type changes uint8

const (
	toolsChanged changes = 1 << iota
	promptsChanged
	resourcesChanged
)

// hub holds the open subscriptions/listen streams of this instance, by
// server: the design changes and the scenarios that broadcast reach them
// through it. Sending never blocks: each subscriber keeps what it has yet
// to send, changes of one kind merged, and its stream's goroutine writes.
type hub struct {
	bounds streamBounds

	mu      sync.Mutex
	servers map[uuid.UUID]*listeners
	// perAddr and perOrg count the open streams of one client address and
	// of one organization, whatever their server: a bound per server alone
	// lets one address hold streams on every design, and a few addresses
	// hold a victim design's every slot.
	perAddr map[string]int
	perOrg  map[uuid.UUID]int
	closed  bool // the instance shuts down: every stream ends at once
}

// listeners are the open streams of one server.
type listeners struct {
	subs    map[*subscriber]struct{}
	perAddr map[string]int
	// seen is the design as the streams last saw it, what a change is
	// compared with; checking: a comparison is under way, again: another
	// change came meanwhile.
	seen            *compiled
	checking, again bool
}

// subscriber is one open stream: what it asked for, and what it has yet to
// send.
type subscriber struct {
	server uuid.UUID
	org    uuid.UUID
	addr   string
	wants  changes
	uris   []string // resourceSubscriptions, as asked

	wake chan struct{} // a change is pending (capacity 1)
	end  chan struct{} // closed when the server ends the stream
	// pending and updated are guarded by hub.mu.
	pending changes
	updated []string
	ended   bool
}

func newHub(b streamBounds) *hub {
	return &hub{bounds: b.withDefaults(), servers: map[uuid.UUID]*listeners{},
		perAddr: map[string]int{}, perOrg: map[uuid.UUID]int{}}
}

// open registers a stream of server d for the client at addr; past a
// bound it is refused with HTTP 429 and -32000, the endpoint's rate-limit
// error. Once the instance shuts down a stream is ended as it opens.
func (h *hub) open(d *compiled, addr string, wants changes, uris []string) (s *subscriber, err error) {
	s = &subscriber{server: d.id, org: d.orgID, addr: addr, wants: wants, uris: uris,
		wake: make(chan struct{}, 1), end: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		s.ended = true
		close(s.end)
		return s, nil
	}
	l := h.servers[d.id]
	if l == nil {
		l = &listeners{subs: map[*subscriber]struct{}{}, perAddr: map[string]int{}, seen: d}
		h.servers[d.id] = l
	}
	b := h.bounds
	switch {
	case len(l.subs) >= b.perServer:
		err = tooManyStreams(b.perServer, "open on this server", "server")
	case l.perAddr[addr] >= b.perClient:
		err = tooManyStreams(b.perClient, "open on this server from one client address", "client")
	case h.perAddr[addr] >= b.perAddress:
		err = tooManyStreams(b.perAddress, "open from one client address, over every server", "address")
	case h.perOrg[s.org] >= b.perOrg:
		err = tooManyStreams(b.perOrg, "open on the servers of one organization", "organization")
	}
	if err != nil {
		if len(l.subs) == 0 {
			delete(h.servers, d.id)
		}
		return nil, err
	}
	l.subs[s] = struct{}{}
	l.perAddr[addr]++
	h.perAddr[addr]++
	h.perOrg[s.org]++
	return s, nil
}

// tooManyStreams refuses a stream past a bound, which data.bound names
// (server, client, address or organization).
func tooManyStreams(limit int, where, bound string) error {
	return mcptransport.WithStatus(jsonrpc.WithData(
		fmt.Errorf("%w: at most %d subscriptions/listen streams may be %s; close one first", jsonrpc.ErrRateLimited, limit, where),
		map[string]any{"max_streams": limit, "bound": bound}), http.StatusTooManyRequests)
}

// close unregisters s, once its stream is over.
func (h *hub) close(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.servers[s.server]
	if l == nil {
		return
	}
	if _, ok := l.subs[s]; !ok {
		return
	}
	delete(l.subs, s)
	if l.perAddr[s.addr]--; l.perAddr[s.addr] <= 0 {
		delete(l.perAddr, s.addr)
	}
	if h.perAddr[s.addr]--; h.perAddr[s.addr] <= 0 {
		delete(h.perAddr, s.addr)
	}
	if h.perOrg[s.org]--; h.perOrg[s.org] <= 0 {
		delete(h.perOrg, s.org)
	}
	if len(l.subs) == 0 {
		delete(h.servers, s.server)
	}
}

// notify hands the streams of server id that asked for them the list
// changes c and the updates of the resources at uris.
func (h *hub) notify(id uuid.UUID, c changes, uris []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.servers[id]
	if l == nil {
		return
	}
	for s := range l.subs {
		woken := false
		if k := c & s.wants; k != 0 {
			s.pending |= k
			woken = true
		}
		for _, u := range uris {
			if slices.Contains(s.uris, u) && !slices.Contains(s.updated, u) {
				s.updated = append(s.updated, u)
				woken = true
			}
		}
		if woken {
			select {
			case s.wake <- struct{}{}:
			default:
			}
		}
	}
}

// take returns what s has yet to send, and forgets it.
func (h *hub) take(s *subscriber) (changes, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, uris := s.pending, s.updated
	s.pending, s.updated = 0, nil
	return c, uris
}

// end ends every stream of server id (nil: of every server) and, for all,
// refuses later ones.
func (h *hub) end(id *uuid.UUID) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if id == nil {
		h.closed = true
	}
	for sid, l := range h.servers {
		if id != nil && sid != *id {
			continue
		}
		for s := range l.subs {
			if !s.ended {
				s.ended = true
				close(s.end)
			}
		}
	}
}

// watched lists the servers with open streams.
func (h *hub) watched() []uuid.UUID {
	h.mu.Lock()
	defer h.mu.Unlock()
	ids := make([]uuid.UUID, 0, len(h.servers))
	for id := range h.servers {
		ids = append(ids, id)
	}
	return ids
}

// startCheck reports whether the caller should compare server id's design
// with what its streams saw, and returns that; false when it has no
// streams or a comparison is under way (which then runs once more).
func (h *hub) startCheck(id uuid.UUID) (*compiled, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.servers[id]
	switch {
	case l == nil:
		return nil, false
	case l.checking:
		l.again = true
		return nil, false
	}
	l.checking = true
	return l.seen, true
}

// finishCheck records d (nil to keep the old one) as what the streams of
// id saw, and reports whether another change came meanwhile, the caller
// then comparing again from the returned design.
func (h *hub) finishCheck(id uuid.UUID, d *compiled) (*compiled, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	l := h.servers[id]
	if l == nil {
		return nil, false
	}
	if d != nil {
		l.seen = d
	}
	if l.again {
		l.again = false
		return l.seen, true
	}
	l.checking = false
	return nil, false
}

// subscribed lists the resource URIs the streams of server id watch.
func (h *hub) subscribed(id uuid.UUID) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	if l := h.servers[id]; l != nil {
		for s := range l.subs {
			for _, u := range s.uris {
				if !slices.Contains(out, u) {
					out = append(out, u)
				}
			}
		}
	}
	return out
}

// count is how many streams of server id are open.
func (h *hub) count(id uuid.UUID) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	if l := h.servers[id]; l != nil {
		return len(l.subs)
	}
	return 0
}
