package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/svc-dev/svc/server"
	"github.com/svc-dev/svc/server/logging"
)

// discard is a ResponseWriter that keeps nothing, so the benchmark
// measures the server rather than httptest.ResponseRecorder.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}

// BenchmarkObserve serves requests straight through ServeHTTP (no network)
// without observation, observed with the defaults (no metrics, access log
// below log-level), with metrics, and with everything on (metrics,
// Server-Timing, trace header, info access log and log-query to
// io.Discard). "key" is a one-row read through the database; "options" is
// OPTIONS /, which never reaches it, so the middleware's share shows.
func BenchmarkObserve(b *testing.B) {
	o := newObserved(b, map[string]string{"log-level": "error"})
	all := newObserved(b, map[string]string{"log-level": "info", "server-timing-enabled": "true",
		"server-trace-header": "X-Request-Id", "log-query": "main-query"})
	quiet := logging.NewLogger(io.Discard, "error", "text")
	plain := server.New(o.cfg, o.pool, o.snaps, o.jwt, quiet)
	variants := []struct {
		name string
		h    http.HandlerFunc
	}{
		{"bare", plain.ServeUnobserved},
		{"observed", plain.ServeHTTP},
		{"metrics", server.New(o.cfg, o.pool, o.snaps, o.jwt, quiet, server.WithMetrics(o.metrics)).ServeHTTP},
		{"everything", server.New(all.cfg, all.pool, all.snaps, all.jwt, logging.NewLogger(io.Discard, "info", "text"),
			server.WithMetrics(all.metrics)).ServeHTTP},
	}
	for _, req := range []struct{ name, method, target string }{
		{"key", "GET", "/books?id=eq.1"},
		{"options", "OPTIONS", "/"},
	} {
		for _, v := range variants {
			b.Run(req.name+"/"+v.name, func(b *testing.B) {
				r := httptest.NewRequest(req.method, req.target, nil)
				r.Header.Set("X-Request-Id", "bench")
				w := &discard{h: http.Header{}}
				b.ReportAllocs()
				for b.Loop() {
					clear(w.h)
					v.h(w, r)
				}
			})
		}
	}
}
