package resttest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mockmcp/mockmcp/internal/credential"
	"github.com/mockmcp/mockmcp/internal/errtext"
)

// DefaultMaxBody is the number of bytes of each response body a Runner
// keeps when its MaxBody is not set: 1 MiB.
const DefaultMaxBody int64 = 1 << 20

// maxErrorLength bounds the error message recorded for a failed request.
const maxErrorLength = 500

// Runner runs test cases over HTTP. It holds no state between runs and may
// run cases concurrently.
//
// Outbound safety is the caller's: Client must refuse private and internal
// targets and bound the time a request takes; the runner only caps the
// bytes of each response body it keeps.
type Runner struct {
	Client  *http.Client     // guarded by the caller
	MaxBody int64            // bytes of each response body kept; default 1 MiB
	Now     func() time.Time // for tests; default time.Now
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Runner) maxBody() int64 {
	if r.MaxBody > 0 {
		return r.MaxBody
	}
	return DefaultMaxBody
}

func (r *Runner) client() *http.Client {
	if r.Client != nil {
		return r.Client
	}
	return http.DefaultClient
}

// Run sends one request per scope of c, in order, and checks each answer
// against the scope's expectation. The scopes are independent: nothing of
// one answer feeds the next request. A request that gets no answer (a
// refused target, a timeout, a connection failure, a cancelled ctx) is a
// failed result with Error set and every condition failed with the message
// "no response"; the run goes on with the next scope.
//
// Each request is built from c.Input:
//
//   - URL: BaseURL without its trailing '/', then the scope's path with each
//     `{param}` replaced by url.PathEscape of its value, then the query
//     parameters sorted by name;
//   - headers: Input.Headers (a Host header sets the request's host), plus
//     `Content-Type: application/json` when a body is sent and none is
//     given, plus `Accept: application/json, text/event-stream` when none
//     is given;
//   - body: Input.Body (when present and not null) for every method but GET
//     and HEAD.
//
// The answer's body is parsed as an event stream when its Content-Type is
// text/event-stream or it starts with an `event:` or `data:` line (see
// parseSSE), else as JSON, else kept as a JSON string of its text; a body
// cut at MaxBody that no longer parses as JSON is kept as text. Without an
// expected status any 2xx status passes.
//
// Recorded request and response headers are masked with MaskHeader.
func (r *Runner) Run(ctx context.Context, c Case) Run {
	start := r.now()
	run := Run{StartedAt: start, Results: make([]Result, 0, len(c.Scopes))}
	run.Passed = len(c.Scopes) > 0
	for _, s := range c.Scopes {
		res := r.runScope(ctx, c, s)
		run.Passed = run.Passed && res.Passed
		run.Results = append(run.Results, res)
	}
	run.DurationMS = millis(r.now().Sub(start))
	return run
}

func (r *Runner) runScope(ctx context.Context, c Case, s Scope) Result {
	exp, _ := expectationFor(c.Input, s)
	res := Result{
		Endpoint:       s.Label(),
		ExpectedStatus: exp.ExpectedStatus,
		Conditions:     make([]ConditionResult, 0, len(exp.Conditions)),
	}
	req, rec, err := buildRequest(ctx, c, s)
	res.Request = rec
	if err != nil {
		return noResponse(res, exp, err.Error())
	}

	start := r.now()
	resp, err := r.client().Do(req)
	if err != nil {
		return noResponse(res, exp, errtext.Outbound("the target", err))
	}
	raw, truncated, readErr := readCapped(resp.Body, r.maxBody())
	resp.Body.Close()
	out := &Response{
		Status:        resp.StatusCode,
		Headers:       responseHeaders(resp.Header),
		BodyTruncated: truncated,
		DurationMS:    millis(r.now().Sub(start)),
	}
	var body any
	out.Body, body = parseBody(resp.Header.Get("Content-Type"), raw)
	res.Response = out
	if readErr != nil {
		// Part of the body came back: keep it, check it, but do not pass.
		res.Error = "reading the response body: " + errtext.Outbound("the target", readErr)
		out.BodyTruncated = true
	}

	if exp.ExpectedStatus != nil {
		res.StatusPassed = resp.StatusCode == *exp.ExpectedStatus
	} else {
		res.StatusPassed = resp.StatusCode >= 200 && resp.StatusCode <= 299
	}
	res.Passed = res.StatusPassed && res.Error == ""
	for _, cond := range exp.Conditions {
		cr := Evaluate(cond, body)
		res.Passed = res.Passed && cr.Passed
		res.Conditions = append(res.Conditions, cr)
	}
	return res
}

