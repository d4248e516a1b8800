package mcpserve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/jsonrpc"
)

// Defaults of the questions asked of legacy clients.
const (
	// DefaultAskTimeout is how long a round of questions waits for the
	// client's answers when it has no timeout branch.
	DefaultAskTimeout = 60 * time.Second
	// DefaultMaxPendingQuestions bounds the questions of one server
	// waiting for answers on one instance.
	DefaultMaxPendingQuestions = 100
	// DefaultMaxPendingQuestionsPerClient bounds those of one server asked
	// of one client address.
	DefaultMaxPendingQuestionsPerClient = 20
)

// relayVerdictTimeout is how long an instance that relayed a client's
// answer waits for the verdict of the instance it is for: past it the
// client is told to send the answer again (503), never that it was taken.
const relayVerdictTimeout = 2 * time.Second

// requestIDPrefix begins the id of every request this endpoint sends a
// client: "mockmcp.<instance>.<random>". The instance part routes the
// client's answer to the instance whose call waits for it.
const requestIDPrefix = "mockmcp."

// Relay carries clients' answers between instances: an answer that lands
// on an instance other than the one waiting for it is published on the
// waiting instance's channel (Redis pub/sub in production).
type Relay interface {
	// Publish sends msg on channel and returns how many instances
	// received it.
	Publish(ctx context.Context, channel string, msg []byte) (int64, error)
	// Subscribe calls fn with every message of channel until ctx ends;
	// ready is called each time the subscription is (re)established.
	Subscribe(ctx context.Context, channel string, fn func(msg []byte), ready func())
}

// reply is a client's answer to one request: its result or error object,
// copied (the request body they came in is reused).
type reply struct {
	id            string
	result, error json.RawMessage
}

// waiter is a question sent to a client, waiting for its answer.
type waiter struct {
	server uuid.UUID
	addr   string
	ch     chan<- reply
}

// clientKey names the questions of one server asked of one client
// address.
type clientKey struct {
	server uuid.UUID
	addr   string
}

// asker routes clients' answers to the calls waiting for them, on this
// instance or, through the relay, on another.
type asker struct {
	instance string
	relay    Relay
	log      *slog.Logger
	max      int
	// maxPerClient bounds the questions of one server asked of one
	// client address: the client that fills a server's questions is the
	// one refused.
	maxPerClient int

	// subscribed is closed once the relay delivers this instance's
	// answers (at once without a relay).
	subscribed chan struct{}
	once       sync.Once
	// closing is closed when the instance shuts down: waiting calls end.
	closing   chan struct{}
	closeOnce sync.Once

	mu        sync.Mutex
	waiting   map[string]waiter
	perServer map[uuid.UUID]int
	perClient map[clientKey]int
	// verdicts are the answers this instance relayed, by token, waiting
	// for the owning instance to say whether it took them.
	verdicts map[string]chan<- bool
}

func newAsker(relay Relay, max, maxPerClient int, log *slog.Logger) *asker {
	if max <= 0 {
		max = DefaultMaxPendingQuestions
	}
	if maxPerClient <= 0 {
		maxPerClient = DefaultMaxPendingQuestionsPerClient
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	a := &asker{instance: hex.EncodeToString(b[:]), relay: relay, log: log, max: max, maxPerClient: maxPerClient,
		subscribed: make(chan struct{}), closing: make(chan struct{}), waiting: map[string]waiter{},
		perServer: map[uuid.UUID]int{}, perClient: map[clientKey]int{}, verdicts: map[string]chan<- bool{}}
	if relay == nil {
		close(a.subscribed)
	}
	return a
}

// close ends every call waiting for answers, and every later one as it
// asks.
func (a *asker) close() { a.closeOnce.Do(func() { close(a.closing) }) }

// channel is the relay channel of an instance's answers.
func channel(instance string) string { return "mockmcp:answers:" + instance }

// listen takes the answers other instances relay to this one until ctx
// ends.
func (a *asker) listen(ctx context.Context) {
	if a.relay == nil {
		return
	}
	a.relay.Subscribe(ctx, channel(a.instance), func(msg []byte) {
		var m relayed
		if json.Unmarshal(msg, &m) != nil {
			return
		}
		if m.VerdictFor != "" {
			a.verdict(m.VerdictFor, m.Taken)
			return
		}
		err := a.deliver(m.Server, reply{id: m.ID, result: m.Result, error: m.Error})
		if m.Token == "" || !isInstance(m.ReplyTo) {
			return
		}
		v, _ := json.Marshal(relayed{VerdictFor: m.Token, Taken: err == nil}) // strings and a bool always encode
		// Published apart: the subscription's messages are not held up.
		go func() {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), relayVerdictTimeout)
			defer cancel()
			_, _ = a.relay.Publish(ctx, channel(m.ReplyTo), v)
		}()
	}, func() { a.once.Do(func() { close(a.subscribed) }) })
}

