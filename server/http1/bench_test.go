package http1_test

import (
	"bufio"
	"net/http"
	"strconv"
	"testing"

	"github.com/svc-dev/svc/server/http1"
	"github.com/svc-dev/svc/server/internal/benchclient"
)

// benchBody is the 126-byte JSON answer of BenchmarkServe.
var benchBody = []byte(`{"id":12345,"name":"widget","price":19.99,"tags":["a","b","c"],"active":true,"created":"2024-01-02T03:04:05Z","owner":"xyzwv"}`)

// BenchmarkServe compares net/http and http1 on keep-alive GETs of a 126-byte JSON body, one at a time on one connection.
func BenchmarkServe(b *testing.B) {
	// The client reads responses without allocating, so the allocations
	// reported are the servers'.
	if len(benchBody) != 126 {
		b.Fatalf("benchBody is %d bytes, want 126", len(benchBody))
	}
	cl := strconv.Itoa(len(benchBody))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", cl)
		w.Write(benchBody)
	})
	b.Run("nethttp", func(b *testing.B) {
		benchClient(b, startNetHTTP(b, &http.Server{Handler: h}))
	})
	b.Run("http1", func(b *testing.B) {
		addr, _ := startHTTP1(b, &http1.Server{Handler: h})
		benchClient(b, addr)
	})
}

// benchClient sends keep-alive GETs to addr one after another.
func benchClient(b *testing.B, addr string) {
	c := dial(b, addr)
	req := []byte("GET /items/12345 HTTP/1.1\r\nHost: bench\r\nUser-Agent: bench\r\nAccept: application/json\r\n\r\n")
	br := bufio.NewReaderSize(c, 16<<10)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		if n := benchclient.ReadOK(b, br); n != len(benchBody) {
			b.Fatalf("body of %d bytes, want %d", n, len(benchBody))
		}
	}
}

// TestPlainRequestAllocations holds what http1 allocates for a plain
// keep-alive GET whose handler allocates nothing: the head's text, its
// header map (two allocations), the parts parseHead makes in one (the
// URL, the values and the request's context) and the request handed to
// the handler.
func TestPlainRequestAllocations(t *testing.T) {
	contentType := []string{"application/json"}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = contentType
		w.Write(benchBody)
	})
	addr, _ := startHTTP1(t, &http1.Server{Handler: h})
	c := dial(t, addr)
	req := []byte("GET /items/12345 HTTP/1.1\r\nHost: bench\r\nAccept: application/json\r\n\r\n")
	br := bufio.NewReaderSize(c, 16<<10)
	allocs := testing.AllocsPerRun(200, func() {
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		if n := benchclient.ReadOK(t, br); n != len(benchBody) {
			t.Fatalf("body of %d bytes, want %d", n, len(benchBody))
		}
	})
	if allocs > 5 {
		t.Errorf("%.1f allocations per request, want at most 5", allocs)
	}
}
