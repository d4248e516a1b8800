package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// Listen calls fn with the payload of every notification on channel until
// ctx ends. After a lost connection it calls reset, since notifications
// sent meanwhile are lost, and reconnects with a backoff (from 100 ms,
// doubling to 5 s, and back to 100 ms once subscribed); ready is called
// each time the listener is (re)subscribed.
func (s *Store) Listen(ctx context.Context, channel string, fn func(payload string), reset, ready func(), onError func(error)) {
	s.listen(ctx, channel, fn, reset, ready, onError)
}

// listen is Listen, for the parts of the Store.
func (s *conn) listen(ctx context.Context, channel string, fn func(payload string), reset, ready func(), onError func(error)) {
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

func (s *conn) listenOnce(ctx context.Context, channel string, fn func(string), ready func()) error {
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
