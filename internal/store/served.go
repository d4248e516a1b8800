package store

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/mockmcp/mockmcp/internal/design"
)

// ServedDesign reads the design of an enabled server by id alone, for the
// public MCP endpoint: the server row is visible only through the policy on
// app.public_server_id, and the rest is read as its own organization.
func (s *Store) ServedDesign(ctx context.Context, id uuid.UUID) (design.Design, error) {
	var d design.Design
	err := s.WithTx(ctx, Scope{PublicServerID: id}, func(tx *Tx) error {
		srv, err := tx.servedServer(ctx, id)
		if err != nil {
			return err
		}
		limit, err := tx.q.OrganizationPublicLimit(ctx, tx.tx, srv.OrgID)
		if err != nil {
			return err
		}
		d, err = tx.DesignOf(ctx, srv)
		d.PublicLimit = limit
		return err
	})
	return d, err
}

// servedServer reads enabled server id in a transaction of scope
// PublicServerID (the row is visible only through the policy on
// app.public_server_id), then makes the transaction its organization's for
// the rest of the design.
func (t *Tx) servedServer(ctx context.Context, id uuid.UUID) (design.Server, error) {
	srv, err := found("server", infallible(serverFrom))(t.q.GetServedServer(ctx, t.tx, id))
	if err != nil {
		return srv, err
	}
	return srv, t.SetOrg(ctx, srv.OrgID)
}

// DesignOf reads what server owns: its tools, resources and prompts.
func (t *Tx) DesignOf(ctx context.Context, server design.Server) (design.Design, error) {
	d := design.Design{Server: server}
	var err error
	if d.Tools, err = t.Tools(ctx, server.ID); err != nil {
		return d, err
	}
	if d.Resources, err = t.Resources(ctx, server.ID); err != nil {
		return d, err
	}
	d.Prompts, err = t.Prompts(ctx, server.ID)
	return d, err
}

// DesignChannel is the notification channel on which every change to a
// design announces the server's id.
const DesignChannel = "mockmcp_design"

// ListenDesigns is Listen on DesignChannel: fn receives the id, as text, of
// every server whose design changed.
func (s *Store) ListenDesigns(ctx context.Context, fn func(payload string), reset, ready func(), onError func(error)) {
	s.Listen(ctx, DesignChannel, fn, reset, ready, onError)
}

// Listen calls fn with the payload of every notification on channel until
// ctx ends. After a lost connection it calls reset, since notifications
// sent meanwhile are lost, and reconnects with a backoff (from 100 ms,
// doubling to 5 s, and back to 100 ms once subscribed); ready is called
// each time the listener is (re)subscribed.
func (s *Store) Listen(ctx context.Context, channel string, fn func(payload string), reset, ready func(), onError func(error)) {
	const first, most = 100 * time.Millisecond, 5 * time.Second
	backoff := first
	for ctx.Err() == nil {
		subscribed := false
		err := s.listenOnce(ctx, channel, fn, func() { subscribed = true; ready() })
		if ctx.Err() != nil {
			return
		}
		if onError != nil {
			onError(err)
		}
		reset()
		if subscribed {
			backoff = first
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(backoff*2, most)
	}
}

func (s *Store) listenOnce(ctx context.Context, channel string, fn func(string), ready func()) error {
	pooled, err := s.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	// The connection's session state (LISTEN) must not return to the pool.
	conn := pooled.Hijack()
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return err
	}
	ready()
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		fn(n.Payload)
	}
}
