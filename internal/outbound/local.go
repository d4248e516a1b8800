package outbound

import (
	"context"
	"log/slog"
	"net"
	"net/http"
)

// newLocalTransport returns a transport that carries requests to h over
// in-memory connections, each served by a real http.Server. Going through
// net/http on both sides, rather than calling h with a recorder, gives the
// handler and the caller exactly what they would see over the network
// (status, headers, Content-Length, content sniffing, HEAD, streaming,
// cancellation) without a socket.
func newLocalTransport(h http.Handler) *http.Transport {
	srv := &http.Server{
		Handler:  withoutForwarding(h),
		ErrorLog: slog.NewLogLogger(slog.Default().Handler(), slog.LevelError),
	}
	dial := func(context.Context, string, string) (net.Conn, error) {
		client, server := net.Pipe()
		go func() {
			// Serve returns once the listener has handed over its one
			// connection; the connection is served on until it closes.
			_ = srv.Serve(&oneConnListener{conn: localConn{server}})
		}()
		return client, nil
	}
	return &http.Transport{
		Proxy:       nil,
		DialContext: dial,
		// For https origins: the pipe is handed over as if already past the
		// TLS handshake, so the request goes over it in the clear.
		DialTLSContext: dial,
		// A connection per request: nothing lingers, so nothing leaks when
		// the client is dropped.
		DisableKeepAlives:      true,
		MaxResponseHeaderBytes: maxHeaderBytes,
	}
}

// loopback is the address both ends of a local connection report.
var loopback = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}

// localConn is the server end of an in-memory connection. net.Pipe's
// addresses read "pipe", which handlers that parse RemoteAddr (client IP
// resolution, rate limiting) would reject.
type localConn struct{ net.Conn }

func (localConn) LocalAddr() net.Addr  { return loopback }
func (localConn) RemoteAddr() net.Addr { return loopback }

// oneConnListener hands out one connection, then reports itself closed.
// Accept is only ever called from the Serve loop, one call at a time.
type oneConnListener struct{ conn net.Conn }

func (l *oneConnListener) Accept() (net.Conn, error) {
	c := l.conn
	if c == nil {
		return nil, net.ErrClosed
	}
	l.conn = nil
	return c, nil
}

func (l *oneConnListener) Close() error   { return nil }
func (l *oneConnListener) Addr() net.Addr { return loopback }

// forwardingHeaders are the headers by which a proxy says whom it relays.
var forwardingHeaders = []string{"X-Forwarded-For", "X-Forwarded-Host", "X-Forwarded-Proto", "X-Real-Ip", "Forwarded"}

// withoutForwarding drops the forwarding headers a caller may set (a test's
// request, an upstream's stored headers), so that a request served in
// process, from 127.0.0.1, is never taken for one relayed by a trusted
// proxy on loopback.
func withoutForwarding(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, name := range forwardingHeaders {
			r.Header.Del(name)
		}
		h.ServeHTTP(w, r)
	})
}