// relayed is a message between instances: an answer one relays to the
// instance it is for, with ReplyTo (the relaying instance) and Token to
// ask for the verdict; or that verdict (VerdictFor names the answer's
// token, Taken says whether a question took it).
type relayed struct {
	Server     uuid.UUID       `json:"server,omitzero"`
	ID         string          `json:"id,omitempty"`
	Result     json.RawMessage `json:"result,omitempty"`
	Error      json.RawMessage `json:"error,omitempty"`
	ReplyTo    string          `json:"reply_to,omitempty"`
	Token      string          `json:"token,omitempty"`
	VerdictFor string          `json:"verdict_for,omitempty"`
	Taken      bool            `json:"taken,omitempty"`
}

// isInstance reports whether s is an instance's name, 12 hex digits: a
// verdict is published only on an instance's channel.
func isInstance(s string) bool {
	if len(s) != 12 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// verdict hands the owning instance's verdict on the answer relayed with
// token to the request waiting for it, if it still waits.
func (a *asker) verdict(token string, taken bool) {
	a.mu.Lock()
	ch, ok := a.verdicts[token]
	delete(a.verdicts, token)
	a.mu.Unlock()
	if ok {
		ch <- taken // buffered
	}
}

// errPendingFull and errClientPendingFull refuse a round of questions past
// the bound of one server's waiting questions, and of those asked of one
// client address.
var (
	errPendingFull       = errors.New("too many questions waiting")
	errClientPendingFull = errors.New("too many questions waiting for this client")
)

// register reserves ids for n questions of server asked of the client at
// addr, their answers to be sent on ch; release gives back those not
// answered.
func (a *asker) register(server uuid.UUID, addr string, n int, ch chan<- reply) ([]string, error) {
	ids := make([]string, n)
	for i := range ids {
		var b [16]byte
		_, _ = rand.Read(b[:])
		ids[i] = requestIDPrefix + a.instance + "." + hex.EncodeToString(b[:])
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	ck := clientKey{server, addr}
	switch {
	case a.perClient[ck]+n > a.maxPerClient:
		return nil, errClientPendingFull
	case a.perServer[server]+n > a.max:
		return nil, errPendingFull
	}
	a.perServer[server] += n
	a.perClient[ck] += n
	for _, id := range ids {
		a.waiting[id] = waiter{server: server, addr: addr, ch: ch}
	}
	return ids, nil
}

// release forgets the questions ids still waiting.
func (a *asker) release(ids []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, id := range ids {
		if w, ok := a.waiting[id]; ok {
			a.forget(id, w)
		}
	}
}

// forget drops the waiting question id; a.mu is held.
func (a *asker) forget(id string, w waiter) {
	delete(a.waiting, id)
	if a.perServer[w.server]--; a.perServer[w.server] <= 0 {
		delete(a.perServer, w.server)
	}
	ck := clientKey{w.server, w.addr}
	if a.perClient[ck]--; a.perClient[ck] <= 0 {
		delete(a.perClient, ck)
	}
}

// errNotWaiting refuses an answer no question waits for.
var errNotWaiting = errors.New("no question waits for this answer")

// deliver hands r to the question of server it answers, on this
// instance; each question takes one answer.
func (a *asker) deliver(server uuid.UUID, r reply) error {
	a.mu.Lock()
	w, ok := a.waiting[r.id]
	if ok && w.server == server {
		a.forget(r.id, w)
	}
	a.mu.Unlock()
	if !ok || w.server != server {
		return errNotWaiting
	}
	w.ch <- r // buffered for every question of the round
	return nil
}

// take routes a client's response to the question it answers, here or on
// the instance its id names.
func (a *asker) take(ctx context.Context, server uuid.UUID, resp jsonrpc.Response) error {
	raw, isString := jsonrpc.StringValue(resp.ID)
	id := string(raw)
	rest, ours := strings.CutPrefix(id, requestIDPrefix)
	instance, _, _ := strings.Cut(rest, ".")
	if !isString || !ours || instance == "" {
		return notWaiting(resp.ID)
	}
	r := reply{id: id, result: clone(resp.Result), error: clone(resp.Error)}
	if instance == a.instance {
		if a.deliver(server, r) != nil {
			return notWaiting(resp.ID)
		}
		return nil
	}
	if a.relay == nil {
		return notWaiting(resp.ID)
	}
	return a.relayAnswer(ctx, instance, server, r, resp.ID)
}

// relayAnswer passes r to the instance it is for and returns that
// instance's verdict: nil when a question took it, 400 when none waits for
// it (forged, foreign, late), 503 when the instance cannot be asked in
// time. No instance listening on the channel: none waits for it.
func (a *asker) relayAnswer(ctx context.Context, instance string, server uuid.UUID, r reply, rawID []byte) error {
	// The verdict comes back on this instance's own channel.
	select {
	case <-a.subscribed:
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(relayVerdictTimeout):
		return errRelayUnavailable
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	token := hex.EncodeToString(b[:])
	ch := make(chan bool, 1)
	a.mu.Lock()
	a.verdicts[token] = ch
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.verdicts, token)
		a.mu.Unlock()
	}()
	msg, err := json.Marshal(relayed{Server: server, ID: r.id, Result: r.result, Error: r.error, ReplyTo: a.instance, Token: token})
	if err != nil {
		return err
	}
	n, err := a.relay.Publish(ctx, channel(instance), msg)
	switch {
	case err != nil:
		if a.log != nil {
			a.log.WarnContext(ctx, "relaying a client's answer failed", "error", err.Error())
		}
		return errRelayUnavailable
	case n == 0:
		return notWaiting(rawID)
	}
	t := time.NewTimer(relayVerdictTimeout)
	defer t.Stop()
	select {
	case taken := <-ch:
		if !taken {
			return notWaiting(rawID)
		}
		return nil
	case <-t.C:
		return errRelayUnavailable
	case <-ctx.Done():
		return ctx.Err()
	case <-a.closing:
		return errRelayUnavailable
	}
}

// errRelayUnavailable answers an answer whose instance could not say in
// time whether it took it: 503, so that the client sends it again (a
// second copy of an answer taken is refused, 400).
var errRelayUnavailable = &failure.Error{Kind: failure.KindUnavailable,
	Detail: "the instance waiting for this answer could not be reached in time; send it again shortly"}

func notWaiting(id []byte) error {
	return fmt.Errorf("%w: no question of this server waits for an answer with id %s "+
		"(it was answered already, timed out, or was never asked)", jsonrpc.ErrInvalidRequest, id)
}

func clone(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}

// Respond takes a client's answer to a question this design's endpoint
// sent it.
func (s *state) Respond(ctx context.Context, _ *Exchange, resp jsonrpc.Response) error {
	if s.asks == nil {
		return notWaiting(resp.ID)
	}
	return s.asks.take(ctx, s.d.id, resp)
}
