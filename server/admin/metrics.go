package admin

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/svc-dev/svc/server/dbexec"
	"github.com/svc-dev/svc/server/reload"
	"github.com/svc-dev/svc/snapshot"
)

// Metrics holds SVC's Prometheus metrics in a registry of its own (so two
// servers in one process, as in tests, never collide) and serves them.
//
// The request path costs two atomic adds and a histogram observation: the
// counter and histogram of every route kind x method x status class are
// resolved once here, so a request only indexes arrays. Pool, snapshot and
// listener state is read when Prometheus scrapes, never per request.
type Metrics struct {
	registry *prometheus.Registry
	requests [routeKinds][methodSlots][statusClasses]prometheus.Counter
	latency  [routeKinds][methodSlots]prometheus.Observer

	snapshotReloads   *prometheus.CounterVec
	snapshotLastOK    prometheus.Gauge
	snapshotLoadSecs  prometheus.Gauge
	configReloads     *prometheus.CounterVec
	configLastOK      prometheus.Gauge
	listenerConnected prometheus.Gauge

	// loadedAt is when the snapshot in force was loaded (Unix nanoseconds,
	// 0 before the first load), for the admin server's /snapshot.
	loadedAt atomic.Int64
	// hears is the LISTEN session's last self-check: 0 before the first,
	// 1 heard, 2 not heard.
	hears atomic.Int32
}

// Route kinds, methods and status classes, the request metrics' labels.
const (
	kindRelation = iota
	kindFunction
	kindRoot
	routeKinds

	statusClasses = 5 // 1xx to 5xx
)

var (
	kindNames   = [routeKinds]string{"relation", "function", "root"}
	methodNames = [...]string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPatch,
		http.MethodPut, http.MethodDelete, http.MethodOptions, "other"}
	classNames = [statusClasses]string{"1xx", "2xx", "3xx", "4xx", "5xx"}
)

const methodSlots = len(methodNames)

