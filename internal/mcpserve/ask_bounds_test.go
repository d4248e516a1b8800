package mcpserve_test

import (
	"context"
	"net/http"
	"net/netip"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// TestAskBoundPerClient: one client address holds at most
// MAX_PENDING_QUESTIONS_PER_CLIENT of a server's waiting questions, so
// that another client is still asked; the client over its bound gets
// -32603 saying so.
func TestAskBoundPerClient(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		c.MaxPendingQuestions = 4
		c.MaxPendingQuestionsPerClient = 2
	}})
	id := createDesign(t, env.Signup(t, "Asks per client"), legacyAskDesign(t))
	serverID := uuid.MustParse(id)
	endpoint := env.URL + "/api/platform/" + id + "/mcp"
	call := func(addr string) *listener {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		req := apitest.JSONRequest(t, http.MethodPost, endpoint,
			strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"greet","arguments":{}}}`))
		req = req.WithContext(ctx)
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("X-Forwarded-For", addr)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
		l := &listener{t: t, resp: resp, cancel: cancel, messages: make(chan string, 64)}
		t.Cleanup(l.close)
		go l.read()
		return l
	}

	first := call("203.0.113.1")
	question(t, first)
	question(t, call("203.0.113.1"))
	require.JSONEq(t, `{"jsonrpc":"2.0","id":7,"error":{"code":-32603,"message":"Too many questions of this server are waiting `+
		`for this client's answers; answer them first"}}`, call("203.0.113.1").next())
	question(t, call("203.0.113.2")) // another client is still asked
	require.Equal(t, 3, env.Service.MCP().PendingQuestions(serverID))

	first.close()
	apitest.Eventually(t, "a client that leaves frees its questions", func() bool { return env.Service.MCP().PendingQuestions(serverID) == 2 })
	question(t, call("203.0.113.1"))
}
