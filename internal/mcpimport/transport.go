package mcpimport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mockmcp/mockmcp/internal/errtext"
	"github.com/mockmcp/mockmcp/internal/failure"
	"github.com/mockmcp/mockmcp/internal/outbound"
)

// The client's name and version in initialize.
const (
	clientName    = "mockmcp-import"
	clientVersion = "1.0.0"
)

const (
	// maxAnswerBytes bounds one answer that is not an event stream (the
	// SDK reads such a body whole). It matches the SDK's bound on one
	// server-sent event, mcp.DefaultMaxEventSize.
	maxAnswerBytes = mcp.DefaultMaxEventSize
	// maxReceivedBytes bounds everything the server sends over one import,
	// reconnections included.
	maxReceivedBytes = 64 << 20
	// maxReconnects bounds how often a broken connection is made anew.
	maxReconnects = 3
	// maxReasonLen bounds an error quoted from the server or the network.
	maxReasonLen = 300
)

var (
	errAnswerTooLarge = fmt.Errorf("an answer of the server is larger than %d MiB", maxAnswerBytes>>20)
	errTooMuchData    = fmt.Errorf("the server sent more than %d MiB in all", maxReceivedBytes>>20)
)

// session is the import's connection to the server. A call that fails in
// a way that leaves the connection broken (an answer too large, a dropped
// stream) makes it anew over the same transport, so that one bad resource
// does not cost the rest of the import.
type session struct {
	imp        *importer
	kind       string
	cs         *mcp.ClientSession
	reconnects int
}

// call runs fn on the session; see session.
func (s *session) call(ctx context.Context, fn func(*mcp.ClientSession) error) error {
	reads := s.imp.reads.failures()
	err := fn(s.cs)
	if err == nil || ctx.Err() != nil {
		return err
	}
	// The SDK reports an answer it could not read as a connection that
	// ended; what ended it is more use to the user.
	if n, readErr := s.imp.reads.last(); n != reads && readErr != nil {
		err = &readError{call: err, read: readErr}
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) || s.reconnects >= maxReconnects {
		return err // the server answered: the connection is fine
	}
	if s.cs.Ping(ctx, nil) == nil {
		return err
	}
	s.reconnects++
	cs, _, dialErr := s.imp.dial(ctx, s.kind)
	if dialErr == nil {
		_ = s.cs.Close()
		s.cs = cs
	}
	return err
}

func (s *session) close() { _ = s.cs.Close() }

// readError is a failed call whose answer could not be read.
type readError struct {
	call, read error
}

func (e *readError) Error() string { return e.read.Error() }
func (e *readError) Unwrap() error { return e.call }

// readFailures keeps the last error reading an answer failed with.
type readFailures struct {
	mu  sync.Mutex
	n   int
	err error
}

func (r *readFailures) add(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	r.err = err
}

func (r *readFailures) failures() int {
	n, _ := r.last()
	return n
}

func (r *readFailures) last() (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n, r.err
}

// connect opens the session: Streamable HTTP first, then HTTP+SSE on the
// same URL when the first attempt's answer suggests a server of the older
// transport (a 4xx answer to a POST).
func (imp *importer) connect(ctx context.Context) (*session, error) {
	cs, obs, err := imp.dial(ctx, TransportStreamable)
	if err == nil {
		return &session{imp: imp, kind: TransportStreamable, cs: cs}, nil
	}
	if stop := imp.stopConnecting(ctx, err, obs); stop != nil {
		return nil, stop
	}
	first := "Streamable HTTP: " + imp.describe(err, obs)
	if !obs.suggestsSSE() {
		return nil, imp.noAnswer(first, obs)
	}
	imp.stage = "connecting over HTTP+SSE"
	cs, obs2, err := imp.dial(ctx, TransportSSE)
	if err == nil {
		return &session{imp: imp, kind: TransportSSE, cs: cs}, nil
	}
	if stop := imp.stopConnecting(ctx, err, obs2); stop != nil {
		return nil, stop
	}
	return nil, imp.noAnswer(first+"; HTTP+SSE: "+imp.describe(err, obs2), obs, obs2)
}

