package server_test

import (
	"bufio"
	"bytes"
	"net"
	"strings"
	"testing"
)

// BenchmarkServeRead runs reads through the whole server, one at a time on
// one keep-alive connection, against the shared fixture's PostgreSQL. The
// client reads without allocating, so the allocations reported are the
// server's (with pgx's): the figure to watch for the hot path's garbage.
// ns/op includes PostgreSQL's time and is only a rough guide.
func BenchmarkServeRead(b *testing.B) {
	for _, bc := range []struct{ name, target, accept string }{
		{"lookup", "/books?id=eq.1", "application/json"},
		{"page", "/books?author_id=eq.1&order=year.desc,id.desc&limit=100", "application/json"},
		{"csv", "/books?author_id=eq.1&order=year.desc,id.desc&limit=100", "text/csv"},
		{"embed", "/authors?select=id,name,books(id,title)&order=id&limit=10", "application/json"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c, err := net.Dial("tcp", strings.TrimPrefix(fixture.url, "http://"))
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			req := []byte("GET " + bc.target + " HTTP/1.1\r\nHost: bench\r\nUser-Agent: bench\r\nAccept: " + bc.accept + "\r\n\r\n")
			br := bufio.NewReaderSize(c, 64<<10)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Write(req); err != nil {
					b.Fatal(err)
				}
				readOKResponse(b, br)
			}
		})
	}
}

// readOKResponse reads a 200 response with a Content-Length, without
// allocating.
func readOKResponse(b *testing.B, br *bufio.Reader) {
	line, err := br.ReadSlice('\n')
	if err != nil || !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		b.Fatalf("status line %q, %v", line, err)
	}
	n := -1
	for {
		if line, err = br.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
		if len(line) <= 2 {
			break
		}
		if v, ok := bytes.CutPrefix(line, []byte("Content-Length: ")); ok {
			n = 0
			for _, ch := range bytes.TrimSpace(v) {
				n = 10*n + int(ch-'0')
			}
		}
	}
	if n < 0 {
		b.Fatal("no Content-Length")
	}
	if _, err := br.Discard(n); err != nil {
		b.Fatal(err)
	}
}
