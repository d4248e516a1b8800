package metrics

import (
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mockmcp/mockmcp/internal/batch"
	"github.com/mockmcp/mockmcp/internal/journal"
	"github.com/mockmcp/mockmcp/internal/mcpserve"
	"github.com/mockmcp/mockmcp/internal/outbound"
	"github.com/mockmcp/mockmcp/internal/ratelimit"
)

// The metrics below read counters their packages keep anyway, when
// scraped: they cost the requests nothing.

func name(subsystem, n string) string { return prometheus.BuildFQName(Namespace, subsystem, n) }

func counterFunc(reg prometheus.Registerer, fqName, help string, labels prometheus.Labels, f func() float64) {
	reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: fqName, Help: help, ConstLabels: labels}, f))
}

func gaugeFunc(reg prometheus.Registerer, fqName, help string, labels prometheus.Labels, f func() float64) {
	reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: fqName, Help: help, ConstLabels: labels}, f))
}

// DesignCache exposes the per-server endpoint's design cache: hits,
// misses, loads, evictions and the warming of designs, and its entries and
// bytes now.
func (m *Metrics) DesignCache(h *mcpserve.Handler) {
	if m == nil {
		return
	}
	reg := m.reg
	for _, c := range []struct {
		n, help string
		f       func(mcpserve.CacheCounts) uint64
	}{
		{"hits_total", "Requests answered from a cached design.", func(c mcpserve.CacheCounts) uint64 { return c.Hits }},
		{"misses_total", "Requests that found no usable cached design and waited for a load.", func(c mcpserve.CacheCounts) uint64 { return c.Misses }},
		{"loads_total", "Designs read from the database and compiled.", func(c mcpserve.CacheCounts) uint64 { return c.Loads }},
		{"evictions_total", "Cached designs dropped to stay within the cache's bounds.", func(c mcpserve.CacheCounts) uint64 { return c.Evictions }},
		{"warmed_tools_total", "Tools compiled in the background when their design entered the cache.", func(c mcpserve.CacheCounts) uint64 { return c.WarmedTools }},
		{"warm_skipped_total", "Designs entering the cache whose tools were left to compile on their first calls: the warm queue or budget was full.", func(c mcpserve.CacheCounts) uint64 { return c.WarmSkipped }},
	} {
		counterFunc(reg, name("design_cache", c.n), c.help, nil, func() float64 { return float64(c.f(h.CacheCounts())) })
	}
	gaugeFunc(reg, name("design_cache", "entries"), "Designs cached now.", nil,
		func() float64 { return float64(h.CacheCounts().Entries) })
	gaugeFunc(reg, name("design_cache", "bytes"), "Approximate size of the cached designs, in bytes.", nil,
		func() float64 { return float64(h.CacheCounts().Bytes) })
}

// Queued is a background writer: the journal's or the audit trail's.
type Queued interface {
	Depth() int
	Stats() batch.Stats
}

// Queue exposes a background writer's queue under the label queue (journal,
// audit): its depth now, and the items written and dropped.
func (m *Metrics) Queue(queue string, q Queued) {
	if m == nil {
		return
	}
	l := prometheus.Labels{"queue": queue}
	stats := q.Stats
	gaugeFunc(m.reg, name("queue", "depth"), "Items waiting in the queue, not yet taken into a batch.", l,
		func() float64 { return float64(q.Depth()) })
	counterFunc(m.reg, name("queue", "written_total"), "Items written to the database.", l,
		func() float64 { return float64(stats().Written) })
	counterFunc(m.reg, name("queue", "dropped_total"), "Items dropped: the queue was full, the rate past its bound, "+
		"or the database refused or did not answer them.", l, func() float64 { return float64(stats().Dropped) })
}

// RateLimit exposes the messages each kind of limiter admitted and refused.
func (m *Metrics) RateLimit(l *ratelimit.Limiter) {
	if m == nil {
		return
	}
	for _, kind := range ratelimit.Kinds {
		counterFunc(m.reg, name("rate_limit", "admitted_total"), "Messages (or requests) admitted by a rate limit, by limiter.",
			prometheus.Labels{"limiter": kind}, func() float64 { return float64(l.Counts(kind).Admitted) })
		counterFunc(m.reg, name("rate_limit", "refused_total"), "Messages (or requests) refused by a rate limit, by limiter.",
			prometheus.Labels{"limiter": kind}, func() float64 { return float64(l.Counts(kind).Refused) })
	}
	counterFunc(m.reg, name("rate_limit", "redis_calls_total"), "Round trips to Redis made by the rate limits: leases of allowances "+
		"(and giving back those unspent at shutdown); 0 when counters are in memory.", nil, func() float64 { return float64(l.RedisCalls()) })
}