// dial connects a new client session over one transport.
func (imp *importer) dial(ctx context.Context, kind string) (*mcp.ClientSession, *observer, error) {
	obs := &observer{}
	hc := imp.httpClient(obs)
	var t mcp.Transport
	if kind == TransportSSE {
		t = &mcp.SSEClientTransport{Endpoint: imp.opts.URL, HTTPClient: hc}
	} else {
		// No standalone GET stream: a snapshot needs no notifications from
		// the server, and the stream would outlive every request.
		t = &mcp.StreamableClientTransport{Endpoint: imp.opts.URL, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: 2}
	}
	// No capabilities: the server has no reason to call back (roots,
	// sampling, elicitation).
	client := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: clientVersion},
		&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: requestedProtocolVersion})
	return cs, obs, err
}

// stopConnecting returns the error that ends the import when a connection
// attempt failed in a way no other attempt can mend: the import's time is
// up, or the target is refused by the address policy.
func (imp *importer) stopConnecting(ctx context.Context, err error, obs *observer) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	_, _, netErr := obs.first()
	for _, e := range []error{netErr, err} {
		if e != nil && errors.Is(e, outbound.ErrForbiddenTarget) {
			return failure.Invalid(failure.Field("url", "%s", imp.hideSecrets(forbiddenMessage(e))))
		}
	}
	return nil
}

// forbiddenMessage is the address policy's refusal, without the address
// the name resolved to ("the server's address is refused: loopback
// addresses are not allowed").
func forbiddenMessage(err error) string {
	return errtext.Outbound("the server", err)
}

// noAnswer is the failure of an import that could not connect.
func (imp *importer) noAnswer(reasons string, obs ...*observer) error {
	msg := "the MCP server did not answer: " + reasons
	for _, o := range obs {
		if _, status, _ := o.first(); status == http.StatusUnauthorized || status == http.StatusForbidden {
			if len(imp.opts.Headers) > 0 {
				msg += " (check the credentials sent in headers)"
			} else {
				msg += " (the server wants credentials: send them in headers, e.g. Authorization)"
			}
			break
		}
	}
	return failure.Invalid(failure.Field("url", "%s", msg))
}

// describe says shortly why a request or call failed: the first failing
// HTTP answer of the attempt when obs saw one, else the network error,
// else err itself, without URLs' paths and queries or header values.
func (imp *importer) describe(err error, obs *observer) string {
	if obs != nil {
		method, status, netErr := obs.first()
		if status != 0 {
			return fmt.Sprintf("%s answered %d %s", method, status, http.StatusText(status))
		}
		if netErr != nil {
			err = netErr
		}
	}
	var msg string
	var re *readError
	if errors.As(err, &re) {
		err = re.read
	}
	if we := (*jsonrpc.Error)(nil); errors.As(err, &we) {
		msg = we.Message // the server's own words
	} else {
		msg = imp.redact(reason(err))
	}
	msg = imp.hideSecrets(msg)
	if len(msg) > maxReasonLen {
		msg = strings.ToValidUTF8(msg[:maxReasonLen], "") + "…"
	}
	return msg
}

// reason names a failure in a few words: the service's own limits as they
// are, a network or HTTP failure as errtext phrases it (never the address
// a name resolved to, nor the net package's words), another error (the MCP
// SDK's, about the protocol) by its first line when errtext finds it safe
// to show.
func reason(err error) string {
	switch {
	case errors.Is(err, errAnswerTooLarge):
		return errAnswerTooLarge.Error()
	case errors.Is(err, errTooMuchData):
		return errTooMuchData.Error()
	case errors.Is(err, outbound.ErrBodyTooLarge):
		// "outbound: response body too large: more than 1048576 bytes"
		return "an answer of the server is larger than the HTTP client accepts (" + strings.TrimPrefix(err.Error(), "outbound: ") + ")"
	}
	if phrase := errtext.Outbound("the server", err); !strings.HasPrefix(phrase, "the request to the server failed") {
		return phrase
	}
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err
	}
	msg, _, _ := strings.Cut(err.Error(), "\n")
	if !errtext.Safe(msg) {
		return "the request to the server failed"
	}
	return msg
}

var urlPattern = regexp.MustCompile(`(?i)\bhttps?://[^\s"'<>]+`)

// redact shortens every URL in an error message to scheme://host: a path
// or query may carry a key.
func (imp *importer) redact(s string) string {
	return urlPattern.ReplaceAllStringFunc(s, func(raw string) string {
		u, err := url.Parse(strings.TrimRight(raw, ".,;:)]"))
		if err != nil || u.Host == "" {
			return "<url>"
		}
		return u.Scheme + "://" + u.Host
	})
}

