package redisconn

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
)

// Relay carries messages between instances on Redis pub/sub channels.
type Relay struct{ c *redis.Client }

// NewRelay returns a relay over c.
func NewRelay(c *redis.Client) *Relay { return &Relay{c: c} }

// Publish sends msg on channel and returns how many subscribers received
// it.
func (r *Relay) Publish(ctx context.Context, channel string, msg []byte) (int64, error) {
	return r.c.Publish(ctx, channel, msg).Result()
}

// Subscribe calls fn with every message of channel until ctx ends, and
// ready each time the subscription is confirmed. A lost connection is
// subscribed again, a second later at most.
func (r *Relay) Subscribe(ctx context.Context, channel string, fn func(msg []byte), ready func()) {
	for ctx.Err() == nil {
		r.receive(ctx, channel, fn, ready)
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
}

// receive takes the messages of one subscription until it fails or ctx
// ends.
func (r *Relay) receive(ctx context.Context, channel string, fn func(msg []byte), ready func()) {
	sub := r.c.Subscribe(ctx, channel)
	// Closing the subscription ends a read that waits: the context alone
	// does not.
	stop := context.AfterFunc(ctx, func() { _ = sub.Close() })
	defer func() { stop(); _ = sub.Close() }()
	for {
		// No read deadline: a subscription waits as long as it takes.
		msg, err := sub.ReceiveTimeout(ctx, 0)
		if err != nil {
			return
		}
		switch m := msg.(type) {
		case *redis.Subscription:
			if m.Kind == "subscribe" {
				ready()
			}
		case *redis.Message:
			fn([]byte(m.Payload))
		}
	}
}