// noResponse completes a result for a request that got no answer.
func noResponse(res Result, exp Expectation, msg string) Result {
	res.Error = msg
	res.StatusPassed = false
	res.Passed = false
	for _, cond := range exp.Conditions {
		cr := ConditionResult{
			Path:      cond.Path,
			Operation: cond.Operation,
			Expected:  jsonNull,
			Actual:    jsonNull,
			Message:   "no response",
		}
		if needsValue(cond.Operation) {
			cr.Expected = compactOrNull(cond.Value)
		}
		res.Conditions = append(res.Conditions, cr)
	}
	return res
}

// expectationFor finds the scope's expectation: the one keyed by its label,
// else one whose key names the same endpoint with the method in another
// case ("get /users").
func expectationFor(in Input, s Scope) (Expectation, bool) {
	label := s.Label()
	if e, ok := in.Expectations[label]; ok {
		return e, true
	}
	keys := make([]string, 0, len(in.Expectations))
	for k := range in.Expectations {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if normalizeLabel(k) == label {
			return in.Expectations[k], true
		}
	}
	return Expectation{}, false
}

// normalizeLabel upper-cases the method of an endpoint label.
func normalizeLabel(key string) string {
	method, path, ok := strings.Cut(key, " ")
	if !ok {
		return key
	}
	return strings.ToUpper(method) + " " + path
}

// sendsBody reports whether a request with method carries the case's body.
func sendsBody(method string, body json.RawMessage) bool {
	return method != http.MethodGet && method != http.MethodHead && hasValue(body) && !isNull(body)
}

// buildRequest builds the request for one scope and its record. The record
// is filled as far as the request could be built.
func buildRequest(ctx context.Context, c Case, s Scope) (*http.Request, Request, error) {
	method := strings.ToUpper(s.Method)
	rec := Request{Method: method, Headers: map[string]string{}}

	path, err := fillPath(s.Path, c.Input.PathParams)
	if err != nil {
		path = s.Path
	}
	target := strings.TrimRight(c.BaseURL, "/") + path
	rec.URL = target
	if len(c.Input.QueryParams) > 0 {
		q, masked := url.Values{}, url.Values{}
		for k, v := range c.Input.QueryParams {
			q.Set(k, v)
			masked.Set(k, MaskQuery(k, v))
		}
		target += "?" + q.Encode() // Encode sorts by name
		rec.URL += "?" + masked.Encode()
	}
	if err != nil {
		return nil, rec, err
	}

	var body io.Reader
	send := sendsBody(method, c.Input.Body)
	if send {
		body = bytes.NewReader(c.Input.Body)
		rec.Body = c.Input.Body
	}
	req, err := http.NewRequestWithContext(ctx, method, target, body)
	if err != nil {
		return nil, rec, errors.New(errorMessage(err))
	}
	for _, k := range slices.Sorted(maps.Keys(c.Input.Headers)) {
		v := c.Input.Headers[k]
		if strings.EqualFold(k, "Host") {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
		rec.Headers[http.CanonicalHeaderKey(k)] = MaskHeader(k, v)
	}
	if _, ok := req.Header["Content-Type"]; send && !ok {
		req.Header.Set("Content-Type", "application/json")
		rec.Headers["Content-Type"] = "application/json"
	}
	if _, ok := req.Header["Accept"]; !ok {
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec.Headers["Accept"] = "application/json, text/event-stream"
	}
	return req, rec, nil
}

// fillPath replaces each `{name}` of path with the escaped value of the
// path parameter name.
func fillPath(path string, params map[string]string) (string, error) {
	var b strings.Builder
	for {
		open := strings.IndexByte(path, '{')
		if open < 0 {
			b.WriteString(path)
			return b.String(), nil
		}
		end := strings.IndexByte(path[open:], '}')
		if end < 0 {
			return "", errors.New("the path has an unclosed '{'")
		}
		name := path[open+1 : open+end]
		v, ok := params[name]
		if !ok {
			return "", errors.New("path parameter '" + name + "' has no value in input.path_params")
		}
		b.WriteString(path[:open])
		b.WriteString(url.PathEscape(v))
		path = path[open+end+1:]
	}
}

// readCapped reads at most limit bytes of body, reading one more to tell
// whether there was more.
func readCapped(body io.Reader, limit int64) ([]byte, bool, error) {
	raw, err := io.ReadAll(io.LimitReader(body, limit+1))
	if int64(len(raw)) > limit {
		return raw[:limit], true, err
	}
	return raw, false, err
}

// responseHeaders keeps the first value of each header, masked.
func responseHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		if len(vs) == 0 {
			continue
		}
		name := http.CanonicalHeaderKey(k)
		out[name] = MaskHeader(name, vs[0])
	}
	return out
}

