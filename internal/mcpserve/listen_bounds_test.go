package mcpserve_test

import (
	"net/http"
	"net/netip"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
)

// TestListenBoundsAcrossServers: one client address holds at most
// LISTEN_MAX_PER_ADDRESS streams over every server, and one organization's
// servers at most LISTEN_MAX_PER_ORG together, whatever the per-server
// bounds allow; each refusal is HTTP 429 with -32000 naming its bound, and
// another organization's servers stay open to listeners.
func TestListenBoundsAcrossServers(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
		c.ListenMaxPerAddress = 3
		c.ListenMaxPerOrg = 5
	}})
	acme, other := env.Signup(t, "Acme"), env.Signup(t, "Other")
	var designs []string
	var ids []uuid.UUID
	for range 4 {
		id := createDesign(t, acme, listenDesign(t))
		ids = append(ids, uuid.MustParse(id))
		designs = append(designs, env.URL+"/api/platform/"+id+"/mcp")
	}
	bystander := env.URL + "/api/platform/" + createDesign(t, other, listenDesign(t)) + "/mcp"
	from := func(addr string) http.Header { return http.Header{"X-Forwarded-For": {addr}} }
	filter := map[string]any{"toolsListChanged": true}
	open := func(endpoint, addr string) *listener {
		t.Helper()
		l := listenTo(t, endpoint, `1`, filter, from(addr))
		require.Equal(t, http.StatusOK, l.resp.StatusCode, l.body)
		require.Contains(t, l.next(), "notifications/subscriptions/acknowledged")
		return l
	}
	refused := func(endpoint, addr, want, bound string) {
		t.Helper()
		l := listenTo(t, endpoint, `"over"`, filter, from(addr))
		require.Equal(t, http.StatusTooManyRequests, l.resp.StatusCode, l.body)
		require.Contains(t, l.body, `{"jsonrpc":"2.0","id":"over","error":{"code":-32000,"message":"Rate limit exceeded: at most `+want)
		require.Contains(t, l.body, `"bound":"`+bound+`"`)
	}

	// One address, one stream on each of three servers: its fourth, on a
	// server it holds none of, is refused.
	first := open(designs[0], "203.0.113.1")
	open(designs[1], "203.0.113.1")
	open(designs[2], "203.0.113.1")
	refused(designs[3], "203.0.113.1", "3 subscriptions/listen streams may be open from one client address, over every server", "address")
	refused(bystander, "203.0.113.1", "3 subscriptions/listen streams may be open from one client address, over every server", "address")
	first.close()
	apitest.Eventually(t, "a closed stream frees its slot", func() bool { return env.Service.MCP().OpenStreams(ids[0]) == 0 })
	open(designs[3], "203.0.113.1")

	// The organization holds three streams; two more from other addresses
	// fill its five.
	open(designs[3], "203.0.113.2")
	open(designs[0], "203.0.113.3")
	refused(designs[0], "203.0.113.4", "5 subscriptions/listen streams may be open on the servers of one organization", "organization")
	open(bystander, "203.0.113.4") // another organization's design is not held by Acme's streams
}

// TestListenLifetime: a stream ends with its result once it has lasted
// LISTEN_MAX_LIFETIME, as at shutdown, and the client can listen again.
func TestListenLifetime(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		c.ListenMaxLifetime = 300 * time.Millisecond
	}})
	owner := env.Signup(t, "Listen")
	endpoint := env.URL + "/api/platform/" + createDesign(t, owner, listenDesign(t)) + "/mcp"
	for i := range 2 {
		id := `"round` + string(rune('0'+i)) + `"`
		start := time.Now()
		l := listenTo(t, endpoint, id, map[string]any{"toolsListChanged": true}, nil)
		require.Equal(t, http.StatusOK, l.resp.StatusCode, l.body)
		require.Contains(t, l.next(), "notifications/subscriptions/acknowledged")
		requireFinal(t, l, id)
		require.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond, "the stream lasted its lifetime")
	}
}