// latencyBuckets start below a millisecond: a key lookup over a warm pool
// takes about that long, and the default buckets would lump every fast
// request together.
var latencyBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// NewMetrics registers SVC's metrics. pool (nil for none) is the request
// pool whose statistics are exported; snaps is the snapshot holder whose
// fingerprint is. Call snaps.OnReload(m.SnapshotReloaded) before the first
// load so that load times and reload outcomes are counted from the start.
func NewMetrics(pool *pgxpool.Pool, snaps *reload.Snapshots) *Metrics {
	m := &Metrics{registry: prometheus.NewRegistry()}
	requests := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "svc_http_requests_total",
		Help: "HTTP requests served, by route kind (relation, function, root), method and status class.",
	}, []string{"kind", "method", "code"})
	latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "svc_http_request_duration_seconds",
		Help:    "Time from receiving a request to its handler's return, by route kind and method.",
		Buckets: latencyBuckets,
	}, []string{"kind", "method"})
	for k, kind := range kindNames {
		for mi, method := range methodNames {
			m.latency[k][mi] = latency.WithLabelValues(kind, method)
			for c, class := range classNames {
				m.requests[k][mi][c] = requests.WithLabelValues(kind, method, class)
			}
		}
	}
	m.snapshotReloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "svc_snapshot_reloads_total",
		Help: "Schema snapshot loads, by result (success, failure); the first load counts.",
	}, []string{"result"})
	m.snapshotLastOK = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "svc_snapshot_last_reload_successful",
		Help: "1 when the last snapshot load succeeded, 0 when it failed (the previous snapshot stays in force).",
	})
	m.snapshotLoadSecs = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "svc_snapshot_load_duration_seconds",
		Help: "How long the last successful snapshot load took.",
	})
	m.configReloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "svc_config_reloads_total",
		Help: "Configuration reloads ('reload config'), by result (success, failure).",
	}, []string{"result"})
	m.configLastOK = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "svc_config_last_reload_successful",
		Help: "1 when the last configuration reload succeeded (or none was asked for), 0 when it failed.",
	})
	m.configLastOK.Set(1)
	m.listenerConnected = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "svc_listener_connected",
		Help: "1 while the LISTEN connection for reload notifications is up, else 0.",
	})
	for _, result := range []string{"success", "failure"} {
		m.snapshotReloads.WithLabelValues(result)
		m.configReloads.WithLabelValues(result)
	}
	m.registry.MustRegister(requests, latency, m.snapshotReloads, m.snapshotLastOK, m.snapshotLoadSecs,
		m.configReloads, m.configLastOK, m.listenerConnected,
		&stateCollector{pool: pool, snaps: snaps, loadedAt: &m.loadedAt, hears: &m.hears},
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Register adds c's metrics to those served, such as the replicas'
// (replica.Set.Collector).
func (m *Metrics) Register(c prometheus.Collector) { m.registry.MustRegister(c) }

// Handler serves the metrics in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// Observe counts one request. path decides the route kind the way the
// router does, without running it again.
func (m *Metrics) Observe(path, method string, status int, d time.Duration) {
	k := kindOf(path)
	mi := methodSlot(method)
	c := status/100 - 1
	if c < 0 || c >= statusClasses {
		c = statusClasses - 1 // a status outside 1xx-5xx is a server bug
	}
	m.requests[k][mi][c].Inc()
	m.latency[k][mi].Observe(d.Seconds())
}

func kindOf(path string) int {
	switch {
	case path == "/":
		return kindRoot
	case len(path) > 5 && path[:5] == "/rpc/":
		return kindFunction
	}
	return kindRelation
}

func methodSlot(method string) int {
	for i, name := range methodNames[:methodSlots-1] {
		if method == name {
			return i
		}
	}
	return methodSlots - 1
}

// SnapshotReloaded records a snapshot load; pass it to reload.Snapshots.OnReload.
func (m *Metrics) SnapshotReloaded(snap *snapshot.Snapshot, took time.Duration, err error) {
	if err != nil {
		m.snapshotReloads.WithLabelValues("failure").Inc()
		m.snapshotLastOK.Set(0)
		return
	}
	m.loadedAt.Store(time.Now().UnixNano())
	m.snapshotReloads.WithLabelValues("success").Inc()
	m.snapshotLastOK.Set(1)
	m.snapshotLoadSecs.Set(took.Seconds())
}

// ConfigReloaded records the outcome of reload.Runtime.ReloadConfig.
func (m *Metrics) ConfigReloaded(err error) {
	if err != nil {
		m.configReloads.WithLabelValues("failure").Inc()
		m.configLastOK.Set(0)
		return
	}
	m.configReloads.WithLabelValues("success").Inc()
	m.configLastOK.Set(1)
}

// ListenerConnected records the LISTEN connection's state; pass it to
// reload.Listener.OnConnected.
func (m *Metrics) ListenerConnected(up bool) {
	if up {
		m.listenerConnected.Set(1)
	} else {
		m.listenerConnected.Set(0)
	}
}

// ListenerHears records a self-check of the LISTEN session (whether a
// notification the server sent itself arrived); pass it to
// reload.Listener.OnHearing.
func (m *Metrics) ListenerHears(hears bool) {
	if hears {
		m.hears.Store(1)
	} else {
		m.hears.Store(2)
	}
}

// LoadedAt is when the snapshot in force was loaded; zero before the
// first load seen by SnapshotReloaded.
func (m *Metrics) LoadedAt() time.Time {
	if n := m.loadedAt.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// stateCollector reports, at scrape time, what is read rather than
// counted: the pool's statistics (one Stat call per scrape) and the
// snapshot in force.
type stateCollector struct {
	pool     *pgxpool.Pool
	snaps    *reload.Snapshots
	loadedAt *atomic.Int64
	hears    *atomic.Int32
}

var (
	poolAcquired      = poolDesc("acquired_connections", "Connections in use by requests.")
	poolIdle          = poolDesc("idle_connections", "Open connections waiting for a request.")
	poolTotal         = poolDesc("total_connections", "Open connections, including ones being opened.")
	poolMax           = poolDesc("max_connections", "The pool's size (db-pool).")
	poolAcquires      = poolDesc("acquires_total", "Connections handed to requests.")
	poolAcquireSecs   = poolDesc("acquire_duration_seconds_total", "Time requests spent getting a connection.")
	poolEmptyAcquires = poolDesc("empty_acquires_total", "Acquires that had to wait: no idle connection was there.")
	poolEmptyWaitSecs = poolDesc("empty_acquire_wait_seconds_total", "Time the acquires that had to wait spent waiting.")
	poolCanceled      = poolDesc("canceled_acquires_total", "Acquires given up before a connection came (timeout or client gone).")
	snapshotInfoDesc  = prometheus.NewDesc("svc_snapshot_info",
		"The snapshot in force, as labels; always 1.", []string{"fingerprint", "format_version", "generator_version"}, nil)
	snapshotLoadedAtDesc = prometheus.NewDesc("svc_snapshot_loaded_timestamp_seconds",
		"When the snapshot in force was loaded, in Unix seconds.", nil, nil)
	listenerHearsDesc = prometheus.NewDesc("svc_listener_hears_notifications",
		"1 when the last notification the server sent itself reached its LISTEN session, 0 when it did not "+
			"(reloads by NOTIFY do not reach it: set db-channel-uri); absent before the first check.", nil, nil)
)

func poolDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("svc_db_pool_"+name, help, nil, nil)
}

// Describe lists the metrics Collect may send.
func (c *stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolAcquired, poolIdle, poolTotal, poolMax, poolAcquires,
		poolAcquireSecs, poolEmptyAcquires, poolEmptyWaitSecs, poolCanceled, snapshotInfoDesc, snapshotLoadedAtDesc, listenerHearsDesc} {
		ch <- d
	}
}

// Collect reads the pool and the snapshot in force.
func (c *stateCollector) Collect(ch chan<- prometheus.Metric) {
	if c.pool != nil {
		st := dbexec.PoolStatOf(c.pool)
		gauge := func(d *prometheus.Desc, v float64) { ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v) }
		counter := func(d *prometheus.Desc, v float64) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v)
		}
		gauge(poolAcquired, float64(st.AcquiredConns()))
		gauge(poolIdle, float64(st.IdleConns()))
		gauge(poolTotal, float64(st.TotalConns()))
		gauge(poolMax, float64(st.MaxConns()))
		counter(poolAcquires, float64(st.AcquireCount()))
		counter(poolAcquireSecs, st.AcquireDuration().Seconds())
		counter(poolEmptyAcquires, float64(st.EmptyAcquireCount()))
		counter(poolEmptyWaitSecs, st.EmptyAcquireWaitTime().Seconds())
		counter(poolCanceled, float64(st.CanceledAcquireCount()))
	}
	if snap := c.snaps.Current(); snap != nil {
		h := snap.Header
		ch <- prometheus.MustNewConstMetric(snapshotInfoDesc, prometheus.GaugeValue, 1,
			h.Fingerprint, strconv.Itoa(h.FormatVersion), h.GeneratorVersion)
	}
	if n := c.loadedAt.Load(); n != 0 {
		ch <- prometheus.MustNewConstMetric(snapshotLoadedAtDesc, prometheus.GaugeValue, float64(n)/1e9)
	}
	if h := c.hears.Load(); h != 0 {
		ch <- prometheus.MustNewConstMetric(listenerHearsDesc, prometheus.GaugeValue, float64(2-h))
	}
}
