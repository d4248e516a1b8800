package a2aserve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/mockmcp/mockmcp/internal/store"
)

// HTTPDoer sends one request: an outbound client in production.
type HTTPDoer interface {
	Do(req *http.Request) (*http.Response, error)
}

// Bounds of delivery.
const (
	maxWatched      = 10000 // tasks followed at once by one instance
	maxDelivering   = 32    // notifications being posted at once
	pushAttempts    = 3     // posts of one notification, the first included
	pushTimeout     = 5 * time.Second
	pushReplyBytes  = 64 << 10
	pushReadTimeout = 10 * time.Second // reading a task and its configs
)

// pushBackoff is the wait before each retry.
var pushBackoff = []time.Duration{500 * time.Millisecond, 2 * time.Second}

// pusher delivers push notifications. A task's state is reckoned from the
// clock, not driven, so the instance that learns of a config (or of a
// change a request makes: a cancel, a message that resumes the task)
// follows the task with a timer set for its next step boundary, and at
// each one reads the task and its configs again and posts the task to
// every config when its state (or step) changed.
type pusher struct {
	Push
	h       *Handler
	mu      sync.Mutex
	watched map[uuid.UUID]*watch
	slots   chan struct{}
}

// watch is one task followed: the timer of its next step boundary and the
// state last seen.
type watch struct {
	agent Agent
	timer *time.Timer
	last  string
}

func newPusher(h *Handler, p Push) *pusher {
	return &pusher{Push: p, h: h, watched: map[uuid.UUID]*watch{}, slots: make(chan struct{}, maxDelivering)}
}

// key names a state and step, so that moving to the next working step
// is a change too.
func key(v view) string { return v.State + "/" + strconv.Itoa(v.Phase) }

// watch follows task id of agent from now on, when the pusher is on: its
// present state is the last seen.
func (p *pusher) watch(agent Agent, id uuid.UUID) {
	if p == nil {
		return
	}
	go p.look(agent, id, false)
}

// changed tells the pusher that a request changed task t: its state now
// is posted, and the task followed.
func (p *pusher) changed(agent Agent, id uuid.UUID) {
	if p == nil {
		return
	}
	go p.look(agent, id, true)
}

// look reads the task, posts it when its state changed since last seen
// (or when force), and sets the timer of its next boundary.
func (p *pusher) look(agent Agent, id uuid.UUID, force bool) {
	ctx, cancel := context.WithTimeout(context.Background(), pushReadTimeout)
	defer cancel()
	t, err := p.h.tasks.A2ATask(ctx, agent.OrgID, agent.ID, id)
	if err != nil {
		p.forget(id)
		return
	}
	sc, err := readScript(t)
	if err != nil {
		p.forget(id)
		return
	}
	configs, err := p.Configs.A2APushConfigs(ctx, agent.OrgID, agent.ID, id)
	if err != nil || len(configs) == 0 {
		p.forget(id) // a task without configs is not followed
		return
	}
	v := sc.at(t, p.h.now())
	p.mu.Lock()
	w, ok := p.watched[id]
	if !ok {
		if len(p.watched) >= maxWatched {
			p.mu.Unlock()
			p.h.log.Warn("push notifications: too many tasks followed; this one is not", "task", id.String())
			return
		}
		w = &watch{agent: agent, last: key(v)}
		p.watched[id] = w
	}
	send := force || w.last != key(v)
	w.last = key(v)
	if w.timer != nil {
		w.timer.Stop()
		w.timer = nil
	}
	if !v.Next.IsZero() {
		w.timer = time.AfterFunc(max(v.Next.Sub(p.h.now()), 0)+time.Millisecond, func() { p.look(agent, id, false) })
	} else {
		delete(p.watched, id) // ended, or waiting for a message that will tell
	}
	p.mu.Unlock()
	if send {
		p.deliver(t, sc, v, configs)
	}
}

func (p *pusher) forget(id uuid.UUID) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if w, ok := p.watched[id]; ok && w.timer != nil {
		w.timer.Stop()
	}
	delete(p.watched, id)
}

// deliver posts task t, in state v, to each of its configs, each in a
// goroutine of its own, bounded in number: a notification past the bound
// is dropped, and logged.
func (p *pusher) deliver(t store.A2ATask, sc script, v view, configs []store.A2APushConfig) {
	history, err := readHistory(t)
	if err != nil {
		return
	}
	bodies := map[string][]byte{}
	for _, era := range []string{Version03, Version10} {
		task := taskWire(era, t, sc, v, history, nil)
		if bodies[era], err = json.Marshal(taskResult(era, task)); err != nil {
			return
		}
	}
	for _, cfg := range configs {
		select {
		case p.slots <- struct{}{}:
		default:
			p.h.log.Warn("push notifications: too many being posted; one is dropped", "task", t.ID.String(), "config", cfg.ID)
			continue
		}
		go func() {
			defer func() { <-p.slots }()
			p.post(cfg, bodies[cfg.Era])
		}()
	}
}

// post sends one notification, retrying a failure (no answer, or not 2xx)
// twice. The token and credentials go in headers and are never logged.
func (p *pusher) post(cfg store.A2APushConfig, body []byte) {
	secrets, err := p.Sealer.Open(cfg.Secrets)
	if err != nil {
		p.h.log.Warn("push notifications: a config's secrets cannot be opened", "task", cfg.TaskID.String(), "config", cfg.ID)
		return
	}
	for attempt := 0; attempt < pushAttempts; attempt++ {
		if attempt > 0 {
			time.Sleep(pushBackoff[min(attempt-1, len(pushBackoff)-1)])
		}
		ctx, cancel := context.WithTimeout(context.Background(), pushTimeout)
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader(body))
		if err != nil {
			cancel()
			return
		}
		req.Header.Set("Content-Type", "application/json")
		if cfg.Era == Version10 {
			req.Header.Set(VersionHeader, Version10)
		}
		if tok := secrets["token"]; tok != "" {
			req.Header.Set("X-A2A-Notification-Token", tok)
		}
		if cfg.Scheme != "" {
			req.Header.Set("Authorization", cfg.Scheme+" "+secrets["credentials"])
		}
		resp, err := p.Client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, pushReplyBytes))
			resp.Body.Close()
		}
		cancel()
		if err == nil && resp.StatusCode/100 == 2 {
			return
		}
		outcome := "an error"
		if err == nil {
			outcome = resp.Status
		}
		p.h.log.Info("push notification not delivered", "task", cfg.TaskID.String(), "config", cfg.ID,
			"attempt", attempt+1, "outcome", outcome)
	}
}
