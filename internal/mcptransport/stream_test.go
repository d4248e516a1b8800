package mcptransport_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/mcptransport"
)

// streamer answers every request with a stream: a comment, then, after
// wait, one message, then its result; a cancelled request context ends it
// early with an error.
type streamer struct{ wait time.Duration }

func (s streamer) Call(ctx context.Context, x *mcptransport.Exchange, _ string, _ json.RawMessage) (json.RawMessage, error) {
	stream, err := x.Stream()
	if err != nil {
		return nil, err
	}
	if err := stream.KeepAlive(); err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(s.wait):
	}
	if err := stream.Send([]byte(`{"jsonrpc":"2.0","method":"notifications/late","params":{"id":` + string(x.ID()) + `}}`)); err != nil {
		return nil, err
	}
	return json.RawMessage(`{"done":true}`), nil
}

// TestStreamOutlivesReadTimeout: a stream lasts past the server's read
// timeout (net/http lifts the read deadline once the body is read), its
// headers ask proxies not to buffer it, and its frames are whole events
// and comments.
func TestStreamOutlivesReadTimeout(t *testing.T) {
	srv := httptest.NewUnstartedServer(endpoint(mcptransport.Transport{MaxBodyBytes: 1 << 20}, streamer{wait: 400 * time.Millisecond}, nil))
	srv.Config.ReadTimeout = 100 * time.Millisecond
	srv.Start()
	defer srv.Close()

	req, err := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":"a","method":"listen"}`))
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	require.Equal(t, "no", resp.Header.Get("X-Accel-Buffering"))
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, ":\n\n"+
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/late\",\"params\":{\"id\":\"a\"}}\n\n"+
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"a\",\"result\":{\"done\":true}}\n\n", string(body))
}

// TestStreamNeedsEventStream: a client that accepts JSON only cannot get a
// stream: 406 with -32600 on the request's id.
func TestStreamNeedsEventStream(t *testing.T) {
	h := endpoint(mcptransport.Transport{MaxBodyBytes: 1 << 20}, streamer{}, nil)
	w := postTo(h, "application/json", `{"jsonrpc":"2.0","id":4,"method":"listen"}`)
	require.Equal(t, http.StatusNotAcceptable, w.Code)
	require.Equal(t, "application/json", w.Header().Get("Content-Type"))
	require.Equal(t, `{"jsonrpc":"2.0","id":4,"error":{"code":-32600,"message":"Invalid request: the answer to listen is a stream of server-sent events; send it alone, with Accept: text/event-stream"}}`,
		w.Body.String())
}
