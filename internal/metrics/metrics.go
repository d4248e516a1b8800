// Package metrics exposes the service's Prometheus metrics: HTTP requests
// by route, MCP messages by method and outcome, the design cache, the
// background writers' queues, rate limits, outbound requests, the database
// pool, and the Go runtime and process. They are served on their own
// listener (METRICS_ADDR), never on the public one.
//
// No label takes values a caller chooses: routes are registered patterns,
// MCP methods are the known names (anything else is "other"), and no
// server, tool or organization is named. The hot path (the per-server MCP
// endpoint) builds no labels per request: its counters are resolved when
// the endpoint is set up, or once on the first use of a status code.
package metrics

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every metric of the service itself.
const Namespace = "mockmcp"

// Metrics is one registry of the service's metrics. A nil *Metrics
// records nothing: every method is then a no-op that returns its input
// unchanged, so the service is assembled the same way with metrics off.
type Metrics struct {
	reg      *prometheus.Registry
	http     httpVecs
	messages *prometheus.CounterVec
}

// New returns a registry holding the Go runtime and process collectors and
// the HTTP and MCP message metrics; the Register methods add the others.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{reg: reg, http: newHTTPVecs(reg)}
	m.messages = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "mcp_messages_total",
		Help: "MCP messages answered, by endpoint (server: the per-server endpoint, platform: the service endpoint), " +
			"method (known names, else other) and outcome (result, is_error, notification, rate_limited, error:CODE)."},
		[]string{"endpoint", "method", "outcome"})
	reg.MustRegister(m.messages)
	return m
}

// Registry is the registry, for tests and for collectors of other
// packages.
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return nil
	}
	return m.reg
}

// Handler serves the metrics in the Prometheus text exposition format (or
// OpenMetrics, when asked for).
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
}