// Outbound exposes the outbound requests of this process, by kind and
// outcome.
func (m *Metrics) Outbound() {
	if m == nil {
		return
	}
	for _, kind := range outbound.Kinds {
		for _, outcome := range outbound.Outcomes {
			counterFunc(m.reg, name("outbound", "requests_total"), "Outbound requests (each redirect is one), by kind and outcome.",
				prometheus.Labels{"kind": kind, "outcome": outcome}, func() float64 { return float64(outbound.Count(kind, outcome)) })
		}
	}
}

// Pool exposes the database pool's statistics.
func (m *Metrics) Pool(p *pgxpool.Pool) {
	if m == nil {
		return
	}
	m.reg.MustRegister(poolCollector{p})
}

var (
	poolAcquired = prometheus.NewDesc(name("db_pool", "acquired_connections"), "Connections in use now.", nil, nil)
	poolIdle     = prometheus.NewDesc(name("db_pool", "idle_connections"), "Idle connections now.", nil, nil)
	poolTotal    = prometheus.NewDesc(name("db_pool", "total_connections"), "Connections open now (in use, idle or being made).", nil, nil)
	poolMax      = prometheus.NewDesc(name("db_pool", "max_connections"), "The most connections the pool opens.", nil, nil)
	poolAcquires = prometheus.NewDesc(name("db_pool", "acquires_total"), "Connections acquired from the pool.", nil, nil)
	poolWait     = prometheus.NewDesc(name("db_pool", "acquire_duration_seconds_total"), "Time spent acquiring connections.", nil, nil)
	poolEmpty    = prometheus.NewDesc(name("db_pool", "empty_acquires_total"), "Acquires that waited because no connection was idle.", nil, nil)
	poolCanceled = prometheus.NewDesc(name("db_pool", "canceled_acquires_total"), "Acquires cancelled before a connection was free.", nil, nil)
)

// poolCollector reads pgxpool's Stat once per scrape.
type poolCollector struct{ p *pgxpool.Pool }

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolAcquired, poolIdle, poolTotal, poolMax, poolAcquires, poolWait, poolEmpty, poolCanceled} {
		ch <- d
	}
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.p.Stat()
	ch <- prometheus.MustNewConstMetric(poolAcquired, prometheus.GaugeValue, float64(s.AcquiredConns()))
	ch <- prometheus.MustNewConstMetric(poolIdle, prometheus.GaugeValue, float64(s.IdleConns()))
	ch <- prometheus.MustNewConstMetric(poolTotal, prometheus.GaugeValue, float64(s.TotalConns()))
	ch <- prometheus.MustNewConstMetric(poolMax, prometheus.GaugeValue, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(poolAcquires, prometheus.CounterValue, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWait, prometheus.CounterValue, s.AcquireDuration().Seconds())
	ch <- prometheus.MustNewConstMetric(poolEmpty, prometheus.CounterValue, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolCanceled, prometheus.CounterValue, float64(s.CanceledAcquireCount()))
}

// JournalDrops exposes whose call journal records were dropped, by count
// only, never by organization id: the records dropped by each bound
// (server, organization, instance, queue) and the organizations that lost
// records in the last minute.
func (m *Metrics) JournalDrops(w *journal.Writer) {
	if m == nil || w == nil {
		return
	}
	for _, b := range journal.Bounds {
		counterFunc(m.reg, name("journal", "dropped_total"), "Call journal records dropped, by the bound that dropped them: "+
			"a server's or an organization's share of the rate, the instance's rate, or the queue.",
			prometheus.Labels{"bound": b.String()}, func() float64 { return float64(w.DroppedBy(b)) })
	}
	gaugeFunc(m.reg, name("journal", "dropping_organizations"), "Organizations whose call journal records this "+
		"instance dropped in the last minute.", nil, func() float64 { return float64(w.DroppingOrganizations()) })
}
