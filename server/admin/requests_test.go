package admin

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// The request metrics expose what client_golang's own counter and
// histogram would for the same requests: every count, every cumulative
// bucket (a latency on a bound counts in it, as le says), and the sum. A
// series no request reached is there too, at zero.
func TestRequestMetricsExposeWhatClientGolangWould(t *testing.T) {
	t.Parallel()
	ours := prometheus.NewRegistry()
	var m requestMetrics
	ours.MustRegister(&m)

	reference := prometheus.NewRegistry()
	counts := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "svc_http_requests_total",
		Help: "reference"}, []string{"kind", "method", "code"})
	latencies := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "svc_http_request_duration_seconds",
		Help: "reference", Buckets: latencyBuckets[:]}, []string{"kind", "method"})
	reference.MustRegister(counts, latencies)

	durations := []time.Duration{0, 1, 499 * time.Microsecond, 500 * time.Microsecond, 500*time.Microsecond + 1,
		time.Millisecond, 2500 * time.Microsecond, 7 * time.Millisecond, 250 * time.Millisecond, 10 * time.Second,
		11 * time.Second, time.Hour}
	requests := []struct {
		path, method      string
		status            int
		kind, slot, class string // the labels it is counted under
	}{
		{"/reviews", "POST", 201, "relation", "POST", "2xx"},
		{"/books", "GET", 200, "relation", "GET", "2xx"},
		{"/books", "GET", 404, "relation", "GET", "4xx"},
		{"/rpc/f", "GET", 500, "function", "GET", "5xx"},
		{"/", "HEAD", 200, "root", "HEAD", "2xx"},
		{"/books", "BREW", 405, "relation", "other", "4xx"},
		{"/books", "GET", 600, "relation", "GET", "5xx"}, // a server bug, counted as one
		{"/books", "PATCH", 101, "relation", "PATCH", "1xx"},
	}
	for i, r := range requests {
		for j, d := range durations[i%3:] {
			if j%(i+1) != 0 {
				continue
			}
			m.observe(r.path, r.method, r.status, d)
			counts.WithLabelValues(r.kind, r.slot, r.class).Inc()
			latencies.WithLabelValues(r.kind, r.slot).Observe(d.Seconds())
		}
	}

	got, want := gather(t, ours), gather(t, reference)
	if n := len(got["svc_http_requests_total"]); n != routeKinds*methodSlots*statusClasses {
		t.Errorf("%d request count series, want one per kind, method and class (%d)", n, routeKinds*methodSlots*statusClasses)
	}
	if n := len(got["svc_http_request_duration_seconds"]); n != routeKinds*methodSlots {
		t.Errorf("%d latency series, want one per kind and method (%d)", n, routeKinds*methodSlots)
	}
	for family, series := range got {
		for labels, g := range series {
			w, reached := want[family][labels]
			if !reached {
				if g.total != 0 || g.count != 0 || g.sum != 0 {
					t.Errorf("%s{%s} = %+v, want zero: no request reached it", family, labels, g)
				}
				continue
			}
			if g.total != w.total || g.count != w.count || !slices.Equal(g.buckets, w.buckets) ||
				!slices.Equal(g.upperBound, w.upperBound) ||
				math.Abs(g.sum-w.sum) > 1e-9*math.Max(1, w.sum) {
				t.Errorf("%s{%s} = %+v, client_golang's %+v", family, labels, g, w)
			}
		}
	}
	for family, series := range want {
		for labels := range series {
			if _, ok := got[family][labels]; !ok {
				t.Errorf("%s{%s} missing", family, labels)
			}
		}
	}
}

// exposed is what a series says: a counter's total, or a histogram's
// count, sum and cumulative buckets.
type exposed struct {
	total      float64
	count      uint64
	sum        float64
	buckets    []uint64
	upperBound []float64
}

// gather reads reg's series by family name and labels.
func gather(t *testing.T, reg *prometheus.Registry) map[string]map[string]exposed {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]exposed{}
	for _, f := range families {
		series := map[string]exposed{}
		for _, m := range f.GetMetric() {
			series[labelsOf(m)] = exposedOf(m)
		}
		out[f.GetName()] = series
	}
	return out
}

func labelsOf(m *dto.Metric) string {
	var b strings.Builder
	for _, l := range m.GetLabel() {
		b.WriteString(l.GetName() + "=" + l.GetValue() + ",")
	}
	return b.String()
}

func exposedOf(m *dto.Metric) exposed {
	if c := m.GetCounter(); c != nil {
		return exposed{total: c.GetValue()}
	}
	h := m.GetHistogram()
	e := exposed{count: h.GetSampleCount(), sum: h.GetSampleSum()}
	for _, b := range h.GetBucket() {
		e.buckets = append(e.buckets, b.GetCumulativeCount())
		e.upperBound = append(e.upperBound, b.GetUpperBound())
	}
	return e
}
