package admin

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// requestMetrics counts requests and their latencies, by route kind,
// method and status class, in plain atomic counters that Prometheus reads
// when it scrapes (Collect), rather than in client_golang's counters and
// histograms. Those cost a request five atomic operations on as many
// objects, which at-once rounds of deploy/bench's insert could tell from
// none at all; a request here adds to three counters of one slot. What is
// exposed is the same: the same names, labels, help and buckets.
type requestMetrics struct {
	slots [routeKinds][methodSlots]requestSlot
}

// requestSlot is one route kind and method's counts.
type requestSlot struct {
	// classes counts requests by status class, 1xx to 5xx.
	classes [statusClasses]atomic.Uint64
	// buckets counts requests by the first latency bucket they fall in;
	// the last counts those above every bound (le="+Inf" alone).
	buckets [len(latencyBuckets) + 1]atomic.Uint64
	// nanos is the latencies' sum.
	nanos atomic.Uint64
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
var latencyBuckets = [...]float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// latencyBounds are latencyBuckets as durations, which a request's
// latency is compared with: a bound is inclusive, as Prometheus's le is.
var latencyBounds = func() (b [len(latencyBuckets)]time.Duration) {
	for i, s := range latencyBuckets {
		b[i] = time.Duration(s * float64(time.Second))
	}
	return b
}()

var (
	requestsDesc = prometheus.NewDesc("svc_http_requests_total",
		"HTTP requests served, by route kind (relation, function, root), method and status class.",
		[]string{"kind", "method", "code"}, nil)
	latencyDesc = prometheus.NewDesc("svc_http_request_duration_seconds",
		"Time from receiving a request to its handler's return, by route kind and method.",
		[]string{"kind", "method"}, nil)
)

// observe counts one request.
func (m *requestMetrics) observe(path, method string, status int, d time.Duration) {
	c := status/100 - 1
	if c < 0 || c >= statusClasses {
		c = statusClasses - 1 // a status outside 1xx-5xx is a server bug
	}
	b := 0
	for b < len(latencyBounds) && d > latencyBounds[b] {
		b++
	}
	s := &m.slots[kindOf(path)][methodSlot(method)]
	s.classes[c].Add(1)
	s.buckets[b].Add(1)
	s.nanos.Add(uint64(max(d, 0)))
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

// Describe lists the request metrics.
func (m *requestMetrics) Describe(ch chan<- *prometheus.Desc) {
	ch <- requestsDesc
	ch <- latencyDesc
}

// Collect reads every slot, those no request reached too (as zero), so
// that a series exists before its first request. A histogram's count is
// the sum of the buckets it reads, so the two always agree; its sum may
// include a request its buckets do not yet, as a scrape is not atomic.
func (m *requestMetrics) Collect(ch chan<- prometheus.Metric) {
	for k, kind := range kindNames {
		for mi, method := range methodNames {
			s := &m.slots[k][mi]
			for c, class := range classNames {
				ch <- prometheus.MustNewConstMetric(requestsDesc, prometheus.CounterValue,
					float64(s.classes[c].Load()), kind, method, class)
			}
			cumulative := make(map[float64]uint64, len(latencyBuckets))
			var count uint64
			for b, bound := range latencyBuckets {
				count += s.buckets[b].Load()
				cumulative[bound] = count
			}
			count += s.buckets[len(latencyBuckets)].Load()
			ch <- prometheus.MustNewConstHistogram(latencyDesc, count,
				time.Duration(s.nanos.Load()).Seconds(), cumulative, kind, method)
		}
	}
}
