package metrics

import (
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
)

// Unmatched is the route label of a request no route matched.
const Unmatched = "unmatched"

// latencyBuckets suit a service whose answers take well under a
// millisecond to seconds: mocks are quick, test runs and imports are not.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

type httpVecs struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newHTTPVecs(reg *prometheus.Registry) httpVecs {
	labels := []string{"route", "method", "code"}
	v := httpVecs{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "http_requests_total",
			Help: "HTTP requests answered, by route pattern (unmatched when none), method and status code."}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "http_request_duration_seconds",
			Help: "Time to answer an HTTP request, by route pattern, method and status code.", Buckets: latencyBuckets}, labels),
	}
	reg.MustRegister(v.requests, v.duration)
	return v
}

// methods are the HTTP methods with a label of their own; others are
// "other".
var methods = [...]string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
	http.MethodOptions, http.MethodHead, "other"}

func methodIndex(m string) int {
	for i, name := range methods[:len(methods)-1] {
		if m == name {
			return i
		}
	}
	return len(methods) - 1
}

// maxCode bounds the status codes with a label of their own; others read
// as 0.
const maxCode = 600

// codeLabels are the status codes as labels, built once.
var codeLabels = func() (l [maxCode]string) {
	for i := range l {
		l[i] = strconv.Itoa(i)
	}
	return l
}()

func codeIndex(code int) int {
	if code < 0 || code >= maxCode {
		return 0
	}
	return code
}

// cell is one route's, method's and code's counter and histogram.
type cell struct {
	requests prometheus.Counter
	duration prometheus.Observer
}

// route holds one route's cells, each resolved on its first use and then
// found without an allocation: in an array read without a lock for the
// routes of the MCP endpoints (fast), in a map under a read lock for the
// REST API's many routes.
type route struct {
	vecs    httpVecs
	pattern string
	fast    *[len(methods)][maxCode]atomic.Pointer[cell]
	mu      sync.RWMutex
	cells   map[int]*cell // by method index * maxCode + code
}

func newRoute(vecs httpVecs, pattern string, fast bool) *route {
	rt := &route{vecs: vecs, pattern: pattern, cells: map[int]*cell{}}
	if fast {
		rt.fast = new([len(methods)][maxCode]atomic.Pointer[cell])
	}
	return rt
}

func (rt *route) cell(method, code int) *cell {
	if rt.fast != nil {
		if c := rt.fast[method][code].Load(); c != nil {
			return c
		}
	} else {
		rt.mu.RLock()
		c := rt.cells[method*maxCode+code]
		rt.mu.RUnlock()
		if c != nil {
			return c
		}
	}
	return rt.resolve(method, code)
}

// resolve finds or makes the cell of method and code.
func (rt *route) resolve(method, code int) *cell {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	k := method*maxCode + code
	c := rt.cells[k]
	if c == nil {
		labels := []string{rt.pattern, methods[method], codeLabels[code]}
		c = &cell{requests: rt.vecs.requests.WithLabelValues(labels...), duration: rt.vecs.duration.WithLabelValues(labels...)}
		rt.cells[k] = c
	}
	if rt.fast != nil {
		rt.fast[method][code].Store(c)
	}
	return c
}

func (rt *route) observe(method string, code int, start time.Time) {
	c := rt.cell(methodIndex(method), codeIndex(code))
	c.requests.Inc()
	c.duration.Observe(time.Since(start).Seconds())
}

// Route returns h counting its requests under the route label pattern, the
// pattern h is registered with. It adds no allocation and takes no lock
// per request; it is meant for the few routes of the MCP endpoints (each
// holds a table of 38 KB).
func (m *Metrics) Route(pattern string, h http.Handler) http.Handler {
	if m == nil {
		return h
	}
	rt := newRoute(m.http, pattern, true)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := recorders.Get().(*recorder)
		rec.ResponseWriter, rec.code = w, 0
		defer func() {
			code := rec.code
			if code == 0 {
				code = http.StatusOK // nothing written: net/http answers 200
			}
			rec.ResponseWriter = nil
			recorders.Put(rec)
			rt.observe(r.Method, code, start)
		}()
		h.ServeHTTP(rec, r)
	})
}

var recorders = sync.Pool{New: func() any { return new(recorder) }}

// recorder notes the status code written through it. Unwrap lets
// http.ResponseController reach the connection's writer (deadlines,
// flushes).
type recorder struct {
	http.ResponseWriter
	code int
}

func (r *recorder) WriteHeader(code int) {
	if r.code == 0 && code >= 200 {
		r.code = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.ResponseWriter.Write(b)
}

// Flush sends what is buffered, as the SSE replies need.
func (r *recorder) Flush() {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Echo returns the Echo pre-routing middleware that counts the requests of
// e under their route's pattern (c.Path()), or Unmatched when no route
// matches the path. Register it with e.Pre after every route is added.
func (m *Metrics) Echo(e *echo.Echo) echo.MiddlewareFunc {
	if m == nil {
		return func(next echo.HandlerFunc) echo.HandlerFunc { return next }
	}
	routes := map[string]*route{}
	for _, r := range e.Routes() {
		if routes[r.Path] == nil {
			routes[r.Path] = newRoute(m.http, r.Path, false)
		}
	}
	unmatched := newRoute(m.http, Unmatched, false)
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			start := time.Now()
			if err := next(c); err != nil {
				c.Error(err) // writes the answer, so its status is known
			}
			rt := routes[c.Path()]
			if rt == nil {
				rt = unmatched
			}
			rt.observe(c.Request().Method, c.Response().Status, start)
			return nil
		}
	}
}
