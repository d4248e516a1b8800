package service_test

import (
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/config"
	"github.com/mockmcp/mockmcp/internal/testdb"
)

// databaseWords are what an answer must not say of the database it could
// not reach: its address, its port, the net package's or the driver's
// words.
var databaseWords = regexp.MustCompile(`dial tcp|127\.0\.0\.1|\[::1\]|:5432|\b5432\b|connect: |failed to connect|pgconn|postgres(ql)?://|host=`)

// TestOutageAnswersNameNoDatabase: while the database cannot be reached,
// no answer — REST, the probes, the service endpoint's tools, a design's
// MCP endpoint, its OAuth routes, a card's mock A2A agent — names the database's address or repeats
// the driver's error.
func TestOutageAnswersNameNoDatabase(t *testing.T) {
	t.Parallel()
	var proxy *testdb.Proxy
	env := apitest.New(t, &apitest.Options{Configure: func(c *config.Config) {
		proxy, c.DatabaseURL = testdb.NewProxy(t, c.DatabaseURL)
		// The database never comes back, so the audit records of the
		// probes can never be written: a short shutdown stops the service
		// without waiting the default 15 s for them.
		c.ShutdownTimeout = 100 * time.Millisecond
	}})
	owner := env.Signup(t, "Outage Words")
	key := owner.Do("POST", "/api/keys", map[string]any{"name": "engine"}).Status(http.StatusCreated).String("raw_key")
	server := owner.Do("POST", "/api/servers", map[string]any{"name": "Words", "version": "1.0.0"}).
		Status(http.StatusCreated).String("id")
	endpoint := env.URL + "/api/platform/" + server + "/mcp"

	probes := []struct{ name, method, url, key, body string }{
		{"REST list", "GET", env.URL + "/api/servers", key, ""},
		{"REST create", "POST", env.URL + "/api/servers", key, `{"name":"Offline","version":"1.0.0"}`},
		{"REST read", "GET", env.URL + "/api/servers/" + server + "/journal", key, ""},
		{"health", "GET", env.URL + "/api/health", "", ""},
		{"readiness", "GET", env.URL + "/readyz", "", ""},
		{"login", "POST", env.URL + "/api/auth/login", "", `{"email":"a@example.com","password":"correct horse battery"}`},
		{"service endpoint list", "POST", env.URL + "/api/platform-mcp/mcp", key, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"service endpoint tool", "POST", env.URL + "/api/platform-mcp/mcp", key,
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_servers","arguments":{}}}`},
		{"design endpoint", "POST", endpoint, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"design tasks", "POST", endpoint, "", `{"jsonrpc":"2.0","id":1,"method":"tasks/list"}`},
		{"design spec", "GET", endpoint + "/spec", key, ""},
		{"design OAuth metadata", "GET", env.URL + "/.well-known/oauth-authorization-server/api/platform/" + server + "/oauth", "", ""},
		{"mock A2A agent", "POST", env.URL + "/api/exchange/agent-cards/outage-words/some-agent/a2a", "",
			`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}}`},
		{"design OAuth registration", "POST", env.URL + "/api/platform/" + server + "/oauth/register", "",
			`{"redirect_uris":["http://127.0.0.2/cb"]}`},
	}
	// Cut: connections are accepted and closed at once; closed: refused at
	// dial, as by a database that is gone.
	for _, outage := range []struct {
		name  string
		start func()
	}{{"cut", proxy.Cut}, {"closed", proxy.Close}} {
		outage.start()
		for _, tc := range probes {
			t.Run(outage.name+"/"+tc.name, func(t *testing.T) {
				r := send(t, tc.method, tc.url, tc.key, tc.body)
				require.NotRegexp(t, databaseWords, r.body, "status %d", r.status)
				for name, values := range r.hdr {
					for _, v := range values {
						require.NotRegexp(t, databaseWords, v, "header %s", name)
					}
				}
			})
		}
	}
}