// parseBody parses a response body; it returns the value as JSON for the
// record and decoded for the conditions.
func parseBody(contentType string, raw []byte) (json.RawMessage, any) {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	if mediaType == "text/event-stream" || (!isJSONMedia(mediaType) && looksLikeSSE(raw)) {
		v := parseSSE(raw)
		return marshalValue(v), v
	}
	if v, err := decodeJSON(raw); err == nil {
		var buf bytes.Buffer
		if json.Compact(&buf, raw) == nil {
			return json.RawMessage(buf.Bytes()), v
		}
		return marshalValue(v), v
	}
	// Not JSON, or JSON cut short by the size cap: keep the text.
	s := text(raw)
	return marshalValue(s), s
}

func isJSONMedia(mediaType string) bool {
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}

// looksLikeSSE reports whether the first non-blank line of raw is an
// `event:` or `data:` line.
func looksLikeSSE(raw []byte) bool {
	t := bytes.TrimLeft(raw, " \t\r\n")
	return bytes.HasPrefix(t, []byte("event:")) || bytes.HasPrefix(t, []byte("data:"))
}

// parseSSE reads an event stream as the WHATWG specification describes:
// lines starting with ':' are comments, a field's value loses one leading
// space, the data lines of one event are joined by "\n", a blank line ends
// an event, and an event without data lines is dropped; event names, ids
// and retry fields are ignored. An event still open at the end of the body
// (a stream cut short) is kept. Each event's data is parsed as JSON, and
// kept as a string when it is not JSON. The result is the value of the
// single event when there is exactly one, else an array of the values.
func parseSSE(raw []byte) any {
	values := []any{}
	var data []string
	hasData := false
	flush := func() {
		if hasData {
			d := strings.Join(data, "\n")
			if v, err := decodeJSON([]byte(d)); err == nil {
				values = append(values, v)
			} else {
				values = append(values, text([]byte(d)))
			}
		}
		data, hasData = data[:0], false
	}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 64*1024), len(raw)+1)
	sc.Split(scanSSELines)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			flush()
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		if field == "data" {
			data = append(data, value)
			hasData = true
		}
	}
	flush()
	if len(values) == 1 {
		return values[0]
	}
	return values
}

// scanSSELines splits lines ended by "\r\n", "\n" or "\r".
func scanSSELines(data []byte, atEOF bool) (int, []byte, error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\r' {
			if i+1 < len(data) {
				if data[i+1] == '\n' {
					return i + 2, data[:i], nil
				}
				return i + 1, data[:i], nil
			}
			if !atEOF {
				return 0, nil, nil // a '\n' may follow
			}
		}
		return i + 1, data[:i], nil
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// text turns a body that is not JSON into a string that JSON and the
// database can hold: invalid UTF-8 and NUL characters become U+FFFD.
func text(raw []byte) string {
	s := string(raw)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// errorMessage shortens an error building a request: the method and URL a
// *url.Error repeats are already in the record. Errors of sending one go
// through errtext, which names no address the target resolved to.
func errorMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) && ue.Err != nil {
		err = ue.Err
	}
	msg := err.Error()
	if len(msg) > maxErrorLength {
		msg = strings.ToValidUTF8(msg[:maxErrorLength], "") + "…"
	}
	return msg
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// MaskHeader returns the value of the header name as it may be stored and
// shown: the value of a credential header (credential.Is) becomes "****",
// except that an Authorization or Proxy-Authorization value keeps its
// scheme word ("Bearer ****"). Other values, and empty ones, are returned
// as they are.
func MaskHeader(name, value string) string {
	if value == "" || !credential.Is(name) {
		return value
	}
	canon := http.CanonicalHeaderKey(strings.TrimSpace(name))
	if canon == "Authorization" || canon == "Proxy-Authorization" {
		scheme, rest, ok := strings.Cut(strings.TrimSpace(value), " ")
		if ok && strings.TrimSpace(rest) != "" && isToken(scheme) && len(scheme) <= 30 {
			return scheme + " ****"
		}
	}
	return "****"
}

// MaskQuery returns the value of query parameter name as a record may keep
// it: "****" when the name suggests a credential (credential.Is: api_key,
// access_token, X-Amz-Signature, password), else the value.
func MaskQuery(name, value string) string {
	if value != "" && credential.Is(name) {
		return "****"
	}
	return value
}

// isToken reports whether s is an HTTP token (RFC 9110, section 5.6.2).
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 || !tokenChars[c] {
			return false
		}
	}
	return true
}

var tokenChars = func() [128]bool {
	var t [128]bool
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()
