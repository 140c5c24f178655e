package server_test

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/svc-dev/svc/server/internal/benchclient"
)

// BenchmarkServeRead runs reads through the whole server, one at a time on
// one keep-alive connection, against the shared fixture's PostgreSQL. The
// client reads without allocating, so the allocations reported are the
// server's (with pgx's): the figure to watch for the hot path's garbage.
// ns/op includes PostgreSQL's time and is only a rough guide; cpu-ns/op is
// the test process's CPU per request, the server's with the light client's.
func BenchmarkServeRead(b *testing.B) {
	for _, bc := range []struct{ name, target, accept string }{
		{"lookup", "/books?id=eq.1", "application/json"},
		{"page", "/books?author_id=eq.1&order=year.desc,id.desc&limit=100", "application/json"},
		{"csv", "/books?author_id=eq.1&order=year.desc,id.desc&limit=100", "text/csv"},
		{"embed", "/authors?select=id,name,books(id,title)&order=id&limit=10", "application/json"},
		{"rpc", "/rpc/add?a=1&b=2", "application/json"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			benchServeRead(b, fixture.url, bc.target, bc.accept)
		})
	}
}

// benchServeRead sends GETs of target one after another on one
// connection to the server at url, reading each answer whole.
func benchServeRead(b *testing.B, url, target, accept string) {
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	req := []byte("GET " + target + " HTTP/1.1\r\nHost: bench\r\nUser-Agent: bench\r\nAccept: " + accept + "\r\n\r\n")
	br := bufio.NewReaderSize(c, 64<<10)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		benchclient.ReadOK(b, br)
	}
}

// reportCPU starts counting the test process's CPU; the function it
// returns reports it per operation (cpu-ns/op), where the system says.
func reportCPU(b *testing.B) func() {
	cpu, measured := processCPU()
	return func() {
		if after, ok := processCPU(); measured && ok && b.N > 0 {
			b.ReportMetric(float64(after-cpu)/float64(b.N), "cpu-ns/op")
		}
	}
}

// BenchmarkServeWrite runs single-row inserts (return=minimal, as a client
// that asks for nothing gets) through the whole server, one after another
// on one keep-alive connection, as BenchmarkServeRead runs reads.
func BenchmarkServeWrite(b *testing.B) {
	c, err := net.Dial("tcp", strings.TrimPrefix(fixture.url, "http://"))
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	body := `{"name":"bench"}`
	req := []byte("POST /rpc_log HTTP/1.1\r\nHost: bench\r\nUser-Agent: bench\r\nContent-Type: application/json\r\n" +
		"Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
	br := bufio.NewReaderSize(c, 64<<10)
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		if _, err := c.Write(req); err != nil {
			b.Fatal(err)
		}
		benchclient.Read(b, br, "HTTP/1.1 201 ")
	}
}