// hideSecrets replaces every header value in s.
func (imp *importer) hideSecrets(s string) string {
	for _, secret := range imp.secrets {
		s = strings.ReplaceAll(s, secret, "[redacted]")
	}
	return s
}

// httpClient is a copy of the caller's client whose transport goes through
// a roundTripper reporting to obs.
func (imp *importer) httpClient(obs *observer) *http.Client {
	c := *imp.opts.Client
	base := c.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	u, _ := url.Parse(imp.opts.URL)
	c.Transport = &roundTripper{base: base, ctx: imp.ctx, origin: origin(u), headers: imp.opts.Headers, obs: obs,
		budget: &imp.budget, reads: &imp.reads}
	// The import's context bounds every request (see roundTripper); the
	// caller's per-request timeout would cut an SSE stream mid-import.
	c.Timeout = 0
	return &c
}

// origin is u's scheme://host:port, lowercased, with the default port.
func origin(u *url.URL) string {
	if u == nil {
		return ""
	}
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// roundTripper adds the import's headers to requests to the endpoint's
// origin, ties every request to the import's context (so nothing the SDK
// leaves running outlives the import), bounds what answers may send, and
// tells its observer of failed requests.
type roundTripper struct {
	base    http.RoundTripper
	ctx     context.Context
	origin  string
	headers map[string]string
	obs     *observer
	budget  *atomic.Int64
	reads   *readFailures
}

func (rt *roundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := rt.ctx.Err(); err != nil {
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, err
	}
	ctx, cancel := context.WithCancel(req.Context())
	stop := context.AfterFunc(rt.ctx, cancel)
	release := func() { stop(); cancel() }
	r := req.Clone(ctx)
	if origin(r.URL) == rt.origin {
		for name, value := range rt.headers {
			if r.Header.Get(name) == "" { // never over the protocol's own headers
				r.Header.Set(name, value)
			}
		}
	}
	resp, err := rt.base.RoundTrip(r)
	if err != nil {
		release()
		rt.obs.failed(req.Method, 0, err)
		return nil, err
	}
	if resp.StatusCode >= 400 {
		rt.obs.failed(req.Method, resp.StatusCode, nil)
	}
	limit := int64(maxAnswerBytes)
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		limit = -1 // a stream: the SDK bounds each event
	}
	resp.Body = &body{rc: resp.Body, left: limit, budget: rt.budget, reads: rt.reads, ctx: ctx, release: release}
	return resp, nil
}

// body counts what an answer sends against its own limit and the import's
// budget.
type body struct {
	rc      io.ReadCloser
	left    int64 // bytes this answer may still send; negative: no limit
	budget  *atomic.Int64
	reads   *readFailures
	ctx     context.Context // the request's: once it ends, errors are expected
	err     error
	once    sync.Once
	release func()
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.left >= 0 && int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte more tells a body at the limit from a larger one
	}
	n, err := b.rc.Read(p)
	switch {
	case b.left >= 0 && int64(n) > b.left:
		b.err = errAnswerTooLarge
	case b.budget.Add(-int64(n)) < 0:
		b.err = errTooMuchData
	}
	if b.err != nil {
		b.reads.add(b.err)
		return 0, b.err
	}
	if b.left >= 0 {
		b.left -= int64(n)
	}
	if err != nil && err != io.EOF && b.ctx.Err() == nil {
		b.reads.add(err)
	}
	return n, err
}

func (b *body) Close() error {
	err := b.rc.Close()
	b.once.Do(b.release)
	return err
}

// observer keeps the first failure of the requests of one connection
// attempt: an HTTP answer of 400 or more, or a network error.
type observer struct {
	mu     sync.Mutex
	method string
	status int
	err    error
}

func (o *observer) failed(method string, status int, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.status == 0 && o.err == nil {
		o.method, o.status, o.err = method, status, err
	}
}

func (o *observer) first() (method string, status int, err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.method, o.status, o.err
}

// suggestsSSE reports whether the attempt's answers suggest a server of
// the HTTP+SSE transport: one that refuses a POST to the endpoint with a
// 4xx status (404 or 405 most often, 400 from servers that want a session
// id in the query).
func (o *observer) suggestsSSE() bool {
	method, status, _ := o.first()
	return method == http.MethodPost && status >= 400 && status < 500
}
