// Package benchclient is the client side of the HTTP benchmarks: it reads
// responses without allocating, so the allocations a benchmark reports are
// the server's.
package benchclient

import (
	"bufio"
	"bytes"
	"testing"
)

// ReadOK reads a 200 response with a Content-Length from br and returns
// its body length, failing tb on anything else.
func ReadOK(tb testing.TB, br *bufio.Reader) int {
	tb.Helper()
	return Read(tb, br, "HTTP/1.1 200 ")
}

// Read reads a response whose status line starts with status and which
// has a Content-Length from br, and returns its body length, failing tb on
// anything else.
func Read(tb testing.TB, br *bufio.Reader, status string) int {
	tb.Helper()
	line, err := br.ReadSlice('\n')
	if err != nil || !bytes.HasPrefix(line, []byte(status)) {
		tb.Fatalf("status line %q, %v", line, err)
	}
	n := -1
	for {
		if line, err = br.ReadSlice('\n'); err != nil {
			tb.Fatal(err)
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
		tb.Fatal("no Content-Length")
	}
	if _, err := br.Discard(n); err != nil {
		tb.Fatal(err)
	}
	return n
}
