package framing

import (
	"bufio"
	"bytes"
	"net/textproto"
	"strings"
	"testing"
)

var scanCases = []struct {
	name string
	in   string
	want bool
}{
	{"Content-Length then Transfer-Encoding", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", true},
	{"Transfer-Encoding then Content-Length", "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nHost: a\r\nContent-Length: 5\r\n\r\n", true},
	{"names in any case, no space", "POST / HTTP/1.1\r\ncontent-LENGTH:5\r\nTRANSFER-encoding:chunked\r\n\r\n", true},
	{"bare LF line ends", "POST / HTTP/1.1\nContent-Length: 5\nTransfer-Encoding: chunked\n\n", true},
	{"the second of two pipelined requests", "GET / HTTP/1.1\r\nHost: a\r\n\r\n" +
		"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", true},
	{"after a body that ends mid-line", "POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc" +
		"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", true},
	{"after a long header line", "POST / HTTP/1.1\r\nX-Pad: " + strings.Repeat("p", 300) +
		"\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", true},
	{"Content-Length alone", "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello", false},
	{"Transfer-Encoding alone", "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n", false},
	{"one field in each of two requests", "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello" +
		"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", false},
	{"a blank line of a bare CR ends a section", "POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\n" +
		"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", false},
	{"a folded line is not a field", "POST / HTTP/1.1\r\nX-A: b\r\n Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", false},
	{"longer names are other fields", "POST / HTTP/1.1\r\nX-Content-Length: 5\r\nTransfer-Encoding-X: chunked\r\n\r\n", false},
	{"a name without its colon", "POST / HTTP/1.1\r\nContent-Length 5\r\nTransfer-Encoding: chunked\r\n\r\n", false},
}

// TestScanner feeds each case whole, a byte at a time, and split in two
// at every place: where the reads end must not matter.
func TestScanner(t *testing.T) {
	t.Parallel()
	for _, c := range scanCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var whole, bytewise Scanner
			whole.Scan([]byte(c.in))
			for i := range len(c.in) {
				bytewise.Scan([]byte{c.in[i]})
			}
			if whole.Conflicted() != c.want || bytewise.Conflicted() != c.want {
				t.Fatalf("whole: %v, byte by byte: %v, want %v", whole.Conflicted(), bytewise.Conflicted(), c.want)
			}
			for i := 1; i < len(c.in); i++ {
				var s Scanner
				s.Scan([]byte(c.in[:i]))
				s.Scan([]byte(c.in[i:]))
				if s.Conflicted() != c.want {
					t.Fatalf("split at %d: %v, want %v", i, s.Conflicted(), c.want)
				}
			}
		})
	}
}

// TestConflictStays: once a request framed both ways has come, the
// requests after it do not clear the alarm.
func TestConflictStays(t *testing.T) {
	t.Parallel()
	var s Scanner
	s.Scan([]byte("POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"))
	s.Scan([]byte("GET / HTTP/1.1\r\nHost: a\r\n\r\n"))
	if !s.Conflicted() {
		t.Fatal("a later request cleared the conflict")
	}
}

// FuzzScanner checks the Scanner against net/http's own header parser
// (net/textproto, which http.ReadRequest uses): whatever header section
// it reads with both fields, split wherever the reads end, the Scanner
// must have noticed. (The converse need not hold: a body may raise a
// false alarm.)
func FuzzScanner(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c.in), uint(len(c.in)/2))
	}
	f.Fuzz(func(t *testing.T, in []byte, split uint) {
		tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(in)))
		if _, err := tp.ReadLine(); err != nil {
			return
		}
		h, err := tp.ReadMIMEHeader()
		if err != nil || h["Content-Length"] == nil || h["Transfer-Encoding"] == nil {
			return
		}
		var s Scanner
		at := int(split % uint(len(in)+1))
		s.Scan(in[:at])
		s.Scan(in[at:])
		if !s.Conflicted() {
			t.Fatalf("net/textproto reads Content-Length %q and Transfer-Encoding %q in %q; the Scanner missed them",
				h["Content-Length"], h["Transfer-Encoding"], in)
		}
	})
}

// BenchmarkScan is the Scanner's cost per byte a client sends: a JSON
// body of short lines, the worst case for its per-line work.
func BenchmarkScan(b *testing.B) {
	body := []byte(strings.Repeat("{\"id\":1,\"name\":\"a name\"},\n", 2500))
	b.SetBytes(int64(len(body)))
	var s Scanner
	for b.Loop() {
		s.Scan(body)
	}
}
