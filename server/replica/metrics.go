package replica

import "github.com/prometheus/client_golang/prometheus"

// Collector exports s's state to Prometheus when scraped: per replica its
// health, lag, requests and pool, the reads the primary served instead,
// by reason, and the positions clients sent back that were ignored.
// Nothing is counted per request beyond two atomic adds in Pick.
func (s *Set) Collector() prometheus.Collector { return collector{s} }

type collector struct{ s *Set }

var (
	labels           = []string{"replica"}
	healthyDesc      = prometheus.NewDesc("svc_replica_healthy", "1 while the replica serves reads: reachable, in recovery and within db-replica-max-lag; else 0.", labels, nil)
	promotedDesc     = prometheus.NewDesc("svc_replica_promoted", "1 once the replica was found out of recovery (promoted); it then serves no reads until svc-serve restarts.", labels, nil)
	lagDesc          = prometheus.NewDesc("svc_replica_lag_seconds", "How long ago the primary had flushed the oldest WAL the replica had not replayed, at the last check.", labels, nil)
	lagBytesDesc     = prometheus.NewDesc("svc_replica_lag_bytes", "WAL the primary had flushed and the replica had not replayed, at the last check.", labels, nil)
	requestsDesc     = prometheus.NewDesc("svc_replica_requests_total", "Reads sent to the replica.", labels, nil)
	inFlightDesc     = prometheus.NewDesc("svc_replica_requests_in_flight", "Reads running on the replica now.", labels, nil)
	acquiredDesc     = prometheus.NewDesc("svc_replica_pool_acquired_connections", "Connections of the replica's pool in use by requests.", labels, nil)
	totalDesc        = prometheus.NewDesc("svc_replica_pool_total_connections", "Open connections of the replica's pool.", labels, nil)
	primaryReadsDesc = prometheus.NewDesc("svc_replica_primary_reads_total",
		"Reads a replica could have served that the primary served, by reason: none_healthy, not_replayed (read-your-writes or a new snapshot), replica_behind, replica_unavailable.",
		[]string{"reason"}, nil)
	ignoredDesc = prometheus.NewDesc("svc_replica_positions_ignored_total",
		"Positions sent back in SVC-Commit-LSN that were ahead of anything the primary had written, and ignored.", nil, nil)
	positionReadsDesc = prometheus.NewDesc("svc_replica_primary_position_reads_total",
		"Reads of the primary's WAL position made to judge a position sent back in SVC-Commit-LSN past what this server knew.", nil, nil)
)

// Describe lists the metrics Collect sends.
func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{healthyDesc, promotedDesc, lagDesc, lagBytesDesc, requestsDesc, inFlightDesc,
		acquiredDesc, totalDesc, primaryReadsDesc, ignoredDesc, positionReadsDesc} {
		ch <- d
	}
}

// Collect reads every replica's state and pool.
func (c collector) Collect(ch chan<- prometheus.Metric) {
	gauge := func(d *prometheus.Desc, v float64, label string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, label)
	}
	for _, r := range c.s.replicas {
		st := r.Status()
		gauge(healthyDesc, boolValue(st.Healthy), r.Name)
		gauge(promotedDesc, boolValue(r.Promoted()), r.Name)
		gauge(lagDesc, st.Lag.Seconds(), r.Name)
		gauge(lagBytesDesc, float64(st.LagBytes), r.Name)
		ch <- prometheus.MustNewConstMetric(requestsDesc, prometheus.CounterValue, float64(r.requests.Load()), r.Name)
		gauge(inFlightDesc, float64(r.inFlight.Load()), r.Name)
		ps := r.Pool.Stat()
		gauge(acquiredDesc, float64(ps.AcquiredConns()), r.Name)
		gauge(totalDesc, float64(ps.TotalConns()), r.Name)
	}
	for reason := range reasons {
		ch <- prometheus.MustNewConstMetric(primaryReadsDesc, prometheus.CounterValue, float64(c.s.primaryReads[reason].Load()), reason.String())
	}
	ch <- prometheus.MustNewConstMetric(ignoredDesc, prometheus.CounterValue, float64(c.s.PositionsIgnored()))
	ch <- prometheus.MustNewConstMetric(positionReadsDesc, prometheus.CounterValue, float64(c.s.PositionReads()))
}

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
