package mcpserve_test

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mockmcp/mockmcp/internal/apitest"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
)

// answerHeaders are the headers the specification lists for every answer
// of the per-server endpoint.
var answerHeaders = map[string]string{
	"Connection":                   "keep-alive",
	"Access-Control-Allow-Origin":  "*",
	"Access-Control-Allow-Methods": "POST, OPTIONS",
	"Access-Control-Allow-Headers": "Content-Type, Accept, Authorization, X-API-Key, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID",
}

// rawExchange sends one HTTP request as written on conn and reads the
// answer as the server wrote it, headers untouched by a client.
func rawExchange(t *testing.T, conn net.Conn, br *bufio.Reader, proto, path, accept, body string, extra ...string) (*http.Response, string) {
	t.Helper()
	req := "POST " + path + " " + proto + "\r\nHost: " + conn.RemoteAddr().String() +
		"\r\nContent-Type: application/json\r\nAccept: " + accept +
		"\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n"
	for _, h := range extra {
		req += h + "\r\n"
	}
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	_, err := io.WriteString(conn, req+"\r\n"+body)
	require.NoError(t, err)
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	return resp, string(got)
}

// TestAnswerHeadersOnTheWire: SSE and JSON answers, JSON-RPC errors, HTTP
// errors and the 202 of a notification carry Connection: keep-alive and
// the three CORS headers, as a real server sends them; the connection
// stays open for the next request.
func TestAnswerHeadersOnTheWire(t *testing.T) {
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Wire")
	id := createDesign(t, owner, serverDesign{Server: raw(t, map[string]any{"name": "Wire"}), Enabled: true})
	srv := httptest.NewServer(mcpserve.New(env.Service.Store(), slog.New(slog.NewTextHandler(io.Discard, nil)), mcpserve.Options{}))
	defer srv.Close()
	path := "/api/platform/" + id + "/mcp"

	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	br := bufio.NewReader(conn)

	cases := []struct {
		name, accept, body string
		status             int
		contentType        string
		bodyHas            string
	}{
		{"SSE answer", "application/json, text/event-stream", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 200, "text/event-stream", `"result":{}`},
		{"JSON answer", "application/json", `{"jsonrpc":"2.0","id":2,"method":"ping"}`, 200, "application/json", `"result":{}`},
		{"JSON-RPC error", "application/json", `{"jsonrpc":"2.0","id":3,"method":"no/such"}`, 200, "application/json", `"code":-32601`},
		{"JSON-RPC error as SSE", "text/event-stream", `{"jsonrpc":"2.0","id":4,"method":"no/such"}`, 200, "text/event-stream", `"code":-32601`},
		{"parse error", "application/json", `{"jsonrpc":`, 200, "application/json", `"code":-32700`},
		{"notification", "application/json", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, 202, "", ""},
	}
	for _, c := range cases {
		resp, body := rawExchange(t, conn, br, "HTTP/1.1", path, c.accept, c.body)
		require.Equal(t, c.status, resp.StatusCode, c.name)
		if c.contentType != "" {
			require.Equal(t, c.contentType, resp.Header.Get("Content-Type"), c.name)
		}
		require.Contains(t, body, c.bodyHas, c.name)
		for k, v := range answerHeaders {
			require.Equal(t, []string{v}, resp.Header.Values(k), "%s: %s", c.name, k)
		}
		require.False(t, resp.Close, "%s: the connection stays open", c.name)
	}

	// An HTTP error of the endpoint (an unknown server) carries them too.
	resp, _ := rawExchange(t, conn, br, "HTTP/1.1", "/api/platform/00000000-0000-4000-8000-000000000000/mcp",
		"application/json", `{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	require.Equal(t, http.StatusNotFound, resp.StatusCode)
	for k, v := range answerHeaders {
		require.Equal(t, []string{v}, resp.Header.Values(k), "404: %s", k)
	}
}

// TestKeepAliveHeaderHTTP10: an HTTP/1.0 client that does not ask to keep
// the connection is not told keep-alive, and the server closes it after
// the answer (net/http drops the endpoint's Connection header); one that
// asks keeps it.
func TestKeepAliveHeaderHTTP10(t *testing.T) {
	env := apitest.New(t, nil)
	owner := env.Signup(t, "Wire10")
	id := createDesign(t, owner, serverDesign{Server: raw(t, map[string]any{"name": "Wire10"}), Enabled: true})
	srv := httptest.NewServer(mcpserve.New(env.Service.Store(), slog.New(slog.NewTextHandler(io.Discard, nil)), mcpserve.Options{}))
	defer srv.Close()
	path := "/api/platform/" + id + "/mcp"

	for _, accept := range []string{"application/json", "text/event-stream"} {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		require.NoError(t, err)
		br := bufio.NewReader(conn)
		resp, body := rawExchange(t, conn, br, "HTTP/1.0", path, accept, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		require.Equal(t, http.StatusOK, resp.StatusCode, accept)
		require.Contains(t, body, `"result":{}`, accept)
		require.NotContains(t, strings.ToLower(resp.Header.Get("Connection")), "keep-alive", accept)
		require.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"), accept)
		rest, err := io.ReadAll(br)
		require.NoError(t, err, "%s: the server closed the connection", accept)
		require.Empty(t, rest, accept)
		conn.Close()
	}

	// Asked for keep-alive, an answer of known length keeps the connection.
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	br := bufio.NewReader(conn)
	for i := range 2 {
		resp, body := rawExchange(t, conn, br, "HTTP/1.0", path, "application/json", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, "Connection: keep-alive")
		require.Equal(t, http.StatusOK, resp.StatusCode, "request %d", i)
		require.Contains(t, body, `"result":{}`)
		require.Equal(t, "keep-alive", resp.Header.Get("Connection"), "request %d", i)
	}
}
